//! `callbench`: parse, dispatch, map errors to an exit code. The work is in the library crates.

mod cli;
mod commands;
mod config;
mod evaluate;

use clap::Parser;

// Role-play at scale allocates many small strings and JSON values from many tasks at once;
// mimalloc's thread-local heaps take most of glibc malloc's contention off the hot path.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::process::ExitCode;

/// Makes mimalloc return freed memory to the OS at once rather than a second later. `generate`
/// frees on the writer thread what the role-play tasks allocated, and the sample streams a
/// corpus through in large buffers: with the default delay, freed-but-not-yet-purged pages
/// piled up to a third of the peak RSS (500,000 dialogues: 175 MB for the sample alone against
/// 113 MB purged at once, the same speed within noise). `MIMALLOC_PURGE_DELAY` in the
/// environment still wins.
fn purge_freed_memory_at_once() {
    // `mi_option_purge_delay` (mimalloc.h, v2 and v3 alike); the C library is linked in through
    // libmimalloc-sys, whose Rust bindings do not name this option. Its default is 1,000 ms in
    // v3 (the version libmimalloc-sys builds by default) and 10 ms in v2.
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
    const DEFAULT_DELAYS_MS: [std::ffi::c_long; 2] = [1000, 10];
    unsafe extern "C" {
        fn mi_option_get(option: std::ffi::c_int) -> std::ffi::c_long;
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: plain reads and writes of a mimalloc option, before any other thread exists. The
    // default value is checked first, so that a mimalloc whose options are numbered otherwise
    // is left alone.
    unsafe {
        if DEFAULT_DELAYS_MS.contains(&mi_option_get(MI_OPTION_PURGE_DELAY)) {
            mi_option_set(MI_OPTION_PURGE_DELAY, 0);
        }
    }
}

fn main() -> ExitCode {
    purge_freed_memory_at_once();
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
