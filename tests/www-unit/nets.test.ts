// The "Which safety net?" panel's runs (www/src/logic/nets.ts), checked against the real
// package (crates/stampede-wasm/pkg) and against theory: with the fidelity failure
// (fail rate p independent of the load, immediate retries), 4 attempts cost 1 + p + p² + p³
// attempts per request and succeed 1 − p⁴ of the time.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  attemptsTheory,
  emptySweep,
  NET_ATTEMPTS,
  NET_IDS,
  netRun,
  netsJobs,
  NO_LIMIT_ATTEMPTS,
  placeSweep,
  summarize,
  SWEEP_RATES,
} from "../../www/src/logic/nets.js";
import { pkg } from "./package.js";
import type { BeyondOptions } from "../../www/src/logic/run.js";

function metrics(o: BeyondOptions) {
  const sim = new pkg.Simulation(o);
  try {
    sim.run();
    return sim.metrics();
  } finally {
    sim.free();
  }
}

test("the sweep covers 0 to 50% in steps of 5%", () => {
  assert.equal(SWEEP_RATES.length, 11);
  assert.equal(SWEEP_RATES[0], 0);
  assert.equal(SWEEP_RATES[10], 0.5);
});

test("the fidelity failure: 100 clients × 10/s × 10 s, unlimited workers, exponential legs, immediate retries", () => {
  const o = netRun("attempts", { kind: "rate", failRate: 0.3 }, "shared", 7);
  assert.equal(o.scenario, "steady");
  assert.equal(o.clients, 100);
  assert.equal(o.ratePerClient, 10);
  assert.equal(o.durationMs, 10_000);
  assert.equal(o.workers, 0);
  assert.equal(o.latencyDist, "exponential");
  assert.equal(o.failRate, 0.3);
  assert.equal(o.policy.strategy, "none");
  assert.equal(o.policy.maxAttempts, NET_ATTEMPTS);
  assert.equal(o.seed, 7);
  assert.equal(o.budget, undefined, "attempts only: no budget");
  assert.equal(netRun("none", { kind: "rate", failRate: 0.3 }, "shared", 7).policy.maxAttempts, NO_LIMIT_ATTEMPTS);
  const outage = netRun("attempts", { kind: "outage", failRate: 0.3 }, "shared", 7);
  assert.equal(outage.failRate, 0, "an outage alone");
  assert.equal(outage.outageStartMs, 3000);
  assert.equal(outage.outageMs, 4000);
});

test("each net adds its own mechanism, under the panel's scope", () => {
  for (const id of NET_IDS) {
    const o = netRun(id, { kind: "rate", failRate: 0.1 }, "client", 1);
    const mechanisms = [o.budget, o.breaker, o.throttle].filter((m) => m !== undefined);
    assert.equal(mechanisms.length, id === "none" || id === "attempts" ? 0 : 1, id);
    if (mechanisms.length > 0) assert.equal(o.budgetScope, "client", id);
  }
  assert.deepEqual(netRun("ratio", { kind: "rate", failRate: 0 }, "shared", 1).budget, { kind: "ratio", ratio: 0.1, cap: 5, minPerSec: 0 });
  assert.deepEqual(netRun("grpc", { kind: "rate", failRate: 0 }, "shared", 1).budget, { kind: "grpc", maxTokens: 10, tokenRatio: 0.1 });
  assert.deepEqual(netRun("breaker", { kind: "rate", failRate: 0 }, "shared", 1).breaker, { failureRatio: 0.1, mode: "retries" });
});

test("attempts only matches 1 + p + p² + p³ and 1 − p⁴ (package runs, tolerance 0.03 and 0.01)", () => {
  // 10,000 requests a run: the standard error of the mean attempts is below 0.01 for p ≤ 0.5.
  for (const p of [0, 0.1, 0.3, 0.5]) {
    const s = summarize(metrics(netRun("attempts", { kind: "rate", failRate: p }, "shared", 1)));
    const want = attemptsTheory(p);
    assert.ok(Math.abs(s.amplification - want.amplification) < 0.03, `p=${p}: amplification ${s.amplification} vs ${want.amplification}`);
    assert.ok(Math.abs(s.success - want.success) < 0.01, `p=${p}: success ${s.success} vs ${want.success}`);
    assert.equal(s.blocked, 0);
  }
});

test("no limit retries until success: amplification 1/(1 − p), everything succeeds", () => {
  const s = summarize(metrics(netRun("none", { kind: "rate", failRate: 0.5 }, "shared", 1)));
  assert.ok(Math.abs(s.amplification - 2) < 0.05, `amplification ${s.amplification} vs 2`);
  assert.equal(s.success, 1);
});

test("the page's token bucket holds retries near a tenth of the traffic, failing the rest fast", () => {
  const none = summarize(metrics(netRun("attempts", { kind: "rate", failRate: 0.5 }, "shared", 1)));
  const bucket = summarize(metrics(netRun("bucket", { kind: "rate", failRate: 0.5 }, "shared", 1)));
  assert.ok(bucket.amplification < none.amplification - 0.5, `bucket ${bucket.amplification} < attempts ${none.amplification}`);
  assert.ok(bucket.blocked > 0, "the empty bucket fails requests fast");
});

test("the batch: the table's runs first, then the sweep point by point; results land in their places", () => {
  const nets = ["attempts", "bucket"] as const;
  const jobs = netsJobs(nets, { kind: "rate", failRate: 0.2 }, "shared", 1);
  assert.equal(jobs.length, nets.length * (1 + SWEEP_RATES.length));
  assert.deepEqual(
    jobs.slice(0, 2).map((j) => [j.net, j.p]),
    [
      ["attempts", null],
      ["bucket", null],
    ],
  );
  assert.deepEqual(
    jobs.slice(2, 4).map((j) => [j.net, j.p]),
    [
      ["attempts", 0],
      ["bucket", 0],
    ],
  );
  const t = emptySweep(nets);
  const m = { requests: 10, successes: 10, amplification: 1.25, budgetRejected: 0 };
  assert.equal(placeSweep(t, jobs[0]!, m), false, "a table job is not a sweep point");
  const job = jobs.find((j) => j.net === "bucket" && j.p === 0.25)!;
  assert.equal(placeSweep(t, job, m), true);
  assert.equal(t.series.get("bucket")?.[5], 1.25);
  assert.ok(Number.isNaN(t.series.get("attempts")?.[5] ?? 0), "points not run yet are NaN");
});

test("summaries count every kind of fast failure", () => {
  const s = summarize({ requests: 100, successes: 50, amplification: 1.5, budgetRejected: 10, breakerRejected: 5, throttled: 5 });
  assert.equal(s.success, 0.5);
  assert.equal(s.blocked, 0.2);
  assert.equal(summarize({ requests: 0, successes: 0, amplification: 0, budgetRejected: 0 }).success, 0);
});

test("each net's options as the page passes them hold the line the figure's note promises (package runs, shared)", () => {
  const at = (id: Parameters<typeof netRun>[0], p: number) => summarize(metrics(netRun(id, { kind: "rate", failRate: p }, "shared", 1)));
  // Brooker's ratio budget: at most 1.1 attempts per request (0.1 per call), whatever p.
  for (const p of [0.2, 0.5]) assert.ok(at("ratio", p).amplification <= 1.1 + 1e-9, `ratio at ${p}`);
  assert.ok(at("ratio", 0.5).amplification > 1.05, "and it does spend its allowance");
  // gRPC (10, 0.1): retries stop once failures pass about 9% of calls.
  assert.ok(at("grpc", 0.3).amplification < 1.02, "grpc at 0.3");
  // The breaker on retries at 10%: near 1.0 once p passes the threshold; first attempts all go.
  const breaker = at("breaker", 0.3);
  assert.ok(breaker.amplification >= 1 && breaker.amplification < 1.02, `breaker ${breaker.amplification}`);
  assert.ok(breaker.blocked > 0, "retries refused by the open breaker fail fast");
  // No net at p = 0: nothing to hold back.
  for (const id of NET_IDS) assert.equal(at(id, 0).amplification, 1, id);
});
