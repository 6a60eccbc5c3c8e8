//! Every setting the crate validates, with its range: the one list of them.
//!
//! Front ends map a [`Field`] to their own spelling of it (`--base`, `baseMs`) with an
//! exhaustive `match`, and read its range from [`Field::limit`] for their own parsers,
//! sliders and messages; nothing else in them repeats a bound.

use crate::backoff::{MAX_MULTIPLIER, MAX_SAMPLES};
use crate::budget::MAX_TOKENS;
use crate::error::{ConfigError, Expected, Got, Limit, MAX_DURATION_MS, Unit};
use crate::hedge::{MAX_HEDGED_ATTEMPTS, MIN_HEDGED_ATTEMPTS};
use crate::nets::grpc::MAX_GRPC_TOKENS;
use crate::policy::MAX_ATTEMPTS;

/// The largest ratio budget deposit: Finagle's and tower's `percentCanRetry` top (1000).
const MAX_RATIO: f64 = 1000.0;
/// The largest adaptive-throttling K.
const MAX_K: f64 = 1000.0;
use crate::sim::{
    MAX_CAPACITY_RPS, MAX_CLIENTS, MAX_FACTOR, MAX_LATENCY_MS, MAX_LAYERS, MAX_QUEUE, MAX_RATE,
    MAX_RUNS, MAX_SERVERS, MAX_SLOT_MS, MAX_SPREAD, MAX_WORKERS, MIN_CAPACITY_RPS, MIN_RATE,
};

/// Declares [`Field`], its `ALL` list and its names together, so the list cannot miss one.
macro_rules! fields {
    ($( $(#[$doc:meta])* $variant:ident => $name:literal, )*) => {
        /// A setting, one variant each.
        ///
        /// Deliberately not `#[non_exhaustive]`: front ends `match` it exhaustively, so a new
        /// setting fails to compile in every front end that does not map it yet.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Field {
            $( $(#[$doc])* $variant, )*
        }

        impl Field {
            /// Every field, in declaration order.
            pub const ALL: &'static [Field] = &[$(Field::$variant,)*];

            /// The crate's snake_case name: `base`, `max_attempts`, `capacity_rps`, …
            pub const fn name(self) -> &'static str {
                match self {
                    $(Field::$variant => $name,)*
                }
            }
        }
    };
}

fields! {
    /// The backoff formula ([`Strategy`](crate::backoff::Strategy)).
    Strategy => "strategy",
    /// The first delay (ms).
    Base => "base",
    /// The longest delay (ms).
    Cap => "cap",
    /// Growth per retry.
    Multiplier => "multiplier",
    /// Attempts in all, the first included.
    MaxAttempts => "max_attempts",
    /// No retry later than this after the first attempt (ms).
    MaxElapsed => "max_elapsed",
    /// The longest server hint honoured (ms).
    MaxRetryAfter => "max_retry_after",
    /// How many delay sequences to draw at once.
    Samples => "samples",
    /// A seed, as a number (see [`MAX_EXACT_SEED`](crate::MAX_EXACT_SEED)).
    Seed => "seed",
    /// An HTTP method.
    Method => "method",
    /// An HTTP status.
    Status => "status",
    /// A transport error's name.
    Error => "error",
    /// The statuses retried, as text (`5xx,408,429`).
    RetryOn => "retry_on",
    /// A budget's tokens when full.
    Capacity => "capacity",
    /// A budget's refill.
    RefillPerSec => "refill_per_sec",
    /// Tokens one retry costs.
    RetryCost => "retry_cost",
    /// Tokens a success puts back.
    SuccessRefund => "success_refund",
    /// A call site's name in a budget registry.
    CallSite => "call_site",
    /// A simulation's scenario.
    Scenario => "scenario",
    /// Simulated clients.
    Clients => "clients",
    /// How long the simulated server is down (ms).
    Outage => "outage",
    /// When the outage starts (ms).
    OutageStart => "outage_start",
    /// Requests per second the server serves.
    CapacityRps => "capacity_rps",
    /// What a rejection costs, as a fraction of serving a request.
    RejectCost => "reject_cost",
    /// Mean round trip (ms).
    Latency => "latency",
    /// The latency's standard deviation (ms).
    LatencySd => "latency_sd",
    /// `steady`: requests per client per second.
    Rate => "rate",
    /// `steady`: how long requests keep coming (ms).
    Duration => "duration",
    /// `burst`: the window first requests spread over (ms).
    BurstWindow => "burst_window",
    /// The simulated server's `Retry-After` (ms).
    RetryAfter => "retry_after",
    /// Who shares a simulated budget.
    BudgetScope => "budget_scope",
    /// Width of a series slot (ms).
    Slot => "slot",
    /// The most clients whose attempts the log keeps.
    LogClients => "log_clients",
    /// Runs to average.
    Runs => "runs",
    /// A call's deadline: no retry starts later (ms).
    Deadline => "deadline",
    /// One attempt's timeout (ms).
    AttemptTimeout => "attempt_timeout",
    /// Simulated servers behind the load balancer.
    Servers => "servers",
    /// How the load balancer picks a server.
    Balance => "balance",
    /// Concurrent requests one server serves (0: unlimited).
    Workers => "workers",
    /// Requests one server keeps waiting.
    Queue => "queue",
    /// Which waiting request a server serves next.
    QueueOrder => "queue_order",
    /// A waiting request older than this is dropped (ms).
    QueueTimeout => "queue_timeout",
    /// Mean service time (ms).
    Service => "service",
    /// How service times are distributed.
    ServiceDist => "service_dist",
    /// A log-normal service time's standard deviation of the logarithm.
    ServiceSpread => "service_spread",
    /// Extra service time per request already in service (ms).
    ServiceSlope => "service_slope",
    /// The chance that an attempt fails with 500 whatever the load.
    FailRate => "fail_rate",
    /// How many servers the outage takes down.
    OutageServers => "outage_servers",
    /// When a slowdown starts (ms).
    SlowdownStart => "slowdown_start",
    /// How long a slowdown lasts (ms).
    SlowdownLength => "slowdown_length",
    /// What a slowdown multiplies service times by.
    SlowdownFactor => "slowdown_factor",
    /// A simulated client's timeout per attempt (ms).
    Timeout => "timeout",
    /// How one network leg's delay is distributed.
    LatencyDist => "latency_dist",
    /// `spike`: when the spike starts (ms).
    SpikeStart => "spike_start",
    /// `spike`: how long it lasts (ms).
    SpikeLength => "spike_length",
    /// `spike`: what the arrival rate is multiplied by.
    SpikeFactor => "spike_factor",
    /// `closed`: a client's mean pause between requests (ms).
    Think => "think",
    // Safety nets (`crate::nets`): budgets of every school, breaker, throttle.
    /// Which school of budget: `bucket`, `ratio`, `grpc`, `aws`.
    BudgetKind => "budget_kind",
    /// A ratio budget's deposit per request.
    Ratio => "ratio",
    /// The most tokens a ratio budget holds.
    RatioCap => "ratio_cap",
    /// Retries per second a ratio budget always allows.
    MinPerSec => "min_per_sec",
    /// How long a ratio budget's deposits count (ms).
    Window => "window",
    /// gRPC throttling's tokens when full.
    MaxTokens => "max_tokens",
    /// Tokens a success gives back to gRPC throttling.
    TokenRatio => "token_ratio",
    /// The AWS retry quota's tokens.
    Tokens => "tokens",
    /// Tokens a retry after a timeout costs in the AWS quota.
    TimeoutCost => "timeout_cost",
    /// The share of failures that opens a circuit breaker.
    FailureRatio => "failure_ratio",
    /// The window a breaker samples over (ms).
    Sampling => "sampling",
    /// Outcomes a breaker must see before it may open.
    MinThroughput => "min_throughput",
    /// How long an open breaker stays open (ms).
    BreakDuration => "break_duration",
    /// What an open breaker blocks: `all` or `retries`.
    BreakerMode => "breaker_mode",
    /// Adaptive throttling's K: requests let through per accept.
    K => "k",
    /// The window adaptive throttling counts over (ms).
    ThrottleWindow => "throttle_window",
    // Hedging (`crate::hedge`).
    /// Hedging: how long to wait for an answer before the next attempt (ms).
    HedgeDelay => "hedge_delay",
    /// Hedging: attempts in all, the first included.
    HedgeMaxAttempts => "hedge_max_attempts",
    /// Services in the chain a simulated request goes through.
    Layers => "layers",
    /// Which layers of the chain retry.
    RetryAt => "retry_at",
}

const fn ms(min: f64) -> Option<Limit> {
    Some(Limit::new(min, MAX_DURATION_MS, Unit::Ms))
}

impl Field {
    /// The field's range, for the fields that are numbers; `None` for text (a strategy, a
    /// method, a list of statuses, a name).
    ///
    /// For [`min_exclusive`](Self::min_exclusive) fields, `min` itself is not accepted.
    pub const fn limit(self) -> Option<Limit> {
        match self {
            Field::Base
            | Field::Cap
            | Field::MaxElapsed
            | Field::MaxRetryAfter
            | Field::Outage
            | Field::OutageStart
            | Field::BurstWindow
            | Field::RetryAfter
            | Field::Deadline
            | Field::AttemptTimeout
            | Field::QueueTimeout
            | Field::Service
            | Field::ServiceSlope
            | Field::SlowdownStart
            | Field::SlowdownLength
            | Field::SpikeStart
            | Field::SpikeLength
            | Field::Think
            | Field::HedgeDelay => ms(0.0),
            // A client timeout under a millisecond is shorter than any trip the simulator
            // models, and would put every timer in the bucket being handed out.
            Field::Timeout => ms(1.0),
            Field::Servers => Some(Limit::whole(1.0, MAX_SERVERS as f64, Unit::Count)),
            Field::OutageServers => Some(Limit::whole(0.0, MAX_SERVERS as f64, Unit::Count)),
            Field::Workers => Some(Limit::whole(0.0, MAX_WORKERS as f64, Unit::Count)),
            Field::Queue => Some(Limit::whole(0.0, MAX_QUEUE as f64, Unit::Count)),
            Field::ServiceSpread => Some(Limit::new(0.0, MAX_SPREAD, Unit::None)),
            Field::FailRate => Some(Limit::new(0.0, 1.0, Unit::Fraction)),
            Field::SlowdownFactor => Some(Limit::new(1.0, MAX_FACTOR, Unit::None)),
            Field::SpikeFactor => Some(Limit::new(0.0, MAX_FACTOR, Unit::None)),
            Field::Duration => ms(1.0),
            Field::Multiplier => Some(Limit::new(1.0, MAX_MULTIPLIER, Unit::None)),
            Field::MaxAttempts => Some(Limit::whole(1.0, MAX_ATTEMPTS as f64, Unit::Count)),
            Field::HedgeMaxAttempts => Some(Limit::whole(
                MIN_HEDGED_ATTEMPTS as f64,
                MAX_HEDGED_ATTEMPTS as f64,
                Unit::Count,
            )),
            Field::Samples => Some(Limit::whole(0.0, MAX_SAMPLES as f64, Unit::Count)),
            Field::Seed => Some(Limit::whole(0.0, crate::MAX_EXACT_SEED as f64, Unit::None)),
            Field::Status => Some(Limit::whole(100.0, 599.0, Unit::None)),
            Field::Capacity | Field::RetryCost | Field::SuccessRefund => {
                Some(Limit::new(0.0, MAX_TOKENS, Unit::Count))
            }
            Field::RefillPerSec => Some(Limit::new(0.0, MAX_TOKENS, Unit::PerSecond)),
            Field::Clients => Some(Limit::whole(1.0, MAX_CLIENTS as f64, Unit::Count)),
            Field::LogClients => Some(Limit::whole(0.0, MAX_CLIENTS as f64, Unit::Count)),
            Field::Runs => Some(Limit::whole(1.0, MAX_RUNS as f64, Unit::Count)),
            Field::CapacityRps => Some(Limit::new(
                MIN_CAPACITY_RPS,
                MAX_CAPACITY_RPS,
                Unit::PerSecond,
            )),
            Field::RejectCost => Some(Limit::new(0.0, 1.0, Unit::Fraction)),
            Field::Latency | Field::LatencySd => Some(Limit::new(0.0, MAX_LATENCY_MS, Unit::Ms)),
            Field::Slot => Some(Limit::new(1.0, MAX_SLOT_MS, Unit::Ms)),
            Field::Rate => Some(Limit::new(MIN_RATE, MAX_RATE, Unit::PerSecond)),
            Field::Ratio => Some(Limit::new(0.0, MAX_RATIO, Unit::None)),
            Field::RatioCap | Field::Tokens | Field::TimeoutCost => {
                Some(Limit::new(0.0, MAX_TOKENS, Unit::Count))
            }
            Field::MinPerSec => Some(Limit::new(0.0, MAX_TOKENS, Unit::PerSecond)),
            Field::MaxTokens => Some(Limit::new(0.0, MAX_GRPC_TOKENS, Unit::Count)),
            Field::TokenRatio => Some(Limit::new(0.0, MAX_GRPC_TOKENS, Unit::Count)),
            Field::FailureRatio => Some(Limit::new(0.0, 1.0, Unit::Fraction)),
            Field::MinThroughput => Some(Limit::whole(1.0, MAX_TOKENS, Unit::Count)),
            Field::K => Some(Limit::new(1.0, MAX_K, Unit::None)),
            Field::Window | Field::Sampling | Field::BreakDuration | Field::ThrottleWindow => {
                ms(0.0)
            }
            Field::Layers => Some(Limit::whole(1.0, MAX_LAYERS as f64, Unit::Count)),
            Field::Strategy
            | Field::BudgetKind
            | Field::BreakerMode
            | Field::Method
            | Field::Error
            | Field::RetryOn
            | Field::CallSite
            | Field::Scenario
            | Field::BudgetScope
            | Field::Balance
            | Field::QueueOrder
            | Field::ServiceDist
            | Field::LatencyDist
            | Field::RetryAt => None,
        }
    }

    /// Whether the range's `min` is itself excluded: a retry must cost something, an
    /// attempt needs some time, and so does serving a request.
    pub const fn min_exclusive(self) -> bool {
        matches!(
            self,
            Field::RetryCost
                | Field::AttemptTimeout
                | Field::Deadline
                | Field::Service
                | Field::MaxTokens
                | Field::TokenRatio
                | Field::TimeoutCost
                | Field::Window
                | Field::Sampling
                | Field::BreakDuration
                | Field::ThrottleWindow
        )
    }

    /// Checks `value` against the field's [`limit`](Self::limit) and returns it, or the
    /// error naming the field. A field without a range (text) accepts any number: there
    /// is nothing to check it against.
    ///
    /// ```
    /// use stampede::{Code, Field};
    /// assert_eq!(Field::Deadline.check(500.0), Ok(500.0));
    /// let e = Field::Deadline.check(-1.0).unwrap_err();
    /// assert_eq!((e.field, e.code()), (Field::Deadline, Code::OutOfRange));
    /// assert_eq!(Field::MaxAttempts.check(2.5).unwrap_err().code(), Code::NotWhole);
    /// ```
    pub fn check(self, value: f64) -> Result<f64, ConfigError> {
        let Some(limit) = self.limit() else {
            return Ok(value);
        };
        if self.min_exclusive() {
            if value > limit.min && limit.contains(value) {
                return Ok(value);
            }
            let expected = Expected::Above {
                min: limit.min,
                max: limit.max,
                unit: limit.unit,
            };
            return Err(ConfigError::new(self, expected, Got::Number(value)));
        }
        if limit.contains(value) {
            Ok(value)
        } else {
            Err(ConfigError::range(self, limit, value))
        }
    }
}

/// Compares with the snake_case name, so `assert_eq!(err.field, "cap")` reads naturally.
impl PartialEq<&str> for Field {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_snake_case() {
        for (i, a) in Field::ALL.iter().enumerate() {
            assert!(
                a.name()
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b == b'_'),
                "{a:?}"
            );
            for b in &Field::ALL[i + 1..] {
                assert_ne!(a.name(), b.name());
            }
        }
    }

    /// A work bound's `max` is the largest value of the field that fits: that value passes.
    #[test]
    fn work_bounds_give_the_largest_value_that_fits() {
        use crate::error::{Code, Expected};
        use crate::sim::{Scenario, SimSettings};
        let steady = SimSettings {
            scenario: Scenario::Steady,
            clients: 1_000_000,
            rate_per_client: 1000.0,
            duration_ms: 60_000.0,
            ..SimSettings::default()
        };
        let e = steady.validate().unwrap_err();
        assert_eq!((e.field, e.code()), (Field::Rate, Code::TooMuchWork));
        let Expected::Work { max, .. } = e.expected else {
            panic!("{e:?}")
        };
        let fits = SimSettings {
            rate_per_client: max,
            ..steady.clone()
        };
        assert_eq!(fits.validate(), Ok(()));
        let occ = SimSettings {
            scenario: Scenario::AwsOcc,
            clients: crate::sim::MAX_OCC_CLIENTS + 1,
            ..SimSettings::default()
        };
        let e = occ.validate().unwrap_err();
        assert_eq!((e.field, e.code()), (Field::Clients, Code::TooMuchWork));
        // Samples: 99 delays each, so 101,010 sequences fit in 10,000,000 delays and no more.
        use crate::backoff::check_samples;
        assert_eq!(check_samples(101_010.0, 99), Ok(101_010));
        let e = check_samples(101_011.0, 99).unwrap_err();
        assert_eq!(
            e.to_string(),
            "samples: expected at most 101010 samples (at most 10000000 delays in all: \
             samples × (attempts − 1)), got 101011"
        );
        assert_eq!(check_samples(1_000_000.0, 0), Ok(1_000_000));
    }

    /// The defaults the front ends show are the ones the core runs with.
    #[test]
    fn defaults_hang_together() {
        use crate::sim::{Scenario, SimSettings};
        let s = SimSettings::default();
        assert_eq!(s.policy.backoff, s.scenario.default_backoff());
        assert_eq!(
            s.policy.max_attempts,
            crate::policy::PolicySettings::default().max_attempts
        );
        assert!(crate::budget::BudgetSettings::default().validate().is_ok());
        assert!(crate::policy::PolicySettings::default().build().is_ok());
        for scenario in Scenario::ALL {
            assert!(scenario.default_backoff().build().is_ok(), "{scenario}");
            assert_eq!(scenario.name().parse::<Scenario>(), Ok(scenario));
        }
        for scope in [
            crate::sim::BudgetScope::Client,
            crate::sim::BudgetScope::Shared,
        ] {
            assert_eq!(scope.name().parse(), Ok(scope));
        }
    }

    #[test]
    fn every_range_is_sound_and_checked() {
        for &f in Field::ALL {
            let Some(l) = f.limit() else { continue };
            assert!(l.min <= l.max, "{f:?}");
            assert_eq!(f.check(l.max), Ok(l.max), "{f:?}");
            assert_eq!(f.check(l.min).is_ok(), !f.min_exclusive(), "{f:?}");
            for bad in [f64::NAN, f64::INFINITY, l.max * 2.0 + 1.0, l.min - 1.0] {
                let e = f.check(bad).unwrap_err();
                assert_eq!(e.field, f);
                assert!(matches!(e.got, Got::Number(n) if n.to_bits() == bad.to_bits()));
            }
        }
    }
}
