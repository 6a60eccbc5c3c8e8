// Hedging on Simulation, against the built package: the `hedging` option reaches the run
// and its `hedges` metric comes back, missing fields take defaults().hedging, bad values
// throw errors naming `hedging.delayMs` / `hedging.maxAttempts`, and limits() lists both.
import test from "node:test";
import assert from "node:assert/strict";
import { stampede } from "./load.mjs";

const { Simulation, defaults, limits } = stampede;

/** No queueing, no network, a wide log-normal service time: latency is service. */
const TAIL = {
  scenario: "steady", clients: 100, ratePerClient: 20, durationMs: 5000, outageMs: 0,
  workers: 0, latencyMs: 0, serviceDist: "lognormal", serviceSpread: 1.5, seed: 3,
};

function metrics(opts) {
  const sim = new Simulation(opts);
  sim.run();
  const m = sim.metrics();
  sim.free();
  return m;
}

test("hedging: a hedge after the p95 cuts the p99 for about 5% more attempts", () => {
  const plain = metrics(TAIL);
  assert.equal(plain.hedges, 0);
  // The service time's p95 at σ = 1.5 and mean 10 ms is 38.3 ms.
  const hedged = metrics({ ...TAIL, hedging: { delayMs: 38.3, maxAttempts: 2 } });
  assert.ok(hedged.hedges > 0.03 * hedged.requests && hedged.hedges < 0.07 * hedged.requests, JSON.stringify(hedged));
  assert.equal(hedged.totalAttempts, hedged.requests + hedged.hedges);
  assert.ok(hedged.p99Ms < 0.6 * plain.p99Ms, `${hedged.p99Ms} vs ${plain.p99Ms}`);
  // null is no hedging; the same seed gives the same run.
  assert.deepEqual(metrics({ ...TAIL, hedging: null }), plain);
});

test("hedging: missing fields take defaults().hedging", () => {
  const d = defaults();
  assert.deepEqual(d.hedging, { delayMs: 2000, maxAttempts: 2 });
  assert.equal(d.simulation.hedging, null);
  // A delay of 0 sends both attempts at once: one hedge per request.
  const m = metrics({ ...TAIL, durationMs: 500, hedging: { delayMs: 0 } });
  assert.equal(m.hedges, m.requests);
  const l = limits();
  assert.deepEqual([l["hedging.maxAttempts"].min, l["hedging.maxAttempts"].max], [2, 5]);
  assert.equal(l["hedging.delayMs"].unit, "ms");
});

test("hedging: bad values name the field; the module lives on", () => {
  const bad = [
    [{ delayMs: -1 }, RangeError, "hedging.delayMs"],
    [{ delayMs: NaN }, RangeError, "hedging.delayMs"],
    [{ delayMs: "50" }, TypeError, "hedging.delayMs"],
    [{ maxAttempts: 1 }, RangeError, "hedging.maxAttempts"],
    [{ maxAttempts: 6 }, RangeError, "hedging.maxAttempts"],
    [{ maxAttempts: 2.5 }, RangeError, "hedging.maxAttempts"],
    [5, TypeError, "hedging"],
  ];
  for (const [hedging, type, field] of bad) {
    assert.throws(() => new Simulation({ ...TAIL, hedging }), (e) => {
      assert.ok(e instanceof type, `${JSON.stringify(hedging)}: ${e}`);
      assert.ok(e.message.startsWith(`${field}:`), e.message);
      if (type === RangeError) assert.equal(e.field, field);
      return true;
    });
  }
  assert.equal(metrics({ clients: 50, seed: 1 }).requests, 50);
});
