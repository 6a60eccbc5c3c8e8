// The simulation worker: runs big simulations off the main thread and sends back copies of
// the series and log (their buffers transferred, not cloned).

import { errorData } from "../logic/error-data.js";
import type { WorkerReply, WorkerRequest } from "../logic/runner.js";
import { SERIES, ready, simulate, type SimResult } from "./bridge.js";

interface WorkerScope {
  onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerReply, transfer: Transferable[]): void;
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
      scope.postMessage({ id, lane, ok: true, result, simMs }, transfer);
    })
    .catch((err: unknown) => {
      scope.postMessage({ id, lane, ok: false, error: errorData(err) }, []);
    });
};
