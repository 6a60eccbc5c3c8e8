import { test } from "node:test";
import assert from "node:assert/strict";
import { BALANCES, BUDGET_SCOPES, DEFAULT_STATE, LATENCY_DISTS, QUEUE_ORDERS, SERVICE_DISTS, SCENARIOS, STRATEGIES, cloneState } from "../../www/src/logic/state.js";
import { MAIN_THREAD_WORK, outageWindow, simOptions, workEstimate } from "../../www/src/logic/run.js";
import { PRESETS, presetById } from "../../www/src/logic/presets.js";
import { pkg } from "./package.js";

test("burst options carry the outage, capacity, servers and policy (the core's defaults)", () => {
  const o = simOptions(DEFAULT_STATE, "a");
  assert.deepEqual(o, {
    scenario: "burst",
    clients: 1000,
    policy: { strategy: "exponential", baseMs: 2000, capMs: 30_000, maxAttempts: 6, multiplier: 2 },
    seed: 1,
    outageMs: 2000,
    capacityRps: 500,
    retryAfterMs: null,
    // Sized by the capacity: no workers or queue; no timeout, queue timeout or slowdown.
    servers: 1,
    balance: "round-robin",
    queueOrder: "fifo",
    serviceMs: 10,
    serviceDist: "constant",
    serviceSlopeMs: 0,
    failRate: 0,
    latencyMs: 10,
    latencyDist: "normal",
  });
});

test("side B uses policy B on the same scenario and seed", () => {
  const a = simOptions(DEFAULT_STATE, "a");
  const b = simOptions(DEFAULT_STATE, "b");
  assert.equal(b.policy.strategy, "full");
  assert.equal(b.seed, a.seed);
  assert.equal(b.clients, a.clients);
  assert.equal(b.outageMs, a.outageMs);
});

test("steady adds its traffic; Retry-After 0 means none; the budget goes with its policy", () => {
  const s = cloneState(DEFAULT_STATE);
  s.scenario = "steady";
  s.retryAfterMs = 2000;
  s.a.budget = true;
  const o = simOptions(s, "a");
  assert.equal(o.retryAfterMs, 2000);
  assert.equal(o.ratePerClient, 1);
  assert.equal(o.durationMs, 120_000);
  assert.equal(o.outageStartMs, 10_000);
  assert.deepEqual(o.budget, { capacity: 100, refillPerSec: 100 });
  assert.equal(o.budgetScope, "shared");
  assert.equal(simOptions(s, "b").budget, undefined);
});

test("aws-occ leaves out what it ignores", () => {
  const o = simOptions(presetById("aws")?.state ?? DEFAULT_STATE, "a");
  assert.equal(o.scenario, "aws-occ");
  assert.equal(o.outageMs, undefined);
  assert.equal(o.capacityRps, undefined);
  assert.equal(o.policy.baseMs, 5);
  assert.equal(o.policy.capMs, 2000);
  assert.equal(o.clients, 100);
});

test("outage windows", () => {
  assert.deepEqual(outageWindow(DEFAULT_STATE), [0, 2000]);
  const storm = presetById("storm")?.state;
  assert.ok(storm);
  assert.deepEqual(outageWindow(storm), [10_000, 40_000]);
  assert.equal(outageWindow(presetById("aws")?.state ?? DEFAULT_STATE), null);
});

test("big runs go to the worker, 10,000-client bursts stay on the main thread", () => {
  const s = cloneState(DEFAULT_STATE);
  s.clients = 10_000;
  assert.ok(workEstimate(simOptions(s, "a")) <= MAIN_THREAD_WORK);
  s.clients = 100_000;
  assert.ok(workEstimate(simOptions(s, "a")) > MAIN_THREAD_WORK);
  const storm = presetById("storm")?.state;
  assert.ok(storm && workEstimate(simOptions(storm, "a")) > MAIN_THREAD_WORK);
  // A closed loop whose requests fail at once (an outage as long as the run, no pause)
  // cycles in a round trip, not think + round trip + service: 300 clients for 300 s ran
  // 778 ms on the main thread when the service time (5 s) counted.
  const closed = cloneState(DEFAULT_STATE);
  Object.assign(closed, { scenario: "closed", thinkMs: 0, serviceMs: 5000, outageStartMs: 0, outageMs: 600_000, clients: 300, durationMs: 300_000 });
  closed.a = { ...closed.a, strategy: "none", maxAttempts: 1 };
  assert.ok(workEstimate(simOptions(closed, "a")) > MAIN_THREAD_WORK);
  // A budget can refuse a request at once: without a pause, nothing bounds the loop's pace.
  closed.a = { ...closed.a, budget: true };
  closed.clients = 10;
  closed.durationMs = 10_000;
  assert.ok(workEstimate(simOptions(closed, "a")) > MAIN_THREAD_WORK);
});

test("presets: unique ids, pinned seeds, the storm's known-good numbers", () => {
  assert.equal(new Set(PRESETS.map((p) => p.id)).size, PRESETS.length);
  for (const p of PRESETS) assert.ok(Number.isInteger(p.state.seed), p.id);
  const storm = presetById("storm")?.state;
  const budget = presetById("budget")?.state;
  assert.ok(storm && budget);
  assert.equal(storm.clients, 1000);
  assert.equal(storm.ratePerClient, 1);
  assert.equal(storm.durationMs, 120_000);
  assert.equal(storm.outageMs, 30_000);
  assert.equal(storm.outageStartMs, 10_000);
  assert.equal(storm.capacityRps, 1250);
  assert.deepEqual([storm.a.strategy, storm.a.baseMs, storm.a.capMs, storm.a.maxAttempts, storm.a.budget], ["exponential", 1000, 30_000, 6, false]);
  assert.equal(budget.a.budget, true);
  assert.deepEqual([budget.budgetCapacity, budget.budgetRefill, budget.budgetScope], [100, 100, "shared"]);
  const herd = presetById("herd")?.state;
  assert.deepEqual([herd?.clients, herd?.a.baseMs, herd?.outageMs, herd?.a.strategy], [1000, 2000, 2000, "exponential"]);
  assert.equal(presetById("jitter")?.state.a.strategy, "full");
});

test("the page's menus list exactly the package's strategies, scenarios, budget scopes and server choices", () => {
  assert.deepEqual([...STRATEGIES].sort(), [...pkg.strategies()].sort());
  assert.deepEqual([...SCENARIOS].sort(), [...pkg.scenarios()].sort());
  const choices = pkg.choices();
  assert.deepEqual([...BUDGET_SCOPES].sort(), [...choices.budgetScope].sort());
  assert.deepEqual([...BALANCES].sort(), [...choices.balance].sort());
  assert.deepEqual([...QUEUE_ORDERS].sort(), [...choices.queueOrder].sort());
  assert.deepEqual([...SERVICE_DISTS].sort(), [...choices.serviceDist].sort());
  assert.deepEqual([...LATENCY_DISTS].sort(), [...choices.latencyDist].sort());
  // Each strategy is one the package builds a policy from.
  for (const strategy of STRATEGIES) assert.doesNotThrow(() => new pkg.RetryPolicy({ strategy }).free(), strategy);
  for (const budgetScope of BUDGET_SCOPES) {
    const o = { ...simOptions(DEFAULT_STATE, "a"), budget: { capacity: 1, refillPerSec: 1 }, budgetScope };
    assert.doesNotThrow(() => new pkg.Simulation(o).free(), budgetScope);
  }
});

test("the first picture is the core's default simulation; the page's own choices are only where it tells more", () => {
  const d = pkg.defaults();
  const sim = d.simulation;
  const s = DEFAULT_STATE;
  assert.equal(s.scenario, sim["scenario"]);
  assert.equal(s.clients, sim["clients"]);
  assert.equal(s.outageMs, sim["outageMs"]);
  assert.equal(s.capacityRps, sim["capacityRps"]);
  assert.equal(s.ratePerClient, sim["ratePerClient"]);
  assert.equal(s.seed, sim["seed"]);
  // retryAfterMs 0 is the page's "none"; the core's default sends none.
  assert.equal(s.retryAfterMs === 0 ? null : s.retryAfterMs, sim["retryAfterMs"] ?? null);
  // Policy A: the burst scenario's own backoff (the article's herd), the core's attempts and multiplier.
  const burst = sim.scenarioBackoff["burst"];
  assert.deepEqual([s.a.baseMs, s.a.capMs], [burst?.baseMs, burst?.capMs]);
  assert.equal(s.a.maxAttempts, d.policy["maxAttempts"]);
  assert.equal(s.a.multiplier, d.policy["multiplier"]);
  // Policy B: the core's recommended strategy.
  assert.equal(s.b.strategy, d.policy["strategy"]);
  // The AWS preset runs the experiment's backoff, which is the aws-occ scenario's default.
  const aws = presetById("aws")?.state;
  const occ = sim.scenarioBackoff["aws-occ"];
  assert.ok(aws && occ);
  assert.deepEqual([aws.a.baseMs, aws.a.capMs], [occ.baseMs, occ.capMs]);
});

test("the page's build-time copy of the core's settings is the package's own (not stale)", async () => {
  const core = await import("../../www/src/generated/core.js");
  assert.deepEqual(core.CORE_DEFAULTS, pkg.defaults());
  assert.deepEqual(core.CORE_LIMITS, pkg.limits());
  assert.deepEqual(core.CORE_STRATEGIES, pkg.strategies());
  assert.deepEqual(core.CORE_SCENARIOS, pkg.scenarios());
});
