// Per-slot counts as rates for the charts. Presentation only: rebinning a count series and
// scaling it to requests per second; the counts themselves come from the simulator.

/** The bin a chart uses: the peak metric's 100 ms window, wider for long runs. */
export function displayBinMs(slotMs: number, slots: number, maxPoints = 2400): number {
  const span = slotMs * slots;
  const base = Math.max(slotMs, 100);
  let bin = base;
  while (span / bin > maxPoints) bin *= 2;
  // A bin is a whole number of slots.
  return Math.max(slotMs, Math.round(bin / slotMs) * slotMs);
}

/**
 * A coarser bin for rates that are noisy at the herd's resolution (goodput against
 * throughput: Poisson traffic at 70 requests a second is ±30% per 100 ms): about `points`
 * bins over `spanMs`, a whole number of `binMs` (so its bins still start on slots).
 */
export function smoothBinMs(binMs: number, spanMs: number, points = 120): number {
  return binMs * Math.max(1, Math.round(spanMs / points / binMs));
}

/**
 * Sums `counts` into bins of `binMs` and writes requests per second into `out`
 * (reused when large enough). Returns the number of bins.
 */
export function rebinRate(
  counts: ArrayLike<number>,
  slotMs: number,
  binMs: number,
  out: Float64Array,
  bins: number = Math.ceil((counts.length * slotMs) / binMs),
): number {
  const per = Math.max(1, Math.round(binMs / slotMs));
  const scale = 1000 / (per * slotMs);
  const n = Math.min(bins, out.length);
  for (let b = 0; b < n; b++) {
    let sum = 0;
    const end = Math.min(counts.length, (b + 1) * per);
    for (let i = b * per; i < end; i++) sum += counts[i] ?? 0;
    out[b] = sum * scale;
  }
  return n;
}

/** A buffer of at least `n` doubles, reusing `buf` when it is big enough. */
export function ensureCapacity(buf: Float64Array, n: number): Float64Array {
  if (buf.length >= n) return buf;
  let size = Math.max(64, buf.length);
  while (size < n) size *= 2;
  return new Float64Array(size);
}

/**
 * A level series (a queue length at each slot's end, not a count per slot) in bins of
 * `binMs`: the highest level within each bin, so a short peak is not averaged away.
 * Returns the number of bins written.
 */
export function rebinLevel(
  levels: ArrayLike<number>,
  slotMs: number,
  binMs: number,
  out: Float64Array,
  bins: number = Math.ceil((levels.length * slotMs) / binMs),
): number {
  const per = Math.max(1, Math.round(binMs / slotMs));
  const n = Math.min(bins, out.length);
  for (let b = 0; b < n; b++) {
    let max = 0;
    const end = Math.min(levels.length, (b + 1) * per);
    for (let i = b * per; i < end; i++) max = Math.max(max, levels[i] ?? 0);
    out[b] = max;
  }
  return n;
}
