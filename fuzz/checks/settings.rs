//! Settings from arbitrary numbers: NaN, ±infinity, −0, subnormals, huge values, and the
//! edges of every range.
//!
//! Properties: each constructor (`BackoffSettings::build`, `BudgetSettings::build`,
//! `PolicySettings::build`, `RetryRules::with_max_retry_after_ms`, `SimSettings::validate`)
//! returns `Ok` exactly when every value is finite and in its documented range, keeps the
//! values it was given, and otherwise returns an error whose message starts with the name
//! of a field that is out of range — never a panic. What a valid setting then produces
//! stays in range: every backoff delay in `[0, cap]` and the strategy's own bounds, the
//! envelope non-decreasing; a bucket's tokens in `[0, capacity]` whatever the sequence of
//! calls and clock. A rejected number, as errors write it (`Got::Number`'s `Display`), reads
//! back to the number it was given.

use core::fmt::Display;

use stampede::backoff::{Backoff, BackoffSettings, MAX_MULTIPLIER, Strategy};
use stampede::budget::{BudgetSettings, MAX_TOKENS, TokenBucket};
use stampede::classify::RetryRules;
use stampede::policy::{MAX_ATTEMPTS, PolicySettings};
use stampede::sim::{
    MAX_CLIENTS, MAX_OCC_CLIENTS, MAX_RATE, MAX_RUN_ATTEMPTS, MAX_STEADY_REQUESTS, MIN_RATE,
    Scenario, SimSettings,
};
use stampede::{Field, Got, MAX_DURATION_MS, seeded};

use super::input::Input;

/// Checks one fuzzer input.
pub fn check(data: &[u8]) {
    let mut input = Input::new(data);
    match input.choice(5) {
        0 => backoff(&mut input),
        1 => budget(&mut input),
        2 => policy(&mut input),
        3 => sim_field(&mut input),
        _ => number(input.f64_any()),
    }
}

fn within(v: f64, lo: f64, hi: f64) -> bool {
    v.is_finite() && v >= lo && v <= hi
}

/// The fields a set of values gets wrong, by name.
fn wrong<const N: usize>(checks: [(&'static str, bool); N]) -> Vec<&'static str> {
    checks
        .into_iter()
        .filter(|&(_, ok)| !ok)
        .map(|(f, _)| f)
        .collect()
}

/// An error for a bad setting leads with the name of a field that is wrong
/// (`cap: expected …`), the name every front end maps to its own flag or key.
fn names(e: &impl Display, fields: &[&str], context: &dyn core::fmt::Debug) {
    let msg = e.to_string();
    assert!(
        fields.iter().any(|f| msg.starts_with(&format!("{f}:"))),
        "{context:?}: {msg:?} names none of {fields:?}"
    );
}

fn backoff_settings(input: &mut Input<'_>) -> (BackoffSettings, Vec<&'static str>) {
    let strategy = Strategy::ALL[usize::from(input.choice(7))];
    let (base, cap, multiplier) = (input.f64_any(), input.f64_any(), input.f64_any());
    let base_ok = within(base, 0.0, MAX_DURATION_MS);
    let bad = wrong([
        ("base", base_ok),
        (
            "cap",
            // Below the base only for a strategy that reads no cap.
            within(cap, 0.0, MAX_DURATION_MS)
                && !(base_ok && cap < base && strategy.reads(Field::Cap)),
        ),
        ("multiplier", within(multiplier, 1.0, MAX_MULTIPLIER)),
    ]);
    let s = BackoffSettings::new(strategy, base, cap).with_multiplier(multiplier);
    (s, bad)
}

fn backoff(input: &mut Input<'_>) {
    let (s, bad) = backoff_settings(input);
    match s.build() {
        Err(e) => names(&e, &bad, &s),
        Ok(b) => {
            assert!(bad.is_empty(), "{s:?} accepted");
            assert_eq!(
                (b.strategy(), b.base_ms(), b.cap_ms(), b.multiplier()),
                (s.strategy, s.base_ms, s.cap_ms, s.multiplier)
            );
            delays(&b, input);
        }
    }
}

fn delays(b: &Backoff, input: &mut Input<'_>) {
    let (base, cap) = (b.base_ms(), b.cap_ms());
    let mut ns = [0, 1, 2, input.u32() % 64, input.u32(), u32::MAX];
    ns.sort_unstable();
    let mut last = 0.0;
    for n in ns {
        let c = b.ceiling_ms(n);
        assert!(
            within(c, last, cap),
            "{b:?}: ceiling_ms({n}) = {c} after {last}"
        );
        last = c;
    }
    assert_eq!(b.ceiling_ms(0), base, "{b:?}");
    let mut rng = seeded(input.u64());
    let mut state = b.start();
    for _ in 0..input.choice(16) {
        let v = b.ceiling_ms(state.retries());
        let d = b.next_ms(&mut state, &mut rng);
        let ok = within(d, 0.0, cap)
            && match b.strategy() {
                Strategy::None => d == 0.0,
                Strategy::Constant => d == base,
                Strategy::Exponential => d == v,
                Strategy::Full => d <= v,
                Strategy::Equal => v / 2.0 <= d && d <= v,
                Strategy::Decorrelated => base <= d,
                Strategy::DecorrelatedV2 => true,
                // `Strategy` is `#[non_exhaustive]`: a new one must get its bound here.
                other => panic!("no bound checked for {other:?}: add it to this check"),
            };
        assert!(
            ok,
            "{b:?}: delay {d} at retry {} (ceiling {v})",
            state.retries()
        );
    }
}

fn budget_settings(input: &mut Input<'_>) -> (BudgetSettings, Vec<&'static str>) {
    let s = BudgetSettings::new(input.f64_any(), input.f64_any())
        .with_retry_cost(input.f64_any())
        .with_success_refund(input.f64_any());
    let bad = wrong([
        ("capacity", within(s.capacity, 0.0, MAX_TOKENS)),
        ("refill_per_sec", within(s.refill_per_sec, 0.0, MAX_TOKENS)),
        // "(0, 1e9]": any positive cost, subnormals included.
        (
            "retry_cost",
            s.retry_cost > 0.0 && within(s.retry_cost, 0.0, MAX_TOKENS),
        ),
        ("success_refund", within(s.success_refund, 0.0, MAX_TOKENS)),
    ]);
    (s, bad)
}

fn budget(input: &mut Input<'_>) {
    let (s, bad) = budget_settings(input);
    let mut now = input.f64_finite();
    let mut bucket = match s.build(now) {
        Err(e) => return names(&e, &bad, &s),
        Ok(b) => b,
    };
    assert!(bad.is_empty(), "{s:?} accepted");
    assert_eq!(bucket.settings(), s);
    for _ in 0..input.choice(32) {
        // The clock mostly moves forward, sometimes anywhere (a bucket ignores the past).
        now = if input.choice(4) == 0 {
            input.f64_finite()
        } else {
            now + input.f64_in(0.0, 5000.0)
        };
        bucket_step(&mut bucket, &s, now, input.choice(4));
        let t = bucket.tokens(now);
        assert!(within(t, 0.0, s.capacity), "{s:?}: {t} tokens at {now}");
    }
}

fn bucket_step(bucket: &mut TokenBucket, s: &BudgetSettings, now: f64, op: u8) {
    let before = bucket.tokens(now);
    match op {
        0 => match bucket.try_retry(now) {
            Ok(()) => {
                assert!(before >= s.retry_cost, "{s:?}: retried on {before}");
                assert_eq!(bucket.tokens(now), before - s.retry_cost);
            }
            Err(e) => {
                assert!(before < s.retry_cost && e.tokens == before, "{s:?}: {e:?}");
                let wait_ok = if s.refill_per_sec > 0.0 {
                    e.retry_in_ms >= 0.0
                } else {
                    e.retry_in_ms == f64::INFINITY
                };
                assert!(wait_ok && !e.to_string().is_empty(), "{s:?}: {e:?}");
            }
        },
        1 => {
            bucket.on_success(now);
            assert_eq!(
                bucket.tokens(now),
                (before + s.success_refund).min(s.capacity)
            );
        }
        2 => assert_eq!(bucket.admit(now).is_ok(), before >= s.retry_cost),
        _ => {
            bucket.reset(now);
            assert_eq!(bucket.tokens(now), s.capacity);
        }
    }
}

fn policy(input: &mut Input<'_>) {
    let (backoff, mut bad) = backoff_settings(input);
    let attempts = match input.choice(3) {
        0 => input.u32(),
        _ => input.u32_in(0, MAX_ATTEMPTS + 1),
    };
    let elapsed = input.maybe(Input::f64_any);
    let mut rules = RetryRules::default();
    if let Some(ms) = input.maybe(Input::f64_any) {
        match rules.with_max_retry_after_ms(ms) {
            Ok(r) => {
                assert!(
                    within(ms, 0.0, MAX_DURATION_MS),
                    "max_retry_after {ms} accepted"
                );
                assert_eq!(r.max_retry_after_ms(), ms);
                rules = r;
            }
            Err(e) => names(&e, &["max_retry_after"], &ms),
        }
    }
    if !(1..=MAX_ATTEMPTS).contains(&attempts) {
        bad.push("max_attempts");
    }
    if elapsed.is_some_and(|ms| !within(ms, 0.0, MAX_DURATION_MS)) {
        bad.push("max_elapsed");
    }
    let s = PolicySettings::new(backoff, attempts)
        .with_max_elapsed_ms(elapsed)
        .with_rules(rules);
    match s.build() {
        Err(e) => names(&e, &bad, &s),
        Ok(p) => {
            assert!(bad.is_empty(), "{s:?} accepted");
            assert_eq!(p.max_attempts(), attempts);
            assert_eq!(p.max_elapsed_ms(), elapsed);
            assert_eq!(*p.rules(), rules);
        }
    }
}

/// One simulation setting out of range at a time (the others at their defaults): valid
/// exactly in its documented range, else an error naming it.
fn sim_field(input: &mut Input<'_>) {
    let v = input.f64_any();
    let mut s = SimSettings::default();
    let field = input.choice(13);
    let ms = within(v, 0.0, MAX_DURATION_MS);
    let (name, ok) = match field {
        0 => {
            s.outage_ms = v;
            ("outage", ms)
        }
        1 => {
            s.outage_start_ms = v;
            ("outage_start", ms)
        }
        2 => {
            s.capacity_rps = v;
            ("capacity_rps", within(v, 0.001, 1e9))
        }
        3 => {
            s.reject_cost = v;
            ("reject_cost", within(v, 0.0, 1.0))
        }
        4 => {
            s.latency_ms = v;
            ("latency", within(v, 0.0, 60_000.0))
        }
        5 => {
            s.latency_sd_ms = Some(v);
            ("latency_sd", within(v, 0.0, 60_000.0))
        }
        6 => {
            s.burst_window_ms = v;
            ("burst_window", ms)
        }
        7 => {
            s.retry_after_ms = Some(v);
            ("retry_after", ms)
        }
        8 => {
            s.slot_ms = v;
            ("slot", within(v, 1.0, 60_000.0))
        }
        9 => {
            s.scenario = Scenario::Steady;
            s.rate_per_client = v;
            in_range_then_work("rate", within(v, MIN_RATE, MAX_RATE), &s)
        }
        10 => {
            s.scenario = Scenario::Steady;
            s.duration_ms = v;
            in_range_then_work("duration", within(v, 1.0, MAX_DURATION_MS), &s)
        }
        11 => {
            s.clients = input.u32();
            in_range_then_work("clients", (1..=MAX_CLIENTS).contains(&s.clients), &s)
        }
        _ => {
            s.scenario = Scenario::AwsOcc;
            s.clients = input.u32_in(0, MAX_OCC_CLIENTS + 1);
            ("clients", (1..=MAX_OCC_CLIENTS).contains(&s.clients))
        }
    };
    match s.validate() {
        Ok(()) => assert!(ok, "{name} = {v} accepted"),
        Err(e) => {
            assert!(!ok, "{name} = {v} refused: {e}");
            names(&e, &[name], &v);
        }
    }
}

/// The field a bad setting's error names: `field` when out of its own range, else the one a
/// bound on the run's work names (for a steady run's requests the setting changed,
/// `max_attempts` for requests × attempts), else none (`ok`).
fn in_range_then_work(
    field: &'static str,
    in_range: bool,
    s: &SimSettings,
) -> (&'static str, bool) {
    if !in_range {
        return (field, false);
    }
    let attempts = f64::from(s.policy.max_attempts);
    let requests = match s.scenario {
        Scenario::Steady => f64::from(s.clients) * s.rate_per_client * s.duration_ms / 1000.0,
        Scenario::Burst => f64::from(s.clients),
        // `aws-occ` has no attempt limit: its clients are bounded instead.
        _ => return (field, true),
    };
    if s.scenario == Scenario::Steady && requests > MAX_STEADY_REQUESTS {
        // The setting changed from its default: the rate, else the duration, else the
        // clients (in these cases, each has a value in its range that fits).
        let d = SimSettings::default();
        let changed = if s.rate_per_client != d.rate_per_client {
            "rate"
        } else if s.duration_ms != d.duration_ms {
            "duration"
        } else {
            "clients"
        };
        (changed, false)
    } else if requests * attempts > MAX_RUN_ATTEMPTS {
        ("max_attempts", false)
    } else {
        (field, true)
    }
}

/// A number as errors write it reads back to its number: to the thousandth below 10^15, to three
/// significant decimals of the mantissa above; NaN and the infinities by name.
fn number(v: f64) {
    let text = Got::Number(v).to_string();
    if v.is_nan() {
        return assert_eq!(text, "NaN");
    }
    if v.is_infinite() {
        let want = if v > 0.0 { "infinity" } else { "-infinity" };
        return assert_eq!(text, want);
    }
    let back: f64 = text
        .parse()
        .unwrap_or_else(|_| panic!("{v:e} wrote {text:?}, which is not a number"));
    let tolerance = if v.abs() < 1e15 {
        0.0005 + v.abs() * 1e-15
    } else {
        v.abs() * 1e-3
    };
    // Near f64::MAX the rounded mantissa (1.798e308) reads back as infinity.
    let rounded_past_max = back.is_infinite() && v.abs() * (1.0 + 1e-3) >= f64::MAX;
    assert!(
        (back - v).abs() <= tolerance || rounded_past_max,
        "{v:e} wrote {text:?}"
    );
}
