//! cargo-fuzz target `status_set`: see `fuzz/checks/status_set.rs` for the properties checked.
#![no_main]

#[path = "../checks/mod.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::status_set::check(data));
