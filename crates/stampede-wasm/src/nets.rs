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
pub(crate) fn budget_kind(opts: &Opts) -> Result<BudgetKind, Fail> {
    let kind = opts
        .choice(Field::BudgetKind, &BudgetKind::NAMES, &KINDS)?
        .unwrap_or(Kind::Bucket);
    #[cfg(feature = "sim")]
    refuse_not_read(opts, kind as usize)?;
    let kind = match kind {
        Kind::Bucket => return budget_settings(opts).map(BudgetKind::Bucket),
        Kind::Ratio => {
            let mut s = RatioSettings::default();
            read(opts, Field::Ratio, &mut s.ratio)?;
            s.cap = opts.number(Field::RatioCap)?;
            read(opts, Field::MinPerSec, &mut s.min_per_sec)?;
            read(opts, Field::Window, &mut s.window_ms)?;
            BudgetKind::Ratio(s)
        }
        Kind::Grpc => {
            let mut s = GrpcSettings::default();
            read(opts, Field::MaxTokens, &mut s.max_tokens)?;
            read(opts, Field::TokenRatio, &mut s.token_ratio)?;
            BudgetKind::Grpc(s)
        }
        Kind::Aws => {
            let mut s = AwsSettings::default();
            read(opts, Field::Tokens, &mut s.tokens)?;
            read(opts, Field::RetryCost, &mut s.retry_cost)?;
            read(opts, Field::TimeoutCost, &mut s.timeout_cost)?;
            BudgetKind::Aws(s)
        }
    };
    kind.validate().map_err(|e| config_error(opts.prefix(), &e))
}

/// Refuses a field that only other kinds of budget read (`BudgetKind::readers`): a
/// `minPerSec` beside no kind is a ratio budget meant, not a bucket's setting to drop.
/// (The slim entry's JavaScript reader refuses them itself, js/slim/options.js: there
/// such values never reach the wasm.)
#[cfg(feature = "sim")]
fn refuse_not_read(opts: &Opts, kind: usize) -> Result<(), Fail> {
    for field in BudgetKind::FIELDS {
        let readers = BudgetKind::readers(field);
        if readers & (1 << kind) != 0 {
            continue;
        }
        let key = crate::fields::js_name(field);
        if let Some(v) = opts.raw(key)? {
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
            return Err(crate::errors::not_read(
                opts.prefix(),
                key,
                name,
                &owners,
                &v,
            ));
        }
    }
    Ok(())
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

/// Reads `BudgetOptions` (`{ capacity, refillPerSec, retryCost?, successRefund? }`);
/// missing fields take the core's defaults (`BudgetSettings::default()`).
pub(crate) fn budget_settings(opts: &Opts) -> Result<BudgetSettings, Fail> {
    let mut s = BudgetSettings::default();
    let fields: [(Field, &mut f64); 4] = [
        (Field::Capacity, &mut s.capacity),
        (Field::RefillPerSec, &mut s.refill_per_sec),
        (Field::RetryCost, &mut s.retry_cost),
        (Field::SuccessRefund, &mut s.success_refund),
    ];
    for (field, slot) in fields {
        if let Some(v) = opts.number(field)? {
            *slot = v;
        }
    }
    s.validate().map_err(|e| config_error(opts.prefix(), &e))
}
