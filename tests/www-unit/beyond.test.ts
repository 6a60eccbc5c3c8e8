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
});
