//! The slim entry's wasm ABI: plain `extern "C"` functions over numbers, for the
//! hand-written loader `js/slim/wasm.js` (no wasm-bindgen: its glue was 2 KB of the slim's
//! gzipped JavaScript, issue #14's 25 KB bar).
//!
//! - Objects (`RetryPolicy`'s policy, a `Budget`'s call site, a `retryFetch` call) are
//!   handles: indices + 1 into a table here, 0 for none; JavaScript frees them.
//! - A string argument is written by JavaScript into the input buffer (`inbuf(len)` gives
//!   its address), then queued with `arg(len)`; the function that takes strings takes the
//!   queued ones in order.
//! - A string result is copied into the output buffer: the function returns its length in
//!   bytes (-1 for none) and `outbuf()` its address; `f64` results likewise (`outf()`).

use std::cell::RefCell;

use crate::api::{Backoff, Judged, Site, classify_staged, parse_retry_after};
use crate::call::FetchCall;
use crate::errors::{last_error, last_error_numbers};
use crate::opts::{schema, stage, stage_text, unstage};

/// The objects JavaScript holds, by handle, and the free slots (the last freed reused first:
/// an insert took a scan of every slot, so 100,000 calls in flight cost 5 billion steps).
struct Table<T> {
    slots: Vec<Option<T>>,
    free: Vec<u32>,
}

impl<T> Table<T> {
    const fn new() -> Self {
        Table {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    fn insert(&mut self, v: Option<T>) -> u32 {
        let Some(v) = v else { return 0 };
        let i = match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = Some(v);
                i as usize
            }
            None => {
                self.slots.push(Some(v));
                self.slots.len() - 1
            }
        };
        i as u32 + 1
    }

    fn get(&mut self, h: u32) -> Option<&mut T> {
        self.slots.get_mut((h as usize).checked_sub(1)?)?.as_mut()
    }

    fn free(&mut self, h: u32) {
        if let Some(i) = (h as usize).checked_sub(1)
            && let Some(slot) = self.slots.get_mut(i)
            && slot.take().is_some()
        {
            self.free.push(i as u32);
        }
    }
}

struct Io {
    input: Vec<u8>,
    args: Vec<String>,
    out: Vec<u8>,
    outf: Vec<f64>,
}

thread_local! {
    static POLICIES: RefCell<Table<Backoff>> = const { RefCell::new(Table::new()) };
    static SITES: RefCell<Table<Site>> = const { RefCell::new(Table::new()) };
    static CALLS: RefCell<Table<FetchCall>> = const { RefCell::new(Table::new()) };
    static VERDICT: RefCell<Option<Judged>> = const { RefCell::new(None) };
    static IO: RefCell<Io> = const {
        RefCell::new(Io { input: Vec::new(), args: Vec::new(), out: Vec::new(), outf: Vec::new() })
    };
}

/// The next queued string argument (empty if JavaScript queued none).
fn take() -> String {
    IO.with(|io| {
        let mut io = io.borrow_mut();
        if io.args.is_empty() {
            String::new()
        } else {
            io.args.remove(0)
        }
    })
}

/// The next queued string argument if `given`.
fn take_if(given: u32) -> Option<String> {
    (given != 0).then(take)
}

/// Copies a string result into the output buffer: its length in bytes, -1 for none.
fn put(s: Option<&str>) -> i32 {
    let Some(s) = s else { return -1 };
    IO.with(|io| {
        let mut io = io.borrow_mut();
        io.out.clear();
        io.out.extend_from_slice(s.as_bytes());
        s.len() as i32
    })
}

/// Copies numbers into the `f64` output buffer: how many.
fn putf(v: Vec<f64>) -> u32 {
    IO.with(|io| {
        let len = v.len() as u32;
        io.borrow_mut().outf = v;
        len
    })
}

fn policy<R>(h: u32, f: impl FnOnce(&mut Backoff) -> R) -> Option<R> {
    POLICIES.with(|t| t.borrow_mut().get(h).map(f))
}

fn site<R>(h: u32, f: impl FnOnce(&mut Site) -> R) -> Option<R> {
    SITES.with(|t| t.borrow_mut().get(h).map(f))
}

fn call<R>(h: u32, f: impl FnOnce(&mut FetchCall) -> R) -> Option<R> {
    CALLS.with(|t| t.borrow_mut().get(h).map(f))
}

fn verdict<R>(f: impl FnOnce(&Judged) -> R) -> Option<R> {
    VERDICT.with(|v| v.borrow().as_ref().map(f))
}

// ---- Buffers ------------------------------------------------------------------------------

/// The input buffer, at least `len` bytes: its address.
#[unsafe(no_mangle)]
pub extern "C" fn inbuf(len: u32) -> *mut u8 {
    IO.with(|io| {
        let mut io = io.borrow_mut();
        io.input.resize(len as usize, 0);
        io.input.as_mut_ptr()
    })
}

/// Queues the input buffer's first `len` bytes (UTF-8, from `TextEncoder`) as a string
/// argument.
#[unsafe(no_mangle)]
pub extern "C" fn arg(len: u32) {
    IO.with(|io| {
        let mut io = io.borrow_mut();
        let bytes = io.input.get(..len as usize).unwrap_or_default().to_vec();
        // `TextEncoder` writes valid UTF-8 (a lone surrogate as U+FFFD).
        let s = String::from_utf8(bytes).unwrap_or_default();
        io.args.push(s);
    });
}

/// The output buffer's address (valid until the next call).
#[unsafe(no_mangle)]
pub extern "C" fn outbuf() -> *const u8 {
    IO.with(|io| io.borrow().out.as_ptr())
}

/// The `f64` output buffer's address (valid until the next call).
#[unsafe(no_mangle)]
pub extern "C" fn outf() -> *const f64 {
    IO.with(|io| io.borrow().outf.as_ptr())
}

// ---- Options and errors (slim/opts.rs, slim/errors.rs) ------------------------------------

/// `unstage`.
#[unsafe(no_mangle)]
pub extern "C" fn opts_unstage() {
    unstage();
}

/// `stage`.
#[unsafe(no_mangle)]
pub extern "C" fn opts_stage(slot: u32, value: f64) {
    stage(slot as usize, value);
}

/// `stageText`, the string queued.
#[unsafe(no_mangle)]
pub extern "C" fn opts_stage_text(slot: u32) {
    stage_text(slot as usize, take());
}

/// `schema`: a string.
#[unsafe(no_mangle)]
pub extern "C" fn opts_schema() -> i32 {
    put(Some(&schema()))
}

/// `lastError`: a string.
#[unsafe(no_mangle)]
pub extern "C" fn last_err() -> i32 {
    put(Some(&last_error()))
}

/// `lastErrorNumbers`: numbers.
#[unsafe(no_mangle)]
pub extern "C" fn last_err_numbers() -> u32 {
    putf(last_error_numbers())
}

// ---- RetryPolicy, classify, parseRetryAfter (slim/api.rs) ---------------------------------

/// `Backoff.create`: a handle, 0 on a bad setting.
#[unsafe(no_mangle)]
pub extern "C" fn policy_new() -> u32 {
    POLICIES.with(|t| t.borrow_mut().insert(Backoff::create()))
}

/// Frees a policy.
#[unsafe(no_mangle)]
pub extern "C" fn policy_free(h: u32) {
    POLICIES.with(|t| t.borrow_mut().free(h));
}

/// `Backoff.draw`: numbers.
#[unsafe(no_mangle)]
pub extern "C" fn policy_draw(h: u32, rows: u32) -> u32 {
    putf(policy(h, |p| p.draw(rows)).unwrap_or_default())
}

/// `Backoff.rows`.
#[unsafe(no_mangle)]
pub extern "C" fn policy_rows(h: u32, n: f64) -> f64 {
    policy(h, |p| p.rows(n)).unwrap_or(f64::NAN)
}

/// `Backoff.maxAttempts`.
#[unsafe(no_mangle)]
pub extern "C" fn policy_max_attempts(h: u32) -> u32 {
    policy(h, |p| p.max_attempts()).unwrap_or(0)
}

/// `Backoff.strategy`: a string.
#[unsafe(no_mangle)]
pub extern "C" fn policy_strategy(h: u32) -> i32 {
    put(policy(h, |p| p.strategy()).as_deref())
}

/// `classifyStaged`: 1 with the verdict kept for the `verdict_*` readers, 0 on a bad value.
#[unsafe(no_mangle)]
pub extern "C" fn classify(now: f64) -> u32 {
    let judged = classify_staged(now);
    let ok = judged.is_some();
    VERDICT.with(|v| *v.borrow_mut() = judged);
    u32::from(ok)
}

/// The verdict's `retryable`.
#[unsafe(no_mangle)]
pub extern "C" fn verdict_retryable() -> u32 {
    u32::from(verdict(Judged::retryable).unwrap_or(false))
}

/// The verdict's `action`: a string.
#[unsafe(no_mangle)]
pub extern "C" fn verdict_action() -> i32 {
    put(verdict(Judged::action).as_deref())
}

/// The verdict's `reason`: a string.
#[unsafe(no_mangle)]
pub extern "C" fn verdict_reason() -> i32 {
    put(verdict(Judged::reason).as_deref())
}

/// The verdict's `retryAfterMs` (NaN for none).
#[unsafe(no_mangle)]
pub extern "C" fn verdict_retry_after() -> f64 {
    verdict(Judged::retry_after_ms).unwrap_or(f64::NAN)
}

/// The verdict's `ignoredHint`: a string or none.
#[unsafe(no_mangle)]
pub extern "C" fn verdict_ignored() -> i32 {
    put(verdict(Judged::ignored_hint).flatten().as_deref())
}

/// `parseRetryAfter` of the string queued.
#[unsafe(no_mangle)]
pub extern "C" fn retry_after(now: f64) -> f64 {
    parse_retry_after(&take(), now)
}

// ---- Budget (slim/api.rs's Site) ----------------------------------------------------------

/// `Site.create` for the name queued: a handle, 0 on a bad setting.
#[unsafe(no_mangle)]
pub extern "C" fn site_new(given: u32, now: f64) -> u32 {
    let site = Site::create(take(), given != 0, now);
    SITES.with(|t| t.borrow_mut().insert(site))
}

/// Frees a call site's handle (not the call site).
#[unsafe(no_mangle)]
pub extern "C" fn site_free(h: u32) {
    SITES.with(|t| t.borrow_mut().free(h));
}

/// `Site.kind`: a string, or none on an error.
#[unsafe(no_mangle)]
pub extern "C" fn site_kind(h: u32, now: f64) -> i32 {
    put(site(h, |s| s.kind(now)).flatten().as_deref())
}

/// `Site.tokens`.
#[unsafe(no_mangle)]
pub extern "C" fn site_tokens(h: u32, now: f64) -> f64 {
    site(h, |s| s.tokens(now)).unwrap_or(f64::NAN)
}

/// `Site.isOpen`.
#[unsafe(no_mangle)]
pub extern "C" fn site_is_open(h: u32, now: f64) -> f64 {
    site(h, |s| s.is_open(now)).unwrap_or(f64::NAN)
}

/// `Site.tryRetry`.
#[unsafe(no_mangle)]
pub extern "C" fn site_try_retry(h: u32, now: f64) -> f64 {
    site(h, |s| s.try_retry(now)).unwrap_or(f64::NAN)
}

/// `Site.reset`.
#[unsafe(no_mangle)]
pub extern "C" fn site_reset(h: u32, now: f64) -> u32 {
    u32::from(site(h, |s| s.reset(now)).unwrap_or(false))
}

// ---- retryFetch's calls (call.rs) ---------------------------------------------------------

/// `FetchCall.create`: a handle, 0 on a bad setting.
#[unsafe(no_mangle)]
pub extern "C" fn call_new() -> u32 {
    CALLS.with(|t| t.borrow_mut().insert(FetchCall::create()))
}

/// Frees a call.
#[unsafe(no_mangle)]
pub extern "C" fn call_free(h: u32) {
    CALLS.with(|t| t.borrow_mut().free(h));
}

/// `FetchCall.fetchEnter`: the depth to restore.
#[unsafe(no_mangle)]
pub extern "C" fn call_fetch_enter(h: u32) -> u32 {
    call(h, |c| c.fetch_enter()).unwrap_or_else(crate::in_flight::fetching_at)
}

/// `FetchCall.depth`.
#[unsafe(no_mangle)]
pub extern "C" fn call_depth(h: u32) -> u32 {
    call(h, |c| c.depth()).unwrap_or(0)
}

/// `FetchCall.below`: 1, or 0 with the error for `lastError`.
#[unsafe(no_mangle)]
pub extern "C" fn call_below(h: u32, depth: u32) -> u32 {
    u32::from(call(h, |c| c.below(depth)).unwrap_or(false))
}

/// `FetchCall.fetchLeave`.
#[unsafe(no_mangle)]
pub extern "C" fn call_fetch_leave(outer: u32) {
    crate::in_flight::leave_fetch(outer);
}

/// `FetchCall.maxText`.
#[unsafe(no_mangle)]
pub extern "C" fn call_max_text() -> u32 {
    FetchCall::max_text()
}

/// `FetchCall.setMethod` with the method queued.
#[unsafe(no_mangle)]
pub extern "C" fn call_set_method(h: u32, input: u32) -> u32 {
    let method = take();
    u32::from(call(h, |c| c.set_method(&method, input != 0)).unwrap_or(false))
}

/// `FetchCall.hedged`.
#[unsafe(no_mangle)]
pub extern "C" fn call_hedged(h: u32) -> u32 {
    u32::from(call(h, |c| c.hedged()).unwrap_or(false))
}

/// `FetchCall.admit`.
#[unsafe(no_mangle)]
pub extern "C" fn call_admit(h: u32, now: f64) -> u32 {
    call(h, |c| u32::from(c.admit(now))).unwrap_or(4)
}

/// `FetchCall.number`.
#[unsafe(no_mangle)]
pub extern "C" fn call_number(h: u32) -> u32 {
    call(h, |c| c.number()).unwrap_or(1)
}

/// `FetchCall.timeout`.
#[unsafe(no_mangle)]
pub extern "C" fn call_timeout(h: u32, now: f64) -> f64 {
    call(h, |c| c.timeout(now)).unwrap_or(f64::NAN)
}

/// `FetchCall.deadline`.
#[unsafe(no_mangle)]
pub extern "C" fn call_deadline(h: u32) -> f64 {
    call(h, |c| c.deadline()).unwrap_or(f64::NAN)
}

/// `FetchCall.mayStart`.
#[unsafe(no_mangle)]
pub extern "C" fn call_may_start(h: u32, now: f64) -> u32 {
    call(h, |c| u32::from(c.may_start(now))).unwrap_or(2)
}

/// `FetchCall.hedgeMaySend`.
#[unsafe(no_mangle)]
pub extern "C" fn call_hedge_may_send(h: u32, now: f64) -> u32 {
    call(h, |c| u32::from(c.hedge_may_send(now))).unwrap_or(2)
}

/// `FetchCall.decide`, Retry-After and grpc-retry-pushback-ms queued in that order when
/// given.
#[unsafe(no_mangle)]
pub extern "C" fn call_decide(
    h: u32,
    status: f64,
    error: u32,
    has_retry_after: u32,
    has_pushback: u32,
    wall: f64,
    now: f64,
) -> u32 {
    let retry_after = take_if(has_retry_after);
    let pushback = take_if(has_pushback);
    let error = error as u8;
    call(h, |c| {
        u32::from(c.decide(status, error, retry_after, pushback, wall, now))
    })
    .unwrap_or(2)
}

/// `FetchCall.hedgeStart`.
#[unsafe(no_mangle)]
pub extern "C" fn call_hedge_start(h: u32, now: f64) {
    call(h, |c| c.hedge_start(now));
}

/// `FetchCall.nextDue`.
#[unsafe(no_mangle)]
pub extern "C" fn call_next_due(h: u32) -> f64 {
    call(h, |c| c.next_due()).unwrap_or(f64::NAN)
}

/// `FetchCall.onDue`.
#[unsafe(no_mangle)]
pub extern "C" fn call_on_due(h: u32, now: f64) -> u32 {
    call(h, |c| u32::from(c.on_due(now))).unwrap_or(2)
}

/// `FetchCall.onOutcome`, its strings as [`call_decide`]'s; `deadline_bound` 1 when the
/// attempt's timeout was the deadline's ([`call_deadline_bound`] when it was sent).
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn call_on_outcome(
    h: u32,
    status: f64,
    error: u32,
    has_retry_after: u32,
    has_pushback: u32,
    wall: f64,
    now: f64,
    deadline_bound: u32,
) -> u32 {
    let retry_after = take_if(has_retry_after);
    let pushback = take_if(has_pushback);
    let error = error as u8;
    let bound = deadline_bound == 1;
    call(h, |c| {
        u32::from(c.on_outcome(status, error, retry_after, pushback, wall, now, bound))
    })
    .unwrap_or(2)
}

/// `FetchCall.deadlineBound`: 1 when the last `timeout` was the deadline's.
#[unsafe(no_mangle)]
pub extern "C" fn call_deadline_bound(h: u32) -> u32 {
    call(h, |c| u32::from(c.deadline_bound())).unwrap_or(0)
}

/// `FetchCall.delayMs`.
#[unsafe(no_mangle)]
pub extern "C" fn call_delay(h: u32) -> f64 {
    call(h, |c| c.delay_ms()).unwrap_or(f64::NAN)
}

/// `FetchCall.fromServer`.
#[unsafe(no_mangle)]
pub extern "C" fn call_from_server(h: u32) -> u32 {
    u32::from(call(h, |c| c.from_server()).unwrap_or(false))
}

/// `FetchCall.reason`: a string.
#[unsafe(no_mangle)]
pub extern "C" fn call_reason(h: u32) -> i32 {
    put(call(h, |c| c.reason()).as_deref())
}

/// `FetchCall.tokens`.
#[unsafe(no_mangle)]
pub extern "C" fn call_tokens(h: u32, now: f64) -> f64 {
    call(h, |c| c.tokens(now)).unwrap_or(f64::NAN)
}

/// `FetchCall.callSite`: a string or none.
#[unsafe(no_mangle)]
pub extern "C" fn call_site(h: u32) -> i32 {
    put(call(h, |c| c.call_site()).flatten().as_deref())
}

/// `FetchCall.stopped`: numbers.
#[unsafe(no_mangle)]
pub extern "C" fn call_stopped(h: u32) -> u32 {
    putf(call(h, |c| c.stopped_with()).unwrap_or_default())
}
