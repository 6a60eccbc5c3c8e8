//! Native timing of the 10,000-client burst the page re-simulates on every slider move, for
//! comparison with the WebAssembly build in one run (`make bench-wasm` runs this, then the
//! same simulation in wasm, and checks the ratio).
//!
//! `cargo run --release -p stampede --example burst_time -- [reps] [clients]` prints one
//! JSON line: `{"clients":10000,"reps":30,"runs":[{"strategy":"full","bestMs":…,
//! "totalAttempts":…,"events":…,"eventsPerSecond":…},…]}` (events: the model's, see
//! `Simulation::events`; per second of the best run). `clients` (default 10,000, at most 1,000,000) times other
//! sizes the same way: `-- 3 1000000` for the million-client burst. `base_ms` (default 200,
//! at most 60,000), the third argument, times other first delays: `-- 10 100000 2000` is the
//! page's 100,000-client herd (its default base, the article's 2 s).
//! Each run is `Simulation::new` + `run` + `metrics`, as the wasm `Simulation` does it:
//! burst, full or exponential backoff, base 200 ms, cap 30 s, ×2, 6 attempts, a 2 s outage,
//! capacity 500 rps, seed 1; the best of `reps` (default 30) after one warm-up run.

use std::time::Instant;

use stampede::backoff::{BackoffSettings, Strategy};
use stampede::policy::PolicySettings;
use stampede::sim::{Scenario, SimSettings, Simulation};

fn main() {
    let arg = |i: usize, name: &str, default: u32, max: u32| match std::env::args().nth(i) {
        None => default,
        Some(a) => match a.parse() {
            Ok(n) if n > 0 && n <= max => n,
            _ => {
                eprintln!("burst_time: {name} must be a whole number from 1 to {max}, got {a:?}");
                std::process::exit(2);
            }
        },
    };
    let reps = arg(1, "reps", 30, 100_000);
    let clients = arg(2, "clients", 10_000, 1_000_000);
    let base_ms = arg(3, "base_ms", 200, 60_000);
    let mut runs = Vec::new();
    for strategy in [Strategy::Full, Strategy::Exponential] {
        let settings = SimSettings {
            scenario: Scenario::Burst,
            clients,
            policy: PolicySettings::new(
                BackoffSettings::new(strategy, f64::from(base_ms), 30_000.0).with_multiplier(2.0),
                6,
            ),
            outage_ms: 2000.0,
            capacity_rps: 500.0,
            seed: 1,
            ..SimSettings::default()
        };
        let once = || {
            let mut sim = Simulation::new(&settings).expect("valid settings");
            sim.run();
            (sim.metrics().total_attempts, sim.events())
        };
        let (attempts, events) = once(); // warm-up
        let mut best = f64::INFINITY;
        for _ in 0..reps {
            let t = Instant::now();
            let a = std::hint::black_box(once());
            best = best.min(t.elapsed().as_secs_f64() * 1000.0);
            assert_eq!(a, (attempts, events), "a seeded run is deterministic");
        }
        runs.push(format!(
            r#"{{"strategy":"{}","bestMs":{best:.4},"totalAttempts":{attempts},"events":{events},"eventsPerSecond":{:.0}}}"#,
            strategy.name(),
            events as f64 / (best / 1000.0)
        ));
    }
    println!(
        r#"{{"clients":{clients},"reps":{reps},"baseMs":{base_ms},"runs":[{}]}}"#,
        runs.join(",")
    );
}
