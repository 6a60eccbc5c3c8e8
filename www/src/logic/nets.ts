// "Which safety net?": the same failure met by each mechanism that answers "how much
// retrying is safe?", and the sweep of failure rates behind the panel's figure. Pure: the
// options for each run and the shape of the results; the runs happen in wasm/pool.ts.
//
// The failure follows the fidelity setting, so the figure can be read against the
// theory the core's tests check: 100 clients at 10 requests per second for 10 s, a network
// leg exponential with mean 10 ms, immediate retries, and servers with unlimited workers, so
// that failures (the fail rate p) are independent of the load. With 4 attempts and
// nothing else, amplification is 1 + p + p² + p³ and success 1 − p⁴.
//
// Each net keeps the same 4 attempts and adds one mechanism, with its source's numbers
// (the core's docs name each source and where ours differs); "no limit" retries up to the
// core's most attempts. The mechanisms see every client's calls ("shared", as a proxy or a
// process with many callers does) or one client's ("client"): the panel's scope menu.

import { CORE_LIMITS } from "../generated/core.js";
import type { Key } from "./i18n.js";
import type { BudgetScope } from "./state.js";
import type { BeyondOptions, NetOptions } from "./run.js";

/** The nets, in the panel's order. */
/** The fail rates the safety-net panel takes (its field, and a link's value for it). */
export const FAIL_RATE_RANGE = { min: 0, max: 1 } as const;

export const NET_IDS = ["none", "attempts", "bucket", "ratio", "grpc", "aws", "breaker", "throttle"] as const;
export type NetId = (typeof NET_IDS)[number];

/** Attempts every net allows (the first included): 3 retries, as in the fidelity tests. */
export const NET_ATTEMPTS = 4;

/** "No limit": the core's most attempts. */
export const NO_LIMIT_ATTEMPTS = CORE_LIMITS["maxAttempts"]?.max ?? 100;

export interface NetsFailure {
  /** A fail rate for the whole run, or an outage of every server in its middle. */
  kind: "rate" | "outage";
  /** The chance that an attempt fails with 500 (kind "rate"), 0 to 1. */
  failRate: number;
}

export const NETS_CLIENTS = 100;
export const NETS_RATE = 10;
export const NETS_DURATION_MS = 10_000;
/** The outage: from 3 s to 7 s of the 10 s run. */
export const NETS_OUTAGE: readonly [number, number] = [3000, 7000];

/** The failure rates the figure sweeps: 0 to 50% in steps of 5%. */
export const SWEEP_RATES: readonly number[] = Array.from({ length: 11 }, (_, i) => i / 20);

/** The same failure, with no mechanism: the options every net starts from. */
export function netsBase(f: NetsFailure, seed: number): BeyondOptions {
  const outage = f.kind === "outage";
  return {
    scenario: "steady",
    clients: NETS_CLIENTS,
    ratePerClient: NETS_RATE,
    durationMs: NETS_DURATION_MS,
    outageStartMs: outage ? NETS_OUTAGE[0] : 0,
    outageMs: outage ? NETS_OUTAGE[1] - NETS_OUTAGE[0] : 0,
    retryAfterMs: null,
    // Unlimited workers: no queue, no overload, failures independent of the load.
    workers: 0,
    queue: 0,
    serviceMs: 10,
    // Each leg exponential with mean 10 ms (the package halves the round trip per leg).
    latencyMs: 20,
    latencyDist: "exponential",
    failRate: outage ? 0 : f.failRate,
    // Immediate retries: the strategy that waits nothing (base and cap are unused).
    policy: { strategy: "none", baseMs: 1, capMs: 1, maxAttempts: NET_ATTEMPTS, multiplier: 2 },
    seed,
    // The sweep reads the metrics only: no attempt log, coarse series.
    logClients: 0,
    slotMs: 1000,
  };
}

/**
 * What one net adds to the base. Each budget's numbers: the token bucket is the page's own
 * (a tenth of the traffic: 100 tokens and +100/s shared by the 1000 requests per second, or
 * the core's 10 tokens and +1/s for one client's 10); the ratio budget is Brooker's adaptive
 * client (0.1 per call, at most 5, no floor), gRPC's throttle the gRFC's example (10, 0.1),
 * AWS's quota its standard mode (the core's defaults); the breaker blocks retries only once
 * 10% of calls fail (Polly's other defaults); the throttle is the SRE book's (K = 2).
 */
export function netOptions(id: NetId, scope: BudgetScope): NetOptions {
  switch (id) {
    case "none":
      return { maxAttempts: NO_LIMIT_ATTEMPTS };
    case "attempts":
      return {};
    case "bucket":
      return { budget: scope === "shared" ? { capacity: 100, refillPerSec: 100 } : { capacity: 10, refillPerSec: 1 } };
    case "ratio":
      return { budget: { kind: "ratio", ratio: 0.1, cap: 5, minPerSec: 0 } };
    case "grpc":
      return { budget: { kind: "grpc", maxTokens: 10, tokenRatio: 0.1 } };
    case "aws":
      return { budget: { kind: "aws" } };
    case "breaker":
      return { breaker: { failureRatio: 0.1, mode: "retries" } };
    case "throttle":
      return { throttle: { k: 2 } };
  }
}

/** The run of `net` against the failure `f`. */
export function netRun(id: NetId, f: NetsFailure, scope: BudgetScope, seed: number): BeyondOptions {
  const o = netsBase(f, seed);
  const { maxAttempts, ...rest } = netOptions(id, scope);
  if (maxAttempts !== undefined) o.policy = { ...o.policy, maxAttempts };
  Object.assign(o, rest);
  if (rest.budget || rest.breaker || rest.throttle) o.budgetScope = scope;
  return o;
}

export function netLabel(id: NetId): Key {
  return `nets.net.${id}`;
}

/** One run's figures, as the panel shows them. */
export interface NetSummary {
  /** Attempts per request at the server. */
  amplification: number;
  /** Requests that succeeded, share of all (0 to 1). */
  success: number;
  /** Requests failed fast by the net: budget, breaker and throttle together. */
  blocked: number;
}

/** The metrics a summary reads (the package's names; the nets' counts may be absent). */
export interface NetMetrics {
  requests: number;
  successes: number;
  amplification: number;
  budgetRejected: number;
  breakerRejected?: number;
  throttled?: number;
}

export function summarize(m: NetMetrics): NetSummary {
  const blocked = m.budgetRejected + (m.breakerRejected ?? 0) + (m.throttled ?? 0);
  return {
    amplification: m.amplification,
    success: m.requests > 0 ? m.successes / m.requests : 0,
    blocked: m.requests > 0 ? blocked / m.requests : 0,
  };
}

/** One job of the panel's batch: a net against a failure. */
export interface NetJob {
  net: NetId;
  /** The failure rate swept (the figure), or null (the table's failure). */
  p: number | null;
  opts: BeyondOptions;
}

/**
 * The panel's batch: first the table's runs (one per net, against the chosen failure), then
 * the sweep, point by point across the nets (so the figure fills in from the left).
 */
export function netsJobs(nets: readonly NetId[], f: NetsFailure, scope: BudgetScope, seed: number): NetJob[] {
  const jobs: NetJob[] = nets.map((net) => ({ net, p: null, opts: netRun(net, f, scope, seed) }));
  for (const p of SWEEP_RATES) {
    for (const net of nets) jobs.push({ net, p, opts: netRun(net, { kind: "rate", failRate: p }, scope, seed) });
  }
  return jobs;
}

/** The figure's data: x = failure rates, one amplification series per net (NaN until run). */
export interface SweepTable {
  x: Float64Array;
  series: Map<NetId, Float64Array>;
}

export function emptySweep(nets: readonly NetId[]): SweepTable {
  const x = Float64Array.from(SWEEP_RATES);
  return { x, series: new Map(nets.map((n) => [n, new Float64Array(x.length).fill(NaN)])) };
}

/** Puts a sweep job's result in its place; false for a table job. */
export function placeSweep(t: SweepTable, job: NetJob, m: NetMetrics): boolean {
  if (job.p === null) return false;
  const i = SWEEP_RATES.indexOf(job.p);
  const s = t.series.get(job.net);
  if (i < 0 || !s) return false;
  s[i] = m.amplification;
  return true;
}

/** Theory for 4 attempts at fail rate p: attempts per request and the share that succeeds. */
export function attemptsTheory(p: number, attempts = NET_ATTEMPTS): { amplification: number; success: number } {
  let amplification = 0;
  for (let k = 0; k < attempts; k++) amplification += p ** k;
  return { amplification, success: 1 - p ** attempts };
}
