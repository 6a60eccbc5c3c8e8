// Histograms of sampled delays: one per retry, on a shared range so they compare at a glance.
// The delays themselves come from the package (`RetryPolicy.sample`).

import { niceTicks } from "./format.js";

export interface Histograms {
  /** Bin centres (ms), shared by every retry. */
  centers: Float64Array;
  binMs: number;
  /** Per retry: the share of samples in each bin (sums to 1). */
  shares: Float64Array[];
  /** Per retry: the median delay (ms). */
  medians: number[];
  /** The largest delay sampled (ms). */
  maxMs: number;
}

/**
 * Bins `samples` — `n` rows of `perRow` delays, flattened row by row, as
 * `RetryPolicy.sample(n)` returns them — into `bins` bins per retry (column).
 */
export function delayHistograms(samples: ArrayLike<number>, perRow: number, bins = 40): Histograms {
  const n = perRow > 0 ? Math.floor(samples.length / perRow) : 0;
  let max = 0;
  for (let i = 0; i < n * perRow; i++) {
    const v = samples[i] ?? 0;
    if (v > max) max = v;
  }
  // A range that always has width, and whose top bin holds the maximum.
  const top = max > 0 ? max * (1 + 1e-9) : 1;
  const binMs = top / bins;
  const centers = new Float64Array(bins);
  for (let b = 0; b < bins; b++) centers[b] = (b + 0.5) * binMs;
  const shares: Float64Array[] = [];
  const medians: number[] = [];
  const column = new Float64Array(n);
  for (let c = 0; c < perRow; c++) {
    const h = new Float64Array(bins);
    for (let r = 0; r < n; r++) {
      const v = samples[r * perRow + c] ?? 0;
      column[r] = v;
      const b = Math.min(bins - 1, Math.max(0, Math.floor(v / binMs)));
      h[b] = (h[b] ?? 0) + 1;
    }
    if (n > 0) for (let b = 0; b < bins; b++) h[b] = (h[b] ?? 0) / n;
    shares.push(h);
    column.sort();
    medians.push(n > 0 ? median(column) : 0);
  }
  return { centers, binMs, shares, medians, maxMs: max };
}

function median(sorted: Float64Array): number {
  const n = sorted.length;
  const mid = Math.floor(n / 2);
  return n % 2 === 1 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * Where a histogram's time axis ends for bars up to `topMs`: at the tick after them (of
 * about three), so the bars never pass the axis's last label (full jitter capped at 30 s
 * ends at 29.99 s, and its axis stopped at "20 s").
 */
export function axisEnd(topMs: number): number {
  if (!(topMs > 0)) return topMs;
  const step = niceTicks(topMs, 3)[1] ?? topMs;
  return Math.max(topMs, Math.ceil(topMs / step - 1e-9) * step);
}
