// The queueing model's options on Simulation, against the built package: each option read
// and reflected, bad values throwing errors that name the field, hostile values (NaN,
// strings, huge numbers, getters and traps that throw) never killing the module, series
// views that add up to the metrics, and the golden queueing run giving the native bits.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { stampede, wasm } from "./load.mjs";

const { Simulation, defaults, limits, choices, scenarios } = stampede;

const sum = (a) => a.reduce((x, y) => x + y, 0);

/** A small steady run on the queueing model: fast enough to run many of. */
const SMALL = { scenario: "steady", clients: 100, ratePerClient: 2, durationMs: 3000, outageMs: 0, seed: 5 };

function run(opts) {
  const sim = new Simulation(opts);
  sim.run();
  const m = sim.metrics();
  return { sim, m };
}

/** The module still answers: a fresh run gives its usual numbers. */
function alive() {
  const { sim, m } = run({ clients: 50, seed: 1 });
  assert.equal(m.requests, 50);
  sim.free();
}

test("fleet(): capacity follows from servers, workers and service time; else workers from capacityRps", () => {
  const given = new Simulation({ servers: 2, workers: 5, serviceMs: 100, queue: 1000 });
  assert.deepEqual(given.fleet(), { servers: 2, workers: 5, serviceMs: 100, queue: 1000, capacityRps: 100 });
  // The queue, when not given, is 100 ms of a server's capacity (50/s each here: 5).
  assert.equal(new Simulation({ servers: 2, workers: 5, serviceMs: 100 }).fleet().queue, 5);
  // Workers derived from capacityRps at the default service time (the core's rule): 500/s of
  // 10 ms is 5 workers; 1000/s over 4 servers is 250/s each, 2.5 workers rounded to 3 with the
  // service time stretched so the fleet serves exactly 1000/s.
  const d = defaults().simulation;
  const derived = new Simulation({}).fleet();
  assert.deepEqual(derived, { servers: 1, workers: 5, serviceMs: d.serviceMs, queue: 50, capacityRps: d.capacityRps });
  const four = new Simulation({ servers: 4, capacityRps: 1000 }).fleet();
  assert.equal(four.workers, 3);
  assert.ok(Math.abs(four.capacityRps - 1000) < 1e-9, `${four.capacityRps}`);
  assert.ok(Math.abs(four.serviceMs - 12) < 1e-9, `${four.serviceMs}`);
  // Unlimited workers: infinite capacity.
  const unlimited = new Simulation({ workers: 0, serviceMs: 1000 }).fleet();
  assert.equal(unlimited.workers, 0);
  assert.equal(unlimited.capacityRps, Infinity);
  // null is absent: the derived value.
  assert.deepEqual(new Simulation({ workers: null, queue: null }).fleet(), derived);
});

test("defaults(), limits(), choices(): the new settings, from the core", () => {
  const d = defaults().simulation;
  for (const [k, v] of Object.entries({ servers: 1, balance: "round-robin", workers: null, queue: null, queueOrder: "fifo", queueTimeoutMs: null,
    serviceDist: "constant", serviceSlopeMs: 0, failRate: 0, outageServers: null, slowdown: null, timeoutMs: null, latencyDist: "normal" })) {
    assert.deepEqual(d[k], v, k);
  }
  for (const k of ["serviceMs", "serviceSpread", "spikeStartMs", "spikeLengthMs", "spikeFactor", "thinkMs"]) {
    assert.equal(typeof d[k], "number", k);
  }
  const l = limits();
  assert.deepEqual(l.failRate, { min: 0, max: 1, unit: "fraction", whole: false });
  assert.equal(l.timeoutMs.unit, "ms");
  assert.equal(l.serviceMs.minExclusive, true);
  assert.equal(l.workers.whole, true);
  // A slowdown's parts are listed only under their prefix: alone they are no option.
  for (const k of ["startMs", "lengthMs", "factor"]) {
    assert.ok(`slowdown.${k}` in l, k);
    assert.ok(!(k in l), k);
  }
  assert.deepEqual(choices(), {
    strategy: ["none", "constant", "exponential", "full", "equal", "decorrelated", "decorrelated-v2"],
    scenario: scenarios(),
    budgetScope: ["client", "shared"],
    balance: ["round-robin", "random", "least-loaded"],
    queueOrder: ["fifo", "lifo"],
    serviceDist: ["constant", "exponential", "lognormal"],
    latencyDist: ["normal", "exponential"],
    retryAt: ["every", "top"],
  });
  assert.deepEqual(scenarios(), ["burst", "steady", "aws-occ", "spike", "closed"]);
});

test("every new option is read: a value of the wrong type is a TypeError naming it", () => {
  const options = ["servers", "balance", "workers", "queue", "queueOrder", "queueTimeoutMs", "serviceMs", "serviceDist", "serviceSpread",
    "serviceSlopeMs", "failRate", "outageServers", "slowdown", "timeoutMs", "latencyDist", "spikeStartMs", "spikeLengthMs", "spikeFactor", "thinkMs"];
  const scenario = (k) => (k.startsWith("spike") ? "spike" : k === "thinkMs" ? "closed" : "steady");
  const names = new Set(Object.keys(choices()));
  for (const k of options) {
    // A number where a name goes, a string where a number (or an object) goes.
    const bad = names.has(k) ? 3 : "3";
    assert.throws(() => new Simulation({ scenario: scenario(k), [k]: bad }),
      (e) => e instanceof TypeError && e.field === k && e.code === "wrong_type" && e.got === bad && e.message.startsWith(`${k}: expected `), k);
  }
  alive();
});

test("bad values: RangeError (or TypeError for a wrong type) naming the field, nested ones prefixed", () => {
  const range = (field, code, extra = {}) => (e) => e instanceof RangeError && e.field === field && e.code === code
    && e.message.startsWith(`${field}: expected `) && Object.entries(extra).every(([k, v]) => Object.is(e[k], v));
  const cases = [
    [{ servers: 0 }, range("servers", "out_of_range", { min: 1 })],
    [{ servers: 2.5 }, range("servers", "not_whole")],
    [{ workers: -1 }, range("workers", "out_of_range")],
    [{ workers: 1e12 }, range("workers", "out_of_range", { got: 1e12 })],
    [{ queue: 2 ** 32 }, range("queue", "out_of_range")],
    [{ queueTimeoutMs: -5 }, range("queueTimeoutMs", "out_of_range", { unit: "ms" })],
    [{ serviceMs: 0 }, range("serviceMs", "out_of_range", { min: 0 })],
    [{ serviceSpread: 4 }, range("serviceSpread", "out_of_range", { max: 3 })],
    [{ serviceSlopeMs: NaN }, range("serviceSlopeMs", "not_a_number")],
    [{ failRate: 1.5 }, range("failRate", "out_of_range", { min: 0, max: 1, unit: "fraction" })],
    [{ failRate: -0.1 }, range("failRate", "out_of_range")],
    // No more servers down than there are: the bound is the servers given.
    [{ servers: 2, outageServers: 3 }, range("outageServers", "out_of_range", { min: 0, max: 2, got: 3 })],
    [{ timeoutMs: 0 }, range("timeoutMs", "out_of_range")],
    [{ timeoutMs: Infinity }, range("timeoutMs", "out_of_range")],
    [{ balance: "fastest" }, range("balance", "unknown_value", { got: "fastest" })],
    [{ queueOrder: "random" }, range("queueOrder", "unknown_value")],
    [{ serviceDist: "pareto" }, range("serviceDist", "unknown_value")],
    [{ latencyDist: "uniform" }, range("latencyDist", "unknown_value")],
    [{ scenario: "spike", spikeFactor: -1 }, range("spikeFactor", "out_of_range")],
    [{ scenario: "spike", spikeLengthMs: NaN }, range("spikeLengthMs", "not_a_number")],
    [{ scenario: "closed", thinkMs: -1 }, range("thinkMs", "out_of_range")],
    [{ slowdown: { startMs: 0, lengthMs: 1000, factor: 0.5 } }, range("slowdown.factor", "out_of_range", { min: 1, max: 1000 })],
    [{ slowdown: { startMs: -1, lengthMs: 1000, factor: 2 } }, range("slowdown.startMs", "out_of_range")],
    [{ slowdown: { startMs: 0, lengthMs: NaN, factor: 2 } }, range("slowdown.lengthMs", "not_a_number")],
  ];
  for (const [opts, check] of cases) {
    assert.throws(() => new Simulation(opts), check, JSON.stringify(opts));
  }
  // The allowed names come from the core.
  assert.throws(() => new Simulation({ balance: "fastest" }), (e) => JSON.stringify(e.allowed) === JSON.stringify(choices().balance)
    && e.message === `balance: expected one of ${choices().balance.join(", ")}, got "fastest"`);
  // A slowdown is an object with all three parts, or null/absent.
  const type = (field) => (e) => e instanceof TypeError && e.field === field && e.code === "wrong_type" && e.message.startsWith(`${field}: expected `);
  assert.throws(() => new Simulation({ slowdown: 5 }), type("slowdown"));
  assert.throws(() => new Simulation({ slowdown: "0:1000:2" }), type("slowdown"));
  assert.throws(() => new Simulation({ slowdown: { startMs: 0, lengthMs: 1000 } }), (e) => type("slowdown.factor")(e) && /got undefined$/.test(e.message));
  assert.throws(() => new Simulation({ slowdown: { startMs: "0", lengthMs: 1000, factor: 2 } }), type("slowdown.startMs"));
  assert.doesNotThrow(() => new Simulation({ slowdown: null }).free());
  assert.doesNotThrow(() => new Simulation({ slowdown: { startMs: 0, lengthMs: 1000, factor: 2 } }).free());
  // Names are read as the core reads them: trimmed, any case.
  assert.doesNotThrow(() => new Simulation({ queueOrder: " LIFO ", balance: "Least-Loaded" }).free());
  alive();
});

test("hostile values never kill the module", () => {
  const boom = new Error("boom");
  const named = (field) => (e) => e instanceof TypeError && e.message === `${field}: threw an exception: boom` && e.cause === boom;
  const keys = ["servers", "balance", "workers", "queue", "queueOrder", "queueTimeoutMs", "serviceMs", "serviceDist", "serviceSpread",
    "serviceSlopeMs", "failRate", "outageServers", "slowdown", "timeoutMs", "latencyDist", "spikeStartMs", "spikeLengthMs", "spikeFactor", "thinkMs"];
  const values = [NaN, -Infinity, Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** 53, -0, "", "x".repeat(100_000), {}, [], [1], true, Symbol("s"), 10n, () => 1];
  for (const k of keys) {
    for (const v of values) {
      let sim;
      try {
        sim = new Simulation({ scenario: "steady", clients: 10, durationMs: 1000, [k]: v });
      } catch (e) {
        assert.ok(e instanceof RangeError || e instanceof TypeError, `${k} = ${String(v).slice(0, 20)}: ${e}`);
        assert.ok(e.field === k || e.field.startsWith(`${k}.`), `${k}: ${e.field}`);
        continue;
      }
      // Accepted (-0, say): it runs.
      sim.run();
      assert.equal(sim.isDone(), true, k);
      sim.free();
    }
    // A getter that throws: a TypeError naming the field (the caller's exception as its
    // cause), and nothing is left half-made.
    assert.throws(() => new Simulation({ get [k]() { throw boom; } }), named(k), k);
  }
  const slowdownGetter = { startMs: 0, lengthMs: 1000, get factor() { throw boom; } };
  assert.throws(() => new Simulation({ slowdown: slowdownGetter }), named("slowdown.factor"));
  const trap = new Proxy({}, { get() { throw boom; } });
  assert.throws(() => new Simulation({ slowdown: trap }), (e) => e instanceof TypeError && /^slowdown\.\w+: threw an exception: boom$/.test(e.message) && e.cause === boom);
  assert.throws(() => new Simulation(trap), (e) => e instanceof TypeError && /^\w+: threw an exception: boom$/.test(e.message) && e.cause === boom);
  alive();
});

test("the largest fleets the limits allow are made and run, or refused with an error", () => {
  const l = limits();
  const big = [
    { servers: l.servers.max, workers: l.workers.max },
    { servers: l.servers.max, workers: 1, queue: l.queue.max },
    { servers: l.servers.max, capacityRps: l.capacityRps.max },
    { workers: 0, serviceMs: l.serviceMs.max, timeoutMs: 1 },
  ];
  for (const opts of big) {
    let sim;
    try {
      sim = new Simulation({ ...SMALL, clients: 10, ...opts });
    } catch (e) {
      assert.ok(e instanceof RangeError, `${JSON.stringify(opts)}: ${e}`);
      continue;
    }
    sim.advanceTo(2000);
    sim.free();
  }
  alive();
});

// ---- On the engine: what the options do, the views against the metrics, the golden run ----

/** A run with every path of the queueing model: two servers (one crashes), a queue, a fail
 *  rate, timeouts with late answers, a slowdown. */
const BUSY = { scenario: "steady", clients: 400, ratePerClient: 0.5, durationMs: 10_000, servers: 2, workers: 3, serviceMs: 20,
  serviceDist: "exponential", queue: 20, timeoutMs: 150, latencyMs: 10, latencyDist: "exponential", failRate: 0.05,
  outageStartMs: 3000, outageMs: 1000, outageServers: 1, slowdown: { startMs: 6000, lengthMs: 1000, factor: 3 },
  policy: { strategy: "full", baseMs: 20, capMs: 500, maxAttempts: 4 }, seed: 21 };

test("the views add up to the metrics: goodput to successes, timedOut to timeouts, wasted to wasted", () => {
  const { sim, m } = run(BUSY);
  assert.ok(m.timeouts > 0 && m.wasted > 0 && m.maxQueue > 0 && m.successes > m.requests / 2, JSON.stringify(m));
  const views = { offered: sim.offered(), served: sim.served(), rejected: sim.rejected(), failed: sim.failed(), blocked: sim.blocked(),
    goodput: sim.goodput(), timedOut: sim.timedOut(), wasted: sim.wasted(), queued: sim.queued() };
  for (const [name, v] of Object.entries(views)) {
    assert.ok(v instanceof Uint32Array && v.buffer === wasm.memory.buffer, `${name}: a view over wasm memory`);
    assert.equal(v.length, views.offered.length, `${name}: one value per slot`);
  }
  assert.equal(sum(views.goodput), m.successes);
  assert.equal(sum(views.timedOut), m.timeouts);
  assert.equal(sum(views.wasted), m.wasted);
  assert.equal(sum(views.offered), m.totalAttempts);
  assert.equal(sum(views.blocked), m.budgetRejected);
  assert.ok(Math.max(...views.queued) <= m.maxQueue, "the slots' ends never exceed the peak");
  // Every attempt that reached a server ended there once: served (in time or not), rejected
  // (a full queue), or failed (the outage, the fail rate).
  assert.equal(sum(views.served) + sum(views.rejected) + sum(views.failed), m.totalAttempts);
  // Wasted work is work the servers did: part of the throughput.
  assert.ok(sum(views.wasted) <= sum(views.served));
  // Rates per second of one span: to the last answer (completionMs), or later, to the
  // servers' last finish when they worked on for clients that had left.
  const s = sum(views.served) / m.throughputRps;
  assert.ok(s >= (m.completionMs / 1000) * (1 - 1e-9), `span ${s} s ends before the last answer (${m.completionMs} ms)`);
  assert.ok(Math.abs(m.goodputRps - m.successes / s) < 1e-6 * m.goodputRps, `${m.goodputRps} vs ${m.successes / s}`);
  // Every request ends once.
  assert.equal(m.successes + m.gaveUp + m.budgetRejected, m.requests);
  sim.free();
});

test("timeoutMs: a timeout shorter than any answer times every attempt out, and the servers still do the work", () => {
  const { m } = run({ ...SMALL, workers: 0, serviceMs: 100, latencyMs: 0, timeoutMs: 50, policy: { strategy: "none", maxAttempts: 3 } });
  assert.equal(m.successes, 0);
  assert.equal(m.timeouts, m.totalAttempts);
  assert.equal(m.totalAttempts, 3 * m.requests, "each timeout retried, as a transport error");
  assert.equal(m.wasted, m.totalAttempts, "every answer came after its client had gone");
  assert.equal(m.goodputRps, 0);
  assert.ok(m.throughputRps > 0);
});

test("failRate p with 4 immediate attempts: amplification 1 + p + p² + p³, success 1 − p⁴", () => {
  const p = 0.3;
  // 20,000 requests on ample capacity: the amplification's standard error is about 0.006.
  const { m } = run({ scenario: "steady", clients: 1000, ratePerClient: 1, durationMs: 20_000, outageMs: 0, workers: 0, failRate: p,
    policy: { strategy: "none", maxAttempts: 4 }, seed: 8 });
  const amp = 1 + p + p ** 2 + p ** 3;
  assert.ok(Math.abs(m.amplification - amp) < 0.03, `${m.amplification} vs ${amp}`);
  assert.ok(Math.abs(m.successes / m.requests - (1 - p ** 4)) < 0.005, `${m.successes / m.requests}`);
});

test("each new option changes the run it is given to", () => {
  const base = { ...BUSY, outageServers: null, slowdown: null };
  const key = (m) => JSON.stringify(m);
  const at = key(run(base).m);
  const variants = {
    servers: 3, balance: "least-loaded", workers: 4, queue: 5, queueOrder: "lifo", queueTimeoutMs: 10, serviceMs: 25,
    serviceDist: "lognormal", serviceSlopeMs: 5, failRate: 0.2, outageServers: 1, slowdown: { startMs: 2000, lengthMs: 2000, factor: 5 },
    timeoutMs: 40, latencyDist: "normal",
  };
  for (const [k, v] of Object.entries(variants)) {
    assert.notEqual(key(run({ ...base, [k]: v }).m), at, k);
  }
  assert.notEqual(key(run({ ...base, serviceDist: "lognormal", serviceSpread: 2 }).m), key(run({ ...base, serviceDist: "lognormal" }).m), "serviceSpread");
  // Spike: the offered load during the spike is about spikeFactor times the load before it.
  const spike = new Simulation({ scenario: "spike", clients: 1000, ratePerClient: 0.1, durationMs: 6000, spikeStartMs: 2000, spikeLengthMs: 2000,
    spikeFactor: 4, outageMs: 0, workers: 0, slotMs: 1000, seed: 4 });
  spike.run();
  const o = spike.offered();
  const before = o[0] + o[1];
  const during = o[2] + o[3];
  assert.ok(during > 3 * before && during < 5 * before, `${before} then ${during}`);
  // Closed loop: each client has one request at a time, so requests ≈ clients × duration / cycle.
  const closed = (thinkMs) => run({ scenario: "closed", clients: 100, durationMs: 10_000, thinkMs, outageMs: 0, seed: 4 }).m.requests;
  assert.ok(closed(100) > 3 * closed(1000), `${closed(100)} vs ${closed(1000)}`);
});

/** A golden run's four pinned numbers, natively, from crates/stampede/tests/golden/values.rs. */
function nativeGolden(name) {
  const src = readFileSync(new URL("../../crates/stampede/tests/golden/values.rs", import.meta.url), "utf8");
  const m = src.match(new RegExp(`${name}: \\[u64; \\d+\\] =\\s*\\[([^\\]]*)\\]`));
  assert.ok(m, `${name} not found in values.rs`);
  const bits = new BigUint64Array(m[1].split(",").filter((x) => x.trim()).map((x) => BigInt(x.trim())));
  return Array.from(new Float64Array(bits.buffer));
}

test("determinism: the golden queueing run (timeouts, late answers) gives the native bits in wasm", () => {
  // crates/stampede/tests/golden/values.rs, queue_settings(), through the JS options.
  const opts = { scenario: "spike", clients: 200, ratePerClient: 0.5, durationMs: 6000, spikeStartMs: 2000, spikeLengthMs: 1000, spikeFactor: 4,
    outageMs: 0, servers: 3, balance: "random", workers: 2, queue: 20, queueOrder: "lifo", serviceMs: 30, serviceDist: "lognormal",
    serviceSpread: 0.8, serviceSlopeMs: 2, slowdown: { startMs: 4000, lengthMs: 500, factor: 3 }, failRate: 0.02, latencyMs: 20,
    latencyDist: "exponential", timeoutMs: 400, policy: { strategy: "full", baseMs: 50, capMs: 1000, maxAttempts: 4 }, seed: 5 };
  const { m } = run(opts);
  assert.ok(m.timeouts > 0 && m.wasted > 0, "the run exercises timeouts and late answers");
  assert.deepEqual([m.totalAttempts, m.successes, m.completionMs, m.p99Ms], nativeGolden("QUEUE_TOTAL_SUCCESS_COMPLETION_P99"));
  // And again: the same seed, the same bits, within one module too.
  assert.deepEqual(run(opts).m, m);
});
