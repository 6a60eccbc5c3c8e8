//! The safety nets' options (issue #12), read once for `SimOptions` (and for `retryFetch`,
//! whose call sites take the same shapes): `budget: { kind, … }`, `breaker: { … }`,
//! `throttle: { … }`. Types are checked here (`TypeError`); values are the core's to judge
//! when it builds the nets (`Simulation::new`, `GuardSettings::build`), whose `RangeError`
//! names `budget.ratio`, `breaker.samplingMs`, … (the prefix is the field's group). Not
//! validating here too keeps one copy of the checks in the wasm. Missing fields take the
//! core's defaults, the sources' numbers.

use stampede::Field;
use stampede::nets::{
    AwsSettings, BreakerMode, BreakerSettings, BudgetKind, GrpcSettings, RatioSettings,
    ThrottleSettings,
};
use wasm_bindgen::prelude::*;

use crate::budget::budget_settings;
use crate::opts::Opts;

/// Each budget kind, in [`BudgetKind::NAMES`]' order; `kind` absent is `"bucket"`.
#[derive(Clone, Copy)]
enum Kind {
    Bucket,
    Ratio,
    Grpc,
    Aws,
}

const KINDS: [Kind; 4] = [Kind::Bucket, Kind::Ratio, Kind::Grpc, Kind::Aws];

/// Reads `fields` (number fields) into their slots, leaving the defaults of absent ones.
fn numbers(opts: &Opts<'_>, fields: &mut [(Field, &mut f64)]) -> Result<(), JsValue> {
    for (field, slot) in fields.iter_mut() {
        if let Some(v) = opts.number(*field)? {
            **slot = v;
        }
    }
    Ok(())
}

/// `budget: { kind: "bucket" | "ratio" | "grpc" | "aws", … }` (a bucket is validated
/// here, as `budget_settings` always has; the other kinds by the core).
pub(crate) fn budget_kind(opts: &Opts<'_>) -> Result<BudgetKind, JsValue> {
    let kind = opts
        .choice(Field::BudgetKind, &BudgetKind::NAMES, &KINDS)?
        .unwrap_or(Kind::Bucket);
    Ok(match kind {
        Kind::Bucket => BudgetKind::Bucket(budget_settings(opts)?),
        Kind::Ratio => {
            let mut s = RatioSettings::default();
            numbers(
                opts,
                &mut [
                    (Field::Ratio, &mut s.ratio),
                    (Field::MinPerSec, &mut s.min_per_sec),
                    (Field::Window, &mut s.window_ms),
                ],
            )?;
            // Absent or null: no cap, as Finagle's.
            s.cap = opts.number(Field::RatioCap)?;
            BudgetKind::Ratio(s)
        }
        Kind::Grpc => {
            let mut s = GrpcSettings::default();
            numbers(
                opts,
                &mut [
                    (Field::MaxTokens, &mut s.max_tokens),
                    (Field::TokenRatio, &mut s.token_ratio),
                ],
            )?;
            BudgetKind::Grpc(s)
        }
        Kind::Aws => {
            let mut s = AwsSettings::default();
            numbers(
                opts,
                &mut [
                    (Field::Tokens, &mut s.tokens),
                    (Field::RetryCost, &mut s.retry_cost),
                    (Field::TimeoutCost, &mut s.timeout_cost),
                ],
            )?;
            BudgetKind::Aws(s)
        }
    })
}

/// `breaker: { failureRatio, samplingMs, minThroughput, breakMs, mode }`.
pub(crate) fn breaker_settings(opts: &Opts<'_>) -> Result<BreakerSettings, JsValue> {
    let mut s = BreakerSettings::default();
    numbers(
        opts,
        &mut [
            (Field::FailureRatio, &mut s.failure_ratio),
            (Field::Sampling, &mut s.sampling_ms),
            (Field::BreakDuration, &mut s.break_ms),
        ],
    )?;
    if let Some(n) = opts.whole(Field::MinThroughput)? {
        s.min_throughput = n;
    }
    const MODES: [BreakerMode; 2] = [BreakerMode::All, BreakerMode::Retries];
    if let Some(m) = opts.choice(Field::BreakerMode, &BreakerMode::NAMES, &MODES)? {
        s.mode = m;
    }
    Ok(s)
}

/// `throttle: { k, windowMs }`.
pub(crate) fn throttle_settings(opts: &Opts<'_>) -> Result<ThrottleSettings, JsValue> {
    let mut s = ThrottleSettings::default();
    numbers(
        opts,
        &mut [
            (Field::K, &mut s.k),
            (Field::ThrottleWindow, &mut s.window_ms),
        ],
    )?;
    Ok(s)
}
