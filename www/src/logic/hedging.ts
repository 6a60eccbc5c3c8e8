// The hedging panel (#panel-hedging): p99 latency against the extra requests hedges cost,
// as the hedging delay moves. The service has a long lognormal tail and unlimited workers
// (an extra request slows no one: the panel shows what hedging buys and what it costs in
// requests, not a fleet pushed into overload). Pure: the runs' options, the extra load, the
// curve's shape; the engine (the core's hedging) sends the hedges.

import type { BeyondOptions, HedgingOptions } from "./run.js";
import type { Envelope } from "./typed.js";

/** The page's envelope for `#hedge-delay`, ms. */
export const HEDGE_DELAY_ENVELOPE: Envelope = { min: 1, max: 1000 };

/** Attempts in all with hedging on (the first and one hedge). */
export const HEDGE_ATTEMPTS = 2;

/** The delays the curve is made of, ms. */
export const HEDGE_DELAYS: readonly number[] = [2, 5, 10, 15, 20, 30, 50, 75, 100, 150, 250];

/** One run: steady traffic to a lognormal service, with a hedge after `delayMs` (null: none). */
export function hedgingRun(delayMs: number | null, seed: number): BeyondOptions {
  const o: BeyondOptions = {
    scenario: "steady",
    clients: 100,
    ratePerClient: 10,
    durationMs: 10_000,
    outageMs: 0,
    workers: 0,
    queue: 0,
    serviceMs: 10,
    serviceDist: "lognormal",
    // σ of the log 1.2: median ≈ 4.9 ms, p99 ≈ 80 ms — a tail worth hedging.
    serviceSpread: 1.2,
    latencyMs: 2,
    failRate: 0,
    policy: { strategy: "none", baseMs: 1, capMs: 1, maxAttempts: 1, multiplier: 2 },
    seed,
    logClients: 0,
    slotMs: 1000,
  };
  if (delayMs !== null) o.hedging = { delayMs, maxAttempts: HEDGE_ATTEMPTS } satisfies HedgingOptions;
  return o;
}

/** The batch: no hedging, the typed delay, then the curve's delays. */
export function hedgingJobs(delayMs: number, seed: number): { delayMs: number | null; opts: BeyondOptions }[] {
  return [null, delayMs, ...HEDGE_DELAYS].map((d) => ({ delayMs: d, opts: hedgingRun(d, seed) }));
}

/** Extra requests per request that hedging sent (0 to maxAttempts − 1). */
export function extraLoad(m: { requests: number; hedges?: number }): number {
  return m.requests > 0 ? (m.hedges ?? 0) / m.requests : 0;
}

export interface HedgePoint {
  delayMs: number;
  /** Extra requests per request. */
  extra: number;
  p99Ms: number;
}

/**
 * The figure's data: x = extra requests (%) ascending, the curve's p99 at each, and the
 * typed delay's point as a marker series (NaN elsewhere).
 */
export function hedgeCurve(points: readonly HedgePoint[], current: HedgePoint | null): { x: number[]; curve: number[]; marker: number[] } {
  const all = [...points.map((p) => ({ ...p, now: false })), ...(current ? [{ ...current, now: true }] : [])].sort(
    (a, b) => a.extra - b.extra || Number(a.now) - Number(b.now),
  );
  return {
    x: all.map((p) => p.extra * 100),
    curve: all.map((p) => (p.now ? NaN : p.p99Ms)),
    marker: all.map((p) => (p.now ? p.p99Ms : NaN)),
  };
}
