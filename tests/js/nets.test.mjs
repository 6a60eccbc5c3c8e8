// The safety nets' SimOptions (issue #12), against the built package: `budget.kind`,
// `breaker` and `throttle` reach the run, the two new metrics count apart and every
// request ends once, and bad values throw errors naming the field.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { stampede } from "./load.mjs";

const { Simulation, defaults, limits } = stampede;

/** The scenario at fail rate 0.3, one set of nets shared by all clients. */
const BASE = {
  scenario: "steady", clients: 100, ratePerClient: 10, durationMs: 10000, outageMs: 0,
  latencyMs: 20, latencyDist: "exponential", failRate: 0.3, workers: 0, serviceMs: 1,
  policy: { strategy: "none", baseMs: 0, capMs: 0, maxAttempts: 4 },
  budgetScope: "shared", logClients: 0, seed: 1,
};

function metrics(extra) {
  const sim = new Simulation({ ...BASE, ...extra });
  sim.run();
  const m = sim.metrics();
  sim.free();
  assert.equal(
    m.successes + m.gaveUp + m.budgetRejected + m.breakerRejected + m.throttled,
    m.requests,
    "every request ends once",
  );
  return m;
}

test("each net reaches the run and is counted apart", () => {
  const plain = metrics({});
  assert.equal(plain.breakerRejected, 0);
  assert.equal(plain.throttled, 0);
  assert.ok(plain.amplification > 1.35, String(plain.amplification));
  // Brooker's ratio budget: at most 1.1 attempts per request, exactly.
  const ratio = metrics({ budget: { kind: "ratio", ratio: 0.1, cap: 5, minPerSec: 0, windowMs: 60000 } });
  assert.ok(ratio.amplification <= 1.1 + 1e-9 && ratio.budgetRejected > 0, JSON.stringify(ratio));
  const grpc = metrics({ budget: { kind: "grpc", maxTokens: 10, tokenRatio: 0.1 } });
  assert.ok(grpc.amplification < 1.01, String(grpc.amplification));
  const aws = metrics({ budget: { kind: "aws", tokens: 500 }, failRate: 0.5 });
  assert.ok(aws.budgetRejected > 0);
  // Without `kind`, the bucket of old: the same run as kind "bucket".
  const a = metrics({ budget: { capacity: 50, refillPerSec: 20 } });
  const b = metrics({ budget: { kind: "bucket", capacity: 50, refillPerSec: 20 } });
  assert.deepEqual(a, b);
  const breaker = metrics({ breaker: { failureRatio: 0.1, mode: "retries" } });
  assert.ok(breaker.breakerRejected > 0 && breaker.amplification < 1.02, JSON.stringify(breaker));
  const throttled = metrics({ throttle: { k: 2, windowMs: 120000 }, failRate: 0.7 });
  assert.ok(throttled.throttled > 0.8 * throttled.requests, JSON.stringify(throttled));
});

test("bad nets options throw naming the field", () => {
  const cases = [
    [{ budget: { kind: "ratio", ratio: -1 } }, RangeError, "budget.ratio"],
    [{ budget: { kind: "ratio", windowMs: 0 } }, RangeError, "budget.windowMs"],
    [{ budget: { kind: "ratio", cap: "5" } }, TypeError, "budget.cap"],
    [{ budget: { kind: "grpc", maxTokens: 0 } }, RangeError, "budget.maxTokens"],
    [{ budget: { kind: "grpc", tokenRatio: NaN } }, RangeError, "budget.tokenRatio"],
    [{ budget: { kind: "aws", timeoutCost: -1 } }, RangeError, "budget.timeoutCost"],
    [{ budget: { kind: "leaky" } }, RangeError, "budget.kind"],
    [{ budget: { kind: 3 } }, TypeError, "budget.kind"],
    [{ breaker: { failureRatio: 2 } }, RangeError, "breaker.failureRatio"],
    [{ breaker: { samplingMs: 0 } }, RangeError, "breaker.samplingMs"],
    [{ breaker: { minThroughput: 2.5 } }, RangeError, "breaker.minThroughput"],
    [{ breaker: { breakMs: Infinity } }, RangeError, "breaker.breakMs"],
    [{ breaker: { mode: "some" } }, RangeError, "breaker.mode"],
    [{ breaker: 1 }, TypeError, "breaker"],
    [{ throttle: { k: 0.5 } }, RangeError, "throttle.k"],
    [{ throttle: { windowMs: -1 } }, RangeError, "throttle.windowMs"],
  ];
  for (const [opts, type, name] of cases) {
    assert.throws(() => new Simulation({ ...BASE, ...opts }), (e) => {
      assert.ok(e instanceof type, `${JSON.stringify(opts)}: ${e}`);
      assert.ok(String(e.message).includes(name), `${JSON.stringify(opts)}: ${e.message}`);
      return true;
    });
  }
  // The module lives on.
  assert.equal(metrics({}).breakerRejected, 0);
});

/** A golden run's four pinned numbers, natively, from crates/stampede/tests/golden/values.rs. */
function nativeGolden(name) {
  const src = readFileSync(new URL("../../crates/stampede/tests/golden/values.rs", import.meta.url), "utf8");
  const m = src.match(new RegExp(`${name}: \\[u64; \\d+\\] =\\s*\\[([^\\]]*)\\]`));
  assert.ok(m, `${name} not found in values.rs`);
  const bits = new BigUint64Array(m[1].split(",").filter((x) => x.trim()).map((x) => BigInt(x.trim())));
  return Array.from(new Float64Array(bits.buffer));
}

test("determinism: the golden nets run (the throttle's draws) gives the native bits in wasm", () => {
  // crates/stampede/tests/golden/values.rs, nets_settings(), through the JS options.
  const sim = new Simulation({
    scenario: "steady", clients: 50, ratePerClient: 10, durationMs: 5000, outageMs: 0, latencyMs: 20,
    latencyDist: "exponential", failRate: 0.6, workers: 0, serviceMs: 1,
    policy: { strategy: "none", baseMs: 0, capMs: 0, maxAttempts: 4 },
    budget: { kind: "ratio", ratio: 0.1, cap: 5, minPerSec: 0, windowMs: 60000 },
    breaker: { failureRatio: 0.5, minThroughput: 20, breakMs: 500, mode: "retries" },
    throttle: { k: 2 }, budgetScope: "client", seed: 9,
  });
  sim.run();
  const m = sim.metrics();
  sim.free();
  assert.ok(m.budgetRejected > 0 && m.breakerRejected > 0 && m.throttled > 0, "every net refuses something");
  assert.deepEqual([m.totalAttempts, m.successes, m.completionMs, m.p99Ms], nativeGolden("NETS_TOTAL_SUCCESS_COMPLETION_P99"));
});

test("defaults().nets: the sources' numbers, within their limits, and what omitted fields become", () => {
  const { nets } = defaults();
  assert.deepEqual(nets, {
    ratio: { kind: "ratio", ratio: 0.2, cap: null, minPerSec: 10, windowMs: 10000 },
    grpc: { kind: "grpc", maxTokens: 10, tokenRatio: 0.1 },
    aws: { kind: "aws", tokens: 500, retryCost: 5, timeoutCost: 10 },
    breaker: { failureRatio: 0.1, samplingMs: 30000, minThroughput: 100, breakMs: 5000, mode: "all" },
    throttle: { k: 2, windowMs: 120000 },
  });
  const l = limits();
  for (const [group, prefix] of [["ratio", "budget"], ["grpc", "budget"], ["aws", "budget"], ["breaker", "breaker"], ["throttle", "throttle"]]) {
    for (const [k, v] of Object.entries(nets[group])) {
      const lim = l[`${prefix}.${k}`];
      if (typeof v !== "number") continue;
      assert.ok(lim, `${prefix}.${k} has limits`);
      assert.ok(v >= lim.min && v <= lim.max, `${prefix}.${k} = ${v}`);
    }
  }
  // Omitted fields are the defaults: the same run either way.
  const same = (a, b) => assert.deepEqual(metrics(a), metrics(b));
  same({ budget: { kind: "grpc" } }, { budget: nets.grpc });
  same({ breaker: {} }, { breaker: nets.breaker });
  same({ throttle: {} }, { throttle: nets.throttle });
});

test("per-client nets count against the simulations alive: refused before the module's memory runs out", () => {
  // Each holds ~200 MB (a breaker, a throttle and a quota for each of 226,000 clients, and
  // every client's attempts logged) but only 226,000 pending events: uncounted, the twentieth
  // constructor trapped (`RuntimeError: unreachable`) with the module's 4 GB full.
  const heavy = {
    clients: 226_000, budgetScope: "client", breaker: { minThroughput: 1 }, throttle: {},
    budget: { kind: "aws" }, logClients: 226_000, policy: { maxAttempts: 17 }, outageMs: 600_000,
  };
  const alive = [];
  let refused;
  try {
    for (let i = 0; i < 20 && !refused; i++) {
      try {
        const sim = new Simulation({ ...heavy, seed: i + 1 });
        alive.push(sim);
        sim.run();
      } catch (e) {
        refused = e;
      }
    }
    assert.ok(refused instanceof RangeError, String(refused));
    assert.equal(refused.field, "clients");
    assert.equal(refused.code, "too_much_work");
    assert.match(refused.message, /beside the other simulations alive .*free\(\)/);
    assert.ok(alive.length <= 8, `refused only after ${alive.length} alive`);
  } finally {
    for (const sim of alive) sim.free();
  }
  // Freed, the same settings run again, and the module lives on.
  const again = new Simulation(heavy);
  again.run();
  assert.equal(again.metrics().requests, 226_000);
  again.free();
});
