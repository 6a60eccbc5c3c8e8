//! The core's settings under their JavaScript names: one exhaustive `match` each, so a
//! setting added to the core does not compile here until it has a name and a place.

use stampede::Field;
use stampede::classify::Action;

/// The JavaScript name of a core field, as the options objects spell it.
pub(crate) const fn js_name(field: Field) -> &'static str {
    match field {
        Field::Strategy => "strategy",
        Field::Base => "baseMs",
        Field::Cap => "capMs",
        Field::Multiplier => "multiplier",
        Field::MaxAttempts => "maxAttempts",
        Field::MaxElapsed => "maxElapsedMs",
        Field::MaxRetryAfter => "maxRetryAfterMs",
        Field::Samples => "n",
        Field::Seed => "seed",
        Field::Method => "method",
        Field::Status => "status",
        Field::Error => "error",
        Field::RetryOn => "retryOn",
        Field::Capacity => "capacity",
        Field::RefillPerSec => "refillPerSec",
        Field::RetryCost => "retryCost",
        Field::SuccessRefund => "successRefund",
        Field::CallSite => "callSite",
        Field::Scenario => "scenario",
        Field::Clients => "clients",
        Field::Outage => "outageMs",
        Field::OutageStart => "outageStartMs",
        Field::CapacityRps => "capacityRps",
        Field::RejectCost => "rejectCost",
        Field::Latency => "latencyMs",
        Field::LatencySd => "latencySdMs",
        Field::Rate => "ratePerClient",
        Field::Duration => "durationMs",
        Field::BurstWindow => "burstWindowMs",
        Field::RetryAfter => "retryAfterMs",
        Field::BudgetScope => "budgetScope",
        Field::Slot => "slotMs",
        Field::LogClients => "logClients",
        Field::Runs => "runs",
        Field::Deadline => "deadlineMs",
        Field::AttemptTimeout => "attemptTimeoutMs",
        Field::Servers => "servers",
        Field::Balance => "balance",
        Field::Workers => "workers",
        Field::Queue => "queue",
        Field::QueueOrder => "queueOrder",
        Field::QueueTimeout => "queueTimeoutMs",
        Field::Service => "serviceMs",
        Field::ServiceDist => "serviceDist",
        Field::ServiceSpread => "serviceSpread",
        Field::ServiceSlope => "serviceSlopeMs",
        Field::FailRate => "failRate",
        Field::OutageServers => "outageServers",
        Field::SlowdownStart => "startMs",
        Field::SlowdownLength => "lengthMs",
        Field::SlowdownFactor => "factor",
        Field::Timeout => "timeoutMs",
        Field::LatencyDist => "latencyDist",
        Field::SpikeStart => "spikeStartMs",
        Field::SpikeLength => "spikeLengthMs",
        Field::SpikeFactor => "spikeFactor",
        Field::Think => "thinkMs",
        Field::BudgetKind => "kind",
        Field::Ratio => "ratio",
        Field::RatioCap => "cap",
        Field::MinPerSec => "minPerSec",
        Field::Window => "windowMs",
        Field::MaxTokens => "maxTokens",
        Field::TokenRatio => "tokenRatio",
        Field::Tokens => "tokens",
        Field::TimeoutCost => "timeoutCost",
        Field::FailureRatio => "failureRatio",
        Field::Sampling => "samplingMs",
        Field::MinThroughput => "minThroughput",
        Field::BreakDuration => "breakMs",
        Field::BreakerMode => "mode",
        Field::K => "k",
        Field::ThrottleWindow => "windowMs",
        Field::HedgeDelay => "delayMs",
        Field::HedgeMaxAttempts => "maxAttempts",
        Field::Layers => "layers",
        Field::RetryAt => "retryAt",
    }
}

/// Where a field sits in the JavaScript API, which decides its prefix when nested.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Group {
    /// `PolicyOptions`: `policy.` inside `Simulation` and `retryFetch` options.
    Policy,
    /// `BudgetOptions`: `budget.` inside them.
    Budget,
    /// `SlowdownOptions`: `slowdown.` inside `Simulation` options.
    Slowdown,
    /// `BreakerOptions`: `breaker.` inside `Simulation` and `retryFetch` options.
    Breaker,
    /// `ThrottleOptions`: `throttle.` inside them.
    Throttle,
    /// `HedgingOptions`: `hedging.` inside `Simulation` and `retryFetch` options.
    Hedging,
    /// A top-level option or argument.
    Top,
    /// Not an option of the JavaScript API.
    None,
}

/// The group of a core field.
pub(crate) const fn group(field: Field) -> Group {
    match field {
        Field::Strategy
        | Field::Base
        | Field::Cap
        | Field::Multiplier
        | Field::MaxAttempts
        | Field::MaxElapsed
        | Field::MaxRetryAfter
        | Field::RetryOn => Group::Policy,
        Field::Capacity
        | Field::RefillPerSec
        | Field::RetryCost
        | Field::SuccessRefund
        | Field::BudgetKind
        | Field::Ratio
        | Field::RatioCap
        | Field::MinPerSec
        | Field::Window
        | Field::MaxTokens
        | Field::TokenRatio
        | Field::Tokens
        | Field::TimeoutCost => Group::Budget,
        Field::FailureRatio
        | Field::Sampling
        | Field::MinThroughput
        | Field::BreakDuration
        | Field::BreakerMode => Group::Breaker,
        Field::K | Field::ThrottleWindow => Group::Throttle,
        Field::Samples
        | Field::Seed
        | Field::Method
        | Field::Status
        | Field::Error
        | Field::CallSite
        | Field::Scenario
        | Field::Clients
        | Field::Outage
        | Field::OutageStart
        | Field::CapacityRps
        | Field::RejectCost
        | Field::Latency
        | Field::LatencySd
        | Field::Rate
        | Field::Duration
        | Field::BurstWindow
        | Field::RetryAfter
        | Field::BudgetScope
        | Field::Slot
        | Field::LogClients
        | Field::Deadline
        | Field::AttemptTimeout
        | Field::Servers
        | Field::Balance
        | Field::Workers
        | Field::Queue
        | Field::QueueOrder
        | Field::QueueTimeout
        | Field::Service
        | Field::ServiceDist
        | Field::ServiceSpread
        | Field::ServiceSlope
        | Field::FailRate
        | Field::OutageServers
        | Field::Timeout
        | Field::LatencyDist
        | Field::SpikeStart
        | Field::SpikeLength
        | Field::SpikeFactor
        | Field::Think
        | Field::Layers
        | Field::RetryAt => Group::Top,
        Field::SlowdownStart | Field::SlowdownLength | Field::SlowdownFactor => Group::Slowdown,
        Field::HedgeDelay | Field::HedgeMaxAttempts => Group::Hedging,
        Field::Runs => Group::None,
    }
}

/// The prefix of a nested group's fields in messages.
pub(crate) const fn prefix_of(group: Group) -> &'static str {
    match group {
        Group::Policy => "policy.",
        Group::Budget => "budget.",
        Group::Slowdown => "slowdown.",
        Group::Breaker => "breaker.",
        Group::Throttle => "throttle.",
        Group::Hedging => "hedging.",
        Group::Top | Group::None => "",
    }
}

/// The JavaScript name of a verdict's action.
pub(crate) fn action_name(a: Action) -> &'static str {
    match a {
        Action::Success => "success",
        Action::Retry => "retry",
        Action::DoNotRetry => "do-not-retry",
    }
}
