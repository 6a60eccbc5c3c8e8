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
  latencyMs?: number;
  latencyDist?: LatencyDist;
  servers?: number;
  balance?: Balance;
  workers?: number;
  queue?: number;
  queueOrder?: QueueOrder;
  queueTimeoutMs?: number;
  serviceMs?: number;
  serviceDist?: ServiceDist;
  serviceSpread?: number;
  serviceSlopeMs?: number;
  failRate?: number;
  outageServers?: number;
  slowdown?: SlowdownOptions;
  timeoutMs?: number;
  spikeStartMs?: number;
  spikeLengthMs?: number;
  spikeFactor?: number;
  thinkMs?: number;
}

export interface SlowdownOptions {
  startMs: number;
  lengthMs: number;
  factor: number;
}

/** Scenarios with a server (all but the AWS contention experiment). */
export function hasServer(scenario: Scenario): boolean {
  return scenario !== "aws-occ";
}

/** Scenarios whose traffic runs for a duration with an outage midway. */
export function isOngoing(scenario: Scenario): boolean {
  return scenario === "steady" || scenario === "spike" || scenario === "closed";
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
  if (hasServer(s.scenario)) {
    o.outageMs = s.outageMs;
    // Given the workers, the capacity follows from them (and is not sent).
    if (s.sizing === "capacity") o.capacityRps = s.capacityRps;
    // 0 means the server sends none; anything else (a negative too) is the package's to judge.
    o.retryAfterMs = s.retryAfterMs === 0 ? null : s.retryAfterMs;
    serverOptions(s, o);
  }
  if (isOngoing(s.scenario)) {
    o.outageStartMs = s.outageStartMs;
    o.durationMs = s.durationMs;
    if (s.scenario === "closed") o.thinkMs = s.thinkMs;
    else o.ratePerClient = s.ratePerClient;
  }
  if (s.scenario === "spike") {
    o.spikeStartMs = s.spikeStartMs;
    o.spikeLengthMs = s.spikeLengthMs;
    o.spikeFactor = s.spikeFactor;
  }
  if (p.budget) {
    o.budget = budgetOptions(s);
    o.budgetScope = s.budgetScope;
  }
  return o;
}

/**
 * The servers, the network and the clients' timeout. A 0 that means "none" is left out
 * (the core's default is none); every other value, a bad one too, is the package's to judge.
 */
function serverOptions(s: State, o: SimOptions): void {
  o.servers = s.servers;
  o.balance = s.balance;
  if (s.sizing === "workers") {
    o.workers = s.workers;
    o.queue = s.queue;
  }
  o.queueOrder = s.queueOrder;
  if (s.queueTimeoutMs !== 0) o.queueTimeoutMs = s.queueTimeoutMs;
  o.serviceMs = s.serviceMs;
  o.serviceDist = s.serviceDist;
  if (s.serviceDist === "lognormal") o.serviceSpread = s.serviceSpread;
  o.serviceSlopeMs = s.serviceSlopeMs;
  o.failRate = s.failRate;
  if (s.outageServers !== 0) o.outageServers = s.outageServers;
  if (s.slowdownLengthMs !== 0) o.slowdown = { startMs: s.slowdownStartMs, lengthMs: s.slowdownLengthMs, factor: s.slowdownFactor };
  if (s.timeoutMs !== 0) o.timeoutMs = s.timeoutMs;
  o.latencyMs = s.latencyMs;
  o.latencyDist = s.latencyDist;
}

/** The servers a run simulated, as the core sized them (`Simulation.fleet()`). */
export interface FleetShape {
  servers: number;
  workers: number;
  serviceMs: number;
  queue: number;
  /** Infinite (or null, through JSON) with unlimited workers. */
  capacityRps: number | null;
}

/** A fleet's capacity in requests per second; Infinity when unlimited. */
export function fleetCapacity(f: FleetShape): number {
  return f.capacityRps === null || !Number.isFinite(f.capacityRps) ? Infinity : f.capacityRps;
}

/**
 * `s` with what the core chose for it filled in, so that the form and the link show what
 * ran: the workers and queue it sized from the capacity, or the capacity that follows
 * from the workers (to 4 significant digits: it is shown, not sent). Returns whether
 * anything changed.
 */
export function adoptFleet(s: State, f: FleetShape): boolean {
  const before = [s.workers, s.queue, s.capacityRps];
  if (s.sizing === "capacity") {
    s.workers = f.workers;
    s.queue = f.queue;
  } else {
    const cap = fleetCapacity(f);
    if (Number.isFinite(cap) && cap > 0) s.capacityRps = Number(cap.toPrecision(4));
  }
  return before[0] !== s.workers || before[1] !== s.queue || before[2] !== s.capacityRps;
}

/** The outage window a figure shades, ms; null when the scenario has none. */
export function outageWindow(s: State): [number, number] | null {
  if (!hasServer(s.scenario) || s.outageMs <= 0) return null;
  const start = isOngoing(s.scenario) ? s.outageStartMs : 0;
  return [start, start + s.outageMs];
}

/** When the last trigger (outage, spike, slowdown) is over, ms; 0 when there is none. */
export function triggerEnd(s: State): number {
  let end = outageWindow(s)?.[1] ?? 0;
  end = Math.max(end, spikeWindow(s)?.[1] ?? 0);
  if (hasServer(s.scenario) && s.slowdownLengthMs > 0) end = Math.max(end, s.slowdownStartMs + s.slowdownLengthMs);
  return end;
}

/** The spike window a figure marks, ms; null unless the scenario is a spike. */
export function spikeWindow(s: State): [number, number] | null {
  if (s.scenario !== "spike" || s.spikeLengthMs <= 0) return null;
  return [s.spikeStartMs, s.spikeStartMs + s.spikeLengthMs];
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
    case "spike": {
      const spike = o.scenario === "spike" ? ((o.spikeLengthMs ?? 0) * Math.max(0, (o.spikeFactor ?? 1) - 1)) : 0;
      return ((o.clients * (o.ratePerClient ?? 1) * ((o.durationMs ?? 60_000) + spike)) / 1000) * attempts;
    }
    case "closed": {
      // Each client: one request per think time plus a round trip and a service time.
      const cycle = Math.max(1, (o.thinkMs ?? 1000) + (o.latencyMs ?? 0) + (o.serviceMs ?? 0));
      return ((o.clients * (o.durationMs ?? 60_000)) / cycle) * attempts;
    }
    case "aws-occ":
      // Every client retries until it wins: contention grows with the square of clients.
      return o.clients * o.clients * 2;
  }
}

/** Runs above this many estimated attempts go to the Web Worker. */
export const MAIN_THREAD_WORK = 80_000;
