//! The composite a call site holds: at most one budget, a breaker, a throttle.

use core::fmt;

use rand::Rng;

use super::aws::{AwsQuota, AwsSettings};
use super::breaker::{Breaker, BreakerMode, BreakerSettings, CircuitOpen};
use super::grpc::{GrpcSettings, GrpcThrottle};
use super::ratio::{RatioBudget, RatioSettings};
use super::throttle::{Throttle, ThrottleSettings, Throttled};
use crate::budget::{BudgetExhausted, BudgetSettings, TokenBucket};
use crate::classify::{Action, Reason, Verdict};
use crate::error::{ConfigError, Field};

/// A budget of one of the four schools, unvalidated.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "lowercase"))]
pub enum BudgetKind {
    /// A token bucket refilled per second ([`crate::budget`]).
    Bucket(BudgetSettings),
    /// Deposits per request, a floor per second ([`super::ratio`]).
    Ratio(RatioSettings),
    /// gRPC retry throttling ([`super::grpc`]).
    Grpc(GrpcSettings),
    /// The AWS SDKs' retry quota ([`super::aws`]).
    Aws(AwsSettings),
}

impl BudgetKind {
    /// The kinds' names, in order: `bucket`, `ratio`, `grpc`, `aws`.
    pub const NAMES: [&'static str; 4] = ["bucket", "ratio", "grpc", "aws"];

    /// Every setting some kind of budget reads, in the order front ends read them.
    pub const FIELDS: [Field; 12] = [
        Field::Capacity,
        Field::RefillPerSec,
        Field::RetryCost,
        Field::SuccessRefund,
        Field::Ratio,
        Field::RatioCap,
        Field::MinPerSec,
        Field::Window,
        Field::MaxTokens,
        Field::TokenRatio,
        Field::Tokens,
        Field::TimeoutCost,
    ];

    /// Which kinds read `field`, as bits in the order of [`NAMES`](Self::NAMES) (bit 0 the
    /// bucket); 0 for a field no budget reads. A front end given a field its budget's kind
    /// does not read refuses it, naming the kinds that do (`minPerSec` in a bucket is a
    /// ratio budget meant, not a bucket's setting to drop).
    pub const fn readers(field: Field) -> u8 {
        const BUCKET: u8 = 1;
        const RATIO: u8 = 2;
        const GRPC: u8 = 4;
        const AWS: u8 = 8;
        match field {
            Field::Capacity | Field::RefillPerSec | Field::SuccessRefund => BUCKET,
            Field::RetryCost => BUCKET | AWS,
            Field::Ratio | Field::RatioCap | Field::MinPerSec | Field::Window => RATIO,
            Field::MaxTokens | Field::TokenRatio => GRPC,
            Field::Tokens | Field::TimeoutCost => AWS,
            _ => 0,
        }
    }

    /// The kind's name.
    pub const fn name(&self) -> &'static str {
        match self {
            BudgetKind::Bucket(_) => Self::NAMES[0],
            BudgetKind::Ratio(_) => Self::NAMES[1],
            BudgetKind::Grpc(_) => Self::NAMES[2],
            BudgetKind::Aws(_) => Self::NAMES[3],
        }
    }

    /// Validates the settings of the kind.
    pub fn validate(self) -> Result<Self, ConfigError> {
        Ok(match self {
            BudgetKind::Bucket(s) => BudgetKind::Bucket(s.validate()?),
            BudgetKind::Ratio(s) => BudgetKind::Ratio(s.validate()?),
            BudgetKind::Grpc(s) => BudgetKind::Grpc(s.validate()?),
            BudgetKind::Aws(s) => BudgetKind::Aws(s.validate()?),
        })
    }

    /// Validates and makes the budget at `now_ms`.
    pub fn build(self, now_ms: f64) -> Result<Budget, ConfigError> {
        Ok(Budget::new(self.validate()?, now_ms))
    }
}

/// A live budget of one of the four schools.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// A token bucket.
    Bucket(TokenBucket),
    /// A ratio budget.
    Ratio(RatioBudget),
    /// gRPC retry throttling.
    Grpc(GrpcThrottle),
    /// The AWS retry quota.
    Aws(AwsQuota),
}

impl Budget {
    fn new(kind: BudgetKind, now_ms: f64) -> Self {
        match kind {
            BudgetKind::Bucket(s) => Budget::Bucket(TokenBucket::from_valid(s, now_ms)),
            BudgetKind::Ratio(s) => Budget::Ratio(RatioBudget::new(s, now_ms)),
            BudgetKind::Grpc(s) => Budget::Grpc(GrpcThrottle::new(s)),
            BudgetKind::Aws(s) => Budget::Aws(AwsQuota::new(s)),
        }
    }

    /// Whether a new call may start: only an empty bucket refuses one (the other schools
    /// limit retries alone). Costs nothing.
    fn gate(&mut self, now_ms: f64) -> Result<(), BudgetExhausted> {
        match self {
            Budget::Bucket(b) => b.admit(now_ms),
            _ => Ok(()),
        }
    }

    /// Whether a retry could be paid for now. Costs nothing.
    fn affordable(&mut self, now_ms: f64, after_timeout: bool) -> Result<(), BudgetExhausted> {
        match self {
            Budget::Bucket(b) => b.admit(now_ms),
            Budget::Ratio(b) => {
                // Withdraw from a copy: the check and the charge use one rule.
                let mut probe = *b;
                probe.try_withdraw(now_ms)
            }
            Budget::Grpc(g) => g.check(),
            Budget::Aws(q) => {
                let mut probe = *q;
                probe.try_acquire(after_timeout).map(|_| ())
            }
        }
    }

    /// Pays for a retry already found [`affordable`](Self::affordable).
    fn charge(&mut self, now_ms: f64, after_timeout: bool) -> Result<(), BudgetExhausted> {
        match self {
            Budget::Bucket(b) => b.try_retry(now_ms),
            Budget::Ratio(b) => b.try_withdraw(now_ms),
            Budget::Grpc(g) => g.check(),
            Budget::Aws(q) => q.try_acquire(after_timeout).map(|_| ()),
        }
    }

    fn settle(&mut self, now_ms: f64, settled: Settled) {
        match (self, settled) {
            (Budget::Bucket(b), Settled::FirstTry | Settled::Retried { .. }) => {
                b.on_success(now_ms)
            }
            (Budget::Grpc(g), Settled::FirstTry | Settled::Retried { .. }) => g.on_success(),
            (Budget::Grpc(g), Settled::Failed) => g.on_failure(),
            (Budget::Aws(q), Settled::FirstTry) => q.on_success(None),
            (Budget::Aws(q), Settled::Retried { after_timeout }) => {
                let s = q.settings();
                q.on_success(Some(if after_timeout {
                    s.timeout_cost
                } else {
                    s.retry_cost
                }));
            }
            _ => {}
        }
    }
}

/// How an attempt ended, as the nets see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settled {
    /// The request succeeded at its first attempt.
    FirstTry,
    /// The request succeeded at a retry; `after_timeout` if that retry followed a timeout
    /// (the AWS quota refunds what it cost).
    Retried {
        /// The retry was paid at the timeout price.
        after_timeout: bool,
    },
    /// The dependency failed in a way the rules retry (overload, outage, a timeout, a
    /// status they retry), or with a server's hint to stop retrying one (gRFC A6's
    /// "pushback"): every net counts it.
    Failed,
    /// The dependency failed ([`Verdict::dependency_failed`]) in a way this request's rules
    /// never retry: a POST's 503, a 5xx outside the statuses retried, a host that did not
    /// resolve. The breaker and the throttle count it (the service failed); gRPC's token
    /// bucket does not (grpc-go counts a status only when the policy retries it).
    FailedUnretried,
    /// The dependency answered, and not with a failure (a 404): it is up.
    Other,
    /// The attempt ended with no answer the caller waited for (the caller aborted it): no
    /// net learns anything from it. A breaker's probe that ends so is a probe that never
    /// reported: the next goes a break later.
    Abandoned,
}

impl Settled {
    /// How an attempt with `verdict` ended: a success after a retry (or a hedge) is
    /// `retried`, paid at the timeout price if `after_timeout`.
    pub const fn of(verdict: &Verdict, retried: bool, after_timeout: bool) -> Settled {
        match verdict.action {
            Action::Success if retried => Settled::Retried { after_timeout },
            Action::Success => Settled::FirstTry,
            Action::Retry => Settled::Failed,
            _ if !verdict.dependency_failed => match verdict.reason {
                Reason::Aborted => Settled::Abandoned,
                _ => Settled::Other,
            },
            // A status the rules retry, stopped by the server's hint.
            _ => match verdict.reason {
                Reason::PushbackStop | Reason::PushbackMalformed | Reason::HintTooLong { .. } => {
                    Settled::Failed
                }
                _ => Settled::FailedUnretried,
            },
        }
    }

    const fn failed(self) -> bool {
        matches!(self, Settled::Failed | Settled::FailedUnretried)
    }
}

/// Why a net refused an attempt: deterministic errors, sent nowhere, told apart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Blocked {
    /// The budget (of any school) is spent.
    Budget(BudgetExhausted),
    /// The circuit breaker is open.
    CircuitOpen(CircuitOpen),
    /// The adaptive throttle rejected it.
    Throttled(Throttled),
}

impl fmt::Display for Blocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Blocked::Budget(e) => write!(f, "{e}"),
            Blocked::CircuitOpen(e) => write!(f, "{e}"),
            Blocked::Throttled(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Blocked {}

/// The safety nets of one call site, unvalidated: each optional.
///
/// # Default
/// None of them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GuardSettings {
    /// A budget of any school.
    pub budget: Option<BudgetKind>,
    /// A circuit breaker.
    pub breaker: Option<BreakerSettings>,
    /// Adaptive throttling.
    pub throttle: Option<ThrottleSettings>,
}

impl GuardSettings {
    /// Whether no net is set.
    pub const fn is_empty(&self) -> bool {
        self.budget.is_none() && self.breaker.is_none() && self.throttle.is_none()
    }

    /// The nets of these that act in a run whose requests never retry (one attempt each,
    /// no hedging): adaptive throttling, and a breaker that gates first attempts (mode
    /// `all`). Every budget spends only on retries (a bucket's circuit opens only once
    /// retries have spent it, unless it cannot hold one), and a breaker in mode `retries`
    /// gates only retries: with no retry they refuse nothing and change nothing. The simulator
    /// makes only these when its requests cannot retry.
    pub fn without_retries(self) -> GuardSettings {
        GuardSettings {
            // A bucket that cannot hold one retry's cost is open from the start, and
            // refuses every request.
            budget: self
                .budget
                .filter(|k| matches!(k, BudgetKind::Bucket(b) if b.capacity < b.retry_cost)),
            breaker: self.breaker.filter(|b| b.mode == BreakerMode::All),
            throttle: self.throttle,
        }
    }

    /// Validates every net set.
    pub fn validate(self) -> Result<Self, ConfigError> {
        Ok(GuardSettings {
            budget: self.budget.map(BudgetKind::validate).transpose()?,
            breaker: self.breaker.map(BreakerSettings::validate).transpose()?,
            throttle: self.throttle.map(ThrottleSettings::validate).transpose()?,
        })
    }

    /// Validates and makes the nets at `now_ms`.
    pub fn build(self, now_ms: f64) -> Result<Guard, ConfigError> {
        Ok(Guard::from_valid(self.validate()?, now_ms))
    }

    /// The same nets with `budget` as the budget, refusing a second one: `budget` comes
    /// from an older option that only knew buckets.
    pub fn with_bucket(self, budget: Option<BudgetSettings>) -> Result<Self, ConfigError> {
        match (budget, self.budget) {
            (None, _) => Ok(self),
            (Some(b), None) => Ok(GuardSettings {
                budget: Some(BudgetKind::Bucket(b)),
                ..self
            }),
            (Some(_), Some(other)) => Err(ConfigError::new(
                Field::BudgetKind,
                crate::error::Expected::Syntax("at most one budget"),
                crate::error::Got::Text(format!("a bucket and a {} budget", other.name())),
            )),
        }
    }
}

/// A call site's nets. Time is an argument, as everywhere in the crate.
///
/// ```
/// use stampede::nets::{BreakerSettings, Blocked, GuardSettings, Settled};
/// let mut g = GuardSettings {
///     breaker: Some(BreakerSettings { min_throughput: 2, ..BreakerSettings::default() }),
///     ..GuardSettings::default()
/// }
/// .build(0.0)?;
/// let mut rng = stampede::seeded(1);
/// g.settle(1.0, Settled::Failed);
/// g.settle(2.0, Settled::Failed); // 2 of 2 failed: open for 5 s
/// assert!(matches!(g.admit(3.0, &mut rng), Err(Blocked::CircuitOpen(_))));
/// assert!(g.admit(5002.0, &mut rng).is_ok()); // the probe
/// # Ok::<(), stampede::ConfigError>(())
/// ```
///
/// The breaker and the throttle live on the heap: a simulation may hold a guard per
/// client, and one that uses neither then costs the size of its budget and two pointers.
#[derive(Debug, Clone, PartialEq)]
pub struct Guard {
    budget: Option<Budget>,
    breaker: Option<Box<Breaker>>,
    throttle: Option<Box<Throttle>>,
}

impl Guard {
    /// The nets of validated `settings`, at `now_ms`.
    pub(crate) fn from_valid(s: GuardSettings, now_ms: f64) -> Self {
        Guard {
            budget: s.budget.map(|b| Budget::new(b, now_ms)),
            breaker: s.breaker.map(|b| Box::new(Breaker::new(b, now_ms))),
            throttle: s.throttle.map(|t| Box::new(Throttle::new(t, now_ms))),
        }
    }

    /// The budget, if any.
    pub fn budget(&mut self) -> Option<&mut Budget> {
        self.budget.as_mut()
    }

    /// The breaker, if any.
    pub fn breaker(&mut self) -> Option<&mut Breaker> {
        self.breaker.as_deref_mut()
    }

    /// The throttle, if any.
    pub fn throttle(&mut self) -> Option<&mut Throttle> {
        self.throttle.as_deref_mut()
    }

    /// The gate before a request's first attempt at `now_ms`: an empty bucket, an open
    /// breaker (mode `all`) or the throttle refuses it; otherwise the request deposits in
    /// a ratio budget. The checks without side effects come first, so a refusal leaves
    /// nothing half done (no probe let out and lost).
    pub fn admit<R: Rng + ?Sized>(&mut self, now_ms: f64, rng: &mut R) -> Result<(), Blocked> {
        if let Some(b) = &mut self.budget {
            b.gate(now_ms).map_err(Blocked::Budget)?;
        }
        self.pass(now_ms, false, rng)?;
        if let Some(Budget::Ratio(r)) = &mut self.budget {
            r.deposit(now_ms);
        }
        Ok(())
    }

    /// A retry (or hedge) is decided at `now_ms`, after a timeout if `after_timeout`:
    /// refused by the budget, the breaker or the throttle, or paid for.
    pub fn try_retry<R: Rng + ?Sized>(
        &mut self,
        now_ms: f64,
        after_timeout: bool,
        rng: &mut R,
    ) -> Result<(), Blocked> {
        if let Some(b) = &mut self.budget {
            b.affordable(now_ms, after_timeout)
                .map_err(Blocked::Budget)?;
        }
        self.pass(now_ms, true, rng)?;
        if let Some(b) = &mut self.budget {
            b.charge(now_ms, after_timeout).map_err(Blocked::Budget)?;
        }
        Ok(())
    }

    fn pass<R: Rng + ?Sized>(
        &mut self,
        now_ms: f64,
        retry: bool,
        rng: &mut R,
    ) -> Result<(), Blocked> {
        if let Some(b) = &mut self.breaker {
            b.allow(now_ms, retry).map_err(Blocked::CircuitOpen)?;
        }
        if let Some(t) = &mut self.throttle {
            t.allow(now_ms, rng).map_err(Blocked::Throttled)?;
        }
        Ok(())
    }

    /// An attempt ended at `now_ms` as `settled`: every net learns of it.
    pub fn settle(&mut self, now_ms: f64, settled: Settled) {
        if let Some(b) = &mut self.budget {
            b.settle(now_ms, settled);
        }
        if settled == Settled::Abandoned {
            return;
        }
        if let Some(b) = &mut self.breaker {
            b.record(now_ms, settled.failed());
        }
        if let Some(t) = &mut self.throttle {
            t.record(now_ms, !settled.failed());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `readers` says which kinds read a field; each kind's own checks are the judge: a NaN
    /// in each of a kind's settings is refused naming a field that kind reads, and every
    /// field some kind reads is in `FIELDS`, read by at least one.
    #[test]
    fn readers_follow_what_each_kind_checks() {
        let nan = f64::NAN;
        let bad: Vec<(usize, BudgetKind)> = vec![
            (
                0,
                BudgetKind::Bucket(BudgetSettings {
                    capacity: nan,
                    ..Default::default()
                }),
            ),
            (
                0,
                BudgetKind::Bucket(BudgetSettings {
                    refill_per_sec: nan,
                    ..Default::default()
                }),
            ),
            (
                0,
                BudgetKind::Bucket(BudgetSettings {
                    retry_cost: nan,
                    ..Default::default()
                }),
            ),
            (
                0,
                BudgetKind::Bucket(BudgetSettings {
                    success_refund: nan,
                    ..Default::default()
                }),
            ),
            (
                1,
                BudgetKind::Ratio(RatioSettings {
                    ratio: nan,
                    ..Default::default()
                }),
            ),
            (
                1,
                BudgetKind::Ratio(RatioSettings {
                    cap: Some(nan),
                    ..Default::default()
                }),
            ),
            (
                1,
                BudgetKind::Ratio(RatioSettings {
                    min_per_sec: nan,
                    ..Default::default()
                }),
            ),
            (
                1,
                BudgetKind::Ratio(RatioSettings {
                    window_ms: nan,
                    ..Default::default()
                }),
            ),
            (
                2,
                BudgetKind::Grpc(GrpcSettings {
                    max_tokens: nan,
                    ..Default::default()
                }),
            ),
            (
                2,
                BudgetKind::Grpc(GrpcSettings {
                    token_ratio: nan,
                    ..Default::default()
                }),
            ),
            (
                3,
                BudgetKind::Aws(AwsSettings {
                    tokens: nan,
                    ..Default::default()
                }),
            ),
            (
                3,
                BudgetKind::Aws(AwsSettings {
                    retry_cost: nan,
                    ..Default::default()
                }),
            ),
            (
                3,
                BudgetKind::Aws(AwsSettings {
                    timeout_cost: nan,
                    ..Default::default()
                }),
            ),
        ];
        let mut named = Vec::new();
        for (kind, settings) in bad {
            let field = settings.validate().expect_err("NaN is refused").field;
            assert_ne!(
                BudgetKind::readers(field) & (1 << kind),
                0,
                "{field:?} for {}",
                BudgetKind::NAMES[kind]
            );
            assert!(BudgetKind::FIELDS.contains(&field), "{field:?}");
            named.push(field);
        }
        // Every field listed is one some kind checks, and read by some kind.
        for f in BudgetKind::FIELDS {
            assert!(named.contains(&f), "{f:?} is checked by no kind");
            assert_ne!(BudgetKind::readers(f), 0, "{f:?}");
        }
        assert_eq!(BudgetKind::readers(Field::Base), 0);
    }
}
