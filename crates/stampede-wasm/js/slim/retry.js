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
// rejects the promise with a TypeError naming it, and the promise always settles.
//
// scripts/finish-pkg.mjs bundles it with the entry.
import { FetchCall } from "./wasm.js";
import { blockedError, budgetExhaustedError, initError, retryError, typeError, urlError } from "../errors.js";
import { FETCH, commit, fail, get, now, ok, opt, read, text, threwError, transportName } from "./options.js";

const RETRY = 0;
const SUCCESS = 1;
const STOP = 2;
/** A settings error (`lastError`), and a call the nets refused (src/call.rs). */
const FAILED = 4;
const REFUSED = 5;
const DECISIONS = ["retry", "success", "stop", "wait"];
/** The transport errors, by the codes FetchCall takes. */
const CONNECT = 0;
const TIMEOUT = 1;
const ABORT = 2;
/** The reason given for an attempt aborted because the request was over. */
const CANCELLED = "cancelled: another attempt ended the request";

const isObject = (v) => v !== null && (typeof v === "object" || typeof v === "function");
const isPlainObject = (v) => v !== null && typeof v === "object";

const getIfObject = (v, prefix, key) => (isObject(v) ? get(v, prefix, key) : undefined);

/** Calls the caller's `f` with `this` and `args`: an exception names `{prefix}{name}`. */
function call(f, self, args, prefix, name) {
  try {
    return Reflect.apply(f, self, args);
  } catch (e) {
    throw threwError(prefix, name, e);
  }
}

/** One of the caller's signals (`signal`, `init.signal`, a Request's `signal`): an
 *  AbortSignal, or an object with `aborted` and `addEventListener`. */
class Signal {
  static of(v, field, prefix) {
    if (v === undefined || v === null) return undefined;
    let like = typeof AbortSignal === "function" && v instanceof AbortSignal;
    if (!like && isPlainObject(v)) {
      let has;
      try {
        has = Reflect.has(v, "aborted");
      } catch (e) {
        throw threwError(prefix, "aborted", e);
      }
      like = has && typeof get(v, prefix, "addEventListener") === "function";
    }
    if (!like) throw typeError("", field, "an AbortSignal", v);
    return new Signal(v, prefix);
  }

  constructor(target, prefix) {
    this.target = target;
    this.prefix = prefix;
  }

  aborted() {
    const v = get(this.target, this.prefix, "aborted");
    if (typeof v !== "boolean") throw typeError(this.prefix, "aborted", "true or false", v);
    return v;
  }

  /** `reason`; if reading it throws, a TypeError naming it is the reason instead. */
  reason() {
    try {
      return get(this.target, this.prefix, "reason");
    } catch (e) {
      return e;
    }
  }

  /** Calls `f` on abort; returns what removes the listener (best effort). */
  onAbort(f) {
    const add = get(this.target, this.prefix, "addEventListener");
    call(add, this.target, ["abort", f], this.prefix, "addEventListener");
    return () => {
      try {
        Reflect.apply(get(this.target, this.prefix, "removeEventListener"), this.target, ["abort", f]);
      } catch {}
    };
  }
}

/** `f` on `signal`'s abort (one of our own signals); returns what removes it. */
function onAbort(signal, f) {
  signal.addEventListener("abort", f);
  return () => signal.removeEventListener("abort", f);
}

/** What every attempt sends, and the call's own controller, which any of the caller's
 *  signals aborts with its reason. */
class Outgoing {
  constructor(input, init, signal) {
    this.input = input;
    this.init = copyInit(init);
    const initSignal = Signal.of(get(this.init, "init.", "signal"), "init.signal", "init.signal.");
    const [clone, inputSignal] = requestParts(input);
    this.clone = clone;
    this.ctrl = new AbortController();
    this.unlink = [];
    try {
      for (const s of [signal, initSignal, inputSignal]) {
        if (!s) continue;
        if (s.aborted()) {
          this.ctrl.abort(s.reason());
          break;
        }
        this.unlink.push(s.onAbort(() => this.ctrl.abort(s.reason())));
      }
    } catch (e) {
      // A later signal threw: the listeners already on the earlier ones go too.
      this.close();
      throw e;
    }
  }

  get signal() {
    return this.ctrl.signal;
  }

  /** Throws the caller's reason once aborted. */
  check() {
    if (this.signal.aborted) throw this.signal.reason;
  }

  close() {
    for (const f of this.unlink) f();
  }

  /** The request's method: `init.method`, else a Request input's, else GET (undefined). */
  method() {
    for (const [v, prefix] of [
      [this.init, "init."],
      [this.input, "input."],
    ]) {
      if (!isPlainObject(v)) continue;
      const m = get(v, prefix, "method");
      if (m !== undefined && m !== null) return [m, prefix];
    }
    return undefined;
  }

  /** Starts one attempt under a fresh controller: its `settled` promise settles when
   *  fetch's does, or as soon as the attempt is aborted (by the caller or its timeout),
   *  even by a `fetch` that ignores its signal. */
  send(timeoutMs) {
    const ctrl = new AbortController();
    const sent = new Sent(ctrl, this.signal);
    let resolve, reject;
    sent.settled = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // If this attempt fails while it is sent (the caller's clone, fetch or then throws
    // after an abort rejected `settled`), nobody awaits `settled`: its rejection is handled.
    sent.settled.then(undefined, ignore);
    sent.guards.push(onAbort(this.signal, () => ctrl.abort(this.signal.reason)));
    if (timeoutMs !== undefined) {
      const id = setTimeout(() => {
        sent.timedOut = true;
        ctrl.abort();
      }, timeoutMs);
      sent.guards.push(() => clearTimeout(id));
    }
    sent.guards.push(onAbort(ctrl.signal, () => reject(ctrl.signal.reason)));
    // Whatever of the caller's code throws from here on ends the call: the timer and the
    // listeners go with it.
    try {
      this.init.signal = ctrl.signal;
      const input = this.clone ? call(this.clone, this.input, [], "input.", "clone") : this.input;
      let promise;
      try {
        promise = fetch(input, this.init);
      } catch (e) {
        throw threwError("", "fetch", e);
      }
      let then;
      try {
        then = isObject(promise) ? promise.then : undefined;
      } catch (e) {
        throw threwError("fetch(…).", "then", e);
      }
      if (typeof then !== "function") throw typeError("", "fetch", "a Promise", promise);
      call(then, promise, [resolve, reject], "fetch(…).", "then");
    } catch (e) {
      sent.close();
      throw e;
    }
    return sent;
  }
}

/** A copy of `init` (its getters run once, here), without a prototype, so no inherited
 *  setter sees the signal set on it per attempt. A ReadableStream body is refused: a
 *  stream can be sent only once. */
function copyInit(init) {
  const copy = Object.create(null);
  if (!isPlainObject(init)) {
    if (init !== undefined && init !== null) throw typeError("", "init", "an object", init);
    return copy;
  }
  try {
    Object.assign(copy, init);
  } catch (e) {
    throw threwError("", "init", e);
  }
  const body = get(copy, "init.", "body");
  if (typeof getIfObject(body, "init.body.", "getReader") === "function") {
    throw new TypeError(
      "init.body: a ReadableStream can be sent only once, so retryFetch cannot retry it; pass a string, Blob, ArrayBuffer, FormData or URLSearchParams, or call fetch",
    );
  }
  // Node's fetch also sends an async iterable (a generator, a stream.Readable): once too.
  let iterate;
  try {
    iterate = isObject(body) ? body[Symbol.asyncIterator] : undefined;
  } catch (e) {
    throw threwError("init.body.", "[Symbol.asyncIterator]", e);
  }
  if (typeof iterate === "function") {
    throw new TypeError(
      "init.body: an async iterable (a generator or a Node stream) can be sent only once, so retryFetch cannot retry it; pass a string, Blob, ArrayBuffer, FormData or URLSearchParams, or call fetch",
    );
  }
  return copy;
}

/** A Request input's `clone` and its own signal (nothing for a URL or a string). */
function requestParts(input) {
  const used = getIfObject(input, "input.", "bodyUsed");
  if (typeof used !== "boolean") return [undefined, undefined];
  const clone = get(input, "input.", "clone");
  if (typeof clone !== "function") return [undefined, undefined];
  if (used) {
    throw new TypeError("input: the Request's body was already used, so it cannot be sent; pass a fresh Request");
  }
  const own = get(input, "input.", "signal");
  return [clone, isPlainObject(own) ? Signal.of(own, "input.signal", "input.signal.") : undefined];
}

/** An attempt on its way. */
class Sent {
  constructor(ctrl, callSignal) {
    this.ctrl = ctrl;
    this.callSignal = callSignal;
    this.timedOut = false;
    this.guards = [];
  }

  close() {
    for (const f of this.guards) f();
    this.guards = [];
  }

  abort() {
    this.ctrl.abort();
  }

  /** What the attempt left once `settled` has: a Response (checked: a status of 0 or
   *  100 to 599 and `headers.get`), else a TypeError naming fetch; or a failure. */
  attempted(ok, value) {
    if (!ok) {
      const error = this.callSignal.aborted ? ABORT : this.timedOut ? TIMEOUT : CONNECT;
      return { response: undefined, value, status: NaN, error };
    }
    const [status, retryAfter, pushback] = readResponse(value, FetchCall.maxText());
    return { response: value, value, status, error: 3, retryAfter, pushback };
  }
}

function readResponse(v, maxText) {
  let status, headers, getHeader;
  try {
    status = isObject(v) ? v.status : undefined;
  } catch (e) {
    throw threwError("response.", "status", e);
  }
  try {
    headers = isObject(v) ? v.headers : undefined;
    getHeader = isObject(headers) ? headers.get : undefined;
  } catch (e) {
    throw threwError("response.", "headers", e);
  }
  // 0 is an opaque (no-cors) answer; any other status an HTTP response can carry is 100-599.
  const valid = status === 0 || (Number.isInteger(status) && status >= 100 && status <= 599);
  if (!valid || typeof getHeader !== "function") {
    throw typeError("", "fetch", "a Promise of a Response (a status of 0 or 100 to 599, and headers.get)", v);
  }
  const hint = (name) => {
    const h = call(getHeader, headers, [name], "response.headers.", "get");
    return typeof h === "string" && h.length <= maxText ? h : undefined;
  };
  return [status, hint("retry-after"), hint("grpc-retry-pushback-ms")];
}

const ignore = () => {};

/** Throws away a response body that will not be read, so its connection can be reused. */
function discardBody(a) {
  if (!a || a.response === undefined) return;
  try {
    const body = isObject(a.response) ? a.response.body : undefined;
    const done = isObject(body) && typeof body.cancel === "function" ? body.cancel() : undefined;
    // A rejected cancel must not surface as an unhandled rejection.
    if (isObject(done) && typeof done.then === "function") done.then(undefined, ignore);
  } catch {}
}

/** The `onAttempt` record of attempt `a`. */
function attemptInfo(a, r) {
  const info = { number: r.number, startedMs: r.startedMs };
  if (a.error !== 3) info.error = transportName(a.error);
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
function finish(fc, a, attempts) {
  if (a.response !== undefined) return a.response;
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
    // As the full entry: every option is read before the URL is judged.
    const badUrl = urlError(input);
    if (badUrl) throw badUrl;
    req = new Outgoing(input, init, signal);
    const method = req.method();
    if (method && !fc.setMethod(text(method[0], method[1], "method"), method[1] === "input.")) throw fail();
    const refused = req.clone ? undefined : initError(input, req.init);
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
  for (;;) {
    req.check();
    const number = fc.number();
    const startedMs = Date.now();
    const sent = req.send(opt(fc.timeout(now())));
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
    const deadline = fc.deadline;
    const cut = await reported(report(onAttempt, attempts, info, req.signal, deadline), a, req);
    if (d !== RETRY) return finish(fc, a, attempts);
    // A slow onAttempt may have taken the time the retry had: one that would start past
    // the deadline now stops there, as the decision would have (see src/fetch.rs).
    if (fc.mayStart(cut ? Math.max(now(), deadline) : now()) !== RETRY) return finish(fc, a, attempts);
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
    const sent = req.send(timeout);
    const index = launched++;
    const tagged = sent.settled.then(
      (value) => ({ index, ok: true, value }),
      (value) => ({ index, ok: false, value }),
    );
    flights.push({ index, startedMs, sent, tagged, deadlineBound });
  };
  try {
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
          if (last) return finish(fc, last, attempts);
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
        won: step === SUCCESS,
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
        await reported(cancelLosers(flights, attempts, onAttempt, req.signal, fc.deadline), a, req);
        return finish(fc, a, attempts);
      } else keep(a);
    }
  } finally {
    // No attempt outlives its call.
    for (const f of flights) {
      f.sent.abort();
      f.sent.close();
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
