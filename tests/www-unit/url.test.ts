import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeState, encodeState } from "../../www/src/logic/url.js";
import { DEFAULT_STATE, STRATEGIES, cloneState, type State } from "../../www/src/logic/state.js";
import { PRESETS } from "../../www/src/logic/presets.js";
import { ALL_FIELDS } from "../../www/src/logic/fields.js";

test("the default state round-trips", () => {
  const q = encodeState(DEFAULT_STATE);
  assert.deepEqual(decodeState(q).state, DEFAULT_STATE);
});

test("every preset round-trips, with the language", () => {
  for (const p of PRESETS) {
    const d = decodeState(`?${encodeState(p.state, "ru")}`);
    assert.deepEqual(d.state, p.state, p.id);
    assert.equal(d.lang, "ru");
    assert.deepEqual(d.ignored, []);
  }
});

test("an edited state round-trips, fractions and all", () => {
  const s: State = cloneState(DEFAULT_STATE);
  s.scenario = "steady";
  s.a = { strategy: "decorrelated-v2", baseMs: 137.5, capMs: 12_345, maxAttempts: 9, multiplier: 1.7, budget: true };
  s.b.strategy = "equal";
  s.b.budget = true;
  s.budgetScope = "client";
  s.budgetRefill = 0.1;
  s.ratePerClient = 0.25;
  s.retryAfterMs = 3000;
  s.seed = 9_007_199_254_740_991;
  s.speed = 0.25;
  s.rows = "fit";
  assert.deepEqual(decodeState(encodeState(s)).state, s);
});

test("every field and strategy is written under its control's id", () => {
  const q = new URLSearchParams(encodeState(DEFAULT_STATE));
  for (const f of ALL_FIELDS) assert.ok(q.has(f.id), f.id);
  for (const k of ["scenario", "strategy", "budget", "budget-scope", "b-strategy", "b-budget", "speed", "rows"]) assert.ok(q.has(k), k);
  for (const st of STRATEGIES) {
    const s = cloneState(DEFAULT_STATE);
    s.a.strategy = st;
    assert.equal(decodeState(encodeState(s)).state.a.strategy, st);
  }
});

test("malformed values keep their defaults and are reported; unknown keys are ignored", () => {
  const d = decodeState("?scenario=stampede&base=abc&cap=&clients=5000&budget=yes&whatever=1&lang=fr");
  assert.equal(d.state.scenario, DEFAULT_STATE.scenario);
  assert.equal(d.state.a.baseMs, DEFAULT_STATE.a.baseMs);
  assert.equal(d.state.a.capMs, DEFAULT_STATE.a.capMs);
  assert.equal(d.state.clients, 5000);
  assert.equal(d.state.a.budget, false);
  assert.equal(d.lang, undefined);
  assert.deepEqual([...d.ignored].sort(), ["base", "budget", "cap", "lang", "scenario"]);
  assert.deepEqual(d.given, { scenario: "stampede", base: "abc", cap: "", budget: "yes", lang: "fr" });
});

test("a value the page could not show falls back per key to the default", () => {
  const d = decodeState("?clients=-5&speed=garbage&attempts=2.5&b-attempts=0&seed=7&base=500");
  assert.equal(d.state.clients, DEFAULT_STATE.clients);
  assert.equal(d.state.speed, DEFAULT_STATE.speed);
  assert.equal(d.state.a.maxAttempts, DEFAULT_STATE.a.maxAttempts);
  assert.equal(d.state.b.maxAttempts, DEFAULT_STATE.b.maxAttempts);
  // The good keys of the same link are kept.
  assert.equal(d.state.seed, 7);
  assert.equal(d.state.a.baseMs, 500);
  assert.deepEqual([...d.ignored].sort(), ["attempts", "b-attempts", "clients", "speed"]);
  assert.equal(d.given["clients"], "-5");
  assert.equal(d.given["speed"], "garbage");
  // Huge, NaN, Infinity, a speed the menu does not have, an unknown row layout.
  const e = decodeState("clients=1e12&cap=NaN&outage=Infinity&speed=3&rows=sideways");
  assert.deepEqual([...e.ignored].sort(), ["cap", "clients", "outage", "rows", "speed"]);
  assert.equal(e.state.clients, DEFAULT_STATE.clients);
  assert.equal(e.state.outageMs, DEFAULT_STATE.outageMs);
  assert.equal(e.state.rows, DEFAULT_STATE.rows);
  // Numbers are decimal: Number() alone read 0x10 as 16.
  const hex = decodeState("capacity=0x10&clients=0b11&seed=0o7&base=1e3");
  assert.deepEqual([...hex.ignored].sort(), ["capacity", "clients", "seed"]);
  assert.equal(hex.state.capacityRps, DEFAULT_STATE.capacityRps);
  assert.equal(hex.state.a.baseMs, 1000);
  assert.equal(decodeState("speed=0.25&rows=fit").state.speed, 0.25);
  assert.equal(decodeState("rows=fit").state.rows, "fit");
});

test("the envelope depends on the link's scenario", () => {
  // aws-occ keeps its clients small; the same number is fine for a burst.
  const occ = decodeState("scenario=aws-occ&clients=5000");
  assert.equal(occ.state.scenario, "aws-occ");
  assert.equal(occ.state.clients, DEFAULT_STATE.clients);
  assert.deepEqual(occ.ignored, ["clients"]);
  assert.equal(decodeState("scenario=burst&clients=5000").state.clients, 5000);
});

test("steady traffic beyond the page's limit gives way to the defaults", () => {
  const d = decodeState("scenario=steady&clients=100000&rate=10&duration=600000&seed=3");
  assert.equal(d.state.scenario, "steady");
  assert.equal(d.state.clients, DEFAULT_STATE.clients);
  assert.equal(d.state.ratePerClient, DEFAULT_STATE.ratePerClient);
  assert.equal(d.state.durationMs, DEFAULT_STATE.durationMs);
  assert.equal(d.state.seed, 3);
  assert.deepEqual([...d.ignored].sort(), ["clients", "duration", "rate"]);
  // Within the limit, the same keys stand.
  const ok = decodeState("scenario=steady&clients=10000&rate=1&duration=60000");
  assert.deepEqual(ok.ignored, []);
  assert.equal(ok.state.clients, 10_000);
});

test("what only the package can judge is passed through (the page repairs it after the first run)", () => {
  const d = decodeState("base=5000&cap=100&seed=-1");
  assert.equal(d.state.a.baseMs, 5000);
  assert.equal(d.state.a.capMs, 100);
  assert.equal(d.state.seed, -1);
  assert.deepEqual(d.ignored, []);
});

test("decoding does not alias the defaults", () => {
  const d = decodeState("");
  d.state.a.baseMs = 1;
  assert.equal(DEFAULT_STATE.a.baseMs, 2000);
});

test("-0 survives a link (String(-0) is \"0\"; found by the property test)", () => {
  const s = cloneState(DEFAULT_STATE);
  s.a.baseMs = -0;
  assert.ok(Object.is(decodeState(encodeState(s)).state.a.baseMs, -0));
  const d = decodeState("base=-0");
  assert.deepEqual(decodeState(encodeState(d.state)).state, d.state);
});
