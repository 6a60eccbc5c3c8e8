// The hedging and layers panels' pure parts (www/src/logic/hedging.ts, layers.ts): the runs
// they ask for, the figures' shapes, and the theory the layers panel is read against.
import { test } from "node:test";
import assert from "node:assert/strict";
import { extraLoad, HEDGE_ATTEMPTS, HEDGE_DELAYS, hedgeCurve, hedgingJobs, hedgingRun } from "../../www/src/logic/hedging.js";
import { bottomPerRequest, layersAxis, layersJobs, layersRun, layersTheory } from "../../www/src/logic/layers.js";

test("layers: the bottom fails every attempt, retries are immediate, the chain and who retries are sent", () => {
  const o = layersRun(3, 4, "every", 9);
  assert.equal(o.failRate, 1);
  assert.equal(o.layers, 3);
  assert.equal(o.retryAt, "every");
  assert.equal(o.policy.maxAttempts, 4);
  assert.equal(o.policy.strategy, "none");
  assert.equal(o.seed, 9);
});

test("layers: the axis reaches at least 4 layers and the typed count; both ways at each", () => {
  assert.deepEqual(layersAxis(1), [1, 2, 3, 4]);
  assert.deepEqual(layersAxis(6), [1, 2, 3, 4, 5, 6]);
  const jobs = layersJobs({ layers: 5, attempts: 3, retryAt: "top" }, 1);
  assert.equal(jobs.length, 10);
  assert.deepEqual(
    jobs.slice(0, 2).map((j) => [j.layers, j.retryAt]),
    [
      [1, "every"],
      [1, "top"],
    ],
  );
  assert.ok(jobs.every((j) => j.opts.policy.maxAttempts === 3));
});

test("layers: the SRE book's 64 and the Builders' Library's 243, and 4 and 3 at the top", () => {
  assert.equal(layersTheory(3, 4, "every"), 64);
  assert.equal(layersTheory(5, 3, "every"), 243);
  assert.equal(layersTheory(3, 4, "top"), 4);
  assert.equal(layersTheory(5, 3, "top"), 3);
  assert.equal(bottomPerRequest({ requests: 10, bottomAttempts: 640, totalAttempts: 40 }), 64);
  assert.equal(bottomPerRequest({ requests: 0, bottomAttempts: 0, totalAttempts: 0 }), 0);
});

test("hedging: one run without, one at the typed delay, then the curve's delays", () => {
  const jobs = hedgingJobs(33, 1);
  assert.deepEqual(
    jobs.map((j) => j.delayMs),
    [null, 33, ...HEDGE_DELAYS],
  );
  assert.equal(jobs[0]?.opts.hedging, undefined, "the first run hedges nothing");
  assert.deepEqual(jobs[1]?.opts.hedging, { delayMs: 33, maxAttempts: HEDGE_ATTEMPTS });
  const o = hedgingRun(20, 1);
  assert.equal(o.serviceDist, "lognormal", "a tail to hedge");
  assert.equal(o.workers, 0);
});

test("hedging: extra load is hedges per request; the curve runs by extra load with the typed point apart", () => {
  assert.equal(extraLoad({ requests: 200, hedges: 50 }), 0.25);
  assert.equal(extraLoad({ requests: 0, hedges: 0 }), 0);
  const c = hedgeCurve(
    [
      { delayMs: 5, extra: 0.5, p99Ms: 20 },
      { delayMs: 50, extra: 0.05, p99Ms: 60 },
    ],
    { delayMs: 20, extra: 0.2, p99Ms: 30 },
  );
  assert.deepEqual(c.x, [5, 20, 50]);
  assert.deepEqual(c.curve.map((v) => (Number.isNaN(v) ? null : v)), [60, null, 20]);
  assert.deepEqual(c.marker.map((v) => (Number.isNaN(v) ? null : v)), [null, 30, null]);
});

test("layers through the package: 64 and 4 at 3 × 4, 243 and 3 at 5 × 3 (exact: the bottom fails every attempt)", async () => {
  const { pkg } = await import("./package.js");
  const bottom = (layers: number, attempts: number, at: "every" | "top") => {
    const sim = new pkg.Simulation(layersRun(layers, attempts, at, 1));
    try {
      sim.run();
      return bottomPerRequest(sim.metrics());
    } finally {
      sim.free();
    }
  };
  assert.equal(bottom(3, 4, "every"), 64);
  assert.equal(bottom(3, 4, "top"), 4);
  assert.equal(bottom(5, 3, "every"), 243);
  assert.equal(bottom(5, 3, "top"), 3);
  // The page's largest run (6 layers of 6 attempts) stays within the core's bounds.
  assert.equal(bottom(6, 6, "every"), 6 ** 6);
});

test("the panels' envelopes lie inside the core's limits", async () => {
  const { CORE_LIMITS } = await import("../../www/src/generated/core.js");
  const { LAYERS_ENVELOPE } = await import("../../www/src/logic/layers.js");
  const layers = CORE_LIMITS["layers"];
  assert.ok(layers, "limits() has layers");
  assert.ok(LAYERS_ENVELOPE.min >= layers.min && LAYERS_ENVELOPE.max <= layers.max, JSON.stringify(layers));
  const { HEDGE_DELAY_ENVELOPE, HEDGE_ATTEMPTS } = await import("../../www/src/logic/hedging.js");
  const delay = CORE_LIMITS["hedging.delayMs"];
  const attempts = CORE_LIMITS["hedging.maxAttempts"];
  assert.ok(delay && attempts, "limits() has hedging's fields");
  assert.ok(HEDGE_DELAY_ENVELOPE.min >= delay.min && HEDGE_DELAY_ENVELOPE.max <= delay.max, JSON.stringify(delay));
  assert.ok(HEDGE_ATTEMPTS >= attempts.min && HEDGE_ATTEMPTS <= attempts.max, JSON.stringify(attempts));
});

test("hedging through the package: a hedge after 20 ms cuts p99 and costs about the share of requests slower than 20 ms", async () => {
  const { pkg } = await import("./package.js");
  const run = (delay: number | null) => {
    const sim = new pkg.Simulation(hedgingRun(delay, 1));
    try {
      sim.run();
      return sim.metrics();
    } finally {
      sim.free();
    }
  };
  const off = run(null);
  const on = run(20);
  assert.ok(on.p99Ms !== null && off.p99Ms !== null && on.p99Ms < 0.6 * off.p99Ms, `p99 ${on.p99Ms} vs ${off.p99Ms}`);
  // Expected extra load: P(no answer by 20 ms). Service lognormal, mean 10 ms, σ 1.2 (median
  // 10·e^(−0.72) ≈ 4.87 ms), plus a ~2 ms round trip: P(S > 18 ms) = P(Z > ln(18/4.87)/1.2)
  // ≈ P(Z > 1.09) ≈ 0.14. 10,000 requests: the share is within ±0.03 of it.
  const extra = extraLoad(on);
  assert.ok(Math.abs(extra - 0.14) < 0.03, `extra ${extra}`);
  assert.equal(extraLoad(off), 0);
});
