//! The retry policy: the state machine that composes backoff, classifier, server hints and
//! budget into one answer per failed attempt — *retry in D, because …* or *stop, because …*.
//!
//! Every front end (the simulator's `burst` and `steady` clients, the CLI, the browser's
//! `retryFetch`) asks this module and nothing else whether and when to retry, so a rule
//! changed here changes everywhere. (The simulator's `aws-occ` reproduces an experiment
//! whose clients retry until they win: it draws from the [`Backoff`] alone.)
//!
//! The order of the questions, for each finished attempt:
//! 1. the classifier: success, not retryable (and why), or retryable with the server's hint;
//! 2. max attempts;
//! 3. the delay: the backoff's own, never shorter than `Retry-After`; exactly the
//!    pushback, which also starts the backoff over (gRFC A6);
//! 4. max elapsed time: a retry that would start past the deadline is not made;
//! 5. the budget, last, so a token is charged only for a retry that is really made — and
//!    charged now, while the retry waits, not when it is sent.
//!
//! Two clocks: a [`Now`] carries a monotonic reading, for the budget and the deadline, and
//! a wall-clock one, only to read a `Retry-After` HTTP-date (see [`Now`] for why one clock
//! cannot do both). [`start`](Policy::start), [`admit`](Policy::admit) and
//! [`decide_verdict`](Policy::decide_verdict) take the monotonic reading alone.
//!
//! ```
//! use stampede::policy::{Decision, Now, PolicySettings};
//! use stampede::classify::{HttpStatus, Method, Outcome, Request};
//! use stampede::backoff::{BackoffSettings, Strategy};
//! use stampede::SeededRng;
//! use rand::SeedableRng;
//!
//! let policy = PolicySettings::new(BackoffSettings::new(Strategy::Exponential, 200.0, 30_000.0), 3).build()?;
//! let mut rng = SeededRng::seed_from_u64(1);
//! // Monotonic ms since the program started, and the wall clock (ms since the Unix epoch).
//! let wall = 1_796_287_500_000.0;
//! let now = |mono_ms: f64| Now::new(mono_ms, wall + mono_ms);
//! let mut attempt = policy.start(0.0);
//! let req = Request::new(Method::Get);
//! let unavailable = Outcome::response(HttpStatus::new(503)?);
//! let d = policy.decide(&mut attempt, req, &unavailable, now(10.0), None, &mut rng);
//! assert!(matches!(d, Decision::Retry { delay_ms: 200.0, .. }));
//! let d = policy.decide(&mut attempt, req, &unavailable, now(220.0), None, &mut rng);
//! assert!(matches!(d, Decision::Retry { delay_ms: 400.0, .. }));
//! let d = policy.decide(&mut attempt, req, &unavailable, now(630.0), None, &mut rng);
//! assert_eq!(d.to_string(), "stop: 3 of 3 attempts made (last: 503 Service Unavailable is a server-side failure that may pass on a retry)");
//! # Ok::<(), stampede::ConfigError>(())
//! ```

use core::fmt;

use rand::Rng;

use crate::backoff::{Backoff, BackoffSettings, BackoffState};
use crate::budget::{BudgetExhausted, TokenBucket};
use crate::classify::{
    Action, Outcome, Reason, Request, RetryRules, ServerHint, TransportError, Verdict,
};
use crate::error::{ConfigError, Field, fmt_num};
use crate::nets::{Blocked, CircuitOpen, Guard, Settled, Throttled};

mod now;
pub use now::Now;

/// The most attempts (first try included) a policy allows.
pub const MAX_ATTEMPTS: u32 = 100;

/// The attempts a policy makes by default, the first included.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 6;

/// Unvalidated policy settings.
///
/// # Default
/// The default backoff (full jitter, 200 ms, 30 s, ×2), [`DEFAULT_MAX_ATTEMPTS`] attempts,
/// the default rules, no elapsed-time limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PolicySettings {
    /// The backoff.
    pub backoff: BackoffSettings,
    /// Attempts in all, the first included: 1 to 100.
    pub max_attempts: u32,
    /// No retry starts later than this after the first attempt started (ms); `None`: no limit.
    pub max_elapsed_ms: Option<f64>,
    /// What to retry, and the longest server hint honoured.
    pub rules: RetryRules,
}

impl Default for PolicySettings {
    fn default() -> Self {
        PolicySettings::new(BackoffSettings::default(), DEFAULT_MAX_ATTEMPTS)
    }
}

impl PolicySettings {
    /// A policy of `backoff` and `max_attempts`, default rules, no elapsed-time limit.
    pub fn new(backoff: BackoffSettings, max_attempts: u32) -> Self {
        PolicySettings {
            backoff,
            max_attempts,
            max_elapsed_ms: None,
            rules: RetryRules::default(),
        }
    }

    /// The same settings with a maximum elapsed time.
    pub fn with_max_elapsed_ms(mut self, ms: Option<f64>) -> Self {
        self.max_elapsed_ms = ms;
        self
    }

    /// The same settings with other rules.
    pub fn with_rules(mut self, rules: RetryRules) -> Self {
        self.rules = rules;
        self
    }

    /// Validates everything once.
    pub fn build(self) -> Result<Policy, ConfigError> {
        let backoff = self.backoff.build()?;
        Field::MaxAttempts.check(f64::from(self.max_attempts))?;
        let max_elapsed_ms = match self.max_elapsed_ms {
            Some(ms) => Some(Field::MaxElapsed.check(ms)?),
            None => None,
        };
        // Rules carry their own validated maximum; re-check in case they were built by hand.
        Field::MaxRetryAfter.check(self.rules.max_retry_after_ms())?;
        Ok(Policy {
            backoff,
            max_attempts: self.max_attempts,
            max_elapsed_ms,
            rules: self.rules,
        })
    }
}

/// A validated policy; shared by every request that uses it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Policy {
    backoff: Backoff,
    max_attempts: u32,
    max_elapsed_ms: Option<f64>,
    rules: RetryRules,
}

/// Where one logical request is: attempts made, when it started (on the monotonic clock),
/// its backoff state.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Attempt {
    made: u32,
    started_ms: f64,
    backoff: BackoffState,
    /// The last retry was paid at the timeout price (the AWS quota refunds that price).
    /// Sits in padding: an `Attempt` stays 32 bytes.
    after_timeout: bool,
}

impl Attempt {
    /// Attempts finished so far.
    pub const fn made(&self) -> u32 {
        self.made
    }
    /// When the first attempt started (ms, on the monotonic clock [`Policy::start`] was given).
    pub const fn started_ms(&self) -> f64 {
        self.started_ms
    }
}

/// Why a policy stops.
///
/// `#[non_exhaustive]`: new limits (timeouts, breakers, hedging) add reasons, and front ends
/// show a reason through its `Display`, so a new one must not break them.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum StopReason {
    /// The attempt succeeded (or did not fail: 1xx–3xx).
    Succeeded(Reason),
    /// The classifier says the failure cannot pass on a retry.
    NotRetryable(Reason),
    /// Every allowed attempt was made; the last failure's reason.
    AttemptsExhausted {
        /// Attempts made.
        made: u32,
        /// The last failure.
        last: Reason,
    },
    /// The next retry would start after the deadline.
    DeadlineExceeded {
        /// When the retry would have started, from the first attempt (ms).
        at_ms: f64,
        /// The limit (ms).
        max_elapsed_ms: f64,
    },
    /// The call site's retry budget (of any school) is spent.
    BudgetExhausted(BudgetExhausted),
    /// The call site's circuit breaker is open.
    CircuitOpen(CircuitOpen),
    /// The call site's adaptive throttle rejected the retry.
    Throttled(Throttled),
}

impl From<Blocked> for StopReason {
    fn from(b: Blocked) -> Self {
        match b {
            Blocked::Budget(e) => StopReason::BudgetExhausted(e),
            Blocked::CircuitOpen(e) => StopReason::CircuitOpen(e),
            Blocked::Throttled(e) => StopReason::Throttled(e),
        }
    }
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StopReason::Succeeded(r) | StopReason::NotRetryable(r) => write!(f, "{r}"),
            StopReason::AttemptsExhausted { made, last } => {
                write!(f, "{made} of {made} attempts made (last: {last})")
            }
            StopReason::DeadlineExceeded {
                at_ms,
                max_elapsed_ms,
            } => write!(
                f,
                "the next retry would start {} ms after the first attempt, past the {} ms deadline",
                fmt_num(at_ms.round()),
                fmt_num(*max_elapsed_ms)
            ),
            StopReason::BudgetExhausted(e) => write!(f, "{e}"),
            StopReason::CircuitOpen(e) => write!(f, "{e}"),
            StopReason::Throttled(e) => write!(f, "{e}"),
        }
    }
}

/// The policy's answer after one attempt.
///
/// Deliberately exhaustive: a front end must act on every kind of answer (wait and send
/// again, or stop), so a new kind has to fail to compile in each of them rather than fall
/// into a wildcard arm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Decision {
    /// Wait `delay_ms`, then try again.
    Retry {
        /// How long to wait (ms).
        delay_ms: f64,
        /// Whether the server set (or raised) the delay.
        from_server: bool,
        /// Why the failure was retryable.
        reason: Reason,
    },
    /// Do not try again.
    Stop(StopReason),
}

impl Decision {
    /// Whether the decision is to retry.
    pub const fn is_retry(&self) -> bool {
        matches!(self, Decision::Retry { .. })
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Decision::Retry {
                delay_ms,
                from_server,
                reason,
            } => write!(
                f,
                "retry in {} ms{}: {reason}",
                fmt_num((delay_ms * 10.0).round() / 10.0),
                if *from_server {
                    " (as the server asked)"
                } else {
                    ""
                }
            ),
            Decision::Stop(StopReason::Succeeded(r)) => write!(f, "done: {r}"),
            Decision::Stop(r) => write!(f, "stop: {r}"),
        }
    }
}

impl Policy {
    /// The backoff.
    pub const fn backoff(&self) -> &Backoff {
        &self.backoff
    }
    /// Attempts allowed, the first included.
    pub const fn max_attempts(&self) -> u32 {
        self.max_attempts
    }
    /// The elapsed-time limit, if any.
    pub const fn max_elapsed_ms(&self) -> Option<f64> {
        self.max_elapsed_ms
    }

    /// Whether a retry after `delay_ms` may go from `mono_ms`: not one that would start at
    /// or past the elapsed-time limit (with no time left to run, as hedging has it), which
    /// stops with `DeadlineExceeded`. The decision's own rule; a caller that runs code
    /// between the decision and the wait (retryFetch waits for an async `onAttempt`) asks
    /// again after it.
    ///
    /// ```
    /// # use stampede::backoff::{BackoffSettings, Strategy};
    /// # use stampede::policy::{PolicySettings, StopReason};
    /// let mut s = PolicySettings::new(BackoffSettings::new(Strategy::Exponential, 100.0, 1000.0), 5);
    /// s.max_elapsed_ms = Some(500.0);
    /// let p = s.build()?;
    /// let a = p.start(0.0);
    /// assert!(p.retry_may_start(&a, 300.0, 100.0).is_ok());
    /// assert!(p.retry_may_start(&a, 500.0, 0.0).is_err());
    /// assert!(matches!(
    ///     p.retry_may_start(&a, 450.0, 100.0),
    ///     Err(StopReason::DeadlineExceeded { at_ms: 550.0, max_elapsed_ms: 500.0 })
    /// ));
    /// # Ok::<(), stampede::ConfigError>(())
    /// ```
    pub fn retry_may_start(
        &self,
        attempt: &Attempt,
        mono_ms: f64,
        delay_ms: f64,
    ) -> Result<(), StopReason> {
        match self.max_elapsed_ms {
            Some(max) if mono_ms + delay_ms - attempt.started_ms >= max => {
                Err(StopReason::DeadlineExceeded {
                    at_ms: mono_ms + delay_ms - attempt.started_ms,
                    max_elapsed_ms: max,
                })
            }
            _ => Ok(()),
        }
    }
    /// The classification rules.
    pub const fn rules(&self) -> &RetryRules {
        &self.rules
    }

    /// A logical request whose first attempt starts at `mono_ms` on the monotonic clock
    /// (see [`Now`]): the deadline counts from here.
    pub fn start(&self, mono_ms: f64) -> Attempt {
        Attempt {
            made: 0,
            started_ms: mono_ms,
            backoff: self.backoff.start(),
            after_timeout: false,
        }
    }

    /// The gate before a first attempt, at `mono_ms` on the monotonic clock: while the
    /// budget's circuit is open, fail fast.
    pub fn admit(
        &self,
        budget: Option<&mut TokenBucket>,
        mono_ms: f64,
    ) -> Result<(), BudgetExhausted> {
        match budget {
            Some(b) => b.admit(mono_ms),
            None => Ok(()),
        }
    }

    /// The gate before a first attempt, at `mono_ms`, for a call site's [`Guard`]: an
    /// empty bucket, an open breaker or the throttle refuses it (the throttle draws from
    /// `rng`); a ratio budget takes the request's deposit.
    pub fn admit_guarded<R: Rng + ?Sized>(
        &self,
        guard: Option<&mut Guard>,
        mono_ms: f64,
        rng: &mut R,
    ) -> Result<(), Blocked> {
        match guard {
            Some(g) => g.admit(mono_ms, rng),
            None => Ok(()),
        }
    }

    /// Decides after an attempt of `request` ended with `outcome` at `now`.
    ///
    /// `now.wall_ms` resolves a `Retry-After` HTTP-date; `now.mono_ms` charges the budget
    /// and checks the deadline, on the clock `attempt` was [started](Self::start) on.
    pub fn decide<R: Rng + ?Sized>(
        &self,
        attempt: &mut Attempt,
        request: Request,
        outcome: &Outcome<'_>,
        now: Now,
        budget: Option<&mut TokenBucket>,
        rng: &mut R,
    ) -> Decision {
        let verdict = self.rules.classify(request, outcome, now.wall_ms);
        self.decide_verdict(attempt, &verdict, now.mono_ms, budget, rng)
    }

    /// [`decide`](Self::decide) for a verdict already made (the caller classified it with
    /// the wall clock, e.g. to show the verdict too). Only the monotonic clock is left to
    /// read: `mono_ms`, the clock `attempt` was [started](Self::start) on.
    pub fn decide_verdict<R: Rng + ?Sized>(
        &self,
        attempt: &mut Attempt,
        verdict: &Verdict,
        mono_ms: f64,
        budget: Option<&mut TokenBucket>,
        rng: &mut R,
    ) -> Decision {
        self.decide_gated(attempt, verdict, mono_ms, budget, rng)
    }

    /// [`decide_verdict`](Self::decide_verdict) for a call site's [`Guard`]: every net
    /// learns how the attempt ended, and a retry must pass the budget (of any school), the
    /// breaker and the throttle, in that order; it is charged here, when it is decided.
    pub fn decide_verdict_guarded<R: Rng + ?Sized>(
        &self,
        attempt: &mut Attempt,
        verdict: &Verdict,
        mono_ms: f64,
        guard: Option<&mut Guard>,
        rng: &mut R,
    ) -> Decision {
        self.decide_gated(attempt, verdict, mono_ms, guard, rng)
    }

    #[inline(always)]
    fn decide_gated<G: Gate, R: Rng + ?Sized>(
        &self,
        attempt: &mut Attempt,
        verdict: &Verdict,
        mono_ms: f64,
        mut gate: Option<&mut G>,
        rng: &mut R,
    ) -> Decision {
        attempt.made = attempt.made.saturating_add(1);
        if let Some(g) = gate.as_deref_mut() {
            let settled = Settled::of(verdict, attempt.made > 1, attempt.after_timeout);
            g.settle(mono_ms, settled);
        }
        match verdict.action {
            Action::Success => return Decision::Stop(StopReason::Succeeded(verdict.reason)),
            Action::DoNotRetry => return Decision::Stop(StopReason::NotRetryable(verdict.reason)),
            Action::Retry => {}
        }
        if attempt.made >= self.max_attempts {
            return Decision::Stop(StopReason::AttemptsExhausted {
                made: attempt.made,
                last: verdict.reason,
            });
        }
        let (delay_ms, from_server) = match verdict.hint {
            Some(ServerHint::Pushback(ms)) => {
                self.backoff.reset(&mut attempt.backoff);
                (ms, true)
            }
            Some(ServerHint::RetryAfter(ms)) => {
                let own = self.backoff.next_ms(&mut attempt.backoff, rng);
                if ms > own { (ms, true) } else { (own, false) }
            }
            None => (self.backoff.next_ms(&mut attempt.backoff, rng), false),
        };
        if let Err(r) = self.retry_may_start(attempt, mono_ms, delay_ms) {
            return Decision::Stop(r);
        }
        if let Some(g) = gate {
            let after_timeout = matches!(
                verdict.reason,
                Reason::RetryableTransport(TransportError::Timeout)
            );
            if let Err(r) = g.try_retry(mono_ms, after_timeout, rng) {
                return Decision::Stop(r);
            }
            attempt.after_timeout = after_timeout;
        }
        Decision::Retry {
            delay_ms,
            from_server,
            reason: verdict.reason,
        }
    }
}

/// What the policy (and [hedging](crate::hedge)) needs of a call site's limits: today's
/// bucket alone, or a [`Guard`]. Both implement it; a caller passes whichever it holds.
pub trait Gate {
    /// An attempt ended at `now_ms` as `settled`: the limits learn of it.
    fn settle(&mut self, now_ms: f64, settled: Settled);
    /// A retry (or hedge) is decided at `now_ms`: refused, with the reason to stop, or
    /// paid for.
    fn try_retry<R: Rng + ?Sized>(
        &mut self,
        now_ms: f64,
        after_timeout: bool,
        rng: &mut R,
    ) -> Result<(), StopReason>;
}

impl Gate for TokenBucket {
    fn settle(&mut self, now_ms: f64, settled: Settled) {
        if matches!(settled, Settled::FirstTry | Settled::Retried { .. }) {
            self.on_success(now_ms);
        }
    }
    fn try_retry<R: Rng + ?Sized>(
        &mut self,
        now_ms: f64,
        _: bool,
        _: &mut R,
    ) -> Result<(), StopReason> {
        TokenBucket::try_retry(self, now_ms).map_err(StopReason::BudgetExhausted)
    }
}

impl Gate for Guard {
    fn settle(&mut self, now_ms: f64, settled: Settled) {
        Guard::settle(self, now_ms, settled);
    }
    fn try_retry<R: Rng + ?Sized>(
        &mut self,
        now_ms: f64,
        after_timeout: bool,
        rng: &mut R,
    ) -> Result<(), StopReason> {
        Guard::try_retry(self, now_ms, after_timeout, rng).map_err(StopReason::from)
    }
}

#[cfg(test)]
mod nets_tests;
#[cfg(test)]
mod tests;
