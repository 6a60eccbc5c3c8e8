// retryFetch for the slim entry `stampede/fetch`: the loop in JavaScript, every decision in wasm.
//
// This file does what JavaScript does well and wasm does at great cost in size: `fetch`, the
// AbortControllers, the timers, reading a response, the attempt log. Everything else is asked
// of `FetchCall` (src/call.rs), which holds the call's validated settings, its nets and its
// policy state, and answers with the core's rules: admit the call, how long an attempt may
// take, retry after how long or stop and why, when the next hedge goes. The behaviour is the
// full entry's (src/fetch.rs and its modules, whose docs give the reasons), kept to the letter:
// the caller's signals folded into one controller, each attempt its own controller and timeout,
// a Request cloned per attempt, a ReadableStream body refused, and the caller's code (getters,
// Proxy traps, signals, fetch, onAttempt) reached only inside `try`, so that whatever it throws
// rejects the promise with a TypeError naming it, and the promise always settles. The request
// itself (the signals, the call's controller, each attempt's, reading a response) is
// request.js's.
//
// scripts/finish-pkg.mjs bundles it with the entry.
import { FetchCall, loaded } from "./wasm.js";
import { classify } from "./api.js";
import { depthOf, fixedInput } from "../fetch-env.js";
import { blockedError, budgetExhaustedError, initError, retryError, typeError, urlError } from "../errors.js";
import { FETCH, commit, fail, get, now, ok, opt, read, text, threwError, transportName } from "./options.js";
import { ABORT, NONE, Outgoing, Signal, call, discardBody, isObject, onAbort } from "./request.js";

const RETRY = 0;
const SUCCESS = 1;
const STOP = 2;
/** A settings error (`lastError`), and a call the nets refused (src/call.rs). */
const FAILED = 4;
const REFUSED = 5;
const DECISIONS = ["retry", "success", "stop", "wait"];
/** The reason given for an attempt aborted because the request was over. */
const CANCELLED = "cancelled: another attempt ended the request";

/** The `onAttempt` record of attempt `a`. */
function attemptInfo(a, r) {
  const info = { number: r.number, startedMs: r.startedMs };
  if (a.error !== NONE) info.error = transportName(a.error);
  else info.status = a.status;
  info.decision = r.decision;
  if (r.delay) {
    info.delayMs = r.delay[0];
    info.fromServer = r.delay[1];
  }
  info.reason = r.reason;
  if (r.tokens !== undefined) info.budgetTokens = r.tokens;
  info.hedge = r.hedge;
  if (r.won) info.won = true;
  return info;
}

/** Logs `info` and calls `onAttempt` with it: a callback that throws ends the call, and
 *  one that returns a promise (any object, as `await` takes it) is waited for, its
 *  rejection ending the call alike (see src/fetch.rs); the signal ends the wait, and so
 *  does the call's `deadline` (the monotonic clock's ms; NaN for none): true then. */
async function report(onAttempt, attempts, info, signal, deadline) {
  attempts.push(info);
  const r = onAttempt && call(onAttempt, null, [info], "", "onAttempt");
  if (!isObject(r)) return false;
  let off;
  let timer;
  try {
    return await new Promise((resolve, reject) => {
      off = onAbort(signal, () => resolve(false));
      if (signal.aborted) resolve(false);
      if (!Number.isNaN(deadline)) timer = setTimeout(() => resolve(true), Math.max(0, deadline - now()));
      // Followed as `await` would (a `then` that throws rejects).
      new Promise((res) => res(r)).then(() => resolve(false), reject);
    });
  } catch (e) {
    throw threwError("", "onAttempt", e);
  } finally {
    off();
    clearTimeout(timer);
  }
}

/** Waits for `reports` (onAttempt told), then checks the caller's signal: if either
 *  fails, attempt `a`'s body is thrown away first. What `reports` gave, is given back. */
async function reported(reports, a, req) {
  try {
    const got = await reports;
    req.check();
    return got;
  } catch (e) {
    discardBody(a);
    throw e;
  }
}

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const off = onAbort(signal, () => {
      clearTimeout(id);
      reject(signal.reason);
    });
    const id = setTimeout(() => {
      off();
      resolve();
    }, ms);
  });
}

/** What a call that stopped hands back: a response (a success, or the last HTTP status,
 *  as `fetch` would), or the error of its last transport failure. */
function finish(fc, a, attempts, req) {
  if (a.response !== undefined) {
    req.follow(a);
    return a.response;
  }
  throw stopError(fc, attempts, a.value);
}

/** The error a call that stopped (on a transport failure `cause`, or with nothing in
 *  flight) or that the nets refused rejects with: `CircuitOpenError`, `ThrottledError`,
 *  `BudgetExhaustedError` (refused only), else `RetryError`. */
function stopError(fc, attempts, cause) {
  const [kind, value, tokens] = fc.stopped();
  const site = fc.callSite;
  if (kind === 3) return budgetExhaustedError(site, fc.reason, value, tokens);
  if (kind) return blockedError(kind - 1, site, fc.reason, value, attempts, cause);
  return retryError(fc.reason, attempts, cause);
}

/** A decision code, or the error it stands for. */
function decided(code) {
  if (code === FAILED) throw fail();
  return code;
}

/** `retryFetch(input, init, options)`: see stampede.d.ts. */
export async function retryFetch(input, init, options) {
  loaded();
  const ops = [];
  read(options, "retryFetch options", "", FETCH, ops);
  commit(ops);
  const fc = ok(FetchCall.create());
  let req;
  try {
    const o = options;
    const onAttempt = isObject(o) ? get(o, "", "onAttempt") : undefined;
    if (onAttempt !== undefined && onAttempt !== null && typeof onAttempt !== "function") {
      throw typeError("", "onAttempt", "a function", onAttempt);
    }
    const signalValue = isObject(o) ? get(o, "", "signal") : undefined;
    const signal = Signal.of(signalValue, "signal", "signal.");
    // As the full entry: every option is read before the URL is judged, and the URL read
    // once, here, as fetch reads it (see fixedInput).
    input = fixedInput(input);
    const badUrl = urlError(input);
    if (badUrl) throw badUrl;
    req = new Outgoing(input, init, signal);
    // Made with one of our attempts' signals: below that attempt's call (in_flight.rs).
    if (!fc.below(depthOf(...req.given.map((s) => s.target)))) throw fail();
    const method = req.method();
    if (method && !fc.setMethod(text(method[0], method[1], "method"), method[1] === "input.")) throw fail();
    const refused = initError(input, req.init, req.clone);
    if (refused) throw refused;
    // Aborted before the call: nothing is sent, and the nets are not touched.
    req.check();
    const admitted = decided(fc.admit(now()));
    if (admitted === REFUSED) throw stopError(fc, [], undefined);
    const run = fc.hedged ? hedged : retry;
    return await run(fc, req, onAttempt || undefined);
  } finally {
    req?.close();
    fc.free();
  }
}

/** The retry loop: one attempt at a time, the policy deciding after each. */
async function retry(fc, req, onAttempt) {
  const attempts = [];
  // The call's deadline (NaN for none), which also ends the wait for an async onAttempt.
  const deadline = fc.deadline;
  for (;;) {
    req.check();
    const number = fc.number();
    const startedMs = Date.now();
    const sent = req.send(opt(fc.timeout(now())), fc);
    let a;
    try {
      a = await sent.settled.then(
        (v) => sent.attempted(true, v),
        (e) => sent.attempted(false, e),
      );
    } finally {
      sent.close();
    }
    // The wall clock reads a Retry-After date; the nets and deadline use the other.
    const wall = Date.now();
    const at = now();
    const d = decided(fc.decide(a.status, a.error, a.retryAfter, a.pushback, wall, at));
    const delayMs = fc.delayMs;
    const info = attemptInfo(a, {
      number,
      startedMs,
      decision: DECISIONS[d],
      delay: d === RETRY ? [delayMs, fc.fromServer] : undefined,
      reason: fc.reason,
      tokens: opt(fc.tokens(at)),
      hedge: false,
      won: false,
    });
    // Aborted during the attempt or from inside onAttempt: stop here, send no more.
    const cut = await reported(report(onAttempt, attempts, info, req.signal, deadline), a, req);
    if (d !== RETRY) return finish(fc, a, attempts, req);
    // A slow onAttempt may have taken the time the retry had: one that would start past
    // the deadline now stops there, as the decision would have (see src/fetch.rs).
    if (fc.mayStart(cut ? Math.max(now(), deadline) : now()) !== RETRY) return finish(fc, a, attempts, req);
    discardBody(a);
    await sleep(delayMs, req.signal);
  }
}

/** Hedging: real concurrent fetch calls, the first success wins (see src/fetch/hedged.rs). */
async function hedged(fc, req, onAttempt) {
  const attempts = [];
  const flights = [];
  // The last attempt that ended without ending the request: what a request that then stops
  // with nothing in flight hands back.
  let last;
  let launched = 0;
  const keep = (a) => {
    discardBody(last);
    last = a;
  };
  const launch = () => {
    const timeout = opt(fc.timeout(now()));
    // Whether the deadline set this attempt's timeout: its timing out then means the
    // deadline has passed, whatever the clock reads (timers may fire early).
    const deadlineBound = fc.deadlineBound;
    const startedMs = Date.now();
    const sent = req.send(timeout, fc);
    const index = launched++;
    const tagged = sent.settled.then(
      (value) => ({ index, ok: true, value }),
      (value) => ({ index, ok: false, value }),
    );
    flights.push({ index, startedMs, sent, tagged, deadlineBound });
  };
  try {
    return await hedgeSteps();
  } catch (e) {
    if (req.signal.aborted && flights.length) {
      // The caller aborted: the attempts still in flight are aborted and reported too, as
      // the one in flight is when retrying. The call is over: nothing is waited for, and
      // what onAttempt throws then is nobody's (the call rejects with the caller's reason).
      const { reason } = classify({ error: "abort" });
      for (const f of flights.splice(0)) {
        f.sent.abort();
        f.sent.close();
        const info = attemptInfo({ error: ABORT }, { number: f.index + 1, startedMs: f.startedMs, decision: "stop", reason, hedge: f.index > 0 });
        attempts.push(info);
        try {
          onAttempt?.(info)?.then?.(undefined, () => {});
        } catch {}
      }
    }
    throw e;
  } finally {
    // No attempt outlives its call.
    for (const f of flights) {
      f.sent.abort();
      f.sent.close();
    }
  }

  async function hedgeSteps() {
    // The hedge delay counts from the moment the first attempt is sent (gRFC A6): the
    // clock is read once `fetch` has been called, so a slow launch does not shorten it.
    launch();
    fc.hedgeStart(now());
    for (;;) {
      req.check();
      const due = opt(fc.nextDue());
      const woke = await race(flights, due, req.signal);
      req.check();
      if (woke === undefined) {
        // The hedge timer (timers may fire a fraction of a millisecond early on the
        // monotonic clock: the due time has come).
        const step = decided(fc.onDue(Math.max(now(), due ?? 0)));
        if (step === RETRY) launch();
        else if (step === SUCCESS || step === STOP) {
          if (last) return finish(fc, last, attempts, req);
          throw retryError(fc.reason, attempts, undefined);
        }
        continue;
      }
      const at = flights.findIndex((f) => f.index === woke.index);
      if (at < 0) continue;
      const [flight] = flights.splice(at, 1);
      flight.sent.close();
      const a = flight.sent.attempted(woke.ok, woke.value);
      const t = now();
      const step = decided(fc.onOutcome(a.status, a.error, a.retryAfter, a.pushback, Date.now(), t, flight.deadlineBound));
      const delayMs = opt(fc.delayMs);
      const info = attemptInfo(a, {
        number: flight.index + 1,
        startedMs: flight.startedMs,
        decision: DECISIONS[step],
        delay: delayMs === undefined ? undefined : [delayMs, fc.fromServer],
        reason: fc.reason,
        tokens: opt(fc.tokens(t)),
        hedge: flight.index > 0,
        // The attempt whose response the call resolves with: a success, or the status
        // hedging ends on (as fetch, the call resolves with a 503 it gives up on).
        won: (step === SUCCESS || step === STOP) && a.response !== undefined,
      });
      const deadline = fc.deadline;
      const cut = await reported(report(onAttempt, attempts, info, req.signal, deadline), a, req);
      // A slow onAttempt may have taken the time a hedge had: one that would now start at
      // or past the deadline is not sent (see src/fetch/hedged.rs).
      const next = step === RETRY ? decided(fc.hedgeMaySend(cut ? Math.max(now(), deadline) : now())) : step;
      if (next === RETRY) {
        keep(a);
        launch();
      } else if (next === SUCCESS || next === STOP) {
        discardBody(last);
        last = undefined;
        // Aborted while onAttempt was told of the losers: the caller's reason.
        await reported(cancelLosers(flights.splice(0), attempts, onAttempt, req.signal, fc.deadline), a, req);
        return finish(fc, a, attempts, req);
      } else keep(a);
    }
  }
}

/** Whichever comes first: an attempt in flight settling (`{ index, ok, value }`), the
 *  hedge timer at `due` (undefined), or the caller's abort (a rejection with its reason). */
function race(flights, due, signal) {
  let id;
  let off;
  const wake = new Promise((resolve, reject) => {
    if (due !== undefined) id = setTimeout(resolve, Math.max(0, due - now()));
    off = onAbort(signal, () => reject(signal.reason));
  });
  const done = () => {
    clearTimeout(id);
    off();
  };
  return Promise.race([...flights.map((f) => f.tagged), wake]).finally(done);
}

/** The request is over: every attempt still in flight is aborted and reported to
 *  `onAttempt` as an `abort`, in the order they were sent. */
async function cancelLosers(flights, attempts, onAttempt, signal, deadline) {
  for (const f of flights) {
    f.sent.abort();
    f.sent.close();
    const info = attemptInfo(
      { error: ABORT },
      {
        number: f.index + 1,
        startedMs: f.startedMs,
        decision: "stop",
        reason: CANCELLED,
        hedge: f.index > 0,
        won: false,
      },
    );
    await report(onAttempt, attempts, info, signal, deadline);
  }
}
