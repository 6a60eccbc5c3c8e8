// Property tests (fast-check, seeded) of the page's URL-state decoder, www/src/logic/url.ts:
// whatever a link holds, decoding never throws and yields a state the page can show; a
// value is taken exactly when the page would take it typed, else the default stays and
// the key is reported with what the link had; every state the page can show survives a
// round trip through a link; and decoding is a normal form (a decoded state re-encodes to
// a link that decodes to itself, with nothing ignored).
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { decodeState, encodeState, type Decoded } from "../../www/src/logic/url.js";
import {
  BALANCES,
  BUDGET_SCOPES,
  DEFAULT_STATE,
  LANGS,
  LATENCY_DISTS,
  QUEUE_ORDERS,
  ROW_MODES,
  SCENARIOS,
  SERVICE_DISTS,
  SIZINGS,
  SPEEDS,
  STRATEGIES,
  cloneState,
  type Scenario,
  type State,
} from "../../www/src/logic/state.js";
import { ALL_FIELDS, MAX_STEADY_REQUESTS, OCC_MAX_CLIENTS, isRated, parseField, steadyRequests, type NumberField } from "../../www/src/logic/fields.js";
import { PRESETS } from "../../www/src/logic/presets.js";

/** Pinned, so a failure reproduces; fast-check prints the seed and path of any counterexample. */
const RUNS = { seed: 20261203, numRuns: 2000 } as const;

const TEXT_KEYS = ["scenario", "strategy", "b-strategy", "budget-scope", "budget", "b-budget", "rows", "lang", "sizing", "balance", "queue-order", "service-dist", "latency-dist"];
const KEYS = [...TEXT_KEYS, ...ALL_FIELDS.map((f) => f.id), "speed"];
const WORDS = [...SCENARIOS, ...STRATEGIES, ...BUDGET_SCOPES, ...ROW_MODES, ...LANGS, ...SIZINGS, ...BALANCES, ...QUEUE_ORDERS, ...SERVICE_DISTS, ...LATENCY_DISTS, "0", "1", "yes", "true"];
/** Text that Number() reads in surprising ways, and the edges of the envelopes. */
const NUMBER_TEXTS = ["", " ", "NaN", "Infinity", "-Infinity", "-0", "1e999", "0x10", "0b11", "1_000", " 5 ", "+7",
  "100", "99", "100000", "100001", "2000", "2001", "0.000001", "1e-7", "600000", "600001", "20", "21", "2.5"];

const key = fc.oneof(fc.constantFrom(...KEYS, "whatever", "BASE"), fc.string({ maxLength: 12 }));
const value = fc.oneof(
  fc.constantFrom(...WORDS, ...NUMBER_TEXTS),
  fc.constantFrom(...SPEEDS).map(String),
  fc.double().map(String),
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
  fc.string({ maxLength: 16 }),
  fc.string({ unit: "binary", maxLength: 16 }),
);
/** A link's query: known and unknown keys, repeated or not, with anything for values. */
const query = fc
  .tuple(fc.constantFrom("", "?", "#"), fc.array(fc.tuple(key, value), { maxLength: 24 }))
  .map(([lead, pairs]) => lead + new URLSearchParams(pairs).toString());
/** Whatever is in the address bar: raw text too, escapes and all. */
const search = fc.oneof(query, fc.string({ unit: "binary", maxLength: 80 }), fc.string({ maxLength: 80 }).map((s) => `?${s}`));
const base = fc.constantFrom(DEFAULT_STATE, ...PRESETS.map((p) => p.state));

/** The query as decodeState reads it. */
function params(s: string): URLSearchParams {
  return new URLSearchParams(s.startsWith("?") || s.startsWith("#") ? s.slice(1) : s);
}

/** Every property a decoded state must have, against the link it came from. */
function checkDecoded(s: string, b: State, d: Decoded): void {
  const q = params(s);
  const st = d.state;
  assert.ok(SCENARIOS.includes(st.scenario));
  assert.ok(STRATEGIES.includes(st.a.strategy) && STRATEGIES.includes(st.b.strategy));
  assert.ok(BUDGET_SCOPES.includes(st.budgetScope) && ROW_MODES.includes(st.rows));
  assert.ok(SIZINGS.includes(st.sizing) && BALANCES.includes(st.balance) && QUEUE_ORDERS.includes(st.queueOrder));
  assert.ok(SERVICE_DISTS.includes(st.serviceDist) && LATENCY_DISTS.includes(st.latencyDist));
  assert.ok((SPEEDS as readonly number[]).includes(st.speed));
  assert.equal(typeof st.a.budget, "boolean");
  assert.ok(d.lang === undefined || LANGS.includes(d.lang));
  assert.equal(new Set(d.ignored).size, d.ignored.length, "a key is reported once");
  assert.deepEqual(Object.keys(d.given).sort(), [...d.ignored].sort());
  for (const k of d.ignored) assert.equal(d.given[k], q.get(k), `${k}: what the link had`);
  for (const f of ALL_FIELDS) {
    const v = f.get(st);
    const text = q.get(f.id);
    const shown = `${f.id}=${JSON.stringify(text)}`;
    assert.ok(Number.isFinite(v), `${shown}: ${v}`);
    if (text === null) {
      assert.ok(Object.is(v, f.get(b)), `${f.id} not in the link, yet ${v}`);
    } else if (d.ignored.includes(f.id)) {
      assert.ok(Object.is(v, f.get(b)), `${shown} reported, yet ${v}`);
      // Refused as a typed value would be, or steady (or spike) traffic past the page's limit.
      const traffic = st.scenario === "spike" ? ["clients", "rate", "duration", "spike-length", "spike-factor"] : ["clients", "rate", "duration"];
      const steadyTraffic = isRated(st.scenario) && traffic.includes(f.id);
      assert.ok(steadyTraffic || !parseField(f, text, false, st.scenario).ok, `${shown} reported`);
    } else {
      // Taken exactly as written, and only what the page would take typed.
      assert.ok(Object.is(v, Number(text)), `${shown} became ${v}`);
      assert.ok(parseField(f, text, false, st.scenario).ok, `${shown} taken`);
    }
  }
  if (isRated(st.scenario)) assert.ok(steadyRequests(st) <= MAX_STEADY_REQUESTS, "steady traffic within the limit");
}

test("any link decodes without throwing, to a state the page can show", () => {
  fc.assert(
    fc.property(search, base, (s, b) => {
      checkDecoded(s, b, decodeState(s, b));
    }),
    RUNS,
  );
});

test("decoding is a normal form: a decoded state re-encodes to a link that decodes to itself", () => {
  fc.assert(
    fc.property(search, base, (s, b) => {
      const d = decodeState(s, b);
      const again = decodeState(encodeState(d.state, d.lang), b);
      assert.deepEqual(again.state, d.state);
      assert.equal(again.lang, d.lang);
      assert.deepEqual(again.ignored, []);
    }),
    RUNS,
  );
});

/** A value the page takes for `f` in `scenario`: any finite number where it sets no envelope. */
function fieldValue(f: NumberField, scenario: Scenario): fc.Arbitrary<number> {
  const env = f.id === "clients" && scenario === "aws-occ" ? { min: 100, max: OCC_MAX_CLIENTS } : f.limit;
  return f.integer
    ? fc.integer({ min: env?.min ?? Number.MIN_SAFE_INTEGER, max: env?.max ?? Number.MAX_SAFE_INTEGER })
    : fc.double({ min: env?.min ?? -Number.MAX_VALUE, max: env?.max ?? Number.MAX_VALUE, noNaN: true });
}

/** Any state the page can show. */
const state = fc
  .record({
    scenario: fc.constantFrom(...SCENARIOS),
    a: fc.constantFrom(...STRATEGIES),
    b: fc.constantFrom(...STRATEGIES),
    aBudget: fc.boolean(),
    bBudget: fc.boolean(),
    budgetScope: fc.constantFrom(...BUDGET_SCOPES),
    speed: fc.constantFrom(...SPEEDS),
    rows: fc.constantFrom(...ROW_MODES),
    sizing: fc.constantFrom(...SIZINGS),
    balance: fc.constantFrom(...BALANCES),
    queueOrder: fc.constantFrom(...QUEUE_ORDERS),
    serviceDist: fc.constantFrom(...SERVICE_DISTS),
    latencyDist: fc.constantFrom(...LATENCY_DISTS),
  })
  .chain((r) =>
    fc.tuple(...ALL_FIELDS.map((f) => fieldValue(f, r.scenario))).map((values) => {
      const s = cloneState(DEFAULT_STATE);
      s.scenario = r.scenario;
      s.a.strategy = r.a;
      s.b.strategy = r.b;
      s.a.budget = r.aBudget;
      s.b.budget = r.bBudget;
      s.budgetScope = r.budgetScope;
      s.speed = r.speed;
      s.rows = r.rows;
      s.sizing = r.sizing;
      s.balance = r.balance;
      s.queueOrder = r.queueOrder;
      s.serviceDist = r.serviceDist;
      s.latencyDist = r.latencyDist;
      ALL_FIELDS.forEach((f, i) => f.set(s, values[i] as number));
      return s;
    }),
  )
  .filter((s) => !isRated(s.scenario) || steadyRequests(s) <= MAX_STEADY_REQUESTS);

test("every state the page can show survives a round trip through a link", () => {
  fc.assert(
    fc.property(state, fc.option(fc.constantFrom(...LANGS), { nil: undefined }), (s, lang) => {
      const d = decodeState(`?${encodeState(s, lang)}`);
      assert.deepEqual(d.state, s);
      assert.equal(d.lang, lang);
      assert.deepEqual(d.ignored, []);
    }),
    RUNS,
  );
});
