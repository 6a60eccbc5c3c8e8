//! The simulator's speed: a `burst` of 10k, 100k and 1M clients, 6 attempts, a 2 s outage.
//! `cargo bench -p stampede --bench sim`; events per second are attempts per second (the
//! simulator processes one event per attempt).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use stampede::backoff::{BackoffSettings, Strategy};
use stampede::policy::PolicySettings;
use stampede::sim::{SimSettings, Simulation};

fn settings(strategy: Strategy, clients: u32) -> SimSettings {
    SimSettings {
        clients,
        policy: PolicySettings::new(BackoffSettings::new(strategy, 200.0, 30_000.0), 6),
        ..SimSettings::default()
    }
}

fn burst(c: &mut Criterion) {
    let mut group = c.benchmark_group("burst");
    for clients in [10_000u32, 100_000, 1_000_000] {
        for strategy in [Strategy::Full, Strategy::Exponential] {
            let s = settings(strategy, clients);
            let events = Simulation::new(&s).unwrap().run().metrics().total_attempts as u64;
            group.throughput(Throughput::Elements(events));
            if clients >= 100_000 {
                group.sample_size(10);
            }
            group.bench_with_input(BenchmarkId::new(strategy.name(), clients), &s, |b, s| {
                b.iter(|| Simulation::new(s).unwrap().run().metrics())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, burst);
criterion_main!(benches);
