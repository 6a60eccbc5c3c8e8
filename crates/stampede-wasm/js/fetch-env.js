// What retryFetch asks of its environment beyond `fetch` itself, shared by both entries (the
// full one's src/fetch/, the slim one's js/slim/): the caller's signals kept on the body of
// the Response a call resolves with, and what a rejected `fetch` says about why it failed.

import { threwError } from "./errors.js";

/** Drops a resolved call's links once its Response is collected. */
const unlinks = typeof FinalizationRegistry === "function" ? new FinalizationRegistry((off) => off()) : undefined;

/** A weak reference where the engine has them (a strong one where not). */
const refer = typeof WeakRef === "function" ? (o) => new WeakRef(o) : (o) => ({ deref: () => o });

/** Each followed Response's attempt controller, alive as long as the Response. */
const held = new WeakMap();

/** Each caller's signal's link: its one listener, and the controllers it aborts. */
const links = new WeakMap();

/** Keeps `response`'s body abortable by the caller's signals once the call has resolved, as
 *  fetch's own signal aborts a body being read: each of `signals` (the caller's, real or
 *  signal-like) aborts `ctrl` (the controller of the attempt that answered, whose signal its
 *  fetch follows) with its reason. A signal carries one listener for all the resolved
 *  calls it follows, however many (one each set off Node's leak warning past ten calls on a
 *  shared signal), and none once their bodies are collected or it fires. (Calls still
 *  running on a real AbortSignal share the same listener: `join`.) (AbortSignal.any
 *  would link them natively, but Node's keeps an entry on a long-lived source for every call:
 *  nodejs/node#55351, #64476.) Never throws: the call has resolved. */
export function follow(response, signals, ctrl) {
  const drops = [];
  for (const s of signals) {
    try {
      drops.push(join(s, ctrl));
    } catch {}
  }
  // Kept as long as the body (a reader of it may outlive the Response object), else the
  // Response (no body: HEAD, 204).
  let owner = response;
  try {
    owner = response.body ?? response;
  } catch {}
  try {
    if (drops.length) held.set(owner, ctrl);
    if (drops.length && unlinks) unlinks.register(owner, () => drops.forEach((drop) => drop()));
  } catch {}
}

/** Aborts `ctrl` with `signal`'s reason when it aborts, through the one listener the signal
 *  carries for every call it follows: a hundred calls in flight on a server's shutdown signal
 *  add one listener, not a hundred (Node warns past ten, as it would not for fetch). `ctrl`
 *  is held weakly: a running call holds its own, a resolved one's is kept by its body
 *  (`follow`). Returns what unlinks it; throws what `addEventListener` throws, linking
 *  nothing. (A running call on a signal-like keeps a listener of its own, read through the
 *  signal's own methods: js/slim/request.js, src/fetch/abort.rs.) */
export function join(signal, ctrl) {
  const ref = refer(ctrl);
  const link = links.get(signal);
  if (link) link.refs.add(ref);
  const joined = link ?? linkTo(signal, ref);
  return () => joined.drop(ref);
}

/** `s`'s link, holding `ref`: a listener that aborts every controller it holds, removed
 *  once it fires or holds none. `ref` is in it before the listener is added, so a
 *  signal-like that calls its listener at once (already aborted) aborts it too. Throws what
 *  `addEventListener` throws (then nothing is linked). */
function linkTo(s, ref) {
  const refs = new Set([ref]);
  const onAbort = () => {
    let reason;
    try {
      reason = s.reason;
    } catch (e) {
      reason = e;
    }
    for (const r of [...refs]) r.deref()?.abort(reason);
    close();
  };
  const close = () => {
    refs.clear();
    if (links.get(s) === link) links.delete(s);
    try {
      s.removeEventListener("abort", onAbort);
    } catch {}
  };
  const link = {
    refs,
    drop(ref) {
      if (refs.delete(ref) && refs.size === 0) close();
    },
  };
  links.set(s, link);
  try {
    s.addEventListener("abort", onAbort);
  } catch (e) {
    close();
    throw e;
  }
  return link;
}

/** The transport errors by their place in the core's `TransportError::ALL`. */
const TIMEOUT = 0;
const CONNECT = 1;
const RESET = 2;
const DNS = 3;

/** The system errors Node's fetch (undici) puts on a failure's `cause`, by the transport
 *  error they are. Anything else (and every failure in a browser, which says nothing but
 *  `TypeError`) is read as a refused connection, `connect`. `EAI_AGAIN` is the resolver's
 *  "try again" (a DNS server that timed out): retried as a connection that failed, where a
 *  name that does not exist is `dns`, not retried by default. */
const CODES = {
  ENOTFOUND: DNS,
  EAI_NONAME: DNS,
  EAI_NODATA: DNS,
  EAI_FAIL: DNS,
  EAI_AGAIN: CONNECT,
  ECONNRESET: RESET,
  EPIPE: RESET,
  ECONNABORTED: RESET,
  UND_ERR_SOCKET: RESET,
  UND_ERR_CLOSED: RESET,
  ETIMEDOUT: TIMEOUT,
  UND_ERR_CONNECT_TIMEOUT: TIMEOUT,
  UND_ERR_HEADERS_TIMEOUT: TIMEOUT,
};

/** The depth a retryFetch made with one of this package's attempt signals is at: each
 *  attempt's own signal, marked with its call's depth + 1 as it is sent. A fetch that calls
 *  retryFetch in turn passes the signal it was given (`init.signal`), even after an `await`,
 *  when the depth its fetch runs at is long gone. */
const DEPTHS = new WeakMap();
export function markDepth(signal, depth) {
  DEPTHS.set(signal, depth);
}
/** The deepest of `signals` (the caller's: options, init, a Request's; any may be undefined
 *  or the caller's own object), 0 for none of ours. Never throws. */
export function depthOf(...signals) {
  let d = 0;
  for (const s of signals) {
    try {
      d = Math.max(d, DEPTHS.get(s) ?? 0);
    } catch {}
  }
  return d;
}

/** The codes of this package's settings errors (stampede.d.ts, SettingsErrorCode). */
const OURS = ["out_of_range", "not_a_number", "not_whole", "wrong_type", "unknown_value", "too_long", "bad_syntax", "too_much_work", "not_read"];

/** Whether `e`, a rejection of `fetch`, is this package's own settings error: a retryFetch that
 *  the caller's fetch called in turn, refused (at the bound on nesting, say). Retrying that
 *  is retrying the caller's mistake: each level of a fetch that calls retryFetch retried the
 *  level below's refusal, multiplying the work past any end. Never throws. */
export function mistake(e) {
  try {
    return (e instanceof RangeError || e instanceof TypeError) && typeof e.field === "string" && OURS.includes(e.code);
  } catch {
    return false;
  }
}

/** Puts a copy of `init.body` in its place when it is bytes (an ArrayBuffer, a typed array, a
 *  DataView), a URLSearchParams or a FormData, as fetch reads such a body when it is called:
 *  every attempt then sends what the call was given, not what the caller wrote into it since
 *  (a retry sent "bbbb" for a call made with "aaaa", and v=2 for a form sent with v=1), nor
 *  fails on a buffer detached since. A detached one throws here. */
export function fixedBody(init) {
  const b = init.body;
  const tag = Object.prototype.toString.call(b);
  if (tag === "[object ArrayBuffer]" || tag === "[object SharedArrayBuffer]") init.body = b.slice(0);
  else if (ArrayBuffer.isView(b)) init.body = new Uint8Array(b.buffer, b.byteOffset, b.byteLength).slice();
  else if (tag === "[object URLSearchParams]" && typeof URLSearchParams === "function") init.body = new URLSearchParams(b);
  else if (tag === "[object FormData]" && typeof FormData === "function") {
    const copy = new FormData();
    b.forEach((value, name) => copy.append(name, value));
    init.body = copy;
  }
}

/** Puts a copy of `init.headers` in its place, of the same shape (a Headers, pairs, a
 *  record), as fetch reads them when it is called: every attempt then sends the headers the
 *  call was given, not what the caller set on them since (a retry carried another
 *  Authorization or idempotency key). Throws what the caller's getters or iterator throw. */
export function fixedHeaders(init) {
  const h = init.headers;
  if (h === null || typeof h !== "object") return;
  if (typeof Headers === "function" && h instanceof Headers) init.headers = new Headers(h);
  else if (typeof h[Symbol.iterator] === "function") init.headers = Array.from(h, (pair) => (pair !== null && typeof pair === "object" ? Array.from(pair) : pair));
  else init.headers = Object.assign({}, h);
}

/** The input as fetch reads it, once, when the call is made: anything but a string or a
 *  Request (a `clone` method and a boolean `bodyUsed`, as retryFetch tells one everywhere)
 *  becomes its text, as fetch makes it, so that every attempt goes where the call was sent: a
 *  URL changed since (`url.searchParams.set(…)` in a loop) sent retries, and a resolved call's
 *  answer, to another resource. What the caller's getters or `toString` throw becomes a
 *  TypeError naming it. */
export function fixedInput(input) {
  if (input === null || (typeof input !== "object" && typeof input !== "function")) return input;
  let clone, used;
  try {
    clone = input.clone;
  } catch (e) {
    throw threwError("input.", "clone", e);
  }
  try {
    used = input.bodyUsed;
  } catch (e) {
    throw threwError("input.", "bodyUsed", e);
  }
  if (typeof used === "boolean" && typeof clone === "function") return input;
  try {
    return String(input);
  } catch (e) {
    throw threwError("", "input", e);
  }
}

/** What clones a Request's copy for each attempt: the copy's own `clone` (a wrapper whose
 *  `clone` returns a real Request made a copy that its own `clone` cannot clone), else the
 *  one that made it. Throws what a getter on the copy throws. */
export function cloneOf(copy, made) {
  const own = copy !== null && (typeof copy === "object" || typeof copy === "function") ? copy.clone : undefined;
  return typeof own === "function" ? own : made;
}

/** The transport error a rejected `fetch` stands for, by its place in the core's
 *  `TransportError::ALL` (0 timeout, 1 connect, 2 reset, 3 dns): the first known `code` on
 *  `e` or its `cause` chain (three deep), or a `TimeoutError` (a fetch wrapper's own
 *  timeout), else `connect`. Never throws (the error may be the caller's own `fetch`'s, with
 *  getters of its own). */
export function failureKind(e) {
  try {
    let c = e;
    for (let i = 0; i < 3 && c !== null && typeof c === "object"; i++) {
      const code = c.code;
      if (typeof code === "string" && Object.hasOwn(CODES, code)) return CODES[code];
      if (c.name === "TimeoutError") return TIMEOUT;
      c = c.cause;
    }
  } catch {}
  return CONNECT;
}
