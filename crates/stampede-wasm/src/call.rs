//! `FetchCall`: one `retryFetch` call's decisions, for the JavaScript driver
//! (`js/slim/retry.js`).
//!
//! The slim entry `stampede/fetch` runs `retryFetch`'s loop in JavaScript — `fetch`, the
//! controllers, the timers, reading a response — and asks this handle for every decision:
//! whether the nets admit the call, how long each attempt may take, what the policy makes of
//! each outcome (retry after how long, or stop and why), and, with `hedging`, when to send
//! the next hedge. Every rule stays the core's (`Policy::admit_guarded`,
//! `Policy::decide_verdict_guarded`, `Hedge`), as in the full entry's driver (`fetch`), whose
//! semantics this keeps: this module is that driver's decision half without its async half,
//! so the slim wasm has no futures, closures or promise machinery (issue #14's 25 KB bar).
//!
//! Every method is synchronous, takes and returns numbers and strings only, and calls none
//! of the caller's code: the driver read the options and staged them (`slim/opts.rs`). A
//! bad setting is a code, its error kept for `lastError` (`slim/errors.rs`).

use stampede::SeededRng;
use stampede::classify::{HttpStatus, Method, Outcome, Request, TransportError, Verdict};
use stampede::hedge::{Hedge, HedgeStep, Hedging};
use stampede::nets::{Blocked, GuardSettings};
use stampede::policy::{Attempt, Decision, Policy, StopReason};

use crate::call_nets::Nets;
use crate::call_settings::{CallSettings, read_call_settings};
use crate::errors::{Fail, config_error};
use crate::in_flight::Flight;
use crate::opts::{Extra, Opts, flag};

/// The decision codes `decide`, `onDue` and `onOutcome` return.
const RETRY: u8 = 0;
const SUCCESS: u8 = 1;
const STOP: u8 = 2;
const WAIT: u8 = 3;
/// A settings error, for `lastError` (the nets of a call site named anew).
const FAILED: u8 = 4;
/// `admit`: a net refused the call (see `blocked`).
const REFUSED: u8 = 5;

/// One `retryFetch` call: its validated settings, its nets and its policy state.
pub struct FetchCall {
    policy: Policy,
    rng: SeededRng,
    call_site: Option<String>,
    given: GuardSettings,
    nets: Nets,
    hedging: Option<Hedging>,
    attempt_timeout_ms: Option<f64>,
    /// `deadlineMs` (see `call_settings`).
    deadline_ms: Option<f64>,
    idempotent: bool,
    method: Method,
    started: f64,
    state: Option<Attempt>,
    hedge: Option<Hedge>,
    /// When the current attempt's timer fires if the deadline (not `attemptTimeoutMs`)
    /// set its timeout (the monotonic clock).
    deadline_at: Option<f64>,
    /// What the last decision said, for `onAttempt` and the error a stop rejects with.
    delay: Option<(f64, bool)>,
    reason: String,
    stop: Option<StopReason>,
    /// Why the nets refused the first attempt.
    refused: Option<Blocked>,
    /// Counted among the calls in flight while the driver holds it (`in_flight.rs`).
    flight: Flight,
}

/// The error a call that stopped (or was refused) rejects with, as `js/slim/retry.js`
/// reads `stopped()` (`stopped_with`): `[kind, value, tokens]`, kind 0 `RetryError`, 1 `CircuitOpenError`
/// (`value` is `retryInMs`), 2 `ThrottledError` (`value` is the probability), 3
/// `BudgetExhaustedError` (`value` is `retryInMs`, `tokens` the tokens left).
fn blocked(b: &Blocked) -> Vec<f64> {
    match b {
        Blocked::Budget(e) => vec![3.0, e.retry_in_ms, e.tokens],
        Blocked::CircuitOpen(e) => vec![1.0, e.retry_in_ms],
        Blocked::Throttled(e) => vec![2.0, e.probability],
    }
}

/// `v`, or NaN for none: what the slim's numbers return instead of an `Option` (the ABI,
/// `slim/abi.rs`, is plain numbers).
pub(crate) fn or_nan(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}

/// The outcome JavaScript read: `status` (0 for an opaque response, else 100-599; NaN for
/// none) or a transport error (`error`: 0 connect, 1 timeout (the attempt's own timer), 2
/// abort, 3 reset, 4 dns, 5 timeout (the network's), else none).
fn outcome<'a>(
    status: f64,
    error: u8,
    retry_after: &'a Option<String>,
    pushback: &'a Option<String>,
) -> Outcome<'a> {
    match error {
        0..=5 => Outcome::Transport(transport(error)),
        _ => match HttpStatus::new(status as u16) {
            Ok(status) => Outcome::Response {
                status,
                retry_after: retry_after.as_deref(),
                pushback_ms: pushback.as_deref(),
            },
            // An opaque (no-cors) response has status 0 and cannot be inspected.
            Err(_) => Outcome::response(HttpStatus::OK),
        },
    }
}

/// The core's names of the transport errors by the driver's codes, as `onAttempt` reports
/// them (`slim/opts.rs`'s `schema` hands them to JavaScript).
pub(crate) const TRANSPORT_NAMES: [&str; 6] = [
    TransportError::Connect.name(),
    TransportError::Timeout.name(),
    TransportError::Abort.name(),
    TransportError::Reset.name(),
    TransportError::Dns.name(),
    TransportError::Timeout.name(),
];

/// A transport error by the driver's code: 0 connect, 1 timeout (the attempt's own timer,
/// which alone can be the deadline's), 2 abort, 3 reset, 4 dns, 5 timeout (the network's).
fn transport(code: u8) -> TransportError {
    match code {
        1 | 5 => TransportError::Timeout,
        2 => TransportError::Abort,
        3 => TransportError::Reset,
        4 => TransportError::Dns,
        _ => TransportError::Connect,
    }
}

impl FetchCall {
    /// Reads and validates `retryFetch`'s staged options (all but `signal` and
    /// `onAttempt`, which the driver reads); `undefined` on a bad one (`lastError`).
    pub fn create() -> Option<FetchCall> {
        FetchCall::read().ok()
    }

    /// Enters this call's `fetch`: a call made meanwhile is one level below it. Returns the
    /// depth to restore (`in_flight::leave_fetch`).
    pub fn fetch_enter(&self) -> u32 {
        self.flight.enter_fetch()
    }

    /// This call's depth (its attempts' signals are marked one below it).
    pub fn depth(&self) -> u32 {
        self.flight.depth()
    }

    /// The call is at `depth` at least (the deepest of the signals it was made with): false,
    /// with the error for `lastError`, past the bound on nesting.
    pub fn below(&mut self, depth: u32) -> bool {
        self.flight.below(depth).is_ok()
    }

    /// The longest header value read (the core's `MAX_TEXT_CHARS`): a longer one is no
    /// hint, and is never copied into wasm memory.
    pub fn max_text() -> u32 {
        stampede::MAX_TEXT_CHARS
    }

    /// The request's method, read by the driver
    /// (`input` for a `Request`'s, else `init.method`): false on a bad one (`lastError`).
    pub fn set_method(&mut self, method: &str, input: bool) -> bool {
        let prefix = if input { "input." } else { "init." };
        match Method::for_fetch(method) {
            Ok(m) => {
                self.method = m;
                true
            }
            Err(e) => {
                config_error(prefix, &e);
                false
            }
        }
    }

    /// Whether the call is hedged.
    pub fn hedged(&self) -> bool {
        self.hedging.is_some()
    }

    /// The call starts at `now` (the monotonic clock): its nets are set up (a call site's
    /// configured with what the call gives) and asked to admit the first attempt: 0, or
    /// 4 for a bad setting (`lastError`), 5 when a net refused (`reason`, `stopped`: nothing
    /// is sent).
    pub fn admit(&mut self, now: f64) -> u8 {
        self.started = now;
        let nets = match Nets::new(self.call_site.take(), self.given, now) {
            Ok(n) => n,
            Err(Fail) => return FAILED,
        };
        self.nets = nets;
        let (policy, rng) = (&self.policy, &mut self.rng);
        match self.nets.with(now, |g| policy.admit_guarded(g, now, rng)) {
            Err(Fail) => FAILED,
            Ok(Err(b)) => {
                self.reason = match b {
                    Blocked::Budget(e) => e.to_string(),
                    b => StopReason::from(b).to_string(),
                };
                self.refused = Some(b);
                REFUSED
            }
            Ok(Ok(())) => {
                self.state = Some(self.policy.start(now));
                0
            }
        }
    }

    /// The number of the next attempt (retries only: 1 for the first).
    pub fn number(&self) -> u32 {
        self.state.as_ref().map_or(1, |s| s.made() + 1)
    }

    /// The next attempt's timeout at `now`: `attemptTimeoutMs`, or what is left before
    /// the deadline, whichever is sooner; NaN for none.
    pub fn timeout(&mut self, now: f64) -> f64 {
        let (timeout, deadline_bound) = crate::deadline::attempt_timeout(
            self.attempt_timeout_ms,
            self.deadline_ms,
            now - self.started,
        );
        self.deadline_at = timeout.filter(|_| deadline_bound).map(|t| now + t);
        or_nan(timeout)
    }

    /// The policy's decision on the attempt that just ended with `status` or `error` (see
    /// `outcome`; `wall` reads a Retry-After date, `now` is the monotonic clock):
    /// 0 retry (after `delayMs`), 1 success, 2 stop. `reason` says why.
    pub fn decide(
        &mut self,
        status: f64,
        error: u8,
        retry_after: Option<String>,
        pushback: Option<String>,
        wall: f64,
        now: f64,
    ) -> u8 {
        let request = self.request();
        let verdict = self.verdict(request, status, error, &retry_after, &pushback, wall);
        // Timers count whole milliseconds and may fire a fraction of one early on the
        // monotonic clock: when the deadline's own timer ended the attempt, the deadline
        // has passed, whatever the clock reads, so no retry slips in just before it.
        let now = crate::deadline::now_at_deadline(self.deadline_at, error == 1, now);
        let Some(state) = self.state.as_mut() else {
            return STOP;
        };
        let (policy, rng) = (&self.policy, &mut self.rng);
        let Ok(decision) = self.nets.with(now, |g| {
            policy.decide_verdict_guarded(state, &verdict, now, g, rng)
        }) else {
            return FAILED;
        };
        match decision {
            Decision::Retry {
                delay_ms,
                from_server,
                ..
            } => {
                self.delay = Some((delay_ms, from_server));
                self.reason = verdict.reason.to_string();
                RETRY
            }
            Decision::Stop(r) => self.stopped(r),
        }
    }

    /// The call's deadline on the monotonic clock (its start and `deadlineMs`; hedging's
    /// own, from its start and the elapsed-time limit); NaN for none.
    pub fn deadline(&self) -> f64 {
        match &self.hedge {
            Some(h) => or_nan(h.deadline_ms()),
            // `deadlineMs`: `policy.maxElapsedMs` only stops retries from starting.
            None => or_nan(self.deadline_ms.map(|d| self.started + d)),
        }
    }

    /// Hedging: whether the hedge [`on_outcome`](Self::on_outcome) chose to send may still
    /// go at `now` (after onAttempt was waited for): 0 send, 3 wait, 2 stop (see
    /// `Hedge::may_send`).
    pub fn hedge_may_send(&mut self, now: f64) -> u8 {
        match self.hedge.as_mut() {
            Some(h) => {
                let step = h.may_send(now);
                self.step(step)
            }
            None => RETRY,
        }
    }

    /// Whether the retry [`decide`](Self::decide) chose may still go from `now` (after
    /// onAttempt was waited for): 0 (retry), or 2 (stop) with the deadline as the reason
    /// (see `Policy::retry_may_start`).
    pub fn may_start(&mut self, now: f64) -> u8 {
        let (Some(state), Some((delay_ms, _))) = (self.state.as_ref(), self.delay) else {
            return RETRY;
        };
        match self.policy.retry_may_start(state, now, delay_ms) {
            Ok(()) => RETRY,
            Err(r) => self.stopped(r),
        }
    }

    /// Hedging: the first attempt is sent at `now`.
    pub fn hedge_start(&mut self, now: f64) {
        let request = self.request();
        self.hedge = self
            .hedging
            .as_ref()
            .map(|h| h.start(&self.policy, request, now));
    }

    /// Hedging: when the next hedge is due (the monotonic clock); NaN if none is.
    pub fn next_due(&self) -> f64 {
        or_nan(self.hedge.as_ref().and_then(Hedge::next_due_ms))
    }

    /// Hedging: the hedge timer fired at `now`: 0 send a hedge, 3 wait, 2 stop.
    pub fn on_due(&mut self, now: f64) -> u8 {
        let Some(h) = self.hedge.as_mut() else {
            return WAIT;
        };
        let rng = &mut self.rng;
        match self.nets.with(now, |g| h.on_due(now, g, rng)) {
            Ok(step) => self.step(step),
            Err(Fail) => FAILED,
        }
    }

    /// Whether the last [`timeout`](Self::timeout) was the deadline's (what is left of it,
    /// not `attemptTimeoutMs`).
    pub fn deadline_bound(&self) -> bool {
        self.deadline_at.is_some()
    }

    /// Hedging: an attempt ended (as in [`decide`](Self::decide)): 0 send a hedge now,
    /// 3 wait (`delayMs` set when a server hint moved the next hedge), 1 success, 2 stop.
    /// `deadline_bound`: its timeout was the deadline's ([`deadline_bound`](Self::deadline_bound)
    /// when it was sent).
    #[allow(clippy::too_many_arguments)]
    pub fn on_outcome(
        &mut self,
        status: f64,
        error: u8,
        retry_after: Option<String>,
        pushback: Option<String>,
        wall: f64,
        now: f64,
        deadline_bound: bool,
    ) -> u8 {
        let request = self.request();
        let verdict = self.verdict(request, status, error, &retry_after, &pushback, wall);
        let Some(h) = self.hedge.as_mut() else {
            return STOP;
        };
        let now =
            crate::deadline::now_at_deadline(h.deadline_ms(), error == 1 && deadline_bound, now);
        let rng = &mut self.rng;
        let Ok(step) = self.nets.with(now, |g| h.on_outcome(&verdict, now, g, rng)) else {
            return FAILED;
        };
        self.reason = verdict.reason.to_string();
        self.delay = None;
        match step {
            HedgeStep::Send => {
                self.delay = Some((0.0, false));
                RETRY
            }
            HedgeStep::Wait => {
                // A server hint moved the next hedge: say when it goes.
                if let (Some(_), Some(d)) = (verdict.hint, h.next_due_ms()) {
                    self.delay = Some(((d - now).max(0.0), true));
                }
                WAIT
            }
            HedgeStep::Done(r) => self.stopped(r),
        }
    }

    /// The last decision's wait (ms); NaN if it has none.
    pub fn delay_ms(&self) -> f64 {
        or_nan(self.delay.map(|d| d.0))
    }

    /// Whether the server set the last decision's wait.
    pub fn from_server(&self) -> bool {
        self.delay.is_some_and(|d| d.1)
    }

    /// Why: the last decision's reason.
    pub fn reason(&self) -> String {
        self.reason.clone()
    }

    /// The budget's tokens at `now`, for `onAttempt` (NaN without a budget).
    pub fn tokens(&mut self, now: f64) -> f64 {
        or_nan(self.nets.tokens(now).ok().flatten())
    }

    /// The call site's name, if the call has one.
    pub fn call_site(&self) -> Option<String> {
        self.nets.call_site().map(str::to_owned)
    }

    /// Which error a call that stopped (or was refused) rejects with (see `blocked`).
    pub fn stopped_with(&self) -> Vec<f64> {
        match (&self.refused, &self.stop) {
            (Some(b), _) => blocked(b),
            (None, Some(StopReason::CircuitOpen(e))) => blocked(&Blocked::CircuitOpen(*e)),
            (None, Some(StopReason::Throttled(e))) => blocked(&Blocked::Throttled(*e)),
            _ => vec![0.0],
        }
    }
}

impl FetchCall {
    fn read() -> Result<FetchCall, Fail> {
        let flight = Flight::enter()?;
        let o = Opts::top();
        let CallSettings {
            policy,
            rng,
            call_site,
            nets: given,
            hedging,
            attempt_timeout_ms,
            deadline_ms,
        } = read_call_settings(&o)?;
        Ok(FetchCall {
            policy,
            rng,
            call_site,
            given,
            nets: Nets::None,
            hedging,
            attempt_timeout_ms,
            deadline_ms,
            idempotent: flag(Extra::Idempotent),
            method: Method::Get,
            started: 0.0,
            state: None,
            hedge: None,
            deadline_at: None,
            delay: None,
            reason: String::new(),
            stop: None,
            refused: None,
            flight,
        })
    }

    fn request(&self) -> Request {
        Request::new(self.method).idempotent(self.idempotent)
    }

    fn verdict(
        &self,
        request: Request,
        status: f64,
        error: u8,
        retry_after: &Option<String>,
        pushback: &Option<String>,
        wall: f64,
    ) -> Verdict {
        let outcome = outcome(status, error, retry_after, pushback);
        self.policy.rules().classify(request, &outcome, wall)
    }

    /// Records a stop (or a success) and returns its code.
    fn stopped(&mut self, r: StopReason) -> u8 {
        self.reason = r.to_string();
        self.delay = None;
        let code = if matches!(r, StopReason::Succeeded(_)) {
            SUCCESS
        } else {
            STOP
        };
        self.stop = Some(r);
        code
    }

    fn step(&mut self, step: HedgeStep) -> u8 {
        match step {
            HedgeStep::Send => RETRY,
            HedgeStep::Wait => WAIT,
            HedgeStep::Done(r) => self.stopped(r),
        }
    }
}
