// The one module that talks to the WebAssembly package. Everything the page knows about
// retries — delays, classification, budgets, the simulation — comes through here from the
// Rust core; nothing in the page re-implements it.

import init, { RetryPolicy, Simulation, retryFetch as packageRetryFetch } from "stampede";
import type { AttemptInfo, Metrics, RetryFetchOptions } from "stampede";
import type { SimResult } from "../logic/sim-result.js";
import type { BeyondOptions, PolicyOptions, SimOptions } from "../logic/run.js";
import { measure } from "../timing.js";

export type { AttemptInfo, Metrics, RetryFetchOptions };

export { SERIES, type Fleet, type SeriesName, type SimResult } from "../logic/sim-result.js";

let loading: Promise<void> | null = null;

/** Loads and instantiates the wasm module once (`stampede_bg.wasm` beside the glue). */
export function ready(): Promise<void> {
  loading ??= init().then(() => undefined);
  return loading;
}

/**
 * Runs one simulation to the end and hands its series and log to `use` as views into wasm
 * memory: read them inside the callback; they are freed after it returns. Throws the
 * package's RangeError/TypeError for bad settings.
 */
export function simulate<T>(o: SimOptions, use: (r: SimResult) => T): T {
  const started = performance.now();
  const sim = new Simulation(o);
  try {
    sim.run();
    measure("stampede:simulate", started);
    // Views are taken after the run (which may have grown memory) and not held beyond `use`.
    return use({
      metrics: sim.metrics(),
      slotMs: sim.slotMs(),
      offered: sim.offered(),
      served: sim.served(),
      rejected: sim.rejected(),
      failed: sim.failed(),
      blocked: sim.blocked(),
      goodput: sim.goodput(),
      timedOut: sim.timedOut(),
      wasted: sim.wasted(),
      queued: sim.queued(),
      fleet: sim.fleet(),
      log: sim.attemptLog(),
      logRows: sim.logRows(),
      logStride: sim.logStride(),
      events: sim.events(),
      owned: false,
    });
  } finally {
    sim.free();
  }
}

/** Runs one simulation and returns its metrics alone (a sweep point: no series, no log). */
export function simulateMetrics(o: BeyondOptions): Metrics {
  const sim = new Simulation(o);
  try {
    sim.run();
    return sim.metrics();
  } finally {
    sim.free();
  }
}

/** `n` delay sequences of the policy, flattened row by row (a copy). */
export function sampleDelays(p: PolicyOptions, n: number): Float64Array {
  const policy = new RetryPolicy(p);
  try {
    return policy.sample(n);
  } finally {
    policy.free();
  }
}

export function retryFetch(url: string, init: RequestInit, options: RetryFetchOptions): Promise<Response> {
  return packageRetryFetch(url, init, options);
}
