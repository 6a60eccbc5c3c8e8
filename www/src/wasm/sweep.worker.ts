// A sweep worker: one of the pool's (wasm/pool.ts). Runs one simulation per message and
// sends back its metrics only: a sweep point needs no series or log, so nothing big
// crosses between threads.

import { errorData } from "../logic/error-data.js";
import type { PoolReply, PoolRequest } from "../logic/pool.js";
import type { BeyondOptions } from "../logic/run.js";
import { ready, simulateMetrics, type Metrics } from "./bridge.js";

interface WorkerScope {
  onmessage: ((e: MessageEvent<PoolRequest<BeyondOptions>>) => void) | null;
  postMessage(message: PoolReply<Metrics>): void;
}

const scope = self as unknown as WorkerScope;

scope.onmessage = (e) => {
  const { id, job } = e.data;
  ready()
    .then(() => scope.postMessage({ id, ok: true, result: simulateMetrics(job) }))
    .catch((err: unknown) => scope.postMessage({ id, ok: false, error: errorData(err) }));
};
