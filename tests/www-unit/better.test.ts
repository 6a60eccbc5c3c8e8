import { test } from "node:test";
import assert from "node:assert/strict";
import { isBetter, unrecovered } from "../../www/src/logic/better.js";

test("the compare table ticks only a difference the reader can see, by more than 5%", () => {
  // Story 1's peaks: ×20 against ×21 is the same peak, not a win for no jitter.
  assert.equal(isBetter(20, 21, "lower", "×20", "×21"), false);
  assert.equal(isBetter(10, 21, "lower", "×10", "×21"), true);
  assert.equal(isBetter(21, 10, "lower", "×21", "×10"), false);
  // Higher is better: goodput.
  assert.equal(isBetter(60, 50, "higher", "60", "50"), true);
  assert.equal(isBetter(50, 60, "higher", "50", "60"), false);
  // Two cells that read the same are equal, whatever lies behind them.
  assert.equal(isBetter(60_000, 61_000, "lower", "1 min", "1 min"), false);
  // None of a quantity against some: a clear win.
  assert.equal(isBetter(0, 3, "lower", "0", "3"), true);
  assert.equal(isBetter(null, 3, "lower", "—", "3"), false);
  // A recovery that never came (Infinity) loses to any that did; two of them tie.
  assert.equal(isBetter(5000, Infinity, "lower", "5 s", "never"), true);
  assert.equal(isBetter(Infinity, 5000, "lower", "never", "5 s"), false);
  assert.equal(isBetter(Infinity, Infinity, "lower", "x", "y"), false);
});

test("a recovery into the traffic's last 100 ms never came while it lasted", () => {
  assert.equal(unrecovered(170_100, 108_000), true);
  assert.equal(unrecovered(107_950, 108_000), true);
  assert.equal(unrecovered(50_000, 108_000), false);
  // No ongoing traffic (a burst), or no overload at all.
  assert.equal(unrecovered(170_100, undefined), false);
  assert.equal(unrecovered(0, 50), false);
  // An outage that ended with the traffic, or after it: no traffic left to recover under.
  assert.equal(unrecovered(170_100, -108_000), false);
  assert.equal(unrecovered(5_000, 0), false);
  assert.equal(unrecovered(5_000, 100), false);
});

test("a figure measured over the successes is a win only for a run that served as many", async () => {
  const { fairOnSuccesses } = await import("../../www/src/logic/better.js");
  // The budget preset: 90,499 served against the storm's 91,563.
  assert.equal(fairOnSuccesses(90_499, 91_563), false);
  assert.equal(fairOnSuccesses(91_563, 90_499), true);
  assert.equal(fairOnSuccesses(0, 0), true);
});
