// The queueing model on the page: the Server group's state and its package options (what
// "0: none" leaves out, what the sizing sends), the fleet the core sized coming back into
// the form, the new links' keys, the goodput figure's rebinning, and the story presets run
// through the real package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ADVANCED_FIELDS, SERVER_FIELDS, fieldById, parseField, steadyRequests, visibleFor } from "../../www/src/logic/fields.js";
import { localizeError, locateError, errorData } from "../../www/src/logic/errors.js";
import { PRESETS, presetById } from "../../www/src/logic/presets.js";
import { meanRateAfter, newGoodputBuffers, rebinGoodput } from "../../www/src/logic/rates.js";
import { rebinLevel, smoothBinMs } from "../../www/src/logic/series.js";
import { DEFAULT_STATE, cloneState, type State } from "../../www/src/logic/state.js";
import { adoptFleet, fleetCapacity, outageWindow, simOptions, triggerEnd, workEstimate } from "../../www/src/logic/run.js";
import { decodeState, encodeState } from "../../www/src/logic/url.js";
import { pkg } from "./package.js";

function story(id: string): State {
  const p = presetById(id);
  assert.ok(p, id);
  return p.state;
}

test("the Server group's hooks are typed number fields with sliders", () => {
  for (const id of ["servers", "workers", "queue", "service", "timeout", "fail-rate"]) {
    const f = fieldById(id);
    assert.ok(f, id);
    assert.ok([...SERVER_FIELDS, ...ADVANCED_FIELDS].includes(f), `${id} is in the Server group`);
  }
  // Only what most pictures need is in view; the rest is folded.
  assert.deepEqual(
    SERVER_FIELDS.map((f) => f.id),
    ["servers", "workers", "queue", "service", "timeout"],
  );
});

test("sized by the capacity, the core picks the workers and queue; sized by the workers, the capacity is not sent", () => {
  const s = cloneState(DEFAULT_STATE);
  assert.equal(s.sizing, "capacity");
  s.workers = 7;
  s.queue = 70;
  let o = simOptions(s, "a");
  assert.equal(o.capacityRps, s.capacityRps);
  assert.equal(o.workers, undefined);
  assert.equal(o.queue, undefined);
  s.sizing = "workers";
  o = simOptions(s, "a");
  assert.equal(o.capacityRps, undefined);
  assert.equal(o.workers, 7);
  assert.equal(o.queue, 70);
  // Unlimited workers are 0, sent as such.
  s.workers = 0;
  assert.equal(simOptions(s, "a").workers, 0);
});

test("a 0 that means none is left out; anything else is sent as it is", () => {
  const s = cloneState(DEFAULT_STATE);
  s.scenario = "steady";
  let o = simOptions(s, "a");
  for (const k of ["timeoutMs", "queueTimeoutMs", "outageServers", "slowdown", "serviceSpread"] as const) assert.equal(o[k], undefined, k);
  s.timeoutMs = 3000;
  s.queueTimeoutMs = 500;
  s.outageServers = 1;
  s.slowdownStartMs = 5000;
  s.slowdownLengthMs = 2000;
  s.slowdownFactor = 4;
  s.serviceDist = "lognormal";
  s.serviceSpread = 1.5;
  s.failRate = 0.1;
  s.queueOrder = "lifo";
  s.balance = "least-loaded";
  s.latencyDist = "exponential";
  o = simOptions(s, "a");
  assert.equal(o.timeoutMs, 3000);
  assert.equal(o.queueTimeoutMs, 500);
  assert.equal(o.outageServers, 1);
  assert.deepEqual(o.slowdown, { startMs: 5000, lengthMs: 2000, factor: 4 });
  assert.equal(o.serviceSpread, 1.5);
  assert.deepEqual([o.failRate, o.queueOrder, o.balance, o.latencyDist], [0.1, "lifo", "least-loaded", "exponential"]);
  // A bad value is the package's to judge: the page passes a negative timeout on.
  s.timeoutMs = -5;
  assert.equal(simOptions(s, "a").timeoutMs, -5);
});

test("spike and closed carry their own settings; aws-occ has no server", () => {
  const s = cloneState(DEFAULT_STATE);
  s.scenario = "spike";
  let o = simOptions(s, "a");
  assert.deepEqual([o.spikeStartMs, o.spikeLengthMs, o.spikeFactor], [s.spikeStartMs, s.spikeLengthMs, s.spikeFactor]);
  assert.equal(o.ratePerClient, s.ratePerClient);
  assert.equal(o.thinkMs, undefined);
  s.scenario = "closed";
  o = simOptions(s, "a");
  assert.equal(o.thinkMs, s.thinkMs);
  assert.equal(o.ratePerClient, undefined);
  assert.equal(o.spikeFactor, undefined);
  assert.equal(o.durationMs, s.durationMs);
  s.scenario = "aws-occ";
  o = simOptions(s, "a");
  for (const k of ["servers", "serviceMs", "timeoutMs", "latencyMs", "workers"] as const) assert.equal(o[k], undefined, k);
  // Fields show for the scenarios that use them; the spread only for lognormal times.
  const think = fieldById("think");
  const spike = fieldById("spike-factor");
  const spread = fieldById("service-spread");
  const servers = fieldById("servers");
  assert.ok(think && spike && spread && servers);
  assert.ok(visibleFor(think, "closed") && !visibleFor(think, "steady"));
  assert.ok(visibleFor(spike, "spike") && !visibleFor(spike, "closed"));
  assert.ok(!visibleFor(servers, "aws-occ") && visibleFor(servers, "closed"));
  const lognormal = { ...cloneState(DEFAULT_STATE), serviceDist: "lognormal" as const };
  assert.ok(visibleFor(spread, "burst", lognormal) && !visibleFor(spread, "burst", DEFAULT_STATE));
});

test("what the core sized comes back into the state: the workers and queue, or the capacity", () => {
  const s = cloneState(DEFAULT_STATE);
  assert.equal(adoptFleet(s, { servers: 1, workers: 5, serviceMs: 10, queue: 50, capacityRps: 500 }), true);
  assert.deepEqual([s.workers, s.queue, s.capacityRps], [5, 50, DEFAULT_STATE.capacityRps]);
  // The same fleet again changes nothing.
  assert.equal(adoptFleet(s, { servers: 1, workers: 5, serviceMs: 10, queue: 50, capacityRps: 500 }), false);
  s.sizing = "workers";
  s.workers = 3;
  assert.equal(adoptFleet(s, { servers: 2, workers: 3, serviceMs: 70, queue: 50, capacityRps: 85.714285714 }), true);
  // The capacity that follows, to four significant digits; the workers stay the reader's.
  assert.deepEqual([s.workers, s.capacityRps], [3, 85.71]);
  // Unlimited workers: no capacity to show (Infinity, or null through JSON).
  assert.equal(adoptFleet(s, { servers: 1, workers: 0, serviceMs: 1000, queue: 5, capacityRps: null }), false);
  assert.equal(s.capacityRps, 85.71);
  assert.equal(fleetCapacity({ servers: 1, workers: 0, serviceMs: 1, queue: 1, capacityRps: null }), Infinity);
  assert.equal(fleetCapacity({ servers: 1, workers: 0, serviceMs: 1, queue: 1, capacityRps: Infinity }), Infinity);
});

test("the new settings round-trip through a link; bad ones fall back key by key", () => {
  for (const id of ["collapse", "crash", "lifo"]) {
    const s = story(id);
    const d = decodeState(`?${encodeState(s, "ru")}`);
    assert.deepEqual(d.state, s, id);
    assert.deepEqual(d.ignored, []);
  }
  const s = cloneState(story("crash"));
  s.sizing = "capacity";
  s.balance = "random";
  s.serviceDist = "lognormal";
  s.serviceSpread = 2.5;
  s.latencyDist = "normal";
  s.failRate = 0.25;
  s.slowdownLengthMs = 3000;
  s.slowdownFactor = 7.5;
  s.thinkMs = 250;
  s.scenario = "closed";
  assert.deepEqual(decodeState(encodeState(s)).state, s);
  const q = new URLSearchParams(encodeState(DEFAULT_STATE));
  for (const k of ["sizing", "balance", "queue-order", "service-dist", "latency-dist", "servers", "workers", "queue", "service", "timeout", "fail-rate"]) {
    assert.ok(q.has(k), k);
  }
  const bad = decodeState("?sizing=auto&queue-order=random&service-dist=pareto&timeout=abc&servers=2.5&workers=-1&fail-rate=0.5&queue=40");
  assert.deepEqual([...bad.ignored].sort(), ["queue-order", "servers", "service-dist", "sizing", "timeout"]);
  assert.equal(bad.state.sizing, DEFAULT_STATE.sizing);
  assert.equal(bad.state.timeoutMs, DEFAULT_STATE.timeoutMs);
  assert.equal(bad.state.servers, DEFAULT_STATE.servers);
  // The good keys stand; a negative worker count is the package's to refuse.
  assert.equal(bad.state.failRate, 0.5);
  assert.equal(bad.state.queue, 40);
  assert.equal(bad.state.workers, -1);
});

test("a spike's traffic counts the spike; past the page's limit a link's spike gives way", () => {
  const s = cloneState(DEFAULT_STATE);
  s.scenario = "spike";
  s.clients = 1000;
  s.ratePerClient = 1;
  s.durationMs = 60_000;
  s.spikeStartMs = 20_000;
  s.spikeLengthMs = 10_000;
  s.spikeFactor = 3;
  // 60 s at 1000/s, plus 10 s counted twice more.
  assert.equal(steadyRequests(s), 80_000);
  // A spike past the end counts only its part inside the run.
  s.spikeStartMs = 55_000;
  assert.equal(steadyRequests(s), 70_000);
  const d = decodeState("?scenario=spike&clients=100000&rate=10&duration=600000&spike-factor=500&spike-length=60000");
  assert.deepEqual([...d.ignored].sort(), ["clients", "duration", "rate", "spike-factor", "spike-length"]);
  // The worker takes the spike's extra requests into account too.
  const w = cloneState(DEFAULT_STATE);
  w.scenario = "spike";
  w.spikeFactor = 1;
  const flat = workEstimate(simOptions(w, "a"));
  w.spikeFactor = 3;
  assert.ok(workEstimate(simOptions(w, "a")) > flat);
});

test("typed values: the page's own checks on the new fields", () => {
  const servers = fieldById("servers");
  const fail = fieldById("fail-rate");
  assert.ok(servers && fail);
  assert.deepEqual(parseField(servers, "1.5"), { ok: false, problem: { kind: "integer" } });
  assert.deepEqual(parseField(fail, "x"), { ok: false, problem: { kind: "nan" } });
  // Outside [0, 1] is the package's to refuse, worded from its error.
  assert.deepEqual(parseField(fail, "2"), { ok: true, value: 2 });
});

test("the package's refusal of a server setting is placed at its control and worded in both languages", () => {
  const s = cloneState(story("crash"));
  const refuse = (edit: (x: State) => void): ReturnType<typeof locateError> => {
    const x = cloneState(s);
    edit(x);
    try {
      new pkg.Simulation(simOptions(x, "a")).free();
    } catch (e) {
      return locateError(errorData(e), "a");
    }
    assert.fail("accepted");
  };
  const fail = refuse((x) => (x.failRate = 2));
  assert.equal(fail.control, "fail-rate");
  assert.match(localizeError(fail, "en"), /^Fail rate \(500s, 0–1\): /);
  assert.match(localizeError(fail, "ru"), /^Доля отказов \(500, от 0 до 1\): /);
  assert.equal(refuse((x) => (x.timeoutMs = -1)).control, "timeout");
  assert.equal(refuse((x) => (x.outageServers = 3)).control, "outage-servers");
  assert.equal(refuse((x) => (x.servers = 0)).control, "servers");
  assert.equal(refuse((x) => (x.serviceMs = 0)).control, "service");
  const factor = refuse((x) => {
    x.slowdownLengthMs = 1000;
    x.slowdownFactor = 0.5;
  });
  assert.equal(factor.control, "slowdown-factor");
});

test("the story presets: the core's stories (sim/stories.rs), every variant accepted by the package", () => {
  const collapse = story("collapse");
  assert.equal(collapse.scenario, "spike");
  assert.equal(collapse.clients * collapse.ratePerClient, 40);
  assert.deepEqual([collapse.spikeStartMs, collapse.spikeLengthMs, collapse.spikeFactor, collapse.durationMs], [20_000, 5000, 2, 80_000]);
  assert.deepEqual([collapse.sizing, collapse.workers, collapse.serviceMs, collapse.serviceDist, collapse.serviceSlopeMs], ["workers", 0, 1000, "constant", 10]);
  assert.deepEqual([collapse.latencyMs, collapse.latencyDist, collapse.timeoutMs, collapse.outageMs], [200, "exponential", 3000, 0]);
  assert.deepEqual([collapse.a.strategy, collapse.a.maxAttempts], ["none", 3]);
  assert.deepEqual([collapse.b.strategy, collapse.b.baseMs, collapse.b.capMs], ["full", 20_000, 60_000]);
  const crash = story("crash");
  assert.equal(Math.round(crash.clients * crash.ratePerClient), 70);
  assert.deepEqual([crash.servers, crash.workers, crash.serviceMs, crash.serviceDist, crash.queue], [2, 5, 100, "exponential", 1000]);
  assert.deepEqual([crash.timeoutMs, crash.a.maxAttempts, crash.a.strategy, crash.outageServers, crash.outageMs, crash.outageStartMs], [1000, 4, "none", 1, 5000, 10_000]);
  assert.deepEqual(outageWindow(crash), [10_000, 15_000]);
  assert.deepEqual([crash.b.strategy, crash.b.baseMs, crash.b.capMs, crash.b.budget, crash.budgetScope], ["full", 100, 5000, true, "client"]);
  assert.deepEqual([crash.budgetCapacity, crash.budgetRefill], [1, 0.04]);
  const lifo = story("lifo");
  assert.equal(lifo.queueOrder, "lifo");
  for (const p of PRESETS) {
    for (const v of p.variants ?? []) {
      const sim = new pkg.Simulation(simOptions(v.state, "a"));
      try {
        const f = sim.fleet();
        assert.equal(f.servers, v.state.servers, `${p.id}/${v.label}`);
        assert.equal(f.workers, v.state.workers, `${p.id}/${v.label}`);
      } finally {
        sim.free();
      }
    }
  }
  // Story 2's three pictures differ in exactly one thing each.
  const labels = presetById("crash")?.variants?.map((v) => [v.label, v.state.a.maxAttempts, v.state.a.strategy, v.state.a.budget]);
  assert.deepEqual(labels, [
    ["variant.immediate", 4, "none", false],
    ["variant.noRetries", 1, "none", false],
    ["variant.jitterBudget", 4, "full", true],
  ]);
  const lifoVariants = presetById("lifo")?.variants?.map((v) => [v.state.queueOrder, v.state.queueTimeoutMs]);
  assert.deepEqual(lifoVariants, [["fifo", 0], ["lifo", 0], ["fifo", 300]]);
});

test("the goodput figure: rates per second, the queue's highest level per bin, goodput after the trigger", () => {
  // 10 ms slots; 100 ms bins.
  const slots = 20;
  const run = {
    slotMs: 10,
    served: new Uint32Array(slots).fill(2),
    goodput: Uint32Array.from({ length: slots }, (_, i) => (i < 10 ? 2 : 0)),
    wasted: Uint32Array.from({ length: slots }, (_, i) => (i < 10 ? 0 : 2)),
    queued: Uint32Array.from({ length: slots }, (_, i) => (i === 3 ? 9 : i)),
  };
  const b = rebinGoodput(run, newGoodputBuffers(), 100, 2);
  assert.deepEqual([...b.throughput.subarray(0, 2)], [200, 200]);
  assert.deepEqual([...b.goodput.subarray(0, 2)], [200, 0]);
  assert.deepEqual([...b.wasted.subarray(0, 2)], [0, 200]);
  // Not a sum: the longest the queue was in the bin.
  assert.deepEqual([...b.queue.subarray(0, 2)], [9, 19]);
  // Goodput is drawn in coarser bins: about 120 over the run, whole multiples of the herd's.
  assert.equal(smoothBinMs(100, 80_000), 700);
  assert.equal(smoothBinMs(100, 5_000), 100);
  assert.equal(smoothBinMs(400, 600_000, 60), 10_000);
  const out = new Float64Array(1);
  assert.equal(rebinLevel([1, 5, 2], 10, 30, out), 1);
  assert.equal(out[0], 5);
  assert.equal(meanRateAfter(run.goodput, 10, 100, 200), 0);
  assert.equal(meanRateAfter(run.goodput, 10, 0, 100), 200);
  assert.equal(meanRateAfter(run.goodput, 10, 50, 150), 100);
  assert.equal(meanRateAfter(run.goodput, 10, 300, 400), 0);
  // The trigger: the outage, the spike or the slowdown, whichever ends last.
  assert.equal(triggerEnd(story("crash")), 15_000);
  assert.equal(triggerEnd(story("collapse")), 25_000);
  assert.equal(triggerEnd({ ...story("collapse"), slowdownStartMs: 30_000, slowdownLengthMs: 1000 }), 31_000);
});
