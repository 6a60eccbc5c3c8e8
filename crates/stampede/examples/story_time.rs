//! Native timing of story 2 at 100× (`stories::scaled(&stories::crash(), 100)`: 100,000
//! clients, 200 servers with queues, a 1 s timeout and a storm that fills every queue), the
//! run issue 13's bar of 30 million events a second is about. For quick comparisons of two
//! builds run in turn (the criterion benchmark `stories/crash-x100` is the reference).
//!
//! `cargo run --release -p stampede --example story_time -- [reps]` prints one JSON line:
//! `{"story":"crash-x100","reps":5,"bestMs":…,"events":…,"eventsPerSecond":…}`, the best of
//! `reps` runs (default 5), each `Simulation::new` + `run` + `metrics`.

use std::time::Instant;

use stampede::sim::{Simulation, stories};

fn main() {
    let reps = match std::env::args().nth(1).map(|a| a.parse::<u32>()) {
        None => 5,
        Some(Ok(n)) if (1..=1000).contains(&n) => n,
        Some(_) => {
            eprintln!("story_time: reps must be a whole number from 1 to 1000");
            std::process::exit(2);
        }
    };
    let settings = stories::scaled(&stories::crash(), 100);
    let mut best = f64::INFINITY;
    let mut events = 0;
    for _ in 0..reps {
        let t = Instant::now();
        let mut sim = Simulation::new(&settings).expect("a story's settings are valid");
        sim.run();
        std::hint::black_box(sim.metrics());
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
        events = sim.events();
    }
    let per_s = events as f64 / (best / 1000.0);
    println!(
        r#"{{"story":"crash-x100","reps":{reps},"bestMs":{best:.1},"events":{events},"eventsPerSecond":{per_s:.0}}}"#
    );
}
