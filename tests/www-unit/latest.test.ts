import { test } from "node:test";
import assert from "node:assert/strict";
import { MIN_WAIT_MS, OVERHEAD_MS, RunCost, SLACK, abandonAt } from "../../www/src/logic/latest.js";

test("a stale run is abandoned only once the newest request has waited longer than the run should take", () => {
  // Posted at 0, expected to reply at 400: a request arriving at 16 is not served by a kill before 616.
  assert.equal(abandonAt(0, 400, 16), 16 + SLACK * 400);
  // The run replies at 400 < 616: its picture shows, the newest follows.
  assert.ok(abandonAt(0, 400, 16) > 400);
  // However cheap the run looks, a newer request waits a little.
  assert.equal(abandonAt(100, 101, 150), 150 + MIN_WAIT_MS);
  // A run queued behind the other lane's counts the queue in its expected time.
  assert.equal(abandonAt(0, 900, 10), 10 + SLACK * 900);
});

test("the run cost learns from finished runs and never lets repeated kills starve a drag", () => {
  const c = new RunCost();
  const work = 1_000_000;
  // Runs that really take 1 s each.
  for (let i = 0; i < 20; i++) c.finished(work, 1000);
  assert.ok(Math.abs(c.expected(work) - 1000) < 20, `${c.expected(work)}`);
  // A kind of run far slower than thought: each kill raises the estimate to at least what was seen.
  const slow = new RunCost();
  const before = slow.expected(work);
  const killedAfter = abandonAt(0, before, 10);
  slow.abandoned(work, killedAfter);
  assert.ok(slow.expected(work) >= killedAfter - 1e-9);
  // So the next such run is given more time than the one killed.
  assert.ok(abandonAt(0, slow.expected(work), 10) > killedAfter);
  // Nonsense is ignored.
  const same = new RunCost();
  same.finished(0, 100);
  same.finished(100, Number.NaN);
  same.abandoned(-1, 100);
  assert.equal(same.expected(1000), new RunCost().expected(1000));
  assert.equal(new RunCost().expected(0), OVERHEAD_MS);
});
