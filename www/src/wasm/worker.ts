// The page's one worker script, in two roles (one file: the wasm glue they share is ~10 KB
// of the first load's gzip, which two scripts shipped twice). As the simulation worker
// (wasm/runner.ts) it runs big simulations off the main thread and sends back copies of the
// series and log (their buffers transferred, not cloned); as one of the pool's sweep workers
// (wasm/pool.ts) it runs sweep jobs (wasm/sweep-job.ts), told apart by their message.

import { errorData } from "../logic/error-data.js";
import type { WorkerReply, WorkerRequest } from "../logic/runner.js";
import { SERIES, ready, simulate, type SimResult } from "./bridge.js";
import { sweepJob, type SweepRequest } from "./sweep-job.js";

interface WorkerScope {
  onmessage: ((e: MessageEvent<WorkerRequest | SweepRequest>) => void) | null;
  postMessage(message: unknown, transfer?: Transferable[]): void;
}

const scope = self as unknown as WorkerScope;

// Results travel to the page as transferred buffers, and come back when the page is done
// with them: a steady run of 100,000-client simulations allocates (almost) nothing.
const pool: ArrayBuffer[] = [];
const POOL_MAX = 24;

function buffer(bytes: number): ArrayBuffer {
  let best = -1;
  for (let i = 0; i < pool.length; i++) {
    const b = pool[i];
    if (b && b.byteLength >= bytes && (best < 0 || b.byteLength < (pool[best]?.byteLength ?? Infinity))) best = i;
  }
  if (best >= 0) return pool.splice(best, 1)[0] ?? new ArrayBuffer(bytes);
  let size = 4096;
  while (size < bytes) size *= 2;
  return new ArrayBuffer(size);
}

function copyU32(v: Uint32Array): Uint32Array {
  const out = new Uint32Array(buffer(v.byteLength), 0, v.length);
  out.set(v);
  return out;
}

function copyF32(v: Float32Array): Float32Array {
  const out = new Float32Array(buffer(v.byteLength), 0, v.length);
  out.set(v);
  return out;
}

scope.onmessage = (e) => {
  const msg = e.data;
  if ("job" in msg) return sweepJob(msg, (reply) => scope.postMessage(reply));
  if (msg.kind === "recycle") {
    for (const b of msg.buffers) if (pool.length < POOL_MAX && b.byteLength > 0) pool.push(b);
    return;
  }
  const { id, lane, opts } = msg;
  ready()
    .then(() => {
      const started = performance.now();
      let simMs = 0;
      const result = simulate(opts, (r) => {
        simMs = performance.now() - started;
        // Copies out of wasm memory; the views die with the simulation.
        const copy: SimResult = { ...r, fleet: { ...r.fleet }, log: copyF32(r.log), owned: true };
        for (const name of SERIES) copy[name] = copyU32(r[name]);
        return copy;
      });
      const transfer = [...SERIES.map((name) => result[name]), result.log].map((a) => a.buffer as ArrayBuffer);
      const reply: WorkerReply = { id, lane, ok: true, result, simMs };
      scope.postMessage(reply, transfer);
    })
    .catch((err: unknown) => {
      const reply: WorkerReply = { id, lane, ok: false, error: errorData(err) };
      scope.postMessage(reply, []);
    });
};
