//! The simulator's speed, in the model's events per second ([`Simulation::events`]):
//! a `burst` of 10k, 100k and 1M clients (6 attempts, a 2 s outage), and the queueing
//! stories of [`stampede::sim::stories`], story 2 also at 100× (7,000 requests a second,
//! 200 servers, 100,000 clients, 60 s), and points of the AWS grid (`aws-occ`, the runs a
//! sweep makes through [`stampede::sim::run`]: no series, no log). `cargo bench -p stampede
//! --bench sim`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use stampede::backoff::{BackoffSettings, Strategy};
use stampede::policy::PolicySettings;
use stampede::sim::{Scenario, SimSettings, Simulation, run, stories};

fn settings(strategy: Strategy, clients: u32) -> SimSettings {
    SimSettings {
        clients,
        policy: PolicySettings::new(BackoffSettings::new(strategy, 200.0, 30_000.0), 6),
        ..SimSettings::default()
    }
}

fn events(s: &SimSettings) -> u64 {
    Simulation::new(s).unwrap().run().events()
}

fn burst(c: &mut Criterion) {
    let mut group = c.benchmark_group("burst");
    for clients in [10_000u32, 100_000, 1_000_000] {
        for strategy in [Strategy::Full, Strategy::Exponential] {
            let s = settings(strategy, clients);
            group.throughput(Throughput::Elements(events(&s)));
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

fn stories(c: &mut Criterion) {
    let mut group = c.benchmark_group("stories");
    group.sample_size(10);
    let runs = [
        ("collapse", stories::collapse()),
        ("collapse-jittered", stories::collapse_jittered()),
        ("crash", stories::crash()),
        (
            "crash-jitter-budget",
            stories::crash_with_jitter_and_budget(),
        ),
        ("crash-x100", stories::scaled(&stories::crash(), 100)),
    ];
    for (name, s) in runs {
        group.throughput(Throughput::Elements(events(&s)));
        group.bench_with_input(BenchmarkId::from_parameter(name), &s, |b, s| {
            b.iter(|| Simulation::new(s).unwrap().run().metrics())
        });
    }
    group.finish();
}

/// One run of the AWS grid's points at 100 and 190 clients: the costliest corner (no
/// jitter) and a jittered one. Throughput in the model's events (four messages a write).
fn aws_occ(c: &mut Criterion) {
    let mut group = c.benchmark_group("aws-occ");
    for (strategy, clients) in [
        (Strategy::None, 190u32),
        (Strategy::Exponential, 190),
        (Strategy::Full, 190),
        (Strategy::Full, 100),
    ] {
        let s = SimSettings {
            scenario: Scenario::AwsOcc,
            clients,
            policy: PolicySettings::new(BackoffSettings::new(strategy, 5.0, 2000.0), 6),
            ..SimSettings::default()
        };
        group.throughput(Throughput::Elements(events(&s)));
        let id = BenchmarkId::new(strategy.name(), clients);
        group.bench_with_input(id, &s, |b, s| b.iter(|| run(s).unwrap()));
    }
    group.finish();
}

criterion_group!(benches, burst, stories, aws_occ);
criterion_main!(benches);
