// The slim entry's RetryPolicy, classify, parseRetryAfter and Budget: their options read
// and staged here (options.js), the core's rules applied in wasm (src/slim/api.rs). The API,
// the values and the errors are the full entry's (stampede.d.ts).
import { Backoff, Site, classifyStaged, loaded, parseRetryAfter as parse } from "./wasm.js";
import { keepNames, packageObjects, typeError } from "../errors.js";
import { headerEntries } from "../headers.js";
import { BUDGET, CLASSIFY, HEADER, POLICY, commit, finite, get, hintText, now, ok, opt, read, table, text, threwError } from "./options.js";

/** Values drawn in wasm memory before they are copied out, by `sample`. */
const SAMPLE_CHUNK = 8192;

/** A validated policy and its own seeded generator: `delays()` for one client,
 *  `sample(n)` for histograms. */
export class RetryPolicy {
  #p;

  constructor(options) {
    loaded();
    const ops = [];
    read(options, "RetryPolicy options", "", POLICY, ops);
    commit(ops);
    this.#p = ok(Backoff.create());
    packageObjects.set(this, "RetryPolicy");
  }

  /** The `maxAttempts - 1` delays (ms) of one client's request; each call draws the next. */
  delays() {
    return this.#p.draw(1);
  }

  /** `n` sequences of `maxAttempts - 1` delays, flattened row by row; filled in chunks,
   *  so that wasm memory does not grow with `n`. */
  sample(n) {
    void this.#p.k; // a freed policy says so before any argument is checked, as the full entry does
    if (typeof n !== "number") throw typeError("", "n", "a number", n);
    const rows = ok(this.#p.rows(n));
    const per = this.#p.maxAttempts - 1;
    const out = new Float64Array(rows * per);
    const chunk = Math.max(1, Math.floor(SAMPLE_CHUNK / per));
    for (let row = 0; row < rows && per > 0; row += chunk) out.set(this.#p.draw(Math.min(chunk, rows - row)), row * per);
    return out;
  }

  get maxAttempts() {
    return this.#p.maxAttempts;
  }

  get strategy() {
    return this.#p.strategy;
  }

  free() {
    this.#p.free();
  }
}

/** `headers` (anything with `get(name)`, a Headers; else fetch's HeadersInit: an iterable of
 *  `[name, value]` pairs or a record): its Retry-After and grpc-retry-pushback-ms, into `ops`.
 *  What the caller's code throws names the field. */
function readHints(h, ops) {
  if (h === undefined || h === null) return;
  if (typeof h !== "object") throw typeError("", "headers", "an object or a Headers", h);
  const hints = table().filter((e) => e.at === CLASSIFY && e.kind === HEADER);
  const getter = get(h, "headers.", "get");
  // A Map has a get too, but its keys are case-sensitive and its values any type: it is
  // read as the [name, value] pairs it iterates, as fetch reads it.
  if (typeof getter === "function" && !(h instanceof Map)) {
    for (const e of hints) {
      let v;
      try {
        v = Reflect.apply(getter, h, [e.name]);
      } catch (err) {
        throw threwError("headers.", "get", err);
      }
      if (v !== undefined && v !== null) ops.push([e.slot, hintText(v, "headers.", e.name)]);
    }
    return;
  }
  const entries = headerEntries(h);
  const seen = new Set();
  for (const [name, value] of entries) {
    // Header names are ASCII, matched without regard to (ASCII) case.
    const lower = name.replace(/[A-Z]/g, (c) => c.toLowerCase());
    const e = hints.find((e) => e.name === lower);
    if (!e || seen.has(e)) continue;
    seen.add(e);
    ops.push([e.slot, typeof value === "number" ? String(value) : hintText(value, "headers.", name)]);
  }
}

/** `classify({ status, method, headers, nowMs, error, idempotent, maxRetryAfterMs, retryOn })`
 *  → `{ retryable, action, reason, retryAfterMs, ignoredHint? }`. */
export function classify(input) {
  loaded();
  const ops = [];
  const found = read(input, "classify input", "", CLASSIFY, ops);
  const status = found.status !== undefined;
  const error = found.error !== undefined;
  // The call's shape, not a value: a TypeError naming the second of the two.
  if (status && error) throw typeError("", "error", "no error when a status is given", found.error);
  if (!status && !error) throw typeError("", "status", "a status (100-599) or an error", undefined);
  if (status) readHints(get(input, "", "headers"), ops);
  commit(ops);
  const v = ok(classifyStaged(Date.now()));
  const verdict = { retryable: v.retryable, action: v.action, reason: v.reason, retryAfterMs: opt(v.retryAfterMs) };
  const ignored = v.ignoredHint;
  if (ignored !== undefined) verdict.ignoredHint = ignored;
  v.free();
  return verdict;
}

/** `parseRetryAfter(value, nowMs = Date.now())`: the delay in ms, or `undefined` when the
 *  value is neither delta-seconds nor an HTTP-date. */
export function parseRetryAfter(value, nowMs) {
  loaded();
  const v = hintText(value, "", "value");
  return opt(parse(v, finite(nowMs, "nowMs") ?? Date.now()));
}

const made = Symbol("Budget");

/** A handle on one call site's budget in the module's registry (`retryFetch`'s `callSite`
 *  names the same call site). */
export class Budget {
  #site;
  #name;

  constructor(key, site, name) {
    loaded();
    if (key !== made) throw new TypeError("Budget: use Budget.forCallSite(name, options)");
    this.#site = site;
    this.#name = name;
    packageObjects.set(this, "Budget");
  }

  /** `Budget.forCallSite(name, options?)`: with options, they become its budget's
   *  settings; without, the call site as it is (a new one: a bucket of 10 tokens, +1/s). */
  static forCallSite(name, options) {
    loaded();
    text(name, "", "name");
    const ops = [];
    read(options, "Budget options", "", BUDGET, ops);
    commit(ops);
    const given = options !== undefined && options !== null;
    return new Budget(made, ok(Site.create(name, given, now())), name);
  }

  get callSite() {
    void this.#site.k; // a freed budget throws, as the full entry's does
    return this.#name;
  }

  get kind() {
    return ok(this.#site.kind(now()));
  }

  tokens(nowMs) {
    void this.#site.k;
    return ok(this.#site.tokens(finite(nowMs, "nowMs") ?? now()));
  }

  isOpen(nowMs) {
    void this.#site.k;
    return ok(this.#site.isOpen(finite(nowMs, "nowMs") ?? now())) === 1;
  }

  tryRetry(nowMs) {
    void this.#site.k;
    return ok(this.#site.tryRetry(finite(nowMs, "nowMs") ?? now())) === 1;
  }

  reset() {
    this.#site.reset(now());
  }

  free() {
    this.#site.free();
  }
}

// As in the full entry: `using p = new RetryPolicy(…)` frees it (where Symbol.dispose exists).
if (Symbol.dispose) {
  for (const C of [RetryPolicy, Budget]) C.prototype[Symbol.dispose] = C.prototype.free;
}
keepNames([
  [RetryPolicy, "RetryPolicy"],
  [Budget, "Budget"],
]);
