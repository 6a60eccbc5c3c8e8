//! cargo-fuzz target `retry_after`: see `fuzz/checks/retry_after.rs` for the properties checked.
#![no_main]

#[path = "../checks/mod.rs"]
#[allow(dead_code)]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::retry_after::check(data));
