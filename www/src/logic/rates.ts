// A run's count series as the charts draw them: the time span the figures share, the
// offered and served (or conflicting) counts rebinned into rates in buffers that are reused
// from run to run, and the running total of attempts behind the playhead's counter.
// Presentation only: the counts themselves come from the simulator.

import { ensureCapacity, rebinLevel, rebinRate } from "./series.js";
import type { State } from "./state.js";
import { outageWindow } from "./run.js";

/** The parts of a run (a SimResult) that the charts read. */
export interface RunSeries {
  slotMs: number;
  offered: ArrayLike<number>;
  served: ArrayLike<number>;
  rejected: ArrayLike<number>;
  metrics: { completionMs: number };
}

/** Chart columns, grown once and reused: time (s), up to three rate series, the running total. */
export interface RateBuffers {
  x: Float64Array;
  y1: Float64Array;
  y2: Float64Array;
  y3: Float64Array;
  cum: Float64Array;
}

export function newRateBuffers(): RateBuffers {
  return { x: new Float64Array(0), y1: new Float64Array(0), y2: new Float64Array(0), y3: new Float64Array(0), cum: new Float64Array(0) };
}

/** The time the figures span: the whole run and the outage, with a little air. */
export function timeDomain(s: State, r: RunSeries): number {
  const series = r.offered.length * r.slotMs;
  const outage = outageWindow(s);
  return Math.max(1, series, r.metrics.completionMs, outage ? outage[1] : 0) * 1.02;
}

/**
 * Rebins a run into `buf` as rates over `bins` bins of `binMs`: x the bin's start in
 * seconds, y1 offered, y2 served (aws-occ: conflicting), y3 the flat capacity line.
 */
export function rebinRun(r: RunSeries, buf: RateBuffers, occ: boolean, binMs: number, bins: number, capacity: number): RateBuffers {
  buf.x = ensureCapacity(buf.x, bins);
  buf.y1 = ensureCapacity(buf.y1, bins);
  buf.y2 = ensureCapacity(buf.y2, bins);
  buf.y3 = ensureCapacity(buf.y3, bins);
  for (let b = 0; b < bins; b++) buf.x[b] = (b * binMs) / 1000;
  rebinRate(r.offered, r.slotMs, binMs, buf.y1, bins);
  rebinRate(occ ? r.rejected : r.served, r.slotMs, binMs, buf.y2, bins);
  buf.y3.fill(capacity, 0, bins);
  return buf;
}

/** Fills `buf.cum` with the running total of attempts, from the offered rates in `buf.y1`. */
export function runningTotal(buf: RateBuffers, binMs: number, bins: number): void {
  buf.cum = ensureCapacity(buf.cum, bins);
  let acc = 0;
  for (let i = 0; i < bins; i++) {
    acc += ((buf.y1[i] ?? 0) * binMs) / 1000;
    buf.cum[i] = acc;
  }
}

/** The attempts made by `tMs`, read from a running total of `bins` bins of `binMs` (the bin it falls in, whole). */
export function attemptsBy(buf: RateBuffers, binMs: number, bins: number, tMs: number): number {
  const bin = Math.min(bins - 1, Math.floor(tMs / binMs));
  return bin >= 0 ? (buf.cum[bin] ?? 0) : 0;
}

/** The parts of a run the goodput figure reads. */
export interface GoodputSeries {
  slotMs: number;
  served: ArrayLike<number>;
  goodput: ArrayLike<number>;
  wasted: ArrayLike<number>;
  queued: ArrayLike<number>;
}

/** The goodput figure's columns, grown once and reused. */
export interface GoodputBuffers {
  x: Float64Array;
  throughput: Float64Array;
  goodput: Float64Array;
  wasted: Float64Array;
  queue: Float64Array;
}

export function newGoodputBuffers(): GoodputBuffers {
  const e = () => new Float64Array(0);
  return { x: e(), throughput: e(), goodput: e(), wasted: e(), queue: e() };
}

/**
 * Rebins a run for the goodput figure, `bins` bins of `binMs`: throughput (what servers
 * finished), goodput (answers that reached their client in time) and wasted work (served,
 * its answer reaching a client that had given up) as requests per second; the queue as its highest length
 * in each bin.
 */
export function rebinGoodput(r: GoodputSeries, buf: GoodputBuffers, binMs: number, bins: number): GoodputBuffers {
  buf.x = ensureCapacity(buf.x, bins);
  buf.throughput = ensureCapacity(buf.throughput, bins);
  buf.goodput = ensureCapacity(buf.goodput, bins);
  buf.wasted = ensureCapacity(buf.wasted, bins);
  buf.queue = ensureCapacity(buf.queue, bins);
  for (let b = 0; b < bins; b++) buf.x[b] = (b * binMs) / 1000;
  rebinRate(r.served, r.slotMs, binMs, buf.throughput, bins);
  rebinRate(r.goodput, r.slotMs, binMs, buf.goodput, bins);
  rebinRate(r.wasted, r.slotMs, binMs, buf.wasted, bins);
  rebinLevel(r.queued, r.slotMs, binMs, buf.queue, bins);
  return buf;
}

/**
 * The mean rate (per second) of a count series between `fromMs` and `toMs`, whole slots
 * from the one `fromMs` falls in; 0 for an empty span.
 */
export function meanRateAfter(counts: ArrayLike<number>, slotMs: number, fromMs: number, toMs: number): number {
  const first = Math.max(0, Math.floor(fromMs / slotMs));
  const end = Math.min(counts.length, Math.ceil(toMs / slotMs));
  if (end <= first) return 0;
  let sum = 0;
  for (let i = first; i < end; i++) sum += counts[i] ?? 0;
  return (sum * 1000) / ((end - first) * slotMs);
}
