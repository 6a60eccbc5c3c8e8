//! Replays the checked-in fuzz corpora (`fuzz/corpus/<target>/`) through the same checks
//! the cargo-fuzz targets run, on stable: an input that once passed and now fails is a
//! regression, and fails `cargo test`. The checks and their properties are in
//! `fuzz/checks/`; `make fuzz` grows the corpora.

#[path = "../../../fuzz/checks/mod.rs"]
#[allow(dead_code)]
mod checks;

#[test]
fn retry_after() {
    checks::replay("retry_after", checks::retry_after::check);
}

#[test]
fn pushback() {
    checks::replay("pushback", checks::pushback::check);
}

#[test]
fn classify() {
    checks::replay("classify", checks::classify::check);
}

#[test]
fn status_set() {
    checks::replay("status_set", checks::status_set::check);
}

#[test]
fn settings() {
    checks::replay("settings", checks::settings::check);
}

#[test]
fn sim() {
    checks::replay("sim", checks::sim::check);
}
