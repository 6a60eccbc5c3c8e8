//! Safety nets beyond attempt limits: budgets of every school, the circuit breaker,
//! client-side adaptive throttling.
//!
//! "At most 4 attempts" bounds one request; these bound a call site. Each answers "how
//! much retrying is safe?" the way a library or a proxy people use answers it, with that
//! source's semantics and constants (each file says which, and where ours differ):
//!
//! | net | source | limits | first attempts |
//! |---|---|---|---|
//! | [`TokenBucket`](crate::budget::TokenBucket) | the article | retries to a refill per second | refused while empty |
//! | [`ratio`] | Finagle `RetryBudget`, tower `TpsBudget`, Linkerd; Brooker's adaptive client | retries to a share of requests, plus a floor | never refused |
//! | [`grpc`] | gRFC A6 retry throttling | retries while tokens > max/2 | never refused |
//! | [`aws`] | AWS SDKs' standard retry quota | retries to 500 tokens, refunded by successes | never refused |
//! | [`breaker`] | Polly v8 circuit breaker; Brooker's `retries` mode | everything (or retries) while open | refused while open (mode `all`) |
//! | [`throttle`] | Google SRE book, "Handling Overload" | every attempt, with a probability | refused with that probability |
//!
//! A call site holds a [`Guard`]: at most one budget, plus a breaker and a throttle. The
//! [`Policy`](crate::policy::Policy) asks it before a first attempt
//! ([`admit_guarded`](crate::policy::Policy::admit_guarded)), charges it when a retry is
//! *decided*, never when it is sent (Envoy's bug #30205), and tells it how each attempt
//! ended ([`decide_verdict_guarded`](crate::policy::Policy::decide_verdict_guarded)).
//! Every net sees the same failures: the dependency failing, retried or not
//! ([`Verdict::dependency_failed`](crate::classify::Verdict::dependency_failed)).
//!
//! A refusal is a deterministic error sent nowhere, and the three kinds are told apart
//! ([`Blocked`]): a spent budget of any school, an open circuit, a throttled attempt.
//!
//! Time is an argument (`now_ms`, a monotonic clock), and the throttle's draw comes from
//! the caller's seeded RNG: the same nets run in the simulator, a browser and a server.

/// Whether a clock read `now_ms` after `last_ms` went back by more than any duration the
/// crate accepts ([`MAX_DURATION_MS`](crate::error::MAX_DURATION_MS)): not the jitter of
/// events taken slightly out of order (the simulator's, which the nets ignore), but a
/// different clock, or one bad reading far ahead before it. A net then starts again from
/// `now_ms` instead of waiting, frozen, for the clock to catch up (for ever, after 1e300).
#[inline]
pub(crate) fn went_back(now_ms: f64, last_ms: f64) -> bool {
    last_ms - now_ms > crate::error::MAX_DURATION_MS
}

pub mod aws;
pub mod breaker;
pub mod grpc;
mod guard;
pub mod ratio;
pub mod throttle;
mod window;

pub use aws::{AwsQuota, AwsSettings};
pub use breaker::{Breaker, BreakerMode, BreakerSettings, BreakerState, CircuitOpen};
pub use grpc::{GrpcSettings, GrpcThrottle};
pub use guard::{Blocked, Budget, BudgetKind, Guard, GuardSettings, Settled};
pub use ratio::{RatioBudget, RatioSettings};
pub use throttle::{Throttle, ThrottleSettings, Throttled};

#[cfg(test)]
mod props;
