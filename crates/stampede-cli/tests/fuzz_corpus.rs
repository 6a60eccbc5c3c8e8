//! Replays the checked-in corpus of the `duration` fuzz target (`fuzz/corpus/duration/`)
//! through its check (`fuzz/checks/duration.rs`) and the CLI's own parser, on stable.

#[path = "../../../fuzz/checks/mod.rs"]
#[allow(dead_code)]
mod checks;

#[test]
fn duration() {
    checks::replay("duration", |data| {
        checks::duration::check(data, stampede_cli::args::duration(stampede::Field::Base))
    });
}
