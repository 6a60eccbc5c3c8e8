//! cargo-fuzz target `duration`: the CLI's duration parser; see `fuzz/checks/duration.rs`.
//!
//! `args.rs` is compiled in by path rather than through the `stampede-cli` crate: it needs
//! only the core crate, and this keeps axum, tokio and clap out of every fuzz build.
#![no_main]

#[path = "../checks/mod.rs"]
#[allow(dead_code)]
mod checks;

#[path = "../../crates/stampede-cli/src/args.rs"]
#[allow(dead_code)]
mod args;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // `--outage`'s parser: a duration flag whose range is the whole of 0 ms to a day.
    checks::duration::check(data, args::duration(stampede::Field::Outage))
});
