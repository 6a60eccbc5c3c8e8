use proptest::prelude::{any, prop_assert, proptest};
use proptest::strategy::Strategy as _;

use super::*;
use crate::{MAX_DURATION_MS, SeededRng, seeded};

fn build(strategy: Strategy, base: f64, cap: f64) -> Backoff {
    BackoffSettings::new(strategy, base, cap).build().unwrap()
}

fn first<const N: usize>(b: &Backoff, seed: u64) -> [f64; N] {
    let mut rng = seeded(seed);
    let mut it = b.delays_ms(&mut rng);
    core::array::from_fn(|_| it.next().unwrap())
}

// ---- exact sequences where nothing is random ----

#[test]
fn exponential_matches_the_article() {
    // base 200 ms, cap 30 s: 200, 400, 800, 1600 … the 8th retry waits 25.6 s, the 9th the cap.
    let b = build(Strategy::Exponential, 200.0, 30_000.0);
    assert_eq!(
        first::<10>(&b, 0),
        [
            200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0, 12800.0, 25600.0, 30000.0, 30000.0
        ]
    );
}

#[test]
fn none_and_constant() {
    assert_eq!(
        first::<4>(&build(Strategy::None, 200.0, 30_000.0), 0),
        [0.0; 4]
    );
    assert_eq!(
        first::<4>(&build(Strategy::Constant, 2000.0, 30_000.0), 0),
        [2000.0; 4]
    );
}

/// `Strategy::reads` against the draws: the same seed gives the same delays with a base,
/// cap or multiplier changed exactly for the strategies that say they do not read it.
#[test]
fn a_strategy_reads_exactly_the_backoff_settings_it_says() {
    for strategy in Strategy::ALL {
        let draws = |base: f64, cap: f64, m: f64| {
            let b = BackoffSettings::new(strategy, base, cap)
                .with_multiplier(m)
                .build()
                .unwrap();
            first::<6>(&b, 7)
        };
        let plain = draws(100.0, 60_000.0, 2.0);
        for (field, changed) in [
            (Field::Base, draws(300.0, 60_000.0, 2.0)),
            (Field::Cap, draws(100.0, 500.0, 2.0)),
            (Field::Multiplier, draws(100.0, 60_000.0, 5.0)),
        ] {
            assert_eq!(
                changed != plain,
                strategy.reads(field),
                "{strategy} {field:?}"
            );
        }
    }
}

#[test]
fn multiplier_three() {
    let b = BackoffSettings::new(Strategy::Exponential, 100.0, 5_000.0)
        .with_multiplier(3.0)
        .build()
        .unwrap();
    assert_eq!(
        first::<6>(&b, 0),
        [100.0, 300.0, 900.0, 2700.0, 5000.0, 5000.0]
    );
    let flat = BackoffSettings::new(Strategy::Exponential, 100.0, 5_000.0)
        .with_multiplier(1.0)
        .build()
        .unwrap();
    assert_eq!(flat.ceiling_ms(u32::MAX), 100.0);
}

#[test]
fn ceiling_saturates_instead_of_overflowing() {
    let b = build(Strategy::Exponential, 200.0, 30_000.0);
    for n in [8, 9, 63, 64, 100, 1000, 1024, 1_000_000, u32::MAX] {
        assert_eq!(b.ceiling_ms(n), 30_000.0, "n = {n}");
    }
    let huge = BackoffSettings::new(Strategy::Full, 1.0, MAX_DURATION_MS)
        .with_multiplier(MAX_MULTIPLIER)
        .build()
        .unwrap();
    assert_eq!(huge.ceiling_ms(3), MAX_DURATION_MS);
    assert_eq!(huge.ceiling_ms(2), 1_000_000.0);
    let zero = build(Strategy::Exponential, 0.0, 0.0);
    assert_eq!(zero.ceiling_ms(1000), 0.0);
}

#[test]
fn retry_number_1000_waits_the_cap_for_every_capped_strategy() {
    for s in [
        Strategy::Exponential,
        Strategy::Full,
        Strategy::Equal,
        Strategy::Decorrelated,
        Strategy::DecorrelatedV2,
    ] {
        let b = build(s, 200.0, 30_000.0);
        let mut rng = seeded(7);
        let d = b.delays_ms(&mut rng).nth(1000).unwrap();
        assert!(d.is_finite() && (0.0..=30_000.0).contains(&d), "{s}: {d}");
        if matches!(s, Strategy::Exponential | Strategy::DecorrelatedV2) {
            assert_eq!(d, 30_000.0, "{s}");
        }
    }
}

#[test]
fn reset_starts_over() {
    let b = build(Strategy::Exponential, 100.0, 10_000.0);
    let mut rng = seeded(0);
    let mut st = b.start();
    b.next_ms(&mut st, &mut rng);
    b.next_ms(&mut st, &mut rng);
    assert_eq!(st.retries(), 2);
    b.reset(&mut st);
    assert_eq!(b.next_ms(&mut st, &mut rng), 100.0);
}

#[test]
fn durations_iterator_agrees_with_ms() {
    let b = build(Strategy::Exponential, 1500.0, 30_000.0);
    let mut rng = seeded(0);
    let d: Vec<_> = b.delays(&mut rng).take(2).collect();
    assert_eq!(
        d,
        [Duration::from_millis(1500), Duration::from_millis(3000)]
    );
}

// ---- validation ----

#[test]
fn invalid_settings_are_rejected_with_the_field_named() {
    let cases = [
        (
            BackoffSettings::new(Strategy::Full, f64::NAN, 1000.0),
            "base",
        ),
        (BackoffSettings::new(Strategy::Full, -1.0, 1000.0), "base"),
        (
            BackoffSettings::new(Strategy::Full, f64::INFINITY, 1000.0),
            "base",
        ),
        (BackoffSettings::new(Strategy::Full, 100.0, f64::NAN), "cap"),
        (BackoffSettings::new(Strategy::Full, 100.0, 50.0), "cap"),
        (
            BackoffSettings::new(Strategy::Full, 100.0, MAX_DURATION_MS * 2.0),
            "cap",
        ),
        (
            BackoffSettings::new(Strategy::Full, 100.0, 1000.0).with_multiplier(0.5),
            "multiplier",
        ),
        (
            BackoffSettings::new(Strategy::Full, 100.0, 1000.0).with_multiplier(f64::NAN),
            "multiplier",
        ),
    ];
    for (settings, field) in cases {
        let err = settings.build().unwrap_err();
        assert_eq!(err.field, field, "{settings:?}");
        assert!(err.to_string().starts_with(field), "{err}");
    }
    assert_eq!(
        BackoffSettings::new(Strategy::Full, 100.0, 50.0)
            .build()
            .unwrap_err()
            .to_string(),
        "cap: expected a duration at least base (100 ms) and at most 86400000 ms, got 50"
    );
}

/// The cap must be at least the base only for the strategies that read it: `none` and
/// `constant` take any cap in range, and their delays do not change with it.
#[test]
fn only_a_strategy_that_reads_the_cap_refuses_one_below_the_base() {
    for strategy in Strategy::ALL {
        let built = BackoffSettings::new(strategy, 2000.0, 1000.0).build();
        assert_eq!(built.is_ok(), !strategy.reads(Field::Cap), "{strategy:?}");
        if let Ok(b) = built {
            let wide = BackoffSettings::new(strategy, 2000.0, 30_000.0)
                .build()
                .unwrap();
            let (mut s, mut w) = (b.start(), wide.start());
            let (mut r1, mut r2) = (crate::seeded(3), crate::seeded(3));
            for _ in 0..5 {
                assert_eq!(b.next_ms(&mut s, &mut r1), wide.next_ms(&mut w, &mut r2));
            }
        }
    }
}

/// A default never refuses the value given beside it: a missing cap follows a longer base,
/// a missing base a shorter cap; values given are kept as they are.
#[test]
fn a_default_follows_the_value_given_beside_it() {
    let f =
        |base, cap| BackoffSettings::base_cap_for(Strategy::Full, (2000.0, 30_000.0), base, cap);
    assert_eq!(f(None, None), (2000.0, 30_000.0));
    assert_eq!(f(Some(40_000.0), None), (40_000.0, 40_000.0));
    assert_eq!(f(Some(100.0), None), (100.0, 30_000.0));
    assert_eq!(f(None, Some(1000.0)), (1000.0, 1000.0));
    assert_eq!(f(None, Some(5000.0)), (2000.0, 5000.0));
    assert_eq!(f(Some(3000.0), Some(1000.0)), (3000.0, 1000.0));
    // A value out of its own range takes nothing with it: its error names it.
    assert_eq!(f(None, Some(-1.0)), (2000.0, -1.0));
    assert_eq!(f(Some(1e300), None), (1e300, 30_000.0));
    assert_eq!(f(None, Some(f64::NAN)).0, 2000.0);
    // A strategy that reads no cap keeps its base beside a short cap: the cap changes
    // nothing, its delays included.
    for strategy in [Strategy::Constant, Strategy::None] {
        let (base, cap) =
            BackoffSettings::base_cap_for(strategy, (2000.0, 30_000.0), None, Some(1000.0));
        assert_eq!((base, cap), (2000.0, 1000.0), "{strategy:?}");
        let delays = |cap| {
            let b = BackoffSettings::new(strategy, 2000.0, cap).build().unwrap();
            b.delays_ms(&mut crate::seeded(1))
                .take(4)
                .collect::<Vec<_>>()
        };
        assert_eq!(delays(cap), delays(30_000.0), "{strategy:?}");
    }
}

#[test]
fn names_are_listed_in_order() {
    for (s, name) in Strategy::ALL.into_iter().zip(Strategy::NAMES) {
        assert_eq!(s.name(), name);
    }
}

#[test]
fn strategy_names_round_trip() {
    for s in Strategy::ALL {
        assert_eq!(s.name().parse::<Strategy>().unwrap(), s);
    }
    assert_eq!("FULL".parse::<Strategy>().unwrap(), Strategy::Full);
    let err = "fibonacci".parse::<Strategy>().unwrap_err();
    assert_eq!(err.field, "strategy");
    assert!(err.to_string().contains("decorrelated-v2"), "{err}");
}

// ---- bounds, where something is random ----

fn settings() -> impl proptest::strategy::Strategy<Value = (f64, f64, u64)> {
    (0.0..5_000.0f64, 0.0..100_000.0f64, any::<u64>())
        .prop_filter("cap >= base", |(b, c, _)| c >= b)
}

proptest! {
    #[test]
    fn full_is_within_zero_and_the_ceiling((base, cap, seed) in settings()) {
        let b = build(Strategy::Full, base, cap);
        let mut rng = seeded(seed);
        for (n, d) in b.delays_ms(&mut rng).take(40).enumerate() {
            let v = (base * 2f64.powi(n as i32)).min(cap);
            prop_assert!(d >= 0.0 && d <= v, "n={n} d={d} v={v}");
        }
    }

    #[test]
    fn equal_is_within_half_and_the_ceiling((base, cap, seed) in settings()) {
        let b = build(Strategy::Equal, base, cap);
        let mut rng = seeded(seed);
        for (n, d) in b.delays_ms(&mut rng).take(40).enumerate() {
            let v = (base * 2f64.powi(n as i32)).min(cap);
            prop_assert!(d >= v / 2.0 && d <= v, "n={n} d={d} v={v}");
        }
    }

    #[test]
    fn decorrelated_is_within_base_and_three_times_prev((base, cap, seed) in settings()) {
        let b = build(Strategy::Decorrelated, base, cap);
        let mut rng = seeded(seed);
        let mut prev = base;
        for d in b.delays_ms(&mut rng).take(40) {
            prop_assert!(d >= base && d <= cap.min(3.0 * prev).max(base), "d={d} prev={prev}");
            prev = d;
        }
    }

    #[test]
    fn every_strategy_stays_in_zero_to_cap(
        (base, cap, seed) in settings(),
        mult in 1.0..10.0f64,
        s in 0usize..7,
    ) {
        let b = BackoffSettings::new(Strategy::ALL[s], base, cap).with_multiplier(mult).build().unwrap();
        let mut rng = seeded(seed);
        for d in b.delays_ms(&mut rng).take(100) {
            prop_assert!(d.is_finite() && d >= 0.0 && d <= cap, "{d}");
        }
    }
}

// ---- statistics (seeded; tolerances stated) ----

/// Full jitter's n-th delay is uniform on [0, v): check the mean and a Kolmogorov–Smirnov
/// statistic against the uniform CDF.
#[test]
fn full_jitter_is_uniform() {
    let b = build(Strategy::Full, 100.0, 100_000.0);
    let n_samples = 20_000;
    let retry = 3; // v = 800 ms
    let v = 800.0;
    let mut rng = seeded(2024);
    let mut xs: Vec<f64> = (0..n_samples)
        .map(|_| b.delays_ms(&mut rng).nth(retry).unwrap() / v)
        .collect();
    let mean = xs.iter().sum::<f64>() / n_samples as f64;
    // The standard error of the mean of U(0,1) is sqrt(1/12/n) ≈ 0.002; allow 5 of them.
    assert!((mean - 0.5).abs() < 0.01, "mean {mean}");
    xs.sort_by(f64::total_cmp);
    let d = xs
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let lo = x - i as f64 / n_samples as f64;
            let hi = (i + 1) as f64 / n_samples as f64 - x;
            lo.max(hi)
        })
        .fold(0.0, f64::max);
    // The KS critical value at α = 0.001 is 1.95 / sqrt(n) ≈ 0.0138 for n = 20 000.
    assert!(d < 1.95 / (n_samples as f64).sqrt(), "KS statistic {d}");
}

#[test]
fn equal_jitter_mean_is_three_quarters_of_the_ceiling() {
    let b = build(Strategy::Equal, 1000.0, 100_000.0);
    let mut rng = seeded(5);
    let n = 20_000;
    let mean = (0..n)
        .map(|_| b.delays_ms(&mut rng).next().unwrap())
        .sum::<f64>()
        / n as f64;
    // U(500, 1000) has mean 750 and sd 144; the standard error is ≈ 1 ms: allow 5 ms.
    assert!((mean - 750.0).abs() < 5.0, "mean {mean}");
}

#[test]
fn decorrelated_v2_medians_double() {
    // Polly's V2: the first two retries have medians close to the median first delay
    // (0.9× and 1.1×), and from the third on the medians double: 2×, 4×, 8× …
    let b = build(Strategy::DecorrelatedV2, 100.0, 1e7);
    let mut rng = seeded(11);
    let runs = 10_001;
    let mut by_retry: Vec<Vec<f64>> = (0..6).map(|_| Vec::with_capacity(runs)).collect();
    for _ in 0..runs {
        for (n, d) in b.delays_ms(&mut rng).take(6).enumerate() {
            by_retry[n].push(d);
        }
    }
    let ladder = [1.0, 1.0, 2.0, 4.0, 8.0, 16.0];
    for (n, mut ds) in by_retry.into_iter().enumerate() {
        ds.sort_by(f64::total_cmp);
        let median = ds[runs / 2];
        let want = 100.0 * ladder[n];
        // Within 15% of the ladder: the formula's own offset at n = 0, 1 is ~11%; sampling
        // noise on a median of 10 001 draws is under 2%.
        assert!(
            (median / want - 1.0).abs() < 0.15,
            "retry {n}: median {median}, want ≈ {want}"
        );
    }
}

#[test]
fn jitter_spreads_a_herd_and_exponential_does_not() {
    let mut rng = seeded(3);
    let spread = |s: Strategy, rng: &mut SeededRng| {
        let b = build(s, 2000.0, 30_000.0);
        let firsts: Vec<f64> = (0..1000)
            .map(|_| b.delays_ms(rng).next().unwrap())
            .collect();
        let lo = firsts.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = firsts.iter().copied().fold(0.0, f64::max);
        hi - lo
    };
    assert_eq!(spread(Strategy::Exponential, &mut rng), 0.0);
    assert!(spread(Strategy::Full, &mut rng) > 1900.0);
    assert!(spread(Strategy::Equal, &mut rng) > 900.0);
}

// ---- value stability: pinned to the bit for every strategy in tests/golden.rs, whose
// values the wasm build and the JS tests check too ----
