// The errors retryFetch rejects with, as real classes: `err instanceof RetryError`.
// The full entry: wasm-bindgen copies this file into the package (snippets/…), and
// scripts/finish-pkg.mjs re-exports the classes from stampede.js. The slim entry's JavaScript
// (js/slim/) imports it, and finish-pkg.mjs bundles it into stampede_fetch.js.

/** retryFetch gave up on a transport failure (or a timeout): `attempts` is the attempt
 *  log, `reason` the core policy's reason, `cause` the last attempt's error. */
export class RetryError extends Error {
  constructor(message, reason, attempts, cause) {
    super(message, { cause });
    this.name = "RetryError";
    this.reason = reason;
    this.attempts = attempts;
  }
}

/** A budget (of any kind) refused the call: nothing was sent. */
export class BudgetExhaustedError extends Error {
  constructor(message, callSite, retryInMs, tokens) {
    super(message);
    this.name = "BudgetExhaustedError";
    this.callSite = callSite;
    this.retryInMs = retryInMs;
    this.tokens = tokens;
  }
}

/** The call site's circuit breaker is open: the call (or its next retry) was not sent.
 *  `attempts` is the attempt log (empty when nothing was sent), `cause` the last attempt's
 *  error when one was made. */
export class CircuitOpenError extends Error {
  constructor(message, callSite, reason, retryInMs, attempts, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "CircuitOpenError";
    this.callSite = callSite;
    this.reason = reason;
    this.retryInMs = retryInMs;
    this.attempts = attempts;
  }
}

/** The call site's adaptive throttle rejected the call (or its next retry) locally:
 *  nothing more was sent. Same shape as CircuitOpenError, with the rejection's
 *  `probability`. */
export class ThrottledError extends Error {
  constructor(message, callSite, reason, probability, attempts, cause) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "ThrottledError";
    this.callSite = callSite;
    this.reason = reason;
    this.probability = probability;
    this.attempts = attempts;
  }
}

export function retryError(reason, attempts, cause) {
  return new RetryError(`retryFetch gave up: ${reason}`, reason, attempts, cause);
}

/** The message of a blocked call: the call site's name first, when it has one. */
const blocked = (callSite, reason) => (callSite == null ? reason : `${callSite}: ${reason}`);

export function budgetExhaustedError(callSite, reason, retryInMs, tokens) {
  return new BudgetExhaustedError(blocked(callSite, reason), callSite, retryInMs, tokens);
}

/** kind 0: CircuitOpenError (`value` is retryInMs), 1: ThrottledError (`value` is the
 *  probability). `cause` is undefined when no attempt was made. */
export function blockedError(kind, callSite, reason, value, attempts, cause) {
  const C = kind === 0 ? CircuitOpenError : ThrottledError;
  return new C(blocked(callSite, reason), callSite, reason, value, attempts, cause);
}

// Settings errors: a RangeError (bad value) or TypeError (wrong type) whose message keeps
// the one-line form `budget.capacity: expected …, got …` and which carries the contract's
// own, enumerable properties: field, code, and where they apply min, max, unit, allowed,
// got (and minExclusive: true where min itself is refused). The wasm passes the core's data (names and numbers) and formats nothing; the
// phrases below are the core's `Expected` Display, written once more in JavaScript.

/** A value for a message: strings quoted (cut to 40 characters), numbers as JavaScript
 *  writes them, anything else by its typeof. */
function describe(v) {
  if (typeof v === "string") return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  if (typeof v === "number") return String(v);
  if (isArray(v)) return "an array";
  const name = packageClass(v);
  if (name !== undefined) return `a ${name}`;
  return v === null ? "null" : typeof v;
}

/** `Array.isArray(v)`, false where it throws (a revoked Proxy): for messages only. */
function isArray(v) {
  try {
    return Array.isArray(v);
  } catch {
    return false;
  }
}

/** The package's objects (a RetryPolicy, a Budget, a Simulation) by their class's name, as
 *  each entry registers them when it makes one (js/slim/api.js; the full entry's glue, by
 *  scripts/finish-pkg.mjs): none is an options object. By registration rather than by
 *  `constructor.name`, which a minifier renames (a bundled app's RetryPolicy was "e"). */
export const packageObjects = new WeakMap();

/** The name of the package's class `v` is an instance of, if it is one. */
function packageClass(v) {
  return packageObjects.get(v);
}

/** Whether the options object `v` (`what` in an error) is an array, which no options object
 *  is: what a revoked Proxy throws for the question becomes a TypeError naming `what`. An
 *  instance of the package's classes (`policy: new RetryPolicy(…)`) is a TypeError naming
 *  `what` too: its getters show a few of its settings, so it was read as an options object
 *  with the rest left at their defaults (a walk-through found `baseMs` silently 200). */
export function arrayOptions(v, what) {
  if (packageClass(v) !== undefined) throw typeError("", what, "a plain options object", v);
  try {
    return Array.isArray(v);
  } catch (err) {
    throw threwError("", what, err);
  }
}

/** The offending value, when it is a primitive (objects are not copied onto errors). */
function primitive(v) {
  return v === null || (typeof v !== "object" && typeof v !== "function");
}

function settings(error, info, got) {
  for (const [k, v] of Object.entries(info)) if (v !== undefined) error[k] = v;
  if (primitive(got) && got !== undefined) error.got = got;
  return error;
}

/** The TypeError of the caller's code throwing `thrown` at `{prefix}{name}` (a getter, a
 *  Proxy trap, a callback): its message quotes the thrown message, its cause is `thrown`. */
export function threwError(prefix, name, thrown) {
  let m;
  try {
    m = thrown !== null && typeof thrown === "object" ? thrown.message : thrown;
  } catch {}
  const quoted = typeof m === "string" && m !== "" ? `: ${m.length > 200 ? `${m.slice(0, 200)}…` : m}` : "";
  const error = new TypeError(`${prefix}${name}: threw an exception${quoted}`, { cause: thrown });
  // Named as a settings error is (no code: the value is the caller's code's to give).
  error.field = prefix + name;
  return error;
}

export function typeError(prefix, field, expected, value) {
  const error = new TypeError(`${prefix}${field}: expected ${expected}, got ${describe(value)}`);
  return settings(error, { field: prefix + field, code: "wrong_type" }, value);
}

/** The TypeError for an `init.body` that can be sent only once (`what`: "a ReadableStream"),
 *  named as every settings error is (`field` "init.body", `code` "wrong_type"). */
export function onceBody(what) {
  const error = new TypeError(
    `init.body: ${what} can be sent only once, so retryFetch cannot retry it; pass a string, Blob, ArrayBuffer, FormData or URLSearchParams, or call fetch`,
  );
  return settings(error, { field: "init.body", code: "wrong_type" });
}

/** The TypeError for a Request input whose body was already read (`field` "input", `code`
 *  "wrong_type"): fetch would refuse it at every attempt. */
export function usedBody() {
  const error = new TypeError("input: the Request's body was already used, so it cannot be sent; pass a fresh Request");
  return settings(error, { field: "input", code: "wrong_type" });
}

/** What an attempt cut off by its timeout (attemptTimeoutMs, deadlineMs) is aborted with, as
 *  AbortSignal.timeout's signal is: fetch rejects with it, and a RetryError keeps it as its
 *  cause. */
export function timeoutError() {
  return new DOMException("The attempt timed out", "TimeoutError");
}

/** A RangeError without a core range (`nowMs`, `tMs`: a finite number). */
export function rangeError(prefix, field, expected, got) {
  const code = typeof got === "number" && Number.isNaN(got) ? "not_a_number" : "out_of_range";
  const error = new RangeError(`${prefix}${field}: expected ${expected}, got ${describe(got)}`);
  return settings(error, { field: prefix + field, code }, got);
}

/** The RangeError (`code: "not_read"`) of a budget field its kind does not read:
 *  `budget.minPerSec: expected none with kind "bucket" (kind "ratio" reads it), got 1`.
 *  `owners`: the kinds that read it, comma-separated. */
export function notRead(prefix, field, kind, owners, got) {
  const who = owners.split(",").map((k) => `"${k}"`).join(" or ");
  const error = new RangeError(`${prefix}${field}: expected none with kind "${kind}" (kind ${who} reads it), got ${describe(got)}`);
  return settings(error, { field: prefix + field, code: "not_read" }, got);
}

const SUFFIX = { ms: " ms", per_second: " per second", chars: " characters" };

/** The phrase after "expected", by the shape of the core's `Expected` (errors.rs `Shape`). */
function expected(shape, min, max, unit, whole, allowed, detail) {
  const u = SUFFIX[unit] ?? "";
  switch (shape) {
    case 0: // Range
      if (unit === "ms") return `a duration from ${min} ms to ${max} ms`;
      if (unit === "per_second") return `a rate from ${min} to ${max} per second`;
      if (unit === "fraction") return `a fraction from ${min} to ${max}`;
      if (unit === "chars") return `from ${min} to ${max} characters`;
      return `a ${whole ? "whole " : ""}number from ${min} to ${max}`;
    case 1: // Above
      return `more than ${min}${u} and at most ${max}${u}`;
    case 2: // AtLeastField: detail is the other field's name
      return `${unit === "ms" ? "a duration " : ""}at least ${detail} (${min}${u}) and at most ${max}${u}`;
    case 3: // OneOf
      return `one of ${allowed.join(", ")}`;
    case 4: // Syntax: detail describes it
      return detail;
    case 5: // AtMostChars
      return `at most ${max} characters`;
    case 6: // Work (WorkAtLeast: a min, no max): detail says what the bound counts, and why
      return Number.isNaN(max) ? `at least ${min} ${detail}` : `at most ${max} ${detail}`;
    default: // RegistryFull
      return `one of at most ${max} call sites per registry (name a place in the code, not a URL)`;
  }
}

/** The page (or worker) a relative URL resolves against, where there is one. */
function baseUrl() {
  try {
    return typeof location === "object" && location !== null ? String(location.href) : undefined;
  } catch {
    return undefined; // a runtime whose location throws when unset (Deno without --location)
  }
}

/** The schemes fetch can fetch: any other fails the same way on every attempt. */
const FETCHABLE = new Set(["http:", "https:", "data:", "blob:", "file:"]);

/** The Fetch standard's bad ports (https://fetch.spec.whatwg.org/#port-blocking): fetch
 *  refuses an http(s) URL on one of them before anything is sent, on every attempt. */
const BAD_PORTS = new Set(
  "0 1 7 9 11 13 15 17 19 20 21 22 23 25 37 42 43 53 69 77 79 87 95 101 102 103 104 109 110 111 113 115 117 119 123 135 137 139 143 161 179 389 427 465 512 513 514 515 526 530 531 532 540 548 554 556 563 587 601 636 989 990 993 995 1719 1720 1723 2049 3659 4045 4190 5060 5061 6000 6566 6665 6666 6667 6668 6669 6679 6697 10080".split(" "),
);

/** The error for an `input` fetch would refuse whatever the network does, so that retrying it
 *  like a refused connection would only spend the attempts; undefined when it may be fetched.
 *  - Not a string, a URL, a Request, or an object whose string is a URL (`undefined`, `null`,
 *    a number, a Symbol): a TypeError, code wrong_type.
 *  - A URL no parser reads (relative to the page where there is one), a scheme fetch does not
 *    fetch (`ftp:`, `javascript:`), a bad port (`:6000`, `:25`), or credentials in it
 *    (`user:pass@`, which a Request refuses): a RangeError, code bad_syntax. */
export function urlError(input) {
  let href;
  if (typeof input === "string") href = input;
  else if (input === null || (typeof input !== "object" && typeof input !== "function")) {
    return typeError("", "input", "a URL (a string or a URL) or a Request", input);
  } else {
    // A Request (something with a `clone`) by its own URL, when it says one; anything else
    // (a URL) as fetch reads it: as a string.
    const read = (what, f) => {
      try {
        return { value: f() };
      } catch (e) {
        return { error: threwError("", what, e) };
      }
    };
    const clone = read("input.clone", () => input.clone);
    if (clone.error) return clone.error;
    if (typeof clone.value === "function") {
      const url = read("input.url", () => input.url);
      if (url.error) return url.error;
      if (typeof url.value !== "string") return undefined;
      href = url.value;
    } else {
      const text = read("input", () => String(input));
      if (text.error) return text.error;
      href = text.value;
    }
  }
  const base = baseUrl();
  let url;
  try {
    url = new URL(href, base);
  } catch {
    // One with a scheme is no relative URL: it is broken (a port past 65535, no host).
    const absolute = /^\s*[a-z][a-z\d+.-]*:/i.test(href);
    const what = absolute ? "a valid URL" : base === undefined ? "an absolute URL (there is no page to resolve a relative one against)" : "a URL";
    return settings(new RangeError(`input: expected ${what}, got ${describe(href)}`), { field: "input", code: "bad_syntax" }, input);
  }
  if (!FETCHABLE.has(url.protocol)) {
    return settings(new RangeError(`input: expected an http or https URL (or data, blob, file), got ${describe(href)}`), { field: "input", code: "bad_syntax" }, input);
  }
  if ((url.protocol === "http:" || url.protocol === "https:") && BAD_PORTS.has(url.port)) {
    return settings(new RangeError(`input: fetch refuses port ${url.port} (one of the Fetch standard's bad ports), got ${describe(href)}`), { field: "input", code: "bad_syntax" }, input);
  }
  if (url.username !== "" || url.password !== "") {
    return settings(new RangeError(`input: a URL with credentials (user:pass@) cannot be fetched: send them in an Authorization header, got ${describe(href)}`), { field: "input", code: "bad_syntax" }, input);
  }
  return undefined;
}

/** What fetch refuses in `init` whatever the network does (a header name or value HTTP
 *  cannot carry, a body on GET or HEAD, an unknown mode or redirect), asked of the
 *  environment's own `Request`: fetch rejects it with the TypeError of a refused
 *  connection, so it used to be retried as one. A RangeError naming `init` (or `input`,
 *  when fetch refuses the input alone; code bad_syntax, the refusal as its cause);
 *  undefined when fetch takes it, or where there is no `Request`. For a URL input and for
 *  a Request (asked of its copy, made by `Request.prototype.clone`, not by a `clone` the
 *  caller put on it: a Request built from it would take its body); not for an object of
 *  the caller's with a `clone` (`cloned`), which is sent as its clone makes it. */
export function initError(input, init, cloned) {
  if (typeof Request !== "function") return undefined;
  // Refused without the init too, it is the input's fault: an object with a `clone` but no
  // `bodyUsed` is no Request, and fetch reads it as the text "[object Object]".
  let field = "input";
  try {
    const real = input instanceof Request;
    // A used body is refused later, naming the input, as without an init.
    if ((cloned && !real) || (real && input.bodyUsed)) return undefined;
    if (!real) new Request(input);
    field = "init";
    // Without the caller's signal: a Request would listen to it, and a browser refuses the
    // signal-like objects retryFetch takes (it follows them itself). A Request's copy: the
    // Request built from it takes its body.
    new Request(real ? Request.prototype.clone.call(input) : input, { ...init, signal: null });
  } catch (e) {
    if (!(e instanceof TypeError)) return threwError("", field, e);
    return settings(new RangeError(`${field}: fetch refuses this request: ${e.message}`, { cause: e }), { field, code: "bad_syntax" });
  }
}

/** The RangeError (`bad_syntax`) of text with an unpaired surrogate, which is no Unicode:
 *  copied into wasm it would become U+FFFD, and "a\ud800" name the call site "a\ufffd"
 *  does. Both entries refuse it in these words. */
export function unpairedError(prefix, field, got) {
  return settingsError(prefix, field, "bad_syntax", got, 4, NaN, NaN, "", false, undefined, "Unicode text (no unpaired surrogate: \\ud800-\\udfff alone)");
}

/** The RangeError of a core settings error. `min`/`max` are NaN where they do not apply,
 *  `unit` is "" for a plain number, `allowed` an array for a list of names. */
export function settingsError(prefix, field, code, got, shape, min, max, unit, whole, allowed, detail) {
  const range = (n) => (Number.isNaN(n) ? undefined : n);
  const text = expected(shape, min, max, unit, whole, allowed, detail);
  const shown = code === "too_long" ? `a string of ${got.length} characters` : describe(got);
  const error = new RangeError(`${prefix}${field}: expected ${text}, got ${shown}`);
  const info = { field: prefix + field, code, min: range(min), max: range(max), unit: unit || undefined, allowed };
  if (shape === 1) info.minExclusive = true; // Above: min itself is refused
  return settings(error, info, got);
}

/** Gives each class its own name back. The names are part of the API
 *  (`err.constructor.name`, stack traces, `util.inspect`), and the slim entry's minifier
 *  renames its classes. */
export function keepNames(classes) {
  for (const [c, name] of classes) Object.defineProperty(c, "name", { value: name });
}

keepNames([
  [RetryError, "RetryError"],
  [BudgetExhaustedError, "BudgetExhaustedError"],
  [CircuitOpenError, "CircuitOpenError"],
  [ThrottledError, "ThrottledError"],
]);
