//! The circuit breaker: closed, open, half-open, with Polly v8's semantics.
//!
//! # Source
//!
//! Polly v8's `CircuitBreakerStrategyOptions` (defaults `FailureRatio` 0.1,
//! `SamplingDuration` 30 s, `MinimumThroughput` 100, `BreakDuration` 5 s): the circuit
//! *opens* at a failure when, over the sampling window, at least `MinimumThroughput`
//! outcomes were seen and the share of them that failed reaches `FailureRatio` (a success
//! never opens it: Polly decides in `OnActionFailure`). Open, every call fails fast
//! (Polly's `BrokenCircuitException`) for the break duration. Then it is *half-open*: one
//! call goes through as a probe; its success closes the circuit (and forgets the window),
//! its failure opens it for another break. While the probe is out, other calls fail fast;
//! a probe that never reports is followed by another after one more break duration (as
//! Polly's `_blockedUntil` does).
//!
//! The `retries` mode is Brooker's ("Fixing retries with token buckets and circuit
//! breakers", 2022) and stability-sim's: the breaker watches every outcome but blocks
//! only retries, so first attempts keep flowing and keep measuring the dependency.
//!
//! # Where ours differs, and why
//!
//! - A *failure* is the dependency failing
//!   ([`Verdict::dependency_failed`](crate::classify::Verdict::dependency_failed)):
//!   overload, outage, a timeout or another transport failure, a 5xx, 408 or 429, even
//!   when this request may not retry it (a POST's 503, a `Retry-After` past the maximum).
//!   Polly handles what its `ShouldHandle` predicate says; this is the predicate every
//!   other net here uses too, so the nets see the same failures. An attempt its caller
//!   aborted says nothing of the dependency: it is not counted, and a probe that ends so
//!   is one that never reported (the next goes a break later), where Polly's would count
//!   the cancellation as its outcome. (Letting the next call probe at once would need the
//!   breaker to know which attempt is the probe: any aborted attempt would free the slot.)
//! - Outcomes that arrive while the circuit is open (attempts sent before it opened) are
//!   ignored, as in Polly; while half-open, any outcome decides, as in Polly.
//! - The window is ten slots (Polly uses rolling windows too, of a tenth of the sampling
//!   duration when it is long enough).

use core::fmt;

use super::window::Window;
use crate::error::{ConfigError, Field, fmt_num};

/// Which attempts an open breaker blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum BreakerMode {
    /// Every attempt, first ones included (Polly).
    #[default]
    All,
    /// Retries only (Brooker, stability-sim).
    Retries,
}

impl BreakerMode {
    /// The names, in order: `all`, `retries`.
    pub const NAMES: [&'static str; 2] = ["all", "retries"];

    /// The mode's name.
    pub const fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

impl core::str::FromStr for BreakerMode {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        const ALL: [BreakerMode; 2] = [BreakerMode::All, BreakerMode::Retries];
        crate::error::lookup(Field::BreakerMode, &BreakerMode::NAMES, s).map(|i| ALL[i])
    }
}

impl fmt::Display for BreakerMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Unvalidated breaker settings.
///
/// # Default
/// Polly v8's: 10% over 30 s once 100 calls were seen, open for 5 s; mode `all`.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BreakerSettings {
    /// The share of failures that opens the circuit: 0 to 1.
    pub failure_ratio: f64,
    /// The window failures are counted over (ms).
    pub sampling_ms: f64,
    /// Outcomes the window must hold before the ratio counts.
    pub min_throughput: u32,
    /// How long the circuit stays open (ms).
    pub break_ms: f64,
    /// What an open circuit blocks.
    pub mode: BreakerMode,
}

impl Default for BreakerSettings {
    fn default() -> Self {
        BreakerSettings {
            failure_ratio: 0.1,
            sampling_ms: 30_000.0,
            min_throughput: 100,
            break_ms: 5_000.0,
            mode: BreakerMode::All,
        }
    }
}

impl BreakerSettings {
    /// Validates every field.
    pub fn validate(self) -> Result<Self, ConfigError> {
        Field::FailureRatio.check(self.failure_ratio)?;
        Field::Sampling.check(self.sampling_ms)?;
        Field::MinThroughput.check(f64::from(self.min_throughput))?;
        Field::BreakDuration.check(self.break_ms)?;
        Ok(self)
    }
}

/// The breaker's state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BreakerState {
    /// Calls flow; outcomes are sampled.
    Closed,
    /// Calls fail fast until `until_ms`.
    Open {
        /// When the break ends (ms).
        until_ms: f64,
    },
    /// A probe is out; no other call goes before `blocked_until_ms`.
    HalfOpen {
        /// When another probe may go if this one has not reported (ms).
        blocked_until_ms: f64,
    },
}

/// The error of a call an open circuit blocked: deterministic, and sent nowhere.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CircuitOpen {
    /// How long until a call could go through again (ms).
    pub retry_in_ms: f64,
}

impl fmt::Display for CircuitOpen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "circuit open: failing fast for {} ms instead of calling downstream",
            fmt_num(self.retry_in_ms.ceil())
        )
    }
}

impl std::error::Error for CircuitOpen {}

/// A circuit breaker. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Breaker {
    settings: BreakerSettings,
    state: BreakerState,
    /// Failures and outcomes in the sampling window.
    window: Window<2>,
}

const FAILURES: usize = 0;
const OUTCOMES: usize = 1;

impl Breaker {
    /// A closed breaker at `now_ms`; `settings` validated.
    pub(crate) fn new(settings: BreakerSettings, now_ms: f64) -> Self {
        Breaker {
            settings,
            state: BreakerState::Closed,
            window: Window::new(settings.sampling_ms, now_ms),
        }
    }

    /// The settings.
    pub const fn settings(&self) -> BreakerSettings {
        self.settings
    }

    /// The state.
    pub const fn state(&self) -> BreakerState {
        self.state
    }

    /// Whether an attempt (a retry if `retry`) may go at `now_ms`. An open circuit whose
    /// break is over lets this one through as the probe.
    pub fn allow(&mut self, now_ms: f64, retry: bool) -> Result<(), CircuitOpen> {
        if self.settings.mode == BreakerMode::Retries && !retry {
            return Ok(());
        }
        let break_ms = self.settings.break_ms;
        let blocked_until = match &mut self.state {
            BreakerState::Closed => return Ok(()),
            BreakerState::Open { until_ms: u }
            | BreakerState::HalfOpen {
                blocked_until_ms: u,
            } => {
                // Another clock (or one bad `now_ms` far ahead before this one) must not
                // keep the circuit shut for longer than one break from now.
                if super::went_back(now_ms, *u - break_ms) {
                    *u = now_ms + break_ms;
                }
                *u
            }
        };
        if now_ms >= blocked_until {
            self.state = BreakerState::HalfOpen {
                blocked_until_ms: now_ms + self.settings.break_ms,
            };
            Ok(())
        } else {
            Err(CircuitOpen {
                retry_in_ms: blocked_until - now_ms,
            })
        }
    }

    /// An attempt's outcome reached the client at `now_ms`: `failed` if the dependency
    /// failed.
    pub fn record(&mut self, now_ms: f64, failed: bool) {
        match self.state {
            BreakerState::Open { .. } => {}
            BreakerState::HalfOpen { .. } => {
                if failed {
                    self.open(now_ms);
                } else {
                    self.state = BreakerState::Closed;
                    self.window.clear();
                }
            }
            BreakerState::Closed => {
                self.window.add(now_ms, OUTCOMES, 1.0);
                if !failed {
                    return;
                }
                // Only a failure opens the circuit, as in Polly (`OnActionFailure`): a success
                // never does, even with the ratio still past the threshold, and a ratio of 0
                // opens at the first failure once the window has its throughput.
                self.window.add(now_ms, FAILURES, 1.0);
                let [failures, outcomes] = self.window.sums(now_ms);
                if outcomes >= f64::from(self.settings.min_throughput)
                    && failures >= self.settings.failure_ratio * outcomes
                {
                    self.open(now_ms);
                }
            }
        }
    }

    fn open(&mut self, now_ms: f64) {
        self.state = BreakerState::Open {
            until_ms: now_ms + self.settings.break_ms,
        };
        self.window.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn breaker(mode: BreakerMode) -> Breaker {
        let s = BreakerSettings {
            failure_ratio: 0.5,
            sampling_ms: 1000.0,
            min_throughput: 4,
            break_ms: 100.0,
            mode,
        };
        Breaker::new(s.validate().unwrap(), 0.0)
    }

    #[test]
    fn a_ratio_of_zero_opens_at_the_first_failure_never_on_successes() {
        let s = BreakerSettings {
            failure_ratio: 0.0,
            sampling_ms: 1000.0,
            min_throughput: 1,
            break_ms: 100.0,
            mode: BreakerMode::All,
        };
        let mut b = Breaker::new(s.validate().unwrap(), 0.0);
        for t in 1..=20 {
            b.record(f64::from(t), false);
            assert_eq!(
                b.state(),
                BreakerState::Closed,
                "a success at {t} ms opened it"
            );
        }
        b.record(21.0, true);
        assert_eq!(b.state(), BreakerState::Open { until_ms: 121.0 });
    }

    #[test]
    fn closed_open_half_open_closed() {
        let mut b = breaker(BreakerMode::All);
        // Three failures are not enough samples; a success that makes four does not open it
        // (only a failure does, as in Polly), the next failure does (4/5 ≥ 0.5).
        for t in [1.0, 2.0, 3.0] {
            b.record(t, true);
            assert_eq!(b.state(), BreakerState::Closed);
        }
        b.record(3.5, false);
        assert_eq!(b.state(), BreakerState::Closed);
        b.record(4.0, true);
        assert_eq!(b.state(), BreakerState::Open { until_ms: 104.0 });
        assert_eq!(b.allow(50.0, false), Err(CircuitOpen { retry_in_ms: 54.0 }));
        // The break is over: one probe, the others wait.
        assert!(b.allow(104.0, false).is_ok());
        assert!(b.allow(105.0, true).is_err());
        // A failed probe opens it again.
        b.record(110.0, true);
        assert_eq!(b.state(), BreakerState::Open { until_ms: 210.0 });
        assert!(b.allow(210.0, false).is_ok());
        b.record(220.0, false);
        assert_eq!(b.state(), BreakerState::Closed);
        // The window was forgotten: three failures do not open it again.
        for t in [230.0, 231.0, 232.0] {
            b.record(t, true);
        }
        assert_eq!(b.state(), BreakerState::Closed);
    }

    #[test]
    fn a_time_far_ahead_holds_the_circuit_one_break_at_most() {
        let mut b = breaker(BreakerMode::All);
        for t in [1.0, 2.0, 3.0, 4.0] {
            b.record(t, true);
        }
        // One bad nowMs, far ahead: the break is over there, and a probe goes out.
        assert!(b.allow(1e300, false).is_ok());
        // Back on the real clock the probe's wait is one break from now, not from 1e300.
        assert_eq!(
            b.allow(10.0, false),
            Err(CircuitOpen { retry_in_ms: 100.0 })
        );
        assert!(b.allow(110.0, false).is_ok());
        b.record(111.0, false);
        assert_eq!(b.state(), BreakerState::Closed);
    }

    #[test]
    fn a_lost_probe_is_followed_by_another_after_a_break() {
        let mut b = breaker(BreakerMode::All);
        for t in 0..4 {
            b.record(f64::from(t), true);
        }
        assert!(b.allow(103.0, false).is_ok());
        assert!(b.allow(202.0, false).is_err());
        assert!(b.allow(203.0, false).is_ok());
    }

    #[test]
    fn retries_mode_lets_first_attempts_through() {
        let mut b = breaker(BreakerMode::Retries);
        for t in 0..4 {
            b.record(f64::from(t), true);
        }
        assert!(b.allow(10.0, false).is_ok());
        assert!(b.allow(10.0, true).is_err());
    }

    #[test]
    fn old_samples_expire() {
        let mut b = breaker(BreakerMode::All);
        for t in [0.0, 1.0, 2.0] {
            b.record(t, true);
        }
        b.record(1500.0, true); // the first three fell out of the 1 s window
        assert_eq!(b.state(), BreakerState::Closed);
    }
}
