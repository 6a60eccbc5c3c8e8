//! Value stability: pinned seeds give exactly the pinned bits. The wasm build's tests in a
//! browser check the same values (`golden/values.rs`), so a seed gives the same numbers
//! natively and in wasm, down to the last bit.

#[path = "golden/values.rs"]
mod values;

use stampede::backoff::Strategy;
use stampede::sim::Simulation;

/// Bits as numbers, for a readable failure.
fn show(bits: &[u64]) -> Vec<f64> {
    bits.iter().copied().map(f64::from_bits).collect()
}

#[test]
fn every_strategy_gives_its_pinned_delays() {
    // One entry per strategy, so a new strategy cannot go unpinned.
    let pinned: Vec<Strategy> = values::DELAYS_200_30000_SEED_42
        .iter()
        .map(|(s, _)| *s)
        .collect();
    assert_eq!(pinned, Strategy::ALL);
    for (strategy, want) in values::DELAYS_200_30000_SEED_42 {
        let got = values::delays_bits(strategy);
        assert_eq!(
            got,
            want,
            "{strategy}: got {:?}, pinned {:?}",
            show(&got),
            show(&want)
        );
    }
}

#[test]
fn every_golden_run_gives_its_pinned_numbers() {
    for (name, settings, want) in values::runs() {
        let mut sim = Simulation::new(&settings).unwrap();
        sim.run();
        let got = values::metrics_bits(&sim.metrics());
        assert_eq!(
            got,
            want,
            "{name}: got {:?}, pinned {:?}",
            show(&got),
            show(&want)
        );
    }
}

/// The deterministic strategies' values, spelled out: the bits above are these numbers.
#[test]
fn the_deterministic_bits_are_the_formulas() {
    let ms = |bits: [u64; 5]| bits.map(f64::from_bits);
    assert_eq!(ms(values::NONE_200_30000_SEED_42), [0.0; 5]);
    assert_eq!(ms(values::CONSTANT_200_30000_SEED_42), [200.0; 5]);
    assert_eq!(
        ms(values::EXPONENTIAL_200_30000_SEED_42),
        [200.0, 400.0, 800.0, 1600.0, 3200.0]
    );
}
