// The page's pool of sweep workers (logic/pool.ts does the scheduling): one Web Worker per
// logical core (`navigator.hardwareConcurrency`), started when the first sweep needs them
// and kept for the next. A sweep's points run in parallel while the main thread only draws
// them as they come. A sweep worker is the page's one worker script (wasm/worker.ts) in its
// sweep role.

import { poolSize, WorkerPool, type WorkerLike } from "../logic/pool.js";
import type { BeyondOptions } from "../logic/run.js";
import type { Metrics } from "./bridge.js";

export type SweepPool = WorkerPool<BeyondOptions, Metrics>;

let shared: SweepPool | null = null;

/** The page's one sweep pool, shared by the panels (each sweeps in a lane of its own). */
export function sweepPool(): SweepPool {
  shared ??= newSweepPool();
  return shared;
}

export function newSweepPool(): SweepPool {
  return new WorkerPool<BeyondOptions, Metrics>(
    poolSize(navigator.hardwareConcurrency),
    () => new Worker(new URL("./worker.ts", import.meta.url), { type: "module", name: "stampede-sweep" }) as unknown as WorkerLike<BeyondOptions, Metrics>,
  );
}
