// Keeping a run after its simulation is freed: copies its views into buffers that grow
// once and are reused by every later run, so a resize, a theme change or the compare panel
// can redraw without simulating again and without allocating per change.

import { SERIES, type SeriesName, type SimResult } from "./bridge.js";

export class ResultKeeper {
  private u32 = Object.fromEntries(SERIES.map((name) => [name, new Uint32Array(0)])) as Record<SeriesName, Uint32Array>;
  private logBuf = new Float32Array(0);
  private kept: SimResult | null = null;

  /** `release` gets each kept worker result once a newer one replaces it. */
  constructor(private readonly release: (r: SimResult) => void = () => {}) {}

  get result(): SimResult | null {
    return this.kept;
  }

  /** Keeps `r`: owned results as they are, views copied into the reusable buffers. */
  keep(r: SimResult): SimResult {
    const previous = this.kept;
    if (previous && previous !== r && previous.recyclable) this.release(previous);
    if (r.owned) {
      this.kept = r;
      return r;
    }
    const copy = (name: SeriesName): Uint32Array => {
      const src = r[name];
      if (this.u32[name].length < src.length) this.u32[name] = new Uint32Array(grow(src.length));
      const dst = this.u32[name].subarray(0, src.length);
      dst.set(src);
      return dst;
    };
    if (this.logBuf.length < r.log.length) this.logBuf = new Float32Array(grow(r.log.length));
    const log = this.logBuf.subarray(0, r.log.length);
    log.set(r.log);
    this.kept = {
      metrics: r.metrics,
      slotMs: r.slotMs,
      offered: copy("offered"),
      served: copy("served"),
      rejected: copy("rejected"),
      failed: copy("failed"),
      blocked: copy("blocked"),
      goodput: copy("goodput"),
      timedOut: copy("timedOut"),
      wasted: copy("wasted"),
      queued: copy("queued"),
      fleet: { ...r.fleet },
      log,
      logRows: r.logRows,
      logStride: r.logStride,
      owned: true,
    };
    return this.kept;
  }
}

function grow(n: number): number {
  let size = 4096;
  while (size < n) size *= 2;
  return size;
}
