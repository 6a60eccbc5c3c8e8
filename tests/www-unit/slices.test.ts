import { test } from "node:test";
import assert from "node:assert/strict";
import { SLICE_MS, runSliced, type Steppable } from "../../www/src/logic/slices.js";
import { pkg } from "./package.js";

test("slices: a run in slices is the run in one call, event for event, in every engine", () => {
  const cases = [
    { clients: 3000, policy: { strategy: "full", baseMs: 2000 }, seed: 5 },
    { clients: 2000, policy: { strategy: "exponential", baseMs: 200 }, outageMs: 5000, seed: 2 },
    { scenario: "steady", clients: 300, durationMs: 20_000, outageStartMs: 5000, outageMs: 3000, workers: 4, queue: 50, timeoutMs: 500, seed: 3 },
    { scenario: "closed", clients: 200, durationMs: 10_000, thinkMs: 100, seed: 9 },
    { scenario: "aws-occ", clients: 150, seed: 4 },
  ] as const;
  for (const opts of cases) {
    const whole = new pkg.Simulation(opts);
    const sliced = new pkg.Simulation(opts);
    try {
      whole.run();
      const calls = runSliced(sliced);
      assert.ok(calls > 1, `${opts.clients} clients: more than one call`);
      assert.equal(sliced.isDone(), true);
      assert.deepEqual(sliced.metrics(), whole.metrics(), JSON.stringify(opts));
      assert.equal(sliced.events(), whole.events());
      assert.deepEqual(sliced.goodput(), whole.goodput());
      assert.deepEqual(sliced.attemptLog(), whole.attemptLog());
    } finally {
      whole.free();
      sliced.free();
    }
  }
});

/** A stand-in whose last event is at `endMs`: records the times it is asked to reach. */
function fake(endMs: number): Steppable & { asked: number[] } {
  let now = 0;
  const asked: number[] = [];
  return {
    asked,
    advanceTo(t) {
      asked.push(t);
      now = Math.max(now, t);
    },
    isDone: () => now > endMs,
  };
}

test("slices: short at first, then a sixteenth of the time reached, so any length takes few calls", () => {
  const short = fake(1000);
  assert.equal(runSliced(short), short.asked.length);
  assert.deepEqual(short.asked.slice(0, 3), [SLICE_MS, 2 * SLICE_MS, 3 * SLICE_MS]);
  assert.ok(short.asked.at(-1)! > 1000);
  // Times only grow, and a run whose last event is hours (or years) away ends in a few
  // hundred calls: SLICE_MS to 16 × SLICE_MS in steps of SLICE_MS, then ×17/16 a call.
  for (const endMs of [60_000, 3_600_000, 1e12]) {
    const f = fake(endMs);
    const calls = runSliced(f);
    assert.ok(f.asked.every((t, i) => i === 0 || t > f.asked[i - 1]!));
    const bound = 16 + Math.ceil(Math.log(endMs / (16 * SLICE_MS)) / Math.log(17 / 16)) + 1;
    assert.ok(calls <= bound, `${endMs} ms: ${calls} calls, at most ${bound}`);
  }
  // A finished run is not called again.
  const done = fake(-1);
  assert.equal(runSliced(done), 0);
});

test("slices: an error thrown by a slice reaches the caller", () => {
  const sim: Steppable = {
    advanceTo(t) {
      if (t > 300) throw new RangeError("too much work");
    },
    isDone: () => false,
  };
  assert.throws(() => runSliced(sim), RangeError);
});
