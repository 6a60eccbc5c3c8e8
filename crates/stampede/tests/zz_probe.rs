mod support;
use stampede::sim::*;
use support::*;
#[test]
fn probe() {
    for (n, seeds) in [(25_000.0, 8u64), (100_000.0, 2)] {
        let mut v = vec![];
        for seed in 0..seeds {
            let s = SimSettings {
                service_dist: ServiceDist::Constant,
                service_slope_ms: 1.0,
                seed: 100 + seed,
                ..server_alone(400.0, 0, 100.0, n)
            };
            let m = simulate(&s).metrics();
            v.push(m.mean_ms.unwrap());
        }
        println!("n {n}: {:?} theory {}", v, 100.0 / (1.0 - 0.4));
    }
}
