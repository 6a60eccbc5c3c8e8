// A run's counts as chart rates (www/src/logic/rates.ts).
import { test } from "node:test";
import assert from "node:assert/strict";
import { attemptsBy, newRateBuffers, rebinRun, runningTotal, timeDomain, type RunSeries } from "../../www/src/logic/rates.js";
import { DEFAULT_STATE, cloneState } from "../../www/src/logic/state.js";
import { outageWindow } from "../../www/src/logic/run.js";

/** 10 slots of 50 ms: offered 1..10 per slot, served 1 each, rejected 2 each. */
function run(completionMs = 0): RunSeries {
  return {
    slotMs: 50,
    offered: Uint32Array.from({ length: 10 }, (_, i) => i + 1),
    served: new Uint32Array(10).fill(1),
    rejected: new Uint32Array(10).fill(2),
    metrics: { completionMs },
  };
}

test("the time domain spans the series, the completion and the outage, with 2% air", () => {
  // A burst with a 2 s outage from the start.
  const s = { ...cloneState(DEFAULT_STATE), scenario: "burst" as const, outageMs: 2000 };
  assert.deepEqual(outageWindow(s), [0, 2000]);
  // The outage outlasts the 500 ms series.
  assert.equal(timeDomain(s, run(0)), 2000 * 1.02);
  // A completion later than both.
  assert.equal(timeDomain(s, run(5000)), 5000 * 1.02);
  // No outage: the series.
  const calm = { ...s, outageMs: 0 };
  assert.equal(timeDomain(calm, run(0)), 500 * 1.02);
  // Nothing at all still spans a millisecond.
  const empty: RunSeries = { slotMs: 50, offered: [], served: [], rejected: [], metrics: { completionMs: 0 } };
  assert.equal(timeDomain(calm, empty), 1.02);
});

test("rebinning gives per-second rates: offered, served (or conflicting), capacity", () => {
  const buf = newRateBuffers();
  // 100 ms bins: two slots each.
  rebinRun(run(), buf, false, 100, 5, 42);
  assert.deepEqual([...buf.x.subarray(0, 5)], [0, 0.1, 0.2, 0.3, 0.4]);
  // Slots (1,2) → 3 requests per 100 ms → 30 rps; then 70, 110, 150, 190.
  assert.deepEqual([...buf.y1.subarray(0, 5)], [30, 70, 110, 150, 190]);
  assert.deepEqual([...buf.y2.subarray(0, 5)], [20, 20, 20, 20, 20]);
  assert.deepEqual([...buf.y3.subarray(0, 5)], [42, 42, 42, 42, 42]);
  // aws-occ: the second series is the conflicts.
  rebinRun(run(), buf, true, 100, 5, 42);
  assert.deepEqual([...buf.y2.subarray(0, 5)], [40, 40, 40, 40, 40]);
});

test("the buffers are reused when big enough and grown when not", () => {
  const buf = newRateBuffers();
  rebinRun(run(), buf, false, 100, 5, 1);
  const x = buf.x;
  rebinRun(run(), buf, false, 50, 10, 1);
  assert.equal(buf.x, x, "10 bins fit in the first allocation");
  rebinRun(run(), buf, false, 1, 500, 1);
  assert.notEqual(buf.x, x);
  assert.ok(buf.x.length >= 500);
});

test("the running total counts attempts, and the playhead reads the bin it is in", () => {
  const buf = newRateBuffers();
  rebinRun(run(), buf, false, 100, 5, 1);
  runningTotal(buf, 100, 5);
  // 3, 7, 11, 15, 19 attempts per bin.
  assert.deepEqual([...buf.cum.subarray(0, 5)].map((v) => Math.round(v * 1e9) / 1e9), [3, 10, 21, 36, 55]);
  assert.equal(Math.round(attemptsBy(buf, 100, 5, 0)), 3);
  assert.equal(Math.round(attemptsBy(buf, 100, 5, 150)), 10);
  // Past the end: the whole run.
  assert.equal(Math.round(attemptsBy(buf, 100, 5, 10_000)), 55);
  // No bins yet: nothing.
  assert.equal(attemptsBy(newRateBuffers(), 100, 0, 50), 0);
});
