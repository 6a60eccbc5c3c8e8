// The errors retryFetch rejects with, as real classes: `err instanceof RetryError`.
// wasm-bindgen copies this file into the package (snippets/…); scripts/finish-pkg.mjs
// re-exports both classes from stampede.js.

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

/** The call site's retry budget is spent: nothing was sent. */
export class BudgetExhaustedError extends Error {
  constructor(message, callSite, retryInMs, tokens) {
    super(message);
    this.name = "BudgetExhaustedError";
    this.callSite = callSite;
    this.retryInMs = retryInMs;
    this.tokens = tokens;
  }
}

export function retryError(reason, attempts, cause) {
  return new RetryError(`retryFetch gave up: ${reason}`, reason, attempts, cause);
}

export function budgetExhaustedError(callSite, reason, retryInMs, tokens) {
  return new BudgetExhaustedError(`${callSite}: ${reason}`, callSite, retryInMs, tokens);
}

// Messages for the settings errors, put together here rather than in wasm (see opts.rs).

/** A value for a message: strings quoted (cut to 40 characters), numbers as JavaScript
 *  writes them, anything else by its typeof. */
function describe(v) {
  if (typeof v === "string") return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  if (typeof v === "number") return String(v);
  return v === null ? "null" : typeof v;
}

export function typeError(prefix, field, expected, value) {
  return new TypeError(`${prefix}${field}: expected ${expected}, got ${describe(value)}`);
}

export function rangeError(prefix, field, expected, got) {
  return new RangeError(`${prefix}${field}: expected ${expected}, got ${got}`);
}

export function wholeError(prefix, field, min, max, got) {
  return rangeError(prefix, field, `a whole number from ${min} to ${max}`, got);
}

export function sampleError(maxN, maxAttempts, got) {
  return rangeError("", "n", `a whole number from 0 to ${maxN} (at most 10000000 delays in all: n × (maxAttempts − 1), and maxAttempts is ${maxAttempts})`, got);
}
