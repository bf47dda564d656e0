//! `callbench`: parse, dispatch, map errors to an exit code. The work is in the library crates.

mod cli;
mod commands;
mod config;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    cli::init_tracing(args.verbose);
    match commands::run(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
