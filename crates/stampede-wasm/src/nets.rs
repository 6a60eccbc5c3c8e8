//! The safety nets' options — `budget` of every kind, `breaker`, `throttle`, `hedging` —
//! into the core's settings (`stampede::nets`, `stampede::hedge`).
//!
//! Every field's name, default and range is the core's (`Field`); a missing field takes
//! the core's default, a bad value is the core's `RangeError` naming it under its prefix
//! (`budget.kind`, `breaker.failureRatio`, `hedging.delayMs`), a value of the wrong type a
//! `TypeError`. The same readers serve `retryFetch` and `Budget.forCallSite`, in both entries
//! (written against `opts::Opts`: see `lib.rs`).

use stampede::Field;
use stampede::budget::BudgetSettings;
use stampede::hedge::HedgingSettings;
use stampede::nets::{
    AwsSettings, BreakerMode, BreakerSettings, BudgetKind, GrpcSettings, GuardSettings,
    RatioSettings, ThrottleSettings,
};

use crate::errors::{Fail, config_error};
use crate::fields::Group;
use crate::opts::Opts;

/// The budget kinds, in the order of [`BudgetKind::NAMES`].
#[derive(Clone, Copy)]
enum Kind {
    Bucket,
    Ratio,
    Grpc,
    Aws,
}

const KINDS: [Kind; 4] = [Kind::Bucket, Kind::Ratio, Kind::Grpc, Kind::Aws];

/// Sets `*slot` to the number of `field` when given (checked by the core's `validate`).
fn read(opts: &Opts, field: Field, slot: &mut f64) -> Result<(), Fail> {
    if let Some(v) = opts.number(field)? {
        *slot = v;
    }
    Ok(())
}

/// Reads `BudgetOptions`: `{ kind?, … }`, the kind's own fields (an absent kind is
/// `"bucket"`, read exactly as before kinds existed). Validated.
///
/// Every budget field is read once, in the order of `BudgetKind::FIELDS` (the slim entry's
/// JavaScript reads them in the same order, js/slim/options.js): a field of the kind is
/// type-checked as it is read, one that only other kinds read is refused when given
/// (`not_read`, naming the kinds that do), so both entries name the same field first.
pub(crate) fn budget_kind(opts: &Opts) -> Result<BudgetKind, Fail> {
    let kind = opts
        .choice(Field::BudgetKind, &BudgetKind::NAMES, &KINDS)?
        .unwrap_or(Kind::Bucket);
    let bit = 1u8 << kind as u8;
    let mut got = [None; BudgetKind::FIELDS.len()];
    for (slot, field) in got.iter_mut().zip(BudgetKind::FIELDS) {
        if BudgetKind::readers(field) & bit != 0 {
            *slot = opts.number(field)?;
        } else {
            // (The slim entry's JavaScript refuses them before the wasm sees anything.)
            #[cfg(feature = "sim")]
            refuse_not_read(opts, field, kind as usize)?;
        }
    }
    let given = |field: Field| {
        let at = BudgetKind::FIELDS.iter().position(|&f| f == field);
        at.and_then(|i| got.get(i).copied().flatten())
    };
    let or = |field: Field, default: f64| given(field).unwrap_or(default);
    let kind = match kind {
        Kind::Bucket => {
            let d = BudgetSettings::default();
            BudgetKind::Bucket(BudgetSettings {
                capacity: or(Field::Capacity, d.capacity),
                refill_per_sec: or(Field::RefillPerSec, d.refill_per_sec),
                retry_cost: or(Field::RetryCost, d.retry_cost),
                success_refund: or(Field::SuccessRefund, d.success_refund),
            })
        }
        Kind::Ratio => {
            let d = RatioSettings::default();
            BudgetKind::Ratio(RatioSettings {
                ratio: or(Field::Ratio, d.ratio),
                cap: given(Field::RatioCap),
                min_per_sec: or(Field::MinPerSec, d.min_per_sec),
                window_ms: or(Field::Window, d.window_ms),
            })
        }
        Kind::Grpc => {
            let d = GrpcSettings::default();
            BudgetKind::Grpc(GrpcSettings {
                max_tokens: or(Field::MaxTokens, d.max_tokens),
                token_ratio: or(Field::TokenRatio, d.token_ratio),
            })
        }
        Kind::Aws => {
            let d = AwsSettings::default();
            BudgetKind::Aws(AwsSettings {
                tokens: or(Field::Tokens, d.tokens),
                retry_cost: or(Field::RetryCost, d.retry_cost),
                timeout_cost: or(Field::TimeoutCost, d.timeout_cost),
            })
        }
    };
    kind.validate().map_err(|e| config_error(opts.prefix(), &e))
}

/// Refuses `field`, which only other kinds of budget read, when it is given: a `minPerSec`
/// beside no kind is a ratio budget meant, not a bucket's setting to drop.
#[cfg(feature = "sim")]
fn refuse_not_read(opts: &Opts, field: Field, kind: usize) -> Result<(), Fail> {
    let key = crate::fields::js_name(field);
    let Some(v) = opts.raw(key)? else {
        return Ok(());
    };
    let readers = BudgetKind::readers(field);
    let mut owners = String::new();
    for (i, name) in BudgetKind::NAMES.iter().enumerate() {
        if readers & (1 << i) != 0 {
            if !owners.is_empty() {
                owners.push(',');
            }
            owners.push_str(name);
        }
    }
    let name = BudgetKind::NAMES[kind];
    Err(crate::errors::not_read(
        opts.prefix(),
        key,
        name,
        &owners,
        &v,
    ))
}

/// Reads `BreakerOptions`: `{ failureRatio, samplingMs, minThroughput, breakMs, mode }`,
/// Polly v8's defaults for what is missing. Validated.
pub(crate) fn breaker(opts: &Opts) -> Result<BreakerSettings, Fail> {
    let mut s = BreakerSettings::default();
    read(opts, Field::FailureRatio, &mut s.failure_ratio)?;
    read(opts, Field::Sampling, &mut s.sampling_ms)?;
    if let Some(n) = opts.whole(Field::MinThroughput)? {
        s.min_throughput = n;
    }
    read(opts, Field::BreakDuration, &mut s.break_ms)?;
    const MODES: [BreakerMode; 2] = [BreakerMode::All, BreakerMode::Retries];
    if let Some(m) = opts.choice(Field::BreakerMode, &BreakerMode::NAMES, &MODES)? {
        s.mode = m;
    }
    s.validate().map_err(|e| config_error(opts.prefix(), &e))
}

/// Reads `ThrottleOptions`: `{ k, windowMs }`, the SRE book's defaults for what is missing.
pub(crate) fn throttle(opts: &Opts) -> Result<ThrottleSettings, Fail> {
    let mut s = ThrottleSettings::default();
    read(opts, Field::K, &mut s.k)?;
    read(opts, Field::ThrottleWindow, &mut s.window_ms)?;
    s.validate().map_err(|e| config_error(opts.prefix(), &e))
}

/// Reads `HedgingOptions`: `{ delayMs, maxAttempts }`, Polly v8's defaults for what is
/// missing. Validated.
pub(crate) fn hedging(opts: &Opts) -> Result<HedgingSettings, Fail> {
    let mut s = HedgingSettings::default();
    read(opts, Field::HedgeDelay, &mut s.delay_ms)?;
    if let Some(n) = opts.whole(Field::HedgeMaxAttempts)? {
        s.max_attempts = n;
    }
    s.validate().map_err(|e| config_error(opts.prefix(), &e))
}

/// The nested options object `key` of `opts` (`budget`, `breaker`, …), if given, read by
/// `f` with the group's prefix in messages.
pub(crate) fn nested<T>(
    opts: &Opts,
    key: &str,
    group: Group,
    f: impl FnOnce(&Opts) -> Result<T, Fail>,
) -> Result<Option<T>, Fail> {
    match opts.group(key, group)? {
        Some(o) => f(&o).map(Some),
        None => Ok(None),
    }
}

/// Reads the nets a call gives: `budget`, `breaker`, `throttle` (each optional).
pub(crate) fn guard_settings(opts: &Opts) -> Result<GuardSettings, Fail> {
    Ok(GuardSettings {
        budget: nested(opts, "budget", Group::Budget, budget_kind)?,
        breaker: nested(opts, "breaker", Group::Breaker, breaker)?,
        throttle: nested(opts, "throttle", Group::Throttle, throttle)?,
    })
}

/// The default budget of a call site named without one: today's token bucket.
pub(crate) fn default_budget() -> BudgetKind {
    BudgetKind::Bucket(BudgetSettings::default())
}
