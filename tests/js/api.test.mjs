// The JS API against the built package: every name, every error path, views over memory,
// and the golden seed giving the same numbers as the native build.
import test from "node:test";
import assert from "node:assert/strict";
import { stampede, wasm } from "./load.mjs";

const { RetryPolicy, Budget, Simulation, classify, parseRetryAfter, retryFetch } = stampede;
const round3 = (xs) => Array.from(xs, (x) => Math.round(x * 1000) / 1000);

test("every name of the contract is exported", () => {
  for (const f of [RetryPolicy, Budget, Simulation, classify, parseRetryAfter, retryFetch]) {
    assert.equal(typeof f, "function");
  }
  assert.equal(typeof Budget.forCallSite, "function");
});

test("RetryPolicy: golden seed matches the native build", () => {
  const p = new RetryPolicy({ strategy: "full", baseMs: 200, capMs: 30000, maxAttempts: 6, multiplier: 2, seed: 42, maxElapsedMs: 60000, maxRetryAfterMs: 60000 });
  const d = p.delays();
  assert.ok(d instanceof Float64Array);
  // Pinned in crates/stampede/src/lib.rs (golden::FULL_200_30000_SEED_42).
  assert.deepEqual(round3(d), [155.986, 393.457, 517.283, 521.423, 797.735]);
  const dec = new RetryPolicy({ strategy: "decorrelated", baseMs: 200, capMs: 30000, seed: 42 }).delays();
  assert.deepEqual(round3(dec), [511.971, 1514.06, 3007.672, 3075.325, 2450.106]);
  const v2 = new RetryPolicy({ strategy: "decorrelated-v2", baseMs: 200, capMs: 30000, seed: 42 }).delays();
  assert.deepEqual(round3(v2), [231.359, 329.601, 330.933, 538.662, 1284.874]);
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
  assert.throws(() => parseRetryAfter(120, now), TypeError);
  assert.throws(() => parseRetryAfter("1", NaN), RangeError);
});

test("Budget.forCallSite: one registry per module", () => {
  const b = Budget.forCallSite("GET /api/orders", { capacity: 3, refillPerSec: 1 });
  const t0 = Date.now() + 1000;
  assert.equal(b.callSite, "GET /api/orders");
  assert.ok(b.tryRetry(t0) && b.tryRetry(t0) && b.tryRetry(t0));
  assert.equal(b.tryRetry(t0), false);
  assert.equal(b.isOpen(t0 + 500), true);
  assert.equal(b.isOpen(t0 + 1000), false);
  // The same call site is the same bucket; its settings and tokens are kept.
  const again = Budget.forCallSite("GET /api/orders", { capacity: 100, refillPerSec: 100 });
  assert.ok(again.tokens(t0 + 1000) <= 1.0001);
  b.reset();
  assert.equal(again.tokens(), 3);
  assert.throws(() => Budget.forCallSite("x", { capacity: NaN }), (e) => e instanceof RangeError && /capacity/.test(e.message));
  assert.throws(() => Budget.forCallSite("x", { refillPerSec: -1 }), (e) => e instanceof RangeError && /refillPerSec/.test(e.message));
  assert.throws(() => Budget.forCallSite("x", { capacity: "10" }), TypeError);
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

  // The golden run pinned natively (crates/stampede/src/lib.rs): same seed, same numbers.
  const g = new Simulation({ clients: 2000, policy: { strategy: "full", baseMs: 1000, capMs: 30000, maxAttempts: 6 }, budget: { capacity: 3000, refillPerSec: 200 }, budgetScope: "shared", seed: 7 });
  g.run();
  const gm = g.metrics();
  assert.deepEqual([gm.totalAttempts, gm.successes, gm.completionMs, gm.p99Ms], [5398, 426, 8846.685709295316, 7662.873046875]);
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
