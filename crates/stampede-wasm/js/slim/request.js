// The slim entry's outgoing request and its attempts, for retryFetch's driver (retry.js): the
// caller's signals (any AbortSignal-like object), the call's own controller they abort, what
// each attempt sends (the caller's `init` copied once, a Request cloned per attempt), an
// attempt on its way with its own controller and timeout, and reading what it left. The
// caller's code (getters, Proxy traps, signals, fetch) is reached only inside `try`, so that
// whatever it throws becomes a TypeError naming it (see retry.js).

import { FetchCall } from "./wasm.js";
import { onceBody, timeoutError, typeError, usedBody } from "../errors.js";
import { cloneOf, failureKind, fixedBody, fixedHeaders, follow, join, markDepth, mistake } from "../fetch-env.js";
import { get, threwError } from "./options.js";
import { cutHint } from "../headers.js";

/** The transport errors, by the codes FetchCall takes (src/call.rs): 1 is the attempt's own
 *  timer, 5 a timeout the network reported (only the first can be the deadline's); NONE
 *  for an attempt that got a response. */
const TIMEOUT = 1;
export const ABORT = 2;
export const NONE = 7;
/** The codes of failureKind's transport errors (timeout, connect, reset, dns). */
const FAILURES = [5, 0, 3, 4];

export const isObject = (v) => v !== null && (typeof v === "object" || typeof v === "function");
const isPlainObject = (v) => v !== null && typeof v === "object";

const getIfObject = (v, prefix, key) => (isObject(v) ? get(v, prefix, key) : undefined);

/** Calls the caller's `f` with `this` and `args`: an exception names `{prefix}{name}`. */
export function call(f, self, args, prefix, name) {
  try {
    return Reflect.apply(f, self, args);
  } catch (e) {
    throw threwError(prefix, name, e);
  }
}

/** One of the caller's signals (`signal`, `init.signal`, a Request's `signal`): an
 *  AbortSignal, or an object with `aborted` and `addEventListener`. */
export class Signal {
  static of(v, field, prefix) {
    if (v === undefined || v === null) return undefined;
    let like, has;
    try {
      // `instanceof` asks a Proxy for its prototype, which a revoked one throws for.
      like = typeof AbortSignal === "function" && v instanceof AbortSignal;
      has = !like && isPlainObject(v) && Reflect.has(v, "aborted");
    } catch (e) {
      throw threwError(prefix, "aborted", e);
    }
    if (has) like = typeof get(v, prefix, "addEventListener") === "function";
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

/** A real AbortSignal's shared link to `ctrl` (fetch-env.js, join): what unlinks it, or
 *  undefined for a signal-like, or one whose addEventListener throws (a Proxy of one), which
 *  then take the per-call listener that names what threw. */
function joined(s, ctrl) {
  try {
    if (typeof AbortSignal === "function" && s.target instanceof AbortSignal) return join(s.target, ctrl);
  } catch {}
  return undefined;
}

/** `f` on `signal`'s abort (one of our own signals); returns what removes it. */
export function onAbort(signal, f) {
  signal.addEventListener("abort", f);
  return () => signal.removeEventListener("abort", f);
}

/** What every attempt sends, and the call's own controller, which any of the caller's
 *  signals aborts with its reason. */
export class Outgoing {
  constructor(input, init, signal) {
    this.input = input;
    this.init = copyInit(init);
    const initSignal = Signal.of(get(this.init, "init.", "signal"), "init.signal", "init.signal.");
    const [clone, inputSignal] = requestParts(input);
    // A Request is copied once, here, and each attempt clones the copy: headers the caller
    // sets on its Request since reach no retry.
    this.source = clone ? call(clone, input, [], "input.", "clone") : input;
    if (clone) {
      try {
        this.clone = cloneOf(this.source, clone);
      } catch (e) {
        throw threwError("input.clone().", "clone", e);
      }
    }
    this.ctrl = new AbortController();
    this.unlink = [];
    this.given = [signal, initSignal, inputSignal].filter(Boolean);
    try {
      for (const s of this.given) {
        if (s.aborted()) {
          this.ctrl.abort(s.reason());
          break;
        }
        this.unlink.push(joined(s, this.ctrl) ?? s.onAbort(() => this.ctrl.abort(s.reason())));
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

  /** The call resolves with attempt `a`'s Response: the caller's signals keep aborting its
   *  body while it is read, as fetch's own does (see fetch-env.js). */
  follow(a) {
    if (this.given.length) follow(a.response, this.given.map((s) => s.target), a.ctrl);
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
  send(timeoutMs, fc) {
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
        ctrl.abort(timeoutError());
      }, timeoutMs);
      sent.guards.push(() => clearTimeout(id));
    }
    sent.guards.push(onAbort(ctrl.signal, () => reject(ctrl.signal.reason)));
    markDepth(ctrl.signal, fc.depth + 1);
    // Whatever of the caller's code throws from here on ends the call: the timer and the
    // listeners go with it.
    try {
      this.init.signal = ctrl.signal;
      const input = this.clone ? call(this.clone, this.source, [], "input.", "clone") : this.source;
      let promise;
      // A retryFetch the caller's fetch makes in turn is one level below this call.
      const outer = fc.fetchEnter();
      try {
        promise = fetch(input, this.init);
      } catch (e) {
        throw threwError("", "fetch", e);
      } finally {
        FetchCall.fetchLeave(outer);
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
    throw onceBody("a ReadableStream");
  }
  // Node's fetch also sends an async iterable (a generator, a stream.Readable): once too.
  let iterate;
  try {
    iterate = isObject(body) ? body[Symbol.asyncIterator] : undefined;
  } catch (e) {
    throw threwError("init.body.", "[Symbol.asyncIterator]", e);
  }
  if (typeof iterate === "function") {
    throw onceBody("an async iterable (a generator or a Node stream)");
  }
  try {
    fixedBody(copy);
  } catch {
    // A buffer detached since it was made: it can be neither copied nor sent.
    throw typeError("init.", "body", "bytes that are not detached", body);
  }
  try {
    fixedHeaders(copy);
  } catch (e) {
    throw threwError("init.", "headers", e);
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
    throw usedBody();
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
      // This package's own settings error (a retryFetch that fetch called in turn, refused
      // at a bound): the caller's mistake, which no retry mends.
      if (!this.callSignal.aborted && mistake(value)) throw value;
      const error = this.callSignal.aborted ? ABORT : this.timedOut ? TIMEOUT : FAILURES[failureKind(value)];
      return { response: undefined, value, status: NaN, error };
    }
    const [status, retryAfter, pushback] = readResponse(value, FetchCall.maxText());
    return { response: value, value, status, error: NONE, retryAfter, pushback, ctrl: this.ctrl };
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
    return typeof h === "string" ? cutHint(h, maxText) : undefined;
  };
  return [status, hint("retry-after"), hint("grpc-retry-pushback-ms")];
}

const ignore = () => {};

/** Throws away a response body that will not be read, so its connection can be reused. */
export function discardBody(a) {
  if (!a || a.response === undefined) return;
  try {
    const body = isObject(a.response) ? a.response.body : undefined;
    const done = isObject(body) && typeof body.cancel === "function" ? body.cancel() : undefined;
    // A rejected cancel must not surface as an unhandled rejection.
    if (isObject(done) && typeof done.then === "function") done.then(undefined, ignore);
  } catch {}
}
