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
  assert.deepEqual(decodeState(encodeState(s)).state, s);
});

test("every field and strategy is written under its control's id", () => {
  const q = new URLSearchParams(encodeState(DEFAULT_STATE));
  for (const f of ALL_FIELDS) assert.ok(q.has(f.id), f.id);
  for (const k of ["scenario", "strategy", "budget", "budget-scope", "b-strategy", "b-budget", "speed"]) assert.ok(q.has(k), k);
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
  assert.deepEqual(d.ignored.sort(), ["base", "budget", "cap", "lang", "scenario"]);
});

test("out-of-range numbers are passed through for the page to flag", () => {
  const d = decodeState("clients=-5&base=1e12");
  assert.equal(d.state.clients, -5);
  assert.equal(d.state.a.baseMs, 1e12);
});

test("decoding does not alias the defaults", () => {
  const d = decodeState("");
  d.state.a.baseMs = 1;
  assert.equal(DEFAULT_STATE.a.baseMs, 2000);
});
