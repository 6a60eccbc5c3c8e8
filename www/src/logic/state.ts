// The page's state: every control's value, as one plain object that the URL encodes,
// presets replace, and run.ts turns into package options.
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
export const SCENARIOS = ["burst", "steady", "spike", "closed", "aws-occ"] as const satisfies readonly PackageScenario[];
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

// The server's choices (named by the package's option types, so the lists stay exact).
type PackageBalance = NonNullable<PackageSimOptions["balance"]>;
export const BALANCES = ["round-robin", "random", "least-loaded"] as const satisfies readonly PackageBalance[];
export type Balance = (typeof BALANCES)[number];
BALANCES satisfies Names<PackageBalance, typeof BALANCES>;

type PackageQueueOrder = NonNullable<PackageSimOptions["queueOrder"]>;
export const QUEUE_ORDERS = ["fifo", "lifo"] as const satisfies readonly PackageQueueOrder[];
export type QueueOrder = (typeof QUEUE_ORDERS)[number];
QUEUE_ORDERS satisfies Names<PackageQueueOrder, typeof QUEUE_ORDERS>;

type PackageServiceDist = NonNullable<PackageSimOptions["serviceDist"]>;
export const SERVICE_DISTS = ["constant", "exponential", "lognormal"] as const satisfies readonly PackageServiceDist[];
export type ServiceDist = (typeof SERVICE_DISTS)[number];
SERVICE_DISTS satisfies Names<PackageServiceDist, typeof SERVICE_DISTS>;

type PackageLatencyDist = NonNullable<PackageSimOptions["latencyDist"]>;
export const LATENCY_DISTS = ["normal", "exponential"] as const satisfies readonly PackageLatencyDist[];
export type LatencyDist = (typeof LATENCY_DISTS)[number];
LATENCY_DISTS satisfies Names<PackageLatencyDist, typeof LATENCY_DISTS>;

/**
 * What sizes the servers. "capacity": the capacity field does, and the core picks the
 * workers per server and the queue (the page then shows what it picked); "workers": the
 * workers and queue fields do, and the capacity follows from them. Editing one of those
 * fields makes it lead.
 */
export const SIZINGS = ["capacity", "workers"] as const;
export type Sizing = (typeof SIZINGS)[number];

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

  // --- The servers and the clients' timeout. A 0 marked "none" is not sent (the core's
  // default: never, all, none).
  servers: number;
  balance: Balance;
  sizing: Sizing;
  /** Workers per server (0: unlimited); the core's choice when `sizing` is "capacity". */
  workers: number;
  /** Requests waiting per server; the core's choice when `sizing` is "capacity". */
  queue: number;
  queueOrder: QueueOrder;
  /** 0: none. */
  queueTimeoutMs: number;
  serviceMs: number;
  serviceDist: ServiceDist;
  serviceSpread: number;
  serviceSlopeMs: number;
  failRate: number;
  /** Servers the outage takes down; 0: all. */
  outageServers: number;
  slowdownStartMs: number;
  /** 0: no slowdown. */
  slowdownLengthMs: number;
  slowdownFactor: number;
  /** The clients' per-attempt timeout; 0: none. */
  timeoutMs: number;
  /** Mean round trip. */
  latencyMs: number;
  latencyDist: LatencyDist;
  /** spike: when, how long, how much the arrival rate jumps. */
  spikeStartMs: number;
  spikeLengthMs: number;
  spikeFactor: number;
  /** closed: a client's mean pause between requests. */
  thinkMs: number;

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
  servers: CORE_SIM.servers,
  balance: CORE_SIM.balance,
  // The core sizes the servers from the capacity unless told the workers.
  sizing: CORE_SIM.workers === null ? "capacity" : "workers",
  // Until the first run says what the core picked (it then shows here): the page's own.
  workers: CORE_SIM.workers ?? 0,
  queue: CORE_SIM.queue ?? 0,
  queueOrder: CORE_SIM.queueOrder,
  queueTimeoutMs: CORE_SIM.queueTimeoutMs ?? 0,
  serviceMs: CORE_SIM.serviceMs,
  serviceDist: CORE_SIM.serviceDist,
  serviceSpread: CORE_SIM.serviceSpread,
  serviceSlopeMs: CORE_SIM.serviceSlopeMs,
  failRate: CORE_SIM.failRate,
  outageServers: CORE_SIM.outageServers ?? 0,
  slowdownStartMs: CORE_SIM.slowdown?.startMs ?? 0,
  slowdownLengthMs: CORE_SIM.slowdown?.lengthMs ?? 0,
  // The page's own: a slowdown, once given a length, doubles service times.
  slowdownFactor: CORE_SIM.slowdown?.factor ?? 2,
  timeoutMs: CORE_SIM.timeoutMs ?? 0,
  latencyMs: CORE_SIM.latencyMs,
  latencyDist: CORE_SIM.latencyDist,
  spikeStartMs: CORE_SIM.spikeStartMs,
  spikeLengthMs: CORE_SIM.spikeLengthMs,
  spikeFactor: CORE_SIM.spikeFactor,
  thinkMs: CORE_SIM.thinkMs,
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
export function isBalance(v: string): v is Balance {
  return (BALANCES as readonly string[]).includes(v);
}
export function isQueueOrder(v: string): v is QueueOrder {
  return (QUEUE_ORDERS as readonly string[]).includes(v);
}
export function isServiceDist(v: string): v is ServiceDist {
  return (SERVICE_DISTS as readonly string[]).includes(v);
}
export function isLatencyDist(v: string): v is LatencyDist {
  return (LATENCY_DISTS as readonly string[]).includes(v);
}
export function isSizing(v: string): v is Sizing {
  return (SIZINGS as readonly string[]).includes(v);
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

/** Scenarios with a server (all but the AWS contention experiment). */
export function hasServer(scenario: Scenario): boolean {
  return scenario !== "aws-occ";
}

/** Scenarios whose traffic runs for a duration with an outage midway. */
export function isOngoing(scenario: Scenario): boolean {
  return scenario === "steady" || scenario === "spike" || scenario === "closed";
}
