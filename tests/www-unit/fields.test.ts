import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ALL_FIELDS,
  MAX_STEADY_REQUESTS,
  POLICY_A_FIELDS,
  SCENARIO_FIELDS,
  OCC_MAX_CLIENTS,
  SLIDER_STEPS,
  fieldById,
  fromSlider,
  niceRound,
  parseField,
  steadyRequests,
  toSlider,
  visibleFor,
  withinPeers,
  type NumberField,
} from "../../www/src/logic/fields.js";
import { optionsFor } from "../../www/src/logic/options.js";
import { DEFAULT_STATE, SCENARIOS, STRATEGIES, cloneState, type State } from "../../www/src/logic/state.js";
import { simOptions } from "../../www/src/logic/run.js";
import type { Unit as PackageUnit } from "stampede";
import { limitOf, pkg } from "./package.js";
import { PRESETS } from "../../www/src/logic/presets.js";

/**
 * The package's options for side `side` of `s` carrying every policy setting and the budget
 * whenever the state has one on, whether or not the page would send them: so a run can
 * tell whether the package reads a setting the page hides (through simOptions alone, a
 * hidden setting is never sent, and a test of it could not fail).
 */
function everything(s: State, side: "a" | "b") {
  const p = s[side];
  const o = simOptions(s, side);
  o.policy = { strategy: p.strategy, baseMs: p.baseMs, capMs: p.capMs, maxAttempts: p.maxAttempts, multiplier: p.multiplier };
  if (p.budget) {
    o.budget = { capacity: s.budgetCapacity, refillPerSec: s.budgetRefill };
    o.budgetScope = s.budgetScope;
  }
  return o;
}

function field(id: string) {
  const f = fieldById(id);
  assert.ok(f, id);
  return f;
}

test("ids are unique and sliders are named after their fields", () => {
  const ids = ALL_FIELDS.map((f) => f.id);
  assert.equal(new Set(ids).size, ids.length);
  for (const id of ["base", "cap", "attempts", "multiplier", "clients", "outage", "capacity", "retry-after", "budget-capacity", "budget-refill", "seed"]) {
    assert.ok(fieldById(id), id);
  }
});

test("slider ends map to the range's ends", () => {
  for (const f of ALL_FIELDS) {
    assert.equal(fromSlider(f, 0), f.min, `${f.id} min`);
    assert.equal(fromSlider(f, SLIDER_STEPS), f.max, `${f.id} max`);
  }
});

test("a slider position and its value agree, both ways", () => {
  for (const f of ALL_FIELDS) {
    for (let pos = 0; pos <= SLIDER_STEPS; pos += 50) {
      const v = fromSlider(f, pos);
      assert.ok(v >= f.min && v <= f.max, `${f.id}@${pos}: ${v}`);
      if (f.integer) assert.ok(Number.isInteger(v), `${f.id} integer`);
      const back = fromSlider(f, toSlider(f, v));
      // Rounding to friendly values may move a log slider by a little, never the value much.
      assert.ok(Math.abs(back - v) <= Math.max(f.step, Math.abs(v) * 0.05), `${f.id}@${pos}: ${v} → ${back}`);
    }
  }
});

test("preset values sit on their sliders", () => {
  for (const p of PRESETS) {
    for (const f of ALL_FIELDS) {
      const pos = toSlider(f, f.get(p.state));
      assert.ok(pos >= 0 && pos <= SLIDER_STEPS, `${p.id}/${f.id}`);
    }
  }
});

test("niceRound keeps two or three significant digits", () => {
  assert.equal(niceRound(1234.5), 1230);
  assert.equal(niceRound(0.0123), 0.012);
  assert.equal(niceRound(97.3), 97);
  assert.equal(niceRound(0), 0);
});

test("typed values: empty, not a number, fraction where whole, out of the envelope", () => {
  const base = field("base");
  assert.deepEqual(parseField(base, ""), { ok: false, problem: { kind: "empty" } });
  assert.deepEqual(parseField(base, "  "), { ok: false, problem: { kind: "empty" } });
  assert.deepEqual(parseField(base, "", true), { ok: false, problem: { kind: "nan" } });
  assert.deepEqual(parseField(base, "abc"), { ok: false, problem: { kind: "nan" } });
  assert.deepEqual(parseField(base, "Infinity"), { ok: false, problem: { kind: "nan" } });
  assert.deepEqual(parseField(base, "250"), { ok: true, value: 250 });
  // The package decides whether a negative base is a retry setting; the form passes it on.
  assert.deepEqual(parseField(base, "-5"), { ok: true, value: -5 });
  const clients = field("clients");
  assert.deepEqual(parseField(clients, "10.5"), { ok: false, problem: { kind: "integer" } });
  assert.deepEqual(parseField(clients, "99"), { ok: false, problem: { kind: "range", min: 100, max: 1_000_000 } });
  assert.deepEqual(parseField(clients, "1e9"), { ok: false, problem: { kind: "range", min: 100, max: 1_000_000 } });
  assert.deepEqual(parseField(clients, "1000001"), { ok: false, problem: { kind: "range", min: 100, max: 1_000_000 } });
  assert.deepEqual(parseField(clients, "1000000"), { ok: true, value: 1_000_000 });
  assert.deepEqual(parseField(clients, "5000", false, "aws-occ"), { ok: false, problem: { kind: "range", min: 100, max: OCC_MAX_CLIENTS } });
  assert.deepEqual(parseField(field("attempts"), "0"), { ok: false, problem: { kind: "range", min: 1, max: 20 } });
});

test("fields show for the scenarios that use them", () => {
  assert.ok(visibleFor(field("outage"), "burst"));
  assert.ok(!visibleFor(field("outage"), "aws-occ"));
  assert.ok(visibleFor(field("rate"), "steady"));
  assert.ok(!visibleFor(field("rate"), "burst"));
  assert.ok(visibleFor(field("base"), "aws-occ"));
});

test("a field the page hides in a scenario changes nothing there (the package is the judge)", () => {
  // Each scenario's run, small, with the budget on so its fields could matter; each field
  // the page hides for it set to its slider's two ends: the runs must not differ. (The
  // aws-occ contention experiment's clients retry until their write wins: its attempt
  // limit and budget were shown, and did nothing.)
  const run = (s: State) => {
    try {
      const sim = new pkg.Simulation(everything(s, "a"));
      try {
        sim.run();
        return JSON.stringify(sim.metrics());
      } finally {
        sim.free();
      }
    } catch (e) {
      return `refused: ${(e as Error).message}`;
    }
  };
  let checked = 0;
  for (const scenario of SCENARIOS) {
    const base = cloneState(DEFAULT_STATE);
    Object.assign(base, { scenario, clients: 200, durationMs: 5000, ratePerClient: 1 });
    base.a.budget = true;
    for (const f of ALL_FIELDS.filter((f) => f.side !== "b" && !visibleFor(f, scenario, base))) {
      const [lo, hi] = [cloneState(base), cloneState(base)];
      f.set(lo, f.min);
      f.set(hi, f.max);
      assert.equal(run(lo), run(hi), `${f.id} is hidden in ${scenario}, yet ${f.min} and ${f.max} differ`);
      checked++;
    }
  }
  assert.ok(checked >= 20, `${checked} hidden fields checked`);
  // And the other way, in aws-occ, whose run has few settings: every field the page shows
  // there changes its run. (In the other scenarios a shown field may rest at a value that
  // changes nothing: the workers while the capacity sizes the servers, a slowdown of no
  // length.)
  const occ = cloneState(DEFAULT_STATE);
  Object.assign(occ, { scenario: "aws-occ", clients: 200 });
  occ.a.budget = true;
  const shown = ALL_FIELDS.filter((f) => f.side !== "b" && visibleFor(f, "aws-occ", occ));
  assert.ok(shown.length >= 4, shown.map((f) => f.id).join());
  for (const f of shown) {
    const [lo, hi] = [cloneState(occ), cloneState(occ)];
    f.set(lo, f.min);
    f.set(hi, f.max);
    assert.notEqual(run(lo), run(hi), `${f.id} is shown in aws-occ, yet ${f.min} and ${f.max} give the same run`);
  }
  // The check has teeth: the attempt limit, shown in a burst, changes its run.
  const [few, many] = [cloneState(DEFAULT_STATE), cloneState(DEFAULT_STATE)];
  few.a.maxAttempts = 1;
  many.a.maxAttempts = 6;
  assert.notEqual(run(few), run(many));
});

test("a backoff setting the page hides for a strategy changes nothing; one it shows changes the run", () => {
  // Policies A and B in a burst, each strategy in turn: the base, cap and multiplier at
  // either end of their sliders. (Base, cap and multiplier stayed on screen for "none",
  // which waits nothing, and the cap and multiplier for "constant".)
  const metrics = (s: State, side: "a" | "b") => {
    const sim = new pkg.Simulation(everything(s, side));
    try {
      sim.run();
      return JSON.stringify(sim.metrics());
    } finally {
      sim.free();
    }
  };
  const shownOf: Record<string, string[]> = {};
  for (const side of ["a", "b"] as const) {
    for (const strategy of STRATEGIES) {
      const base = cloneState(DEFAULT_STATE);
      Object.assign(base, { clients: 300 });
      base[side].strategy = strategy;
      const fields = ALL_FIELDS.filter((f) => (f.side === "b") === (side === "b") && /(^|-)(base|cap|multiplier)$/.test(f.id));
      assert.equal(fields.length, 3);
      for (const f of fields) {
        const [lo, hi] = [cloneState(base), cloneState(base)];
        // The cap from the base up (a cap below the base is refused, where it is read).
        f.set(lo, f.id.endsWith("cap") ? base[side].baseMs : f.min);
        f.set(hi, f.max);
        const same = metrics(lo, side) === metrics(hi, side);
        const shown = visibleFor(f, base.scenario, base);
        assert.equal(same, !shown, `${f.id} with ${strategy}: ${shown ? "shown, yet it changes nothing" : "hidden, yet it changes the run"}`);
        if (shown && side === "a") (shownOf[strategy] ??= []).push(f.id);
      }
    }
  }
  assert.deepEqual(shownOf["constant"], ["base"]);
  assert.equal(shownOf["none"], undefined);
  assert.deepEqual(shownOf["full"], ["base", "cap", "multiplier"]);
});

test("steady runs are bounded", () => {
  const s = cloneState(DEFAULT_STATE);
  s.clients = 1000;
  s.ratePerClient = 1;
  s.durationMs = 120_000;
  assert.equal(steadyRequests(s), 120_000);
  s.clients = 100_000;
  assert.ok(steadyRequests(s) > MAX_STEADY_REQUESTS);
});

test("fields write where they read", () => {
  const s = cloneState(DEFAULT_STATE);
  ALL_FIELDS.forEach((f, i) => f.set(s, 1000 + i));
  ALL_FIELDS.forEach((f, i) => assert.equal(f.get(s), 1000 + i, f.id));
  assert.equal(s.b.baseMs, 1000 + ALL_FIELDS.findIndex((f) => f.id === "b-base"));
});

/** The page's display units that fit each of the package's units. */
const PAGE_UNITS: Record<PackageUnit | "none", readonly NumberField["unit"][]> = {
  ms: ["ms"],
  per_second: ["rps", "perSec"],
  count: ["count", "clients", "tokens"],
  fraction: ["none"],
  chars: [],
  none: ["none", "factor"],
};

test("every slider and typed-value envelope lies inside the core's limits", () => {
  const limits = pkg.limits();
  for (const f of ALL_FIELDS) {
    const found = limitOf(f.id, limits);
    assert.ok(found, `#${f.id}: none of ${optionsFor(f.id).join(", ")} is in limits()`);
    const { name, limit: lim } = found;
    const inside = (lo: number, hi: number) => (lim.minExclusive ? lo > lim.min : lo >= lim.min) && hi <= lim.max;
    // A slider's "none" end (a timeout of 0: none) is not sent, so it need not be in range:
    // from the first position that means a value.
    let pos = 0;
    while (pos < SLIDER_STEPS && fromSlider(f, pos) === f.none) pos++;
    const lo = fromSlider(f, pos);
    assert.ok(inside(lo, f.max), `#${f.id} slider ${lo}..${f.max} outside ${name} ${lim.min}..${lim.max}`);
    if (f.limit) assert.ok(inside(f.limit.min, f.limit.max), `#${f.id} envelope outside ${name}`);
    assert.equal(f.integer === true, lim.whole, `#${f.id}: whole exactly when ${name} is`);
    assert.ok(PAGE_UNITS[lim.unit ?? "none"].includes(f.unit), `#${f.id} shows ${f.unit} for ${name} in ${lim.unit ?? "plain numbers"}`);
  }
  const clients = limits["clients"];
  assert.ok(clients && OCC_MAX_CLIENTS <= clients.max);
});

test("the biggest runs the page allows are runs the package accepts", () => {
  const accepts = (s: State) => assert.doesNotThrow(() => new pkg.Simulation(simOptions(s, "a")).free(), s.scenario);
  const occ = cloneState(DEFAULT_STATE);
  occ.scenario = "aws-occ";
  occ.clients = OCC_MAX_CLIENTS;
  accepts(occ);
  const steady = cloneState(DEFAULT_STATE);
  steady.scenario = "steady";
  steady.clients = 1000;
  steady.ratePerClient = 5;
  steady.durationMs = 200_000;
  assert.equal(steadyRequests(steady), MAX_STEADY_REQUESTS);
  // With the most attempts the page offers.
  for (const f of POLICY_A_FIELDS) if (f.id === "attempts") f.set(steady, f.limit?.max ?? f.max);
  assert.equal(steady.a.maxAttempts, 20);
  accepts(steady);
  const burst = cloneState(DEFAULT_STATE);
  for (const f of [...SCENARIO_FIELDS, ...POLICY_A_FIELDS]) f.set(burst, f.limit?.max ?? f.max);
  accepts(burst);
});

// The budget's fields count whether or not a budget is on: the page checks them against the
// core's ranges itself (with the budget off no run asks the package, and -3 went into the link).
test("the budget's fields are read within the core's ranges, whether or not a budget is on", () => {
  const limits = pkg.limits();
  for (const [id, name] of [["budget-capacity", "budget.capacity"], ["budget-refill", "budget.refillPerSec"]] as const) {
    const f = fieldById(id);
    assert.ok(f, id);
    const lim = limits[name];
    assert.ok(lim, name);
    assert.deepEqual(f.limit, { min: lim.min, max: lim.max }, id);
    assert.deepEqual(parseField(f, "-3"), { ok: false, problem: { kind: "range", min: lim.min, max: lim.max } });
    assert.deepEqual(parseField(f, String(lim.max * 10)), { ok: false, problem: { kind: "range", min: lim.min, max: lim.max } });
    assert.deepEqual(parseField(f, "0"), { ok: true, value: 0 });
  }
});

test("a slider stops at the fields that bound it: the cap at the base, the servers down at the servers", () => {
  const field = (id: string) => {
    const f = fieldById(id);
    assert.ok(f, id);
    return f;
  };
  const peers = (values: Record<string, number | undefined>) => (id: string) => values[id];
  // The cap dragged below the base stops at it; above, it moves freely.
  assert.equal(withinPeers(field("cap"), 500, peers({ base: 2000 })), 2000);
  assert.equal(withinPeers(field("cap"), 9000, peers({ base: 2000 })), 9000);
  assert.equal(withinPeers(field("b-cap"), 500, peers({ "b-base": 700 })), 700);
  // The base dragged past the cap stops at it; a hidden cap (constant reads none) bounds nothing.
  assert.equal(withinPeers(field("base"), 9000, peers({ cap: 5000 })), 5000);
  assert.equal(withinPeers(field("base"), 9000, peers({ cap: undefined })), 9000);
  // One server: at most one down, whatever the slider's own end (100).
  assert.equal(withinPeers(field("outage-servers"), 100, peers({ servers: 1 })), 1);
  assert.equal(withinPeers(field("outage-servers"), 3, peers({ servers: 8 })), 3);
  // Never past the slider's own range, and whole where the field is.
  assert.equal(withinPeers(field("cap"), 500, peers({ base: 1e9 })), field("cap").max);
  assert.equal(withinPeers(field("outage-servers"), 100, peers({ servers: 2.5 })), 2);
  // Every bound names a field that exists.
  for (const f of ALL_FIELDS) {
    for (const id of [f.within?.min, f.within?.max]) if (id !== undefined) assert.ok(fieldById(id), `${f.id} → ${id}`);
  }
});
