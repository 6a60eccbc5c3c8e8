// What one simulation run leaves for the figures: its metrics, its series and its attempt
// log (the wasm package's views, or copies of them from the worker). Types and names only,
// so that the page's pure modules (the runner's lanes, logic/runner.ts) and their unit tests
// need no wasm.

import type { Metrics, Simulation } from "stampede";

/** The servers as the core sized them (`Simulation.fleet()`). */
export type Fleet = ReturnType<Simulation["fleet"]>;

/** A run's count series, one value per slot (the names of the package's views). */
export const SERIES = ["offered", "served", "rejected", "failed", "blocked", "goodput", "timedOut", "wasted", "queued"] as const;
export type SeriesName = (typeof SERIES)[number];

/** What one run leaves for the figures. */
export interface SimResult {
  metrics: Metrics;
  slotMs: number;
  offered: Uint32Array;
  served: Uint32Array;
  rejected: Uint32Array;
  failed: Uint32Array;
  blocked: Uint32Array;
  /** Answers that reached their client in time, per slot. */
  goodput: Uint32Array;
  /** Attempts the client gave up on (its timeout fired), per slot. */
  timedOut: Uint32Array;
  /** Requests a server finished after its client had given up on them, per slot. */
  wasted: Uint32Array;
  /** Requests waiting in the queues at the slot's end, all servers. */
  queued: Uint32Array;
  /** The servers as the core sized them. */
  fleet: Fleet;
  /** Flat `[tMs, client, attempt, outcome]` rows. */
  log: Float32Array;
  logRows: number;
  /** The model's events in the run (`Simulation.events()`), for the speed figures. */
  events?: number;
  logStride: number;
  /**
   * false: the arrays are views into wasm memory, valid only inside the `simulate`
   * callback; true: they are the caller's (copies from the worker).
   */
  owned: boolean;
  /** A worker result, whose buffers may go back to the worker (SimRunner.recycle). */
  recyclable?: boolean;
}
