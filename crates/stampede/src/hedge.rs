//! Hedging: more than one attempt of a request in flight at once; the first success wins.
//!
//! # Why hedge
//!
//! A retry waits for a failure. But the requests that make a service feel slow mostly do
//! not fail: they are merely late — a garbage-collection pause, a cold cache, a busy
//! replica. Dean and Barroso ("The Tail at Scale", CACM 2013) send a second copy of a
//! request that has not been answered after about the 95th-percentile latency, and use
//! whichever answer comes first: in their BigTable benchmark a hedge after 10 ms cut the
//! 99.9th percentile from 1,800 ms to 74 ms for 2% more requests. The extra load is small
//! because only the slow tail is hedged; the gain is large because two slow draws in a row
//! are rare.
//!
//! # The rules (gRFC A6 `hedgingPolicy`, Polly v8's hedging strategy)
//!
//! - The first attempt goes out at once. If no answer has come `delay_ms` after the last
//!   attempt was sent, the next one is sent, up to `max_attempts` in all (the first
//!   included). A delay of 0 sends them all at once (gRFC A6's unset `hedgingDelay`).
//! - The first success wins: the request is over, and the caller cancels every attempt
//!   still in flight.
//! - A *fatal* failure — one the policy's rules do not retry (a 4xx, an abort, …) — ends
//!   the request too, with that failure (gRFC A6's `nonFatalStatusCodes` are the
//!   statuses the rules retry).
//! - A *non-fatal* failure sends the next hedge at once, without waiting for the delay.
//!   A server hint delays it instead: `grpc-retry-pushback-ms` (gRFC A6) or `Retry-After`
//!   (its HTTP counterpart; never sooner than the server asked). A pushback that says
//!   *stop* (negative or malformed), or a hint longer than the rules' maximum, stops
//!   further hedges, and the attempts already in flight go on (gRFC A6).
//! - The request gave up when every attempt was sent and every one failed: gRFC A6 makes
//!   no retries after hedges.
//! - Hedges count against the budget like retries: each one is charged when it is decided.
//!   A hedge is decided and sent in the same instant (its timer fires, or a failure
//!   triggers it), so no hedge waits uncharged (the bug Envoy's #30205 is about). A hedge
//!   the budget refuses is not sent; the attempts in flight go on; the next trigger (a
//!   non-fatal failure) asks the budget again, and when nothing is left in flight the
//!   request stops with the budget's error.
//! - A request that is not idempotent (POST, PATCH, … not marked idempotent) is never
//!   hedged: the same rule as the classifier's for retries (a hedged POST can charge a card
//!   twice).
//! - The policy's deadline (`max_elapsed`) applies: no hedge starts at or past it (one sent
//!   at the deadline would have no time left to run).
//!
//! Where ours differs: gRFC A6 clamps a `maxAttempts` above 5 to 5, and this crate refuses
//! it instead (a setting that silently becomes another is a wrong result). A request runs
//! under a retry policy or a hedging policy, not both (gRFC A6): with hedging, the policy's
//! rules, deadline and budget apply, its backoff and `max_attempts` do not. Polly's
//! "fallback" mode (an infinite delay: hedge only on failure) is a delay of one day here.
//!
//! # Defaults
//! Polly v8's: one hedge (two attempts in all) after 2 s. gRFC A6 has no defaults (its
//! `maxAttempts` is mandatory). The Tail at Scale advises a delay near the p95 latency,
//! which only the caller knows.
//!
//! # Driving it
//!
//! [`Hedge`] is one request's state; time and the budget are arguments, as everywhere in
//! this crate. The caller sends the first attempt, then calls
//! [`on_due`](Hedge::on_due) when [`next_due_ms`](Hedge::next_due_ms) comes and
//! [`on_outcome`](Hedge::on_outcome) when an attempt ends; each answers with a
//! [`HedgeStep`]: send a hedge now, wait, or stop (cancelling what is in flight).
//!
//! ```
//! use stampede::classify::{HttpStatus, Method, Outcome, Request};
//! use stampede::hedge::{HedgeStep, HedgingSettings};
//! use stampede::budget::TokenBucket;
//! use stampede::policy::{PolicySettings, StopReason};
//! use stampede::SeededRng;
//! use rand::SeedableRng;
//!
//! let policy = PolicySettings::default().build()?;
//! // No budget here; a call site's `TokenBucket` or `Guard` goes where `none` is.
//! let none = None::<&mut TokenBucket>;
//! let mut rng = SeededRng::seed_from_u64(1);
//! let hedging = HedgingSettings::new(50.0, 3).build()?;
//! let get = Request::new(Method::Get);
//! let mut h = hedging.start(&policy, get, 0.0); // the first attempt is sent at 0 ms
//! assert_eq!(h.next_due_ms(), Some(50.0));
//! assert_eq!(h.on_due(50.0, none, &mut rng), HedgeStep::Send); // no answer yet: hedge
//! assert_eq!(h.next_due_ms(), Some(100.0));
//! // The first attempt fails with 503: the third is sent at once.
//! let v = policy.rules().classify(get, &Outcome::response(HttpStatus::new(503)?), 0.0);
//! assert_eq!(h.on_outcome(&v, 70.0, None::<&mut TokenBucket>, &mut rng), HedgeStep::Send);
//! assert_eq!((h.sent(), h.in_flight(), h.next_due_ms()), (3, 2, None));
//! // The second answers 200: the request is over, the third is cancelled.
//! let ok = policy.rules().classify(get, &Outcome::response(HttpStatus::OK), 0.0);
//! let step = h.on_outcome(&ok, 80.0, None::<&mut TokenBucket>, &mut rng);
//! assert!(matches!(step, HedgeStep::Done(StopReason::Succeeded(_))));
//! # Ok::<(), stampede::ConfigError>(())
//! ```

use rand::Rng;

use crate::classify::{Action, Reason, Request, Verdict};
use crate::error::{ConfigError, Field};
use crate::nets::Settled;
use crate::policy::{Gate, Policy, StopReason};

/// The fewest attempts a hedged request makes, the first included (gRFC A6: more than 1).
pub const MIN_HEDGED_ATTEMPTS: u32 = 2;
/// The most attempts a hedged request makes, the first included (gRFC A6's cap).
pub const MAX_HEDGED_ATTEMPTS: u32 = 5;
/// The default attempts in all: Polly v8's `MaxHedgedAttempts` of 1, plus the first.
pub const DEFAULT_HEDGED_ATTEMPTS: u32 = 2;
/// The default delay before a hedge (ms): Polly v8's `Delay` of 2 s.
pub const DEFAULT_HEDGE_DELAY_MS: f64 = 2000.0;

/// Unvalidated hedging settings.
///
/// # Default
/// Polly v8's: 2 attempts in all (one hedge), after 2 s.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct HedgingSettings {
    /// How long to wait for an answer before sending the next attempt (ms, 0 to a day; 0
    /// sends every attempt at once).
    pub delay_ms: f64,
    /// Attempts in all, the first included: 2 to 5.
    pub max_attempts: u32,
}

impl Default for HedgingSettings {
    fn default() -> Self {
        HedgingSettings::new(DEFAULT_HEDGE_DELAY_MS, DEFAULT_HEDGED_ATTEMPTS)
    }
}

impl HedgingSettings {
    /// A hedge every `delay_ms` without an answer, up to `max_attempts` in all.
    pub const fn new(delay_ms: f64, max_attempts: u32) -> Self {
        HedgingSettings {
            delay_ms,
            max_attempts,
        }
    }

    /// Validates: the delay in `[0, 1 day]`, the attempts in `2..=5`.
    pub fn validate(self) -> Result<Self, ConfigError> {
        Field::HedgeDelay.check(self.delay_ms)?;
        Field::HedgeMaxAttempts.check(f64::from(self.max_attempts))?;
        Ok(self)
    }

    /// Validates once, into the [`Hedging`] every request starts from.
    pub fn build(self) -> Result<Hedging, ConfigError> {
        let s = self.validate()?;
        Ok(Hedging {
            delay_ms: s.delay_ms,
            max_attempts: s.max_attempts as u8,
        })
    }
}

/// Validated hedging settings, shared by every request that uses them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hedging {
    delay_ms: f64,
    max_attempts: u8,
}

impl Hedging {
    /// The delay before a hedge (ms).
    pub const fn delay_ms(&self) -> f64 {
        self.delay_ms
    }

    /// Attempts in all, the first included.
    pub const fn max_attempts(&self) -> u32 {
        self.max_attempts as u32
    }

    /// The settings back.
    pub const fn settings(&self) -> HedgingSettings {
        HedgingSettings::new(self.delay_ms, self.max_attempts as u32)
    }

    /// A request of `request` whose first attempt is sent at `mono_ms` (the caller sends
    /// it, after [`Policy::admit`]). `policy` gives the deadline. A request that may not
    /// be repeated is never hedged.
    pub fn start(&self, policy: &Policy, request: Request, mono_ms: f64) -> Hedge {
        let may_repeat = request.idempotent || request.method.is_idempotent();
        let max = if may_repeat { self.max_attempts } else { 1 };
        Hedge {
            started_ms: mono_ms,
            delay_ms: self.delay_ms,
            max_elapsed_ms: policy.max_elapsed_ms().unwrap_or(f64::INFINITY),
            due_ms: if max > 1 {
                mono_ms + self.delay_ms
            } else {
                f64::INFINITY
            },
            sent: 1,
            in_flight: 1,
            max,
            halt: Halt::No,
        }
    }
}

/// What the caller does next.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HedgeStep {
    /// Send another attempt now: a hedge (already charged to the budget).
    Send,
    /// Nothing now: wait for an answer, or for [`Hedge::next_due_ms`].
    Wait,
    /// The request is over: cancel every attempt still in flight. `Succeeded` when an
    /// attempt won.
    Done(StopReason),
}

/// Why no further hedge will be sent, while attempts may still be in flight.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Halt {
    /// Hedges may still be sent.
    No,
    /// The server asked not to retry (a pushback that says stop, a hint past the maximum).
    Server(Reason),
    /// The next hedge would have started this long after the first attempt, past the
    /// deadline.
    Deadline(f64),
    /// The request is over.
    Done,
}

/// One hedged request's state. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hedge {
    started_ms: f64,
    delay_ms: f64,
    max_elapsed_ms: f64,
    /// When the next hedge is due; infinite when none is scheduled.
    due_ms: f64,
    sent: u8,
    in_flight: u8,
    max: u8,
    halt: Halt,
}

impl Hedge {
    /// Attempts sent so far, the first included.
    pub const fn sent(&self) -> u32 {
        self.sent as u32
    }

    /// Hedges sent so far: the attempts after the first.
    pub const fn hedges(&self) -> u32 {
        self.sent.saturating_sub(1) as u32
    }

    /// Attempts sent and not yet answered.
    pub const fn in_flight(&self) -> u32 {
        self.in_flight as u32
    }

    /// When the first attempt was sent (ms, on the caller's monotonic clock).
    pub const fn started_ms(&self) -> f64 {
        self.started_ms
    }

    /// Whether the request is over.
    pub fn is_done(&self) -> bool {
        self.halt == Halt::Done
    }

    /// The deadline (on the clock the request [started](Hedging::start) on), if
    /// the policy has one: no hedge starts at or after it.
    pub fn deadline_ms(&self) -> Option<f64> {
        let d = self.started_ms + self.max_elapsed_ms;
        d.is_finite().then_some(d)
    }

    /// When to call [`on_due`](Self::on_due): the time the next hedge is due, if one is.
    pub fn next_due_ms(&self) -> Option<f64> {
        (self.due_ms.is_finite() && !self.is_done()).then_some(self.due_ms)
    }

    /// The hedge timer, at `mono_ms`: once the due time has come (and the request is not
    /// over), the next hedge is decided — sent if the deadline and the budget allow it.
    /// Earlier (a stale timer), nothing happens.
    pub fn on_due<G: Gate, R: Rng + ?Sized>(
        &mut self,
        mono_ms: f64,
        gate: Option<&mut G>,
        rng: &mut R,
    ) -> HedgeStep {
        if self.is_done() || mono_ms < self.due_ms {
            return HedgeStep::Wait;
        }
        self.due_ms = f64::INFINITY;
        self.hedge(mono_ms, gate, rng)
    }

    /// An attempt ended at `mono_ms` with `verdict` (the policy's rules' verdict on its
    /// outcome); `gate` (the call site's budget, breaker, throttle) learns of it. After the
    /// request is over, a late answer changes nothing (`Wait`): its client has moved on.
    pub fn on_outcome<G: Gate, R: Rng + ?Sized>(
        &mut self,
        verdict: &Verdict,
        mono_ms: f64,
        mut gate: Option<&mut G>,
        rng: &mut R,
    ) -> HedgeStep {
        if self.is_done() {
            return HedgeStep::Wait;
        }
        self.in_flight = self.in_flight.saturating_sub(1);
        if let Some(g) = gate.as_deref_mut() {
            // A win is a retry's when a hedge was sent (the hedges were paid like retries;
            // the AWS quota refunds one).
            g.settle(mono_ms, Settled::of(verdict, self.sent > 1, false));
        }
        match verdict.action {
            Action::Success => self.finish(StopReason::Succeeded(verdict.reason)),
            Action::DoNotRetry if stops_hedging_only(verdict.reason) => {
                self.halt = Halt::Server(verdict.reason);
                self.due_ms = f64::INFINITY;
                self.idle(verdict.reason)
            }
            Action::DoNotRetry => self.finish(StopReason::NotRetryable(verdict.reason)),
            Action::Retry if self.halt != Halt::No || self.sent >= self.max => {
                self.idle(verdict.reason)
            }
            Action::Retry => match verdict.hint_ms() {
                // The server's hint resets the hedge timer (gRFC A6's pushback), unless the
                // hedge would then start at or past the deadline: hedging halts now (nobody
                // waits for a hedge that will never be sent).
                Some(ms) if ms > 0.0 => {
                    let at_ms = mono_ms + ms - self.started_ms;
                    if at_ms >= self.max_elapsed_ms {
                        self.halt = Halt::Deadline(at_ms);
                        self.due_ms = f64::INFINITY;
                        return self.idle_after_halt();
                    }
                    self.due_ms = mono_ms + ms;
                    HedgeStep::Wait
                }
                // A non-fatal failure: the next hedge now, without the delay.
                _ => {
                    self.due_ms = f64::INFINITY;
                    self.hedge(mono_ms, gate, rng)
                }
            },
        }
    }

    /// A hedge decided (`Send`) whose caller ran code before sending it (retryFetch waits
    /// for an async `onAttempt`): at `mono_ms` it goes (`Send`) if it would still start
    /// before the deadline; else it is taken back and hedging halts at the deadline, as
    /// when the hedge was decided there (`Done` with nothing in flight, else `Wait`).
    pub fn may_send(&mut self, mono_ms: f64) -> HedgeStep {
        let at_ms = mono_ms - self.started_ms;
        if at_ms < self.max_elapsed_ms {
            return HedgeStep::Send;
        }
        self.sent = self.sent.saturating_sub(1);
        self.in_flight = self.in_flight.saturating_sub(1);
        self.halt = Halt::Deadline(at_ms);
        self.due_ms = f64::INFINITY;
        self.idle_after_halt()
    }

    /// Decides a hedge at `now`: refused past the deadline or by the call site's limits
    /// (charged now, when decided), else sent.
    fn hedge<G: Gate, R: Rng + ?Sized>(
        &mut self,
        now: f64,
        gate: Option<&mut G>,
        rng: &mut R,
    ) -> HedgeStep {
        if self.halt != Halt::No || self.sent >= self.max {
            return HedgeStep::Wait;
        }
        let at_ms = now - self.started_ms;
        if at_ms >= self.max_elapsed_ms {
            self.halt = Halt::Deadline(at_ms);
            return self.idle_after_halt();
        }
        if let Some(Err(reason)) = gate.map(|g| g.try_retry(now, false, rng)) {
            // Not sent. What is in flight goes on; the next failure asks the limits again.
            return if self.in_flight == 0 {
                self.finish(reason)
            } else {
                HedgeStep::Wait
            };
        }
        self.sent += 1;
        self.in_flight += 1;
        if self.sent < self.max {
            self.due_ms = now + self.delay_ms;
        }
        HedgeStep::Send
    }

    /// No hedge now after a failure whose reason is `last`: wait for what is in flight, or,
    /// with nothing in flight, stop with the reason no more attempts are sent.
    fn idle(&mut self, last: Reason) -> HedgeStep {
        if self.in_flight > 0 {
            return HedgeStep::Wait;
        }
        let reason = match self.halt {
            Halt::Server(r) => StopReason::NotRetryable(r),
            Halt::Deadline(at_ms) => StopReason::DeadlineExceeded {
                at_ms,
                max_elapsed_ms: self.max_elapsed_ms,
            },
            Halt::No | Halt::Done => StopReason::AttemptsExhausted {
                made: self.sent(),
                last,
            },
        };
        self.finish(reason)
    }

    /// [`idle`](Self::idle) right after the deadline halted hedging.
    fn idle_after_halt(&mut self) -> HedgeStep {
        match self.halt {
            Halt::Deadline(at_ms) if self.in_flight == 0 => {
                self.finish(StopReason::DeadlineExceeded {
                    at_ms,
                    max_elapsed_ms: self.max_elapsed_ms,
                })
            }
            _ => HedgeStep::Wait,
        }
    }

    fn finish(&mut self, reason: StopReason) -> HedgeStep {
        self.halt = Halt::Done;
        self.due_ms = f64::INFINITY;
        HedgeStep::Done(reason)
    }
}

/// The server's do-not-retry answers that stop further hedges but not the attempts in
/// flight (gRFC A6): its status was one the rules retry, only its hint said stop.
fn stops_hedging_only(reason: Reason) -> bool {
    matches!(
        reason,
        Reason::PushbackStop | Reason::PushbackMalformed | Reason::HintTooLong { .. }
    )
}

#[cfg(test)]
mod tests;
