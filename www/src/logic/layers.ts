// "Where to retry" (#panel-layers): a chain of services, each calling the next, with the
// bottom one failing every attempt. Retrying at every layer multiplies the attempts that
// reach the bottom, attempts^layers (the SRE book's 4 at 3 layers: 64; the Builders'
// Library's 3 at 5: 243); retrying at the top only keeps them at the attempts. Pure: the
// runs' options and the figure's shape; the engine (the core's layers model) counts.

import type { BeyondOptions, RetryAt } from "./run.js";
import type { Envelope } from "./typed.js";

export const RETRY_AT: readonly RetryAt[] = ["every", "top"];

/** The page's envelope for `#layers`: a sweep to 6 layers of 6 attempts stays under a second. */
export const LAYERS_ENVELOPE: Envelope = { min: 1, max: 6, integer: true };
export const LAYER_ATTEMPTS_ENVELOPE: Envelope = { min: 1, max: 6, integer: true };

/** Requests in a run: the count at the bottom is exact (every attempt fails), so few suffice. */
export const LAYERS_CLIENTS = 10;

export interface LayersSettings {
  layers: number;
  attempts: number;
  retryAt: RetryAt;
}

/** One run: `layers` services, the bottom failing every attempt, immediate retries. */
export function layersRun(layers: number, attempts: number, retryAt: RetryAt, seed: number): BeyondOptions {
  return {
    scenario: "burst",
    clients: LAYERS_CLIENTS,
    outageMs: 0,
    // Every attempt that reaches the bottom fails with 500 (the layers above pass it up).
    failRate: 1,
    workers: 0,
    queue: 0,
    latencyMs: 2,
    policy: { strategy: "none", baseMs: 1, capMs: 1, maxAttempts: attempts, multiplier: 2 },
    layers,
    retryAt,
    seed,
    logClients: 0,
  };
}

/** The figure's x: 1 to at least 4 layers, and to the typed value when more. */
export function layersAxis(layers: number): number[] {
  return Array.from({ length: Math.max(4, layers) }, (_, i) => i + 1);
}

/** The batch: both ways of retrying at every layer count of the axis. */
export function layersJobs(s: LayersSettings, seed: number): { layers: number; retryAt: RetryAt; opts: BeyondOptions }[] {
  return layersAxis(s.layers).flatMap((layers) => RETRY_AT.map((retryAt) => ({ layers, retryAt, opts: layersRun(layers, s.attempts, retryAt, seed) })));
}

/** Attempts at the bottom per request, from a run's metrics. */
export function bottomPerRequest(m: { requests: number; bottomAttempts?: number; totalAttempts: number }): number {
  return m.requests > 0 ? (m.bottomAttempts ?? m.totalAttempts) / m.requests : 0;
}

/** Theory with the bottom always failing: attempts^layers retrying everywhere, attempts at the top only. */
export function layersTheory(layers: number, attempts: number, retryAt: RetryAt): number {
  return retryAt === "every" ? attempts ** layers : attempts;
}
