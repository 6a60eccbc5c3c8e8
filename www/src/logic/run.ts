// A state as the package's options for one run (what each scenario uses, what "none"
// leaves out, how the servers are sized), what the core sized back, the windows the
// figures shade, and how big a run is (whether it goes to the worker).

import type {
  BreakerOptions,
  BudgetOptions as PackageBudgetOptions,
  HedgingOptions,
  SimOptions as PackageSimOptions,
  ThrottleOptions,
} from "stampede";
import { readsBackoff, type BackoffKey } from "./backoff.js";
import {
  hasServer,
  isOngoing,
  type Balance,
  type BudgetScope,
  type LatencyDist,
  type PolicyState,
  type QueueOrder,
  type Scenario,
  type ServiceDist,
  type Side,
  type State,
  type Strategy,
} from "./state.js";

// --- Package options ----------------------------------------------------------------------
// Plain objects shaped like the package's PolicyOptions / SimOptions (names exact).

export interface PolicyOptions {
  strategy: Strategy;
  /** Only where the strategy reads it (logic/backoff.ts): the core's default otherwise. */
  baseMs?: number;
  capMs?: number;
  maxAttempts: number;
  multiplier?: number;
  seed?: number;
}

export interface BudgetOptions {
  capacity: number;
  refillPerSec: number;
}

// Issue #12's mechanisms, as the package's options (fields left out take the core's defaults).

/** A retry budget of any kind; `kind` absent is the token bucket. */
export type AnyBudgetOptions = PackageBudgetOptions;

export type { BreakerOptions, HedgingOptions, ThrottleOptions } from "stampede";


export type RetryAt = NonNullable<PackageSimOptions["retryAt"]>;

/** What a safety net changes in a run: the attempts, and at most one of each mechanism. */
export interface NetOptions {
  maxAttempts?: number;
  budget?: AnyBudgetOptions;
  breaker?: BreakerOptions;
  throttle?: ThrottleOptions;
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
  slotMs?: number;
  logClients?: number;
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

/**
 * A run with issue #12's mechanisms: what the sweeping panels (nets, hedging, layers) run
 * (the page's SimOptions, which the form and the links use, with every budget kind, the
 * breaker, the throttle, hedging and layers).
 */
export interface BeyondOptions extends Omit<SimOptions, "budget"> {
  budget?: AnyBudgetOptions | null;
  breaker?: BreakerOptions | null;
  throttle?: ThrottleOptions | null;
  hedging?: HedgingOptions | null;
  layers?: PackageSimOptions["layers"];
  retryAt?: RetryAt;
}

export interface SlowdownOptions {
  startMs: number;
  lengthMs: number;
  factor: number;
}

/** The package's policy options: the backoff settings the strategy reads (logic/backoff.ts),
 *  the attempts, and the seed if given. */
export function policyOptions(p: PolicyState, seed?: number): PolicyOptions {
  const reads = (key: BackoffKey) => readsBackoff(p.strategy, key);
  const o: PolicyOptions = {
    strategy: p.strategy,
    ...(reads("baseMs") ? { baseMs: p.baseMs } : {}),
    // Only where it is read: the core takes any cap beside a strategy that reads none
    // ("constant"; it sent the base as the cap while the core refused a longer base).
    ...(reads("capMs") ? { capMs: p.capMs } : {}),
    maxAttempts: p.maxAttempts,
    ...(reads("multiplier") ? { multiplier: p.multiplier } : {}),
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
  // aws-occ's clients retry until their write wins: no budget.
  if (p.budget && hasServer(s.scenario)) {
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
      // Each client: one request per think time plus the quickest way a request can end,
      // not the usual one: an attempt that fails (in an outage, or refused by a full queue)
      // ends after a round trip without being served, one given up ends at the timeout,
      // and one a budget refuses ends at once. (Think + round trip + service kept a closed
      // loop in an outage on the main thread: an 870 ms long task.)
      const trip = Math.min(o.latencyMs ?? 0, o.timeoutMs ?? Infinity);
      const cycle = Math.max(1, (o.thinkMs ?? 1000) + (o.budget ? 0 : trip));
      return ((o.clients * (o.durationMs ?? 60_000)) / cycle) * attempts;
    }
    case "aws-occ":
      // Every client retries until it wins: contention grows with the square of clients.
      return o.clients * o.clients * 2;
  }
}

/** Runs above this many estimated attempts go to the Web Worker. */
export const MAIN_THREAD_WORK = 80_000;
