// The JS API against the built package: every name, every error path, views over memory,
// and the golden seed giving the same numbers as the native build.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { stampede, wasm, wasmPath } from "./load.mjs";

const { RetryPolicy, Budget, Simulation, classify, parseRetryAfter, retryFetch, RetryError, BudgetExhaustedError } = stampede;

// A golden constant as the native tests pin it in crates/stampede/tests/golden/values.rs: exact
// f64 bits, read from the source, so the wasm build is held to the very bits the native one is.
function nativeGolden(name) {
  const src = readFileSync(new URL("../../crates/stampede/tests/golden/values.rs", import.meta.url), "utf8");
  const m = src.match(new RegExp(`${name}: \\[u64; \\d+\\] =\\s*\\[([^\\]]*)\\]`));
  assert.ok(m, `${name} not found in values.rs`);
  const bits = new BigUint64Array(m[1].split(",").filter((x) => x.trim()).map((x) => BigInt(x.trim())));
  return Array.from(new Float64Array(bits.buffer));
}

test("every name of the contract is exported", () => {
  for (const f of [RetryPolicy, Budget, Simulation, classify, parseRetryAfter, retryFetch]) {
    assert.equal(typeof f, "function");
  }
  assert.equal(typeof Budget.forCallSite, "function");
  // The error classes are exported too, as real subclasses of Error.
  assert.equal(typeof RetryError, "function");
  assert.equal(typeof BudgetExhaustedError, "function");
  assert.ok(RetryError.prototype instanceof Error && BudgetExhaustedError.prototype instanceof Error);
});

test("stampede_bg.wasm is at most 150 KB", (t) => {
  const bytes = readFileSync(wasmPath);
  const gz = gzipSync(bytes, { level: 9 }).length;
  t.diagnostic(`stampede_bg.wasm: ${bytes.length} bytes raw, ${gz} bytes gzip -9`);
  assert.ok(bytes.length <= 150_000, `${bytes.length} bytes > 150,000`);
});

test("RetryPolicy: golden seed matches the native build", () => {
  const p = new RetryPolicy({ strategy: "full", baseMs: 200, capMs: 30000, maxAttempts: 6, multiplier: 2, seed: 42, maxElapsedMs: 60000, maxRetryAfterMs: 60000 });
  const d = p.delays();
  assert.ok(d instanceof Float64Array);
  // Pinned natively in crates/stampede/tests/golden/values.rs, to the bit.
  assert.deepEqual(Array.from(d), nativeGolden("FULL_200_30000_SEED_42"));
  for (const [strategy, name] of [["equal", "EQUAL"], ["decorrelated", "DECORRELATED"], ["decorrelated-v2", "V2"]]) {
    const got = new RetryPolicy({ strategy, baseMs: 200, capMs: 30000, seed: 42 }).delays();
    assert.deepEqual(Array.from(got), nativeGolden(`${name}_200_30000_SEED_42`), strategy);
  }
  assert.equal(p.maxAttempts, 6);
  assert.equal(p.strategy, "full");
});

test("RetryPolicy: exact exponential, sample bounds, fresh draws", () => {
  const e = new RetryPolicy({ strategy: "exponential", baseMs: 200, capMs: 30000, maxAttempts: 10 });
  assert.deepEqual(Array.from(e.delays()), [200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000]);
  const p = new RetryPolicy({ strategy: "full", baseMs: 100, capMs: 1000, maxAttempts: 4, seed: 1 });
  const s = p.sample(10000);
  assert.equal(s.length, 30000);
  for (let i = 0; i < s.length; i++) {
    const n = i % 3;
    assert.ok(s[i] >= 0 && s[i] <= Math.min(1000, 100 * 2 ** n), `${i}: ${s[i]}`);
  }
  assert.notDeepEqual(Array.from(p.delays()), Array.from(p.delays()));
  assert.throws(() => p.sample(-1), RangeError);
  assert.throws(() => p.sample(1.5), RangeError);
});

test("RetryPolicy.sample: rows are the same draws as delays(), across fill chunks", () => {
  // 200 rows × 99 delays = 19,800 values: more than two of the 8,192-value chunks copied out.
  const opts = { strategy: "decorrelated", baseMs: 50, capMs: 60000, maxAttempts: 100, seed: 9 };
  const s = new RetryPolicy(opts).sample(200);
  assert.equal(s.length, 200 * 99);
  const one = new RetryPolicy(opts);
  const rows = [];
  for (let i = 0; i < 200; i++) rows.push(...one.delays());
  assert.deepEqual(Array.from(s), rows);
  assert.equal(new RetryPolicy({ maxAttempts: 1 }).sample(1000).length, 0, "one attempt: no delays");
});

test("RetryPolicy.sample: the total is bounded (10,000,000 values), with errors naming n", () => {
  const p = new RetryPolicy({ maxAttempts: 100, seed: 1 });
  // 1e6 × 99 values would be 792 MB: refused before any allocation, and the module lives on.
  assert.throws(() => p.sample(1_000_000), (e) => e instanceof RangeError && /^n: expected a whole number from 0 to 101010 \(at most 10000000 delays/.test(e.message) && /maxAttempts is 100/.test(e.message), "1e6");
  assert.throws(() => p.sample(101_011), RangeError);
  assert.throws(() => new RetryPolicy({ maxAttempts: 21 }).sample(500_001), (e) => e instanceof RangeError && /from 0 to 500000 /.test(e.message));
  assert.throws(() => new RetryPolicy({ maxAttempts: 2 }).sample(1_000_001), (e) => e instanceof RangeError && /from 0 to 1000000 /.test(e.message));
  assert.throws(() => p.sample(NaN), (e) => e instanceof RangeError && /^n: .*got NaN$/.test(e.message));
  assert.throws(() => p.sample(Infinity), RangeError);
  assert.throws(() => p.sample("10"), (e) => e instanceof TypeError && e.message === 'n: expected a number, got "10"');
  assert.throws(() => p.sample(), (e) => e instanceof TypeError && /^n: expected a number, got undefined$/.test(e.message));
  assert.throws(() => p.sample({}), (e) => e instanceof TypeError && /^n: /.test(e.message));
  assert.equal(p.sample(1000).length, 99_000, "still alive and sampling");
});

test("RetryPolicy: bad settings throw RangeError/TypeError naming the field", () => {
  const cases = [
    [{ baseMs: NaN }, RangeError, /^baseMs: /],
    [{ baseMs: -1 }, RangeError, /^baseMs: /],
    [{ baseMs: Infinity }, RangeError, /^baseMs: /],
    [{ baseMs: "200" }, TypeError, /^baseMs: expected a number/],
    [{ capMs: 10, baseMs: 100 }, RangeError, /^capMs: expected a duration at least base/],
    [{ maxAttempts: 0 }, RangeError, /^maxAttempts: /],
    [{ maxAttempts: 101 }, RangeError, /^maxAttempts: /],
    [{ maxAttempts: 2.5 }, RangeError, /^maxAttempts: /],
    [{ multiplier: 0.5 }, RangeError, /^multiplier: /],
    [{ strategy: "fibonacci" }, RangeError, /^strategy: /],
    [{ strategy: 3 }, TypeError, /^strategy: /],
    [{ seed: -1 }, RangeError, /^seed: /],
    [{ maxRetryAfterMs: NaN }, RangeError, /^maxRetryAfterMs: /],
    [{ maxElapsedMs: -5 }, RangeError, /^maxElapsedMs: /],
  ];
  for (const [opts, type, message] of cases) {
    assert.throws(() => new RetryPolicy(opts), (e) => e instanceof type && message.test(e.message), JSON.stringify(opts));
  }
  assert.throws(() => new RetryPolicy(42), TypeError);
  assert.doesNotThrow(() => new RetryPolicy(), "every field has a default");
  // The module is still alive after all of that: nothing panicked.
  assert.equal(new RetryPolicy({ strategy: "constant", baseMs: 5, maxAttempts: 3 }).delays().length, 2);
});

test("classify: statuses, hints, transport errors", () => {
  const v = classify({ status: 503, method: "GET", headers: { "retry-after": "2" }, nowMs: Date.now() });
  assert.equal(v.retryable, true);
  assert.equal(v.retryAfterMs, 2000);
  assert.match(v.reason, /503/);
  assert.equal(classify({ error: "timeout" }).retryable, true);
  assert.equal(classify({ error: "abort" }).retryable, false);
  assert.equal(classify({ error: "dns" }).retryable, false);
  assert.equal(classify({ status: 404 }).retryable, false);
  assert.equal(classify({ status: 410 }).retryable, false);
  assert.equal(classify({ status: 200 }).action, "success");
  assert.equal(classify({ status: 503, method: "POST" }).retryable, false);
  assert.equal(classify({ status: 503, method: "POST", idempotent: true }).retryable, true);
  assert.equal(classify({ status: 503 }).retryAfterMs, undefined);
  const h = new Headers({ "Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT" });
  assert.equal(classify({ status: 429, headers: h, nowMs: Date.UTC(2015, 9, 21, 7, 27, 50) }).retryAfterMs, 10000);
  const bad = classify({ status: 503, headers: { "Retry-After": "soon" } });
  assert.equal(bad.retryable, true);
  assert.match(bad.ignoredHint, /Retry-After/);
  assert.equal(classify({ status: 503, headers: { "grpc-retry-pushback-ms": "-1" } }).retryable, false);
  assert.equal(classify({ status: 503, headers: { "retry-after": "120" } }).retryable, false, "past the 60 s maximum");
  assert.throws(() => classify({ status: 700 }), (e) => e instanceof RangeError && /^status: /.test(e.message));
  assert.throws(() => classify({ status: "503" }), TypeError);
  assert.throws(() => classify({ error: "pigeon" }), (e) => e instanceof RangeError && /^error: /.test(e.message));
  assert.throws(() => classify({}), TypeError);
  assert.throws(() => classify({ status: 503, error: "timeout" }), TypeError);
  assert.throws(() => classify(null), TypeError);
  // Header values: numbers are read as JavaScript writes them; huge strings are refused
  // before they are copied into wasm memory.
  assert.equal(classify({ status: 503, headers: { "Retry-After": 3 } }).retryAfterMs, 3000);
  assert.equal(classify({ status: 503, headers: { "grpc-retry-pushback-ms": 250 } }).retryAfterMs, 250);
  assert.throws(() => classify({ status: 503, headers: { "retry-after": "1".repeat(5000) } }), (e) => e instanceof RangeError && /^headers\.retry-after: expected at most 4096/.test(e.message));
  assert.throws(() => classify({ status: 503, headers: { "retry-after": {} } }), (e) => e instanceof TypeError && /^headers\.retry-after: expected a string, got object$/.test(e.message));
  assert.throws(() => classify({ status: 503, method: "GET".repeat(2000) }), (e) => e instanceof RangeError && /^method: /.test(e.message));
});

test("parseRetryAfter", () => {
  const now = Date.UTC(2015, 9, 21, 7, 27, 0);
  assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now), 60000);
  assert.equal(parseRetryAfter("Wednesday, 21-Oct-15 07:28:00 GMT", now), 60000);
  assert.equal(parseRetryAfter("Wed Oct 21 07:28:00 2015", now), 60000);
  assert.equal(parseRetryAfter("120", now), 120000);
  assert.equal(parseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now), 0);
  assert.equal(parseRetryAfter("soon", now), undefined);
  assert.equal(parseRetryAfter("-1", now), undefined);
  assert.throws(() => parseRetryAfter(120, now), (e) => e instanceof TypeError && /^value: expected a string, got 120$/.test(e.message));
  assert.throws(() => parseRetryAfter("1", NaN), (e) => e instanceof RangeError && /^nowMs: /.test(e.message));
  assert.throws(() => parseRetryAfter("1", "now"), (e) => e instanceof TypeError && /^nowMs: /.test(e.message));
  assert.throws(() => parseRetryAfter("9".repeat(10_000), now), (e) => e instanceof RangeError && /^value: expected at most 4096 characters/.test(e.message));
});

test("Budget.forCallSite: one bucket per call site; settings given reconfigure it, tokens kept", () => {
  const site = "GET /api/orders";
  const b = Budget.forCallSite(site, { capacity: 3, refillPerSec: 1 });
  const t0 = Date.now() + 1000;
  assert.equal(b.callSite, site);
  assert.ok(b.tryRetry(t0) && b.tryRetry(t0) && b.tryRetry(t0));
  assert.equal(b.tryRetry(t0), false);
  assert.equal(b.isOpen(t0 + 500), true);
  assert.equal(b.isOpen(t0 + 1000), false);
  // Without settings: the same bucket, as it is (not the defaults, not refilled).
  const same = Budget.forCallSite(site);
  assert.equal(same.tokens(t0 + 1000), 1);
  assert.equal(same.tokens(t0 + 2000), 2, "still refilling at its own 1/s");
  // With settings: they become the bucket's, for every handle; the tokens are kept, not
  // refilled to the larger capacity.
  const bigger = Budget.forCallSite(site, { capacity: 100, refillPerSec: 0 });
  assert.equal(bigger.tokens(t0 + 2000), 2);
  assert.equal(b.tokens(t0 + 60_000), 2, "the old handle sees the new refill rate (0)");
  // A smaller capacity clamps the tokens.
  Budget.forCallSite(site, { capacity: 0.5, refillPerSec: 0 });
  assert.equal(b.tokens(t0 + 60_000), 0.5);
  assert.equal(b.tryRetry(t0 + 60_000), false);
  // reset() fills to the current settings' capacity, not the handle's first one (3).
  Budget.forCallSite(site, { capacity: 5, refillPerSec: 0 });
  b.reset();
  assert.equal(b.tokens(t0 + 60_000), 5);
  // A new call site without settings gets the defaults: 10 tokens.
  assert.equal(Budget.forCallSite(`fresh ${Date.now()}`).tokens(), 10);
  // Bad settings change nothing.
  assert.throws(() => Budget.forCallSite(site, { capacity: NaN }), (e) => e instanceof RangeError && /^capacity: /.test(e.message));
  assert.equal(b.tokens(t0 + 60_000), 5);
  assert.throws(() => Budget.forCallSite("x", { refillPerSec: -1 }), (e) => e instanceof RangeError && /refillPerSec/.test(e.message));
  assert.throws(() => Budget.forCallSite("x", { capacity: "10" }), TypeError);
  assert.throws(() => Budget.forCallSite("x", 10), (e) => e instanceof TypeError && /^Budget options: expected an object/.test(e.message));
});

test("Budget: wrong types throw TypeError naming the parameter, not the glue's own error", () => {
  for (const bad of [42, undefined, null, {}, ["GET /"]]) {
    assert.throws(() => Budget.forCallSite(bad), (e) => e instanceof TypeError && /^name: expected a string, got /.test(e.message), String(bad));
  }
  assert.throws(() => Budget.forCallSite(42), (e) => e.message === "name: expected a string, got 42");
  assert.throws(() => Budget.forCallSite("x".repeat(5000)), (e) => e instanceof RangeError && /^name: expected at most 4096 characters, got 5000$/.test(e.message));
  const b = Budget.forCallSite("types");
  assert.throws(() => b.tokens("now"), (e) => e instanceof TypeError && /^nowMs: expected a number/.test(e.message));
  assert.throws(() => b.isOpen(NaN), (e) => e instanceof RangeError && /^nowMs: expected a finite number/.test(e.message));
  assert.throws(() => b.tryRetry({}), (e) => e instanceof TypeError && /^nowMs: /.test(e.message));
  assert.equal(b.tokens(), 10, "omitted nowMs is Date.now()");
});

const METRIC_NAMES = ["requests", "totalAttempts", "successes", "gaveUp", "budgetRejected", "amplification", "peakRps",
  "peakRecoveryRps", "completionMs", "recoveryMs", "p50Ms", "p99Ms", "calls"];

test("Simulation: metrics, views into wasm memory, golden run", () => {
  const sim = new Simulation({ scenario: "burst", clients: 10000, policy: { strategy: "full", baseMs: 200, capMs: 30000, maxAttempts: 6 }, outageMs: 2000, capacityRps: 500, budget: { capacity: 10, refillPerSec: 1 }, seed: 1 });
  sim.run();
  assert.equal(sim.isDone(), true);
  const m = sim.metrics();
  assert.deepEqual(Object.keys(m).sort(), [...METRIC_NAMES].sort());
  assert.equal(m.requests, 10000);
  assert.equal(m.successes + m.gaveUp + m.budgetRejected, m.requests);
  const offered = sim.offered();
  assert.ok(offered instanceof Uint32Array);
  assert.equal(offered.buffer, wasm.memory.buffer, "a view over wasm memory, not a copy");
  assert.equal(offered.reduce((a, b) => a + b, 0), m.totalAttempts);
  const sum = (a) => a.reduce((x, y) => x + y, 0);
  assert.equal(sum(sim.served()) + sum(sim.rejected()) + sum(sim.failed()), m.totalAttempts);
  assert.equal(sum(sim.blocked()), m.budgetRejected);
  const log = sim.attemptLog();
  assert.ok(log instanceof Float32Array && log.buffer === wasm.memory.buffer);
  assert.equal(log.length % 4, 0);
  assert.equal(log.length / 4, m.totalAttempts + m.budgetRejected, "every attempt and every block of every client");
  assert.equal(sim.slotMs(), 10);
  assert.equal(sim.logStride(), 1);
  sim.free();

  // The golden run pinned natively (crates/stampede/tests/golden/values.rs): same seed, same bits.
  const g = new Simulation({ clients: 2000, policy: { strategy: "full", baseMs: 1000, capMs: 30000, maxAttempts: 6 }, budget: { capacity: 3000, refillPerSec: 200 }, budgetScope: "shared", seed: 7 });
  g.run();
  const gm = g.metrics();
  assert.deepEqual([gm.totalAttempts, gm.successes, gm.completionMs, gm.p99Ms], nativeGolden("SIM_TOTAL_SUCCESS_COMPLETION_P99"));
});

test("Simulation: advanceTo animates to the same end", () => {
  const opts = { scenario: "steady", clients: 200, durationMs: 5000, outageStartMs: 1000, outageMs: 1000, capacityRps: 300, seed: 3 };
  const whole = new Simulation(opts);
  whole.run();
  const stepped = new Simulation(opts);
  let t = 0;
  while (!stepped.isDone()) {
    t += 100;
    stepped.advanceTo(t);
    assert.ok(stepped.nowMs() <= t + 1);
  }
  assert.deepEqual(stepped.metrics(), whole.metrics());
  assert.throws(() => stepped.advanceTo("1000"), (e) => e instanceof TypeError && e.message === 'tMs: expected a number, got "1000"');
  assert.throws(() => stepped.advanceTo(), (e) => e instanceof TypeError && /^tMs: /.test(e.message));
  assert.throws(() => stepped.advanceTo(NaN), (e) => e instanceof RangeError && /^tMs: .*NaN$/.test(e.message));
  const fresh = new Simulation(opts);
  fresh.advanceTo(Infinity);
  assert.equal(fresh.isDone(), true, "Infinity runs to the end");
});

test("Simulation: views are re-taken after calls that allocate, and read what was written", () => {
  const sim = new Simulation({ clients: 3000, outageMs: 1000, capacityRps: 300, seed: 2 });
  sim.advanceTo(500);
  const early = Array.from(sim.offered());
  sim.run();
  new RetryPolicy({ maxAttempts: 100, seed: 1 }).sample(50_000); // allocates (and may grow memory)
  const offered = sim.offered(); // re-taken after both
  assert.equal(offered.buffer, wasm.memory.buffer);
  assert.deepEqual(Array.from(offered.subarray(0, early.length - 1)), early.slice(0, -1), "the past does not change");
  assert.equal(offered.reduce((a, b) => a + b, 0), sim.metrics().totalAttempts);
});

test("Simulation: bad settings name the field", () => {
  const cases = [
    [{ clients: 0 }, RangeError, /^clients: /],
    [{ clients: 1_000_001 }, RangeError, /^clients: /],
    [{ clients: "many" }, TypeError, /^clients: /],
    [{ outageMs: NaN }, RangeError, /^outageMs: /],
    [{ outageMs: -1 }, RangeError, /^outageMs: /],
    [{ capacityRps: 0 }, RangeError, /^capacityRps: /],
    [{ rejectCost: 2 }, RangeError, /^rejectCost: /],
    [{ scenario: "chaos" }, RangeError, /^scenario: /],
    [{ policy: { baseMs: NaN } }, RangeError, /^policy\.baseMs: /],
    [{ policy: { strategy: "x" } }, RangeError, /^policy\.strategy: /],
    [{ policy: 5 }, TypeError, /^policy: /],
    [{ budget: { capacity: -1 } }, RangeError, /^budget\.capacity: /],
    [{ budgetScope: "world" }, RangeError, /^budgetScope: /],
    [{ scenario: "steady", ratePerClient: 0 }, RangeError, /^ratePerClient: /],
  ];
  for (const [opts, type, message] of cases) {
    assert.throws(() => new Simulation(opts), (e) => e instanceof type && message.test(e.message), JSON.stringify(opts) );
  }
  assert.doesNotThrow(() => new Simulation().run());
});
