// The page's state: every control's value, as one plain object that the URL encodes,
// presets replace, and the simulator bridge turns into package options.
//
// Nothing here knows a retry rule. Names and defaults only; what a setting *means* is the
// Rust core's business (see wasm/bridge.ts).

import type { Scenario as PackageScenario, SimOptions as PackageSimOptions, Strategy as PackageStrategy } from "stampede";
import { CORE_DEFAULTS } from "../generated/core.js";

/**
 * Compile-time: the list `L` names every member of the package's union `U`. With
 * `satisfies readonly U[]` (nothing the package lacks) the page's list is exactly the
 * package's: a strategy or scenario added in Rust (and to stampede.d.ts) fails to compile
 * here, naming what is missing, instead of silently missing from the page's menus.
 */
type Names<U, L extends readonly U[]> = [Exclude<U, L[number]>] extends [never] ? L : { missing: Exclude<U, L[number]> };

/** The scenarios, in the menu's order. */
export const SCENARIOS = ["burst", "steady", "aws-occ"] as const satisfies readonly PackageScenario[];
export type Scenario = (typeof SCENARIOS)[number];
SCENARIOS satisfies Names<PackageScenario, typeof SCENARIOS>;

/** The strategies, in the menu's order. */
export const STRATEGIES = [
  "none",
  "constant",
  "exponential",
  "full",
  "equal",
  "decorrelated",
  "decorrelated-v2",
] as const satisfies readonly PackageStrategy[];
export type Strategy = (typeof STRATEGIES)[number];
STRATEGIES satisfies Names<PackageStrategy, typeof STRATEGIES>;

type PackageBudgetScope = NonNullable<PackageSimOptions["budgetScope"]>;
export const BUDGET_SCOPES = ["shared", "client"] as const satisfies readonly PackageBudgetScope[];
export type BudgetScope = (typeof BUDGET_SCOPES)[number];
BUDGET_SCOPES satisfies Names<PackageBudgetScope, typeof BUDGET_SCOPES>;

export const LANGS = ["en", "ru"] as const;
export type Lang = (typeof LANGS)[number];

export const SPEEDS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 20] as const;

/** How the herd lays out its rows: one pixel row per client (scrolling), or all in view. */
export const ROW_MODES = ["client", "fit"] as const;
export type RowMode = (typeof ROW_MODES)[number];

/** One client policy: the main controls are policy A, the compare panel's are policy B. */
export interface PolicyState {
  strategy: Strategy;
  baseMs: number;
  capMs: number;
  maxAttempts: number;
  multiplier: number;
  /** Whether this policy spends the retry budget set in the scenario controls. */
  budget: boolean;
}

export interface State {
  scenario: Scenario;
  a: PolicyState;
  b: PolicyState;
  clients: number;
  outageMs: number;
  /** steady: when the outage starts. */
  outageStartMs: number;
  capacityRps: number;
  /** The server's Retry-After during the outage, ms; 0: the server sends none. */
  retryAfterMs: number;
  /** steady: new requests per client per second. */
  ratePerClient: number;
  /** steady: how long new requests keep coming. */
  durationMs: number;
  budgetCapacity: number;
  budgetRefill: number;
  budgetScope: BudgetScope;
  seed: number;
  /** Playback speed: simulated seconds per real second. */
  speed: number;
  /** The herd's rows (a view setting: presets keep the reader's choice). */
  rows: RowMode;
}

/**
 * The first preset's picture: 1000 clients, a 2 s outage, everyone back exactly 2 s later —
 * the core's default simulation (`defaults().simulation`, its burst backoff included), with
 * the page's own choices only where it tells more: policy B is the core's recommended
 * strategy, steady traffic starts its outage at 10 s and lasts 2 min, and the budget is
 * one the storm preset shows working.
 *
 * Read from the core at build time (`generated/core.ts`, which `make wasm` writes from the
 * package's `defaults()`), not at run time: the page decodes the link and builds its form
 * while the wasm module still loads, and a shared link must keep its picture.
 */
const CORE_SIM = CORE_DEFAULTS.simulation;
const CORE_BURST = CORE_SIM.scenarioBackoff[CORE_SIM.scenario];
/** The core's policy for a simulation of its default scenario, with `strategy`. */
const corePolicy = (strategy: Strategy): PolicyState => ({
  strategy,
  baseMs: CORE_BURST.baseMs,
  capMs: CORE_BURST.capMs,
  maxAttempts: CORE_DEFAULTS.policy.maxAttempts,
  multiplier: CORE_DEFAULTS.policy.multiplier,
  budget: false,
});

export const DEFAULT_STATE: State = {
  scenario: CORE_SIM.scenario,
  // The article's herd: plain exponential backoff at the scenario's own base and cap.
  a: corePolicy("exponential"),
  b: corePolicy(CORE_DEFAULTS.policy.strategy),
  clients: CORE_SIM.clients,
  outageMs: CORE_SIM.outageMs,
  // The page's own: steady traffic runs 10 s before its outage, for 2 min.
  outageStartMs: 10_000,
  capacityRps: CORE_SIM.capacityRps,
  // 0 is the page's "none" (the core's default sends no Retry-After).
  retryAfterMs: CORE_SIM.retryAfterMs ?? 0,
  ratePerClient: CORE_SIM.ratePerClient,
  durationMs: 120_000,
  // The page's own: a budget the storm preset shows working.
  budgetCapacity: 100,
  budgetRefill: 100,
  budgetScope: "shared",
  seed: CORE_SIM.seed,
  speed: 1,
  rows: "client",
};

export function cloneState(s: State): State {
  return { ...s, a: { ...s.a }, b: { ...s.b } };
}

export function sameState(x: State, y: State): boolean {
  return JSON.stringify(x) === JSON.stringify(y);
}

export function isScenario(v: string): v is Scenario {
  return (SCENARIOS as readonly string[]).includes(v);
}
export function isStrategy(v: string): v is Strategy {
  return (STRATEGIES as readonly string[]).includes(v);
}
export function isBudgetScope(v: string): v is BudgetScope {
  return (BUDGET_SCOPES as readonly string[]).includes(v);
}
export function isRowMode(v: string): v is RowMode {
  return (ROW_MODES as readonly string[]).includes(v);
}
export function isSpeed(v: number): boolean {
  return (SPEEDS as readonly number[]).includes(v);
}
export function isLang(v: string): v is Lang {
  return (LANGS as readonly string[]).includes(v);
}

/** Which policy a simulation runs. */
export type Side = "a" | "b";

// --- Package options ----------------------------------------------------------------------
// Plain objects shaped like the package's PolicyOptions / SimOptions (names exact).

export interface PolicyOptions {
  strategy: Strategy;
  baseMs: number;
  capMs: number;
  maxAttempts: number;
  multiplier: number;
  seed?: number;
}

export interface BudgetOptions {
  capacity: number;
  refillPerSec: number;
}

export interface SimOptions {
  scenario: Scenario;
  clients: number;
  policy: PolicyOptions;
  seed: number;
  outageMs?: number;
  outageStartMs?: number;
  capacityRps?: number;
  ratePerClient?: number;
  durationMs?: number;
  retryAfterMs?: number | null;
  budget?: BudgetOptions | null;
  budgetScope?: BudgetScope;
}

export function policyOptions(p: PolicyState, seed?: number): PolicyOptions {
  const o: PolicyOptions = {
    strategy: p.strategy,
    baseMs: p.baseMs,
    capMs: p.capMs,
    maxAttempts: p.maxAttempts,
    multiplier: p.multiplier,
  };
  if (seed !== undefined) o.seed = seed;
  return o;
}

export function budgetOptions(s: State): BudgetOptions {
  return { capacity: s.budgetCapacity, refillPerSec: s.budgetRefill };
}

/** The package's SimOptions for one side, passing only what the scenario uses. */
export function simOptions(s: State, side: Side): SimOptions {
  const p = side === "a" ? s.a : s.b;
  const o: SimOptions = {
    scenario: s.scenario,
    clients: s.clients,
    policy: policyOptions(p),
    seed: s.seed,
  };
  if (s.scenario !== "aws-occ") {
    o.outageMs = s.outageMs;
    o.capacityRps = s.capacityRps;
    // 0 means the server sends none; anything else (a negative too) is the package's to judge.
    o.retryAfterMs = s.retryAfterMs === 0 ? null : s.retryAfterMs;
  }
  if (s.scenario === "steady") {
    o.outageStartMs = s.outageStartMs;
    o.ratePerClient = s.ratePerClient;
    o.durationMs = s.durationMs;
  }
  if (p.budget) {
    o.budget = budgetOptions(s);
    o.budgetScope = s.budgetScope;
  }
  return o;
}

/** The outage window a figure shades, ms; null when the scenario has none. */
export function outageWindow(s: State): [number, number] | null {
  if (s.scenario === "aws-occ" || s.outageMs <= 0) return null;
  const start = s.scenario === "steady" ? s.outageStartMs : 0;
  return [start, start + s.outageMs];
}

/**
 * A rough size of a run (attempts it may make), to decide whether it can run on the main
 * thread within a frame or goes to the worker. Only an order of magnitude matters.
 */
export function workEstimate(o: SimOptions): number {
  const attempts = Math.max(1, o.policy.maxAttempts);
  switch (o.scenario) {
    case "burst":
      return o.clients * attempts;
    case "steady":
      return ((o.clients * (o.ratePerClient ?? 1) * (o.durationMs ?? 60_000)) / 1000) * attempts;
    case "aws-occ":
      // Every client retries until it wins: contention grows with the square of clients.
      return o.clients * o.clients * 2;
  }
}

/** Runs above this many estimated attempts go to the Web Worker. */
export const MAIN_THREAD_WORK = 80_000;
