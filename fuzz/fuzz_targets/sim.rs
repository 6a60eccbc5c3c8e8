//! cargo-fuzz target `sim`: see `fuzz/checks/sim.rs` for the properties checked.
#![no_main]

#[path = "../checks/mod.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::sim::check(data));
