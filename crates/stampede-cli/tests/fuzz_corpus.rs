//! Replays the checked-in corpus of the `duration` fuzz target (`fuzz/corpus/duration/`)
//! through its check (`fuzz/checks/duration.rs`) and the CLI's own parser for a duration
//! flag of the full range (`--outage`: 0 to a day), on stable.

#[path = "../../../fuzz/checks/mod.rs"]
#[allow(dead_code)]
mod checks;

#[test]
fn duration() {
    checks::replay("duration", |data| {
        checks::duration::check(data, stampede_cli::args::duration(stampede::Field::Outage))
    });
}
