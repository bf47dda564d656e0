//! `callbench`: parse, dispatch, map errors to an exit code. The work is in the library crates.

mod cli;
mod commands;
mod config;

use clap::Parser;

// Role-play at scale allocates many small strings and JSON values from many tasks at once;
// mimalloc's thread-local heaps take most of glibc malloc's contention off the hot path.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args = cli::Args::parse();
    cli::init_tracing(args.verbose);
    match commands::run(args) {
        Ok(code) => code,
        Err(e) => {
            // Library errors already carry their cause in their message; add only what is new.
            let mut msg = e.to_string();
            for cause in e.chain().skip(1) {
                let c = cause.to_string();
                if !msg.contains(&c) {
                    msg.push_str(": ");
                    msg.push_str(&c);
                }
            }
            eprintln!("error: {msg}");
            ExitCode::from(2)
        }
    }
}
