// Which of two runs reads better, for the metric cards and the compare table: a recovery
// that never came while traffic lasted, and a tick that marks a difference the reader can see.

/** The window the recovery is measured in (ms): an outage that ends within it of the traffic's
 *  end leaves no traffic to recover under. */
const WINDOW_MS = 100;

/** Whether a recovery of `recoveryMs` never happened while traffic kept coming
 *  (`trafficLeftMs` after the outage): overloaded into the traffic's last window (100 ms),
 *  the fleet came back only when the traffic stopped. Not said of an outage that ended with
 *  the traffic or after it (no traffic left to recover under: "−1.8 min" it read). */
export function unrecovered(recoveryMs: number, trafficLeftMs: number | undefined): boolean {
  return trafficLeftMs !== undefined && trafficLeftMs > WINDOW_MS && recoveryMs > 0 && recoveryMs >= trafficLeftMs - WINDOW_MS;
}

/** Whether the table ticks `x` (shown as `tx`) as better than `y` (`ty`). Only where the
 *  reader can see the difference, two cells that read "1 min" being no better than each
 *  other, and only by more than 5%: ×20 against ×21 is the same peak, and ticking it made
 *  "no jitter" look the winner of the jitter lesson. A recovery that never came (Infinity)
 *  is worse than any that did. */
export function isBetter(x: number | null, y: number | null, better: "lower" | "higher", tx: string, ty: string): boolean {
  if (x === null || y === null || tx === ty || x === y) return false;
  const wins = better === "lower" ? x < y : x > y;
  const clear = !Number.isFinite(x) || !Number.isFinite(y) || Math.abs(x - y) > 0.05 * Math.max(Math.abs(x), Math.abs(y));
  return wins && clear;
}

/** Whether a run may be ticked on a figure measured over its successes (goodput, p50, p99):
 *  only if it served at least as many requests as the other. A goodput averaged over a
 *  shorter run, or a latency measured over the few that got through, is no win: a budget that
 *  served 90,499 requests in 120 s was ticked for its 754 req/s over a storm's 91,563 in
 *  134 s, and immediate retries for a p99 of 3 s with 1,033 of 3,329 requests served. */
export function fairOnSuccesses(successes: number, otherSuccesses: number): boolean {
  return successes >= otherSuccesses;
}
