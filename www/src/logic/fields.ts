// The number controls: where each lives in the state, its slider's range and scale, and
// how a typed value is read. Every number has a typed field (`<input type="number">`, id as
// below) and a slider (`<id>-range`) kept in sync.
//
// Validation here is only what a form must know: the text is a number, and the value is in
// the page's envelope (what it can draw and simulate at slider speed). Whether a value makes
// sense as a retry setting — a cap below the base, a negative budget — is for the package to
// say: its RangeError names the option, the problem and the bounds, and the page words that
// next to the field (see errors.ts).
//
// The sliders' ranges and the envelopes are the page's choices, narrower than the core's:
// a unit test holds every one inside the package's `limits()` (tests/www-unit/fields.test.ts).

import { CORE_LIMITS } from "../generated/core.js";
import { formatNumber } from "./format.js";
import type { Key } from "./i18n.js";
import { readsBackoff, type BackoffKey } from "./backoff.js";
import { SCENARIOS as SCENARIO_LIST, hasServer, isOngoing, type Lang, type PolicyState, type Scenario, type State } from "./state.js";
import { translate } from "./translate.js";

export type Unit = "ms" | "rps" | "count" | "clients" | "tokens" | "perSec" | "factor" | "none";

export interface NumberField {
  /** The typed field's id (a stable hook); the slider is `${id}-range`. */
  id: string;
  /** Where it lives in the state. */
  get(s: State): number;
  set(s: State, v: number): void;
  unit: Unit;
  /** The slider's range. */
  min: number;
  max: number;
  scale: "linear" | "log";
  /** Slider values snap to this step (linear) or to 2-3 significant digits (log). */
  step: number;
  integer?: boolean;
  /** The page's envelope for typed values, when narrower than what the package accepts. */
  limit?: { min: number; max: number };
  /** Shown only for these scenarios. */
  scenarios?: readonly Scenario[];
  /** Shown only when this holds of the settings (besides `scenarios`). */
  when?: (s: State) => boolean;
  /** The value that means "none" (not sent to the package): its label says so. */
  none?: number;
  /** What that value reads as, when not "none" (servers down: 0 is all of them). */
  noneKey?: Key;
  /** A compare-panel field (policy B). */
  side?: "b";
  /** Fields whose values bound this one's slider (their ids), while they are shown: the cap
   *  stops at the base, the servers down at the servers. A typed value is still the
   *  package's to judge (its message names the bound); a slider should not offer it. */
  within?: { min?: string; max?: string };
}

/** `v` held within the values of `f`'s bounding fields (`peer` gives a shown field's value,
 *  `undefined` for a hidden one, which bounds nothing). */
export function withinPeers(f: NumberField, v: number, peer: (id: string) => number | undefined): number {
  const lo = f.within?.min === undefined ? undefined : peer(f.within.min);
  const hi = f.within?.max === undefined ? undefined : peer(f.within.max);
  let out = v;
  if (hi !== undefined && Number.isFinite(hi)) out = Math.min(out, f.integer ? Math.floor(hi) : hi);
  if (lo !== undefined && Number.isFinite(lo)) out = Math.max(out, f.integer ? Math.ceil(lo) : lo);
  // Never past the slider's own range: a peer typed far out (a base of 1e9) is its own error.
  return Math.min(f.max, Math.max(f.min, out));
}

function policyField(
  side: "a" | "b",
  key: keyof Omit<PolicyState, "strategy" | "budget">,
  rest: Omit<NumberField, "id" | "get" | "set">,
  id: string,
): NumberField {
  return {
    id,
    get: (s) => s[side][key],
    set: (s, v) => {
      s[side][key] = v;
    },
    ...rest,
    ...(side === "b" ? { side: "b" as const } : {}),
  };
}

/** Whether the strategy of policy `side` reads `key` (logic/backoff.ts). */
function readsOn(side: "a" | "b", key: BackoffKey): (s: State) => boolean {
  return (s) => readsBackoff(s[side].strategy, key);
}

function policyFields(side: "a" | "b"): NumberField[] {
  const p = side === "a" ? "" : "b-";
  return [
    policyField(side, "baseMs", { unit: "ms", min: 1, max: 10_000, scale: "log", step: 1, when: readsOn(side, "baseMs"), within: { max: `${p}cap` } }, `${p}base`),
    policyField(side, "capMs", { unit: "ms", min: 10, max: 120_000, scale: "log", step: 1, when: readsOn(side, "capMs"), within: { min: `${p}base` } }, `${p}cap`),
    // aws-occ's clients retry until their write wins: no attempt limit (nor a budget).
    policyField(
      side,
      "maxAttempts",
      { unit: "count", min: 1, max: 12, scale: "linear", step: 1, integer: true, limit: { min: 1, max: 20 }, scenarios: SERVED },
      `${p}attempts`,
    ),
    policyField(side, "multiplier", { unit: "factor", min: 1, max: 5, scale: "linear", step: 0.1, when: readsOn(side, "multiplier") }, `${p}multiplier`),
  ];
}

/** A setting's range in the core (`generated/core.ts`, written by `make wasm`). */
function coreRange(name: string): { min: number; max: number } {
  const limit = CORE_LIMITS[name];
  // A name the core does not have is a bug of this file: the unit tests load it.
  if (!limit) throw new Error(`fields: the core has no setting ${name}`);
  return { min: limit.min, max: limit.max };
}

/** The state's number settings (outside the policies). */
type NumberKey = { [K in keyof State]: State[K] extends number ? K : never }[keyof State];

function stateField(id: string, key: NumberKey, rest: Omit<NumberField, "id" | "get" | "set">): NumberField {
  return {
    id,
    get: (s) => s[key],
    set: (s, v) => {
      s[key] = v;
    },
    ...rest,
  };
}

const SERVED = SCENARIO_LIST.filter(hasServer);
const ONGOING = SCENARIO_LIST.filter(isOngoing);

/** Client and server controls, then policy A. */
export const SCENARIO_FIELDS: NumberField[] = [
  // Up to the core's million: runs past MAIN_THREAD_WORK go to the worker (a million-client
  // burst takes 0.7-0.9 s there), and the core refuses a run past its work bound.
  stateField("clients", "clients", {
    unit: "clients",
    min: 100,
    max: 1_000_000,
    scale: "log",
    step: 1,
    integer: true,
    limit: { min: 100, max: 1_000_000 },
  }),
  stateField("outage", "outageMs", {
    unit: "ms",
    min: 0,
    max: 60_000,
    scale: "linear",
    step: 100,
    scenarios: SERVED,
  }),
  stateField("outage-start", "outageStartMs", {
    unit: "ms",
    min: 0,
    max: 60_000,
    scale: "linear",
    step: 500,
    scenarios: ONGOING,
  }),
  stateField("capacity", "capacityRps", {
    unit: "rps",
    min: 10,
    max: 100_000,
    scale: "log",
    step: 1,
    scenarios: SERVED,
  }),
  stateField("retry-after", "retryAfterMs", {
    unit: "ms",
    min: 0,
    max: 30_000,
    scale: "linear",
    step: 1000,
    none: 0,
    scenarios: SERVED,
  }),
  stateField("rate", "ratePerClient", {
    unit: "perSec",
    min: 0.01,
    max: 10,
    scale: "log",
    step: 0.01,
    limit: { min: 0.000001, max: 10 },
    scenarios: ["steady", "spike"],
  }),
  stateField("duration", "durationMs", {
    unit: "ms",
    min: 1000,
    max: 600_000,
    scale: "log",
    step: 1000,
    limit: { min: 1, max: 600_000 },
    scenarios: ONGOING,
  }),
  stateField("spike-start", "spikeStartMs", { unit: "ms", min: 0, max: 120_000, scale: "linear", step: 500, scenarios: ["spike"] }),
  stateField("spike-length", "spikeLengthMs", { unit: "ms", min: 0, max: 60_000, scale: "linear", step: 500, scenarios: ["spike"] }),
  stateField("spike-factor", "spikeFactor", { unit: "factor", min: 0, max: 20, scale: "linear", step: 0.1, scenarios: ["spike"] }),
  stateField("think", "thinkMs", { unit: "ms", min: 0, max: 30_000, scale: "linear", step: 100, scenarios: ["closed"] }),
  stateField("seed", "seed", {
    unit: "none",
    min: 0,
    max: 999,
    scale: "linear",
    step: 1,
    integer: true,
  }),
];

/**
 * The "Server" group: the servers, their queue and service time, and the clients'
 * timeout (stable hooks `#servers #workers #queue #service #timeout`).
 */
export const SERVER_FIELDS: NumberField[] = [
  stateField("servers", "servers", { unit: "count", min: 1, max: 1000, scale: "log", step: 1, integer: true, scenarios: SERVED }),
  stateField("workers", "workers", { unit: "count", min: 0, max: 200, scale: "linear", step: 1, integer: true, scenarios: SERVED }),
  stateField("queue", "queue", { unit: "count", min: 0, max: 10_000, scale: "linear", step: 10, integer: true, scenarios: SERVED }),
  stateField("service", "serviceMs", { unit: "ms", min: 1, max: 5000, scale: "log", step: 1, scenarios: SERVED }),
  stateField("timeout", "timeoutMs", { unit: "ms", min: 0, max: 30_000, scale: "linear", step: 100, none: 0, scenarios: SERVED }),
];

/** The Server group's folded part: what most pictures leave alone (hook `#fail-rate`). */
export const ADVANCED_FIELDS: NumberField[] = [
  stateField("queue-timeout", "queueTimeoutMs", { unit: "ms", min: 0, max: 10_000, scale: "linear", step: 100, none: 0, scenarios: SERVED }),
  stateField("service-spread", "serviceSpread", {
    unit: "none",
    min: 0,
    max: 3,
    scale: "linear",
    step: 0.1,
    scenarios: SERVED,
    when: (s) => s.serviceDist === "lognormal",
  }),
  stateField("service-slope", "serviceSlopeMs", { unit: "ms", min: 0, max: 100, scale: "linear", step: 1, scenarios: SERVED }),
  stateField("fail-rate", "failRate", { unit: "none", min: 0, max: 1, scale: "linear", step: 0.01, scenarios: SERVED }),
  stateField("outage-servers", "outageServers", { unit: "count", min: 0, max: 100, scale: "linear", step: 1, integer: true, none: 0, noneKey: "field.all", scenarios: SERVED, within: { max: "servers" } }),
  stateField("slowdown-start", "slowdownStartMs", { unit: "ms", min: 0, max: 120_000, scale: "linear", step: 500, scenarios: SERVED }),
  stateField("slowdown-length", "slowdownLengthMs", { unit: "ms", min: 0, max: 60_000, scale: "linear", step: 500, none: 0, scenarios: SERVED }),
  stateField("slowdown-factor", "slowdownFactor", { unit: "factor", min: 1, max: 100, scale: "log", step: 0.1, scenarios: SERVED }),
  stateField("latency", "latencyMs", { unit: "ms", min: 0, max: 2000, scale: "linear", step: 10, scenarios: SERVED }),
];

export const POLICY_A_FIELDS: NumberField[] = policyFields("a");

export const BUDGET_FIELDS: NumberField[] = [
  // The core's ranges as the envelope: these fields count whether or not a budget is on, so
  // the page checks them itself (with the budget off no run asks the package, and a -3 went
  // into the link).
  stateField("budget-capacity", "budgetCapacity", { unit: "tokens", min: 1, max: 10_000, scale: "log", step: 1, limit: coreRange("budget.capacity"), scenarios: SERVED }),
  stateField("budget-refill", "budgetRefill", { unit: "perSec", min: 0.01, max: 10_000, scale: "log", step: 0.01, limit: coreRange("budget.refillPerSec"), scenarios: SERVED }),
];

export const POLICY_B_FIELDS: NumberField[] = policyFields("b");

export const ALL_FIELDS: NumberField[] = [
  ...SCENARIO_FIELDS,
  ...SERVER_FIELDS,
  ...ADVANCED_FIELDS,
  ...POLICY_A_FIELDS,
  ...BUDGET_FIELDS,
  ...POLICY_B_FIELDS,
];

export function fieldById(id: string): NumberField | undefined {
  return ALL_FIELDS.find((f) => f.id === id);
}

// --- Sliders --------------------------------------------------------------------------------

/** Sliders move over 0..SLIDER_STEPS; log-scale fields map that range geometrically. */
export const SLIDER_STEPS = 1000;

/** Rounds to 2 significant digits below 1000 and to 3 at and above it, so log sliders land on friendly values. */
export function niceRound(v: number): number {
  if (v === 0 || !Number.isFinite(v)) return v;
  const digits = Math.abs(v) >= 1000 ? 3 : 2;
  const mag = Math.pow(10, Math.floor(Math.log10(Math.abs(v))) - digits + 1);
  return Math.round(v / mag) * mag;
}

function roundToStep(v: number, step: number): number {
  const r = Math.round(v / step) * step;
  // Strip float noise (0.30000000000000004).
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  return Number(r.toFixed(decimals));
}

/** The field value a slider position stands for. */
export function fromSlider(f: NumberField, pos: number): number {
  const t = Math.min(1, Math.max(0, pos / SLIDER_STEPS));
  let v: number;
  if (f.scale === "log") {
    const lo = Math.log(Math.max(f.min, 1e-9));
    const hi = Math.log(f.max);
    v = niceRound(Math.exp(lo + t * (hi - lo)));
    v = Math.max(f.step, roundToStep(v, f.step));
  } else {
    v = roundToStep(f.min + t * (f.max - f.min), f.step);
  }
  if (f.integer) v = Math.round(v);
  return Math.min(f.max, Math.max(f.min, v));
}

/** The slider position closest to a field value (clamped to the slider's range). */
export function toSlider(f: NumberField, v: number): number {
  if (!Number.isFinite(v)) return 0;
  const c = Math.min(f.max, Math.max(f.min, v));
  let t: number;
  if (f.scale === "log") {
    const lo = Math.log(Math.max(f.min, 1e-9));
    const hi = Math.log(f.max);
    t = (Math.log(Math.max(c, 1e-9)) - lo) / (hi - lo);
  } else {
    t = f.max === f.min ? 0 : (c - f.min) / (f.max - f.min);
  }
  return Math.round(t * SLIDER_STEPS);
}

// --- Slider keys ------------------------------------------------------------------------------
//
// A slider's own keys moved its track by 1/SLIDER_STEPS: 45 presses took the attempts from
// 6 to 7, and on a log track many presses landed on the value they left (each still ran the
// simulation). The page steps the field instead, by its own precision: the next multiple of
// its step (linear), or the next value of 2-3 significant digits that a log slider lands on.

/** The grid a value is stepped on at `v`: the field's step (linear), or one unit in the last
 *  of the significant digits `niceRound` keeps (never finer than the field's step). `below`:
 *  the grid just under `v` (from 1000 down the next value is 990, not 999). */
function gridAt(f: NumberField, v: number, below: boolean): number {
  if (f.scale === "linear" || !(v > 0)) return f.step;
  const at = below ? v * (1 - 1e-9) : v;
  const digits = at >= 1000 ? 3 : 2;
  const unit = Math.pow(10, Math.floor(Math.log10(at)) - digits + 1);
  return Math.max(unit, f.step);
}

/**
 * The value one step from `v` in direction `dir` (+1 up, -1 down), inside the slider's range:
 * `v` itself at the end it steps towards. A value off the grid (typed 6.37) steps to the
 * grid's next value (6.4 up, 6.3 down); one outside the slider's range steps into it.
 */
export function stepValue(f: NumberField, v: number, dir: 1 | -1): number {
  if (dir > 0 ? v >= f.max : v <= f.min) return v;
  const grid = gridAt(f, v, dir < 0);
  // A value on the grid up to float noise (0.30000000000000004) counts as on it.
  const k = dir > 0 ? Math.floor(v / grid + 1e-9) + 1 : Math.ceil(v / grid - 1e-9) - 1;
  let next = roundToStep(roundToStep(k * grid, grid), f.step);
  if (f.integer) next = Math.round(next);
  return Math.min(f.max, Math.max(f.min, next));
}

/** How far PageUp and PageDown move: a tenth of the track, as the browser's own slider does. */
const PAGE_STEPS = SLIDER_STEPS / 10;

/**
 * The value a key on field `f`'s slider gives from `v`, or null for a key the slider does not
 * take: arrows a step, PageUp and PageDown a tenth of the track (at least a step), Home and End
 * the slider's ends.
 */
export function keyValue(f: NumberField, v: number, key: string): number | null {
  switch (key) {
    case "ArrowUp":
    case "ArrowRight":
      return stepValue(f, v, 1);
    case "ArrowDown":
    case "ArrowLeft":
      return stepValue(f, v, -1);
    case "PageUp":
      return v >= f.max ? v : Math.max(fromSlider(f, toSlider(f, v) + PAGE_STEPS), stepValue(f, v, 1));
    case "PageDown":
      return v <= f.min ? v : Math.min(fromSlider(f, toSlider(f, v) - PAGE_STEPS), stepValue(f, v, -1));
    case "Home":
      return f.min;
    case "End":
      return f.max;
    default:
      return null;
  }
}

// --- A value in words -------------------------------------------------------------------------

/** Durations in words ("value.ms" …) for the unit each tier of `durationWords` uses. */
const DURATION_KEYS = { ms: "value.ms", s: "value.s", min: "value.min" } as const satisfies Record<string, Key>;

/** A duration in words, exact (a slider's value text must be the value, not formatDuration's
 *  "1 min" for 61 s): "350 milliseconds", "2.5 seconds", "1.5 minutes", "61 seconds". Whole
 *  and half minutes only: "1.1 minutes" says 66 seconds less plainly. */
function durationWords(ms: number, lang: Lang): string {
  const abs = Math.abs(ms);
  let unit: keyof typeof DURATION_KEYS = "ms";
  let n = ms;
  if (abs >= 60_000 && Number.isInteger(ms / 30_000)) {
    unit = "min";
    n = ms / 60_000;
  } else if (abs >= 1000) {
    unit = "s";
    n = ms / 1000;
  }
  return translate(lang, DURATION_KEYS[unit], { n: formatNumber(n, lang, 6), count: n });
}

/**
 * Field `f`'s value `v` as its slider's `aria-valuetext`: the value the number box holds, in
 * the reader's language, with its unit in words ("1,000 clients", "2 seconds", "none"). The
 * slider's own value is its track position (0..SLIDER_STEPS), which means nothing to hear.
 */
export function valueText(f: NumberField, v: number, lang: Lang): string {
  if (v === f.none) return translate(lang, f.noneKey ?? "field.none");
  const n = formatNumber(v, lang, 6);
  switch (f.unit) {
    case "ms":
      return durationWords(v, lang);
    case "clients":
      return translate(lang, "value.clients", { n, count: v });
    case "rps":
      return translate(lang, "value.rps", { n, count: v });
    case "tokens":
      return translate(lang, "value.tokens", { n, count: v });
    case "perSec":
      return translate(lang, "value.perSec", { n });
    case "factor":
      return `${translate(lang, "unit.factor")}${n}`;
    case "count":
    case "none":
      return n;
  }
}

// --- Typed values -----------------------------------------------------------------------------

/** Why a typed value was refused; the page words it in the reader's language. */
export type FieldProblem =
  | { kind: "empty" }
  | { kind: "nan" }
  | { kind: "integer" }
  | { kind: "range"; min: number; max: number };

export type Parsed = { ok: true; value: number } | { ok: false; problem: FieldProblem };

/**
 * Reads a typed field. `badInput` is the browser's word that the text is not a number
 * (a number input then reports an empty value).
 */
export function parseField(f: NumberField, text: string, badInput = false, scenario?: Scenario): Parsed {
  const t = text.trim();
  if (badInput) return { ok: false, problem: { kind: "nan" } };
  if (t === "") return { ok: false, problem: { kind: "empty" } };
  // Decimal only: Number() also reads "0x10" as 16 (and "0b11", "0o7"), which a link
  // then showed as a value nobody wrote. A number box never holds them.
  if (!DECIMAL.test(t)) return { ok: false, problem: { kind: "nan" } };
  const v = Number(t);
  if (!Number.isFinite(v)) return { ok: false, problem: { kind: "nan" } };
  if (f.integer && !Number.isInteger(v)) return { ok: false, problem: { kind: "integer" } };
  const limit = envelope(f, scenario);
  if (limit && (v < limit.min || v > limit.max)) return { ok: false, problem: { kind: "range", ...limit } };
  return { ok: true, value: v };
}

/** A decimal number as a person writes one (and a number box gives): sign, digits, point, exponent. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The AWS experiment makes every client contend with every other: the page keeps it small. */
export const OCC_MAX_CLIENTS = 2000;

function envelope(f: NumberField, scenario?: Scenario): { min: number; max: number } | undefined {
  if (f.id === "clients" && scenario === "aws-occ") return { min: 100, max: OCC_MAX_CLIENTS };
  return f.limit;
}

/**
 * What the page refuses as a whole: steady runs above this many requests. With the most
 * attempts the page offers (20), a million requests stay within the core's bound on a run's
 * attempts (20,000,000: requests × attempts), so every run the page allows is one the
 * package accepts.
 */
export const MAX_STEADY_REQUESTS = 1_000_000;

/**
 * The requests of a steady or spike run: clients × rate × duration, the spike's part of the
 * duration counted `spikeFactor` times (the page's envelope; the package checks its own).
 */
export function steadyRequests(s: State): number {
  let ms = s.durationMs;
  if (s.scenario === "spike") {
    const from = Math.min(s.spikeStartMs, s.durationMs);
    const to = Math.min(s.spikeStartMs + s.spikeLengthMs, s.durationMs);
    ms += Math.max(0, to - from) * (s.spikeFactor - 1);
  }
  return (s.clients * s.ratePerClient * ms) / 1000;
}

/** Whether the page bounds a scenario's requests (clients × rate × duration). */
export function isRated(scenario: Scenario): boolean {
  return scenario === "steady" || scenario === "spike";
}

/** Whether field `f` is shown for these settings (the scenario alone when no state is given). */
export function visibleFor(f: NumberField, scenario: Scenario, s?: State): boolean {
  if (f.scenarios && !f.scenarios.includes(scenario)) return false;
  return !f.when || !s || f.when(s);
}
