// A sweep job, the worker's second role (wasm/worker.ts): the pool's (wasm/pool.ts) one
// simulation per message, answered with its metrics only: a sweep point needs no series or
// log, so nothing big crosses between threads.

import { errorData } from "../logic/error-data.js";
import type { PoolReply, PoolRequest } from "../logic/pool.js";
import type { BeyondOptions } from "../logic/run.js";
import { ready, simulateMetrics, type Metrics } from "./bridge.js";

export type SweepRequest = PoolRequest<BeyondOptions>;

/** Runs the pool's job `req` and posts its reply. */
export function sweepJob(req: SweepRequest, post: (reply: PoolReply<Metrics>) => void): void {
  const { id, job } = req;
  ready()
    .then(() => post({ id, ok: true, result: simulateMetrics(job) }))
    .catch((err: unknown) => post({ id, ok: false, error: errorData(err) }));
}
