// When to give up on a worker run that a newer request has made stale (the pure part of
// wasm/runner.ts, unit-tested).
//
// While a slider is dragged, every input asks for a new run. The worker runs one at a time;
// the newest request waits (older waiting ones are dropped). A stale run that finishes is
// still shown — it is newer than what is on screen, so the picture keeps moving during the
// drag. Killing the worker to start the newest at once would save at most the stale run's
// remaining time, and it throws that intermediate picture away: with runs longer than the
// gap between inputs, killing on every input means nothing is ever shown until the drag
// stops. So a stale run is abandoned only when it is overdue: when the newest request has
// waited longer than the stale run was expected to take in all (queue ahead of it
// included, with some slack). A run that is about to finish is never killed; one that is
// far slower than its estimate (a huge setting dragged past on the way) is.
//
// The estimate is a measured cost per unit of work (logic/run.ts workEstimate) plus a
// fixed overhead. A killed run took at least as long as it ran, so an abandon raises the
// cost, and the same kind of run gets more time next — repeated kills cannot starve a drag.

/** A run's expected time is stretched by this much before it counts as overdue. */
export const SLACK = 1.5;
/** However cheap a run looks, a newer request waits at least this long before a kill. */
export const MIN_WAIT_MS = 60;
/** Per run: posting, copying the result out, the reply. */
export const OVERHEAD_MS = 15;

export class RunCost {
  /** ms per unit of estimated work; starts from a measured 100,000-client burst (~100 ms for ~600,000 attempts). */
  msPerWork = 0.0002;

  /** The time a run of `work` units is expected to take, ms. */
  expected(work: number): number {
    return OVERHEAD_MS + Math.max(0, work) * this.msPerWork;
  }

  /** A run of `work` finished after `ms` (posted → reply): a moving average. */
  finished(work: number, ms: number): void {
    if (!(work > 0) || !(ms >= 0)) return;
    const seen = Math.max(0, ms - OVERHEAD_MS) / work;
    this.msPerWork = 0.7 * this.msPerWork + 0.3 * seen;
  }

  /** A run of `work` was abandoned after `ms`: it would have taken at least that long. */
  abandoned(work: number, ms: number): void {
    if (!(work > 0) || !(ms >= 0)) return;
    this.msPerWork = Math.max(this.msPerWork, Math.max(0, ms - OVERHEAD_MS) / work);
  }
}

/**
 * When the run in flight (posted at `posted`, expected to reply by `expectedEnd`) should be
 * abandoned for a request waiting since `waitingSince`: once that request has waited longer
 * than the run was expected to take (× SLACK, at least MIN_WAIT_MS).
 */
export function abandonAt(posted: number, expectedEnd: number, waitingSince: number): number {
  const expectedMs = Math.max(0, expectedEnd - posted);
  return waitingSince + Math.max(MIN_WAIT_MS, SLACK * expectedMs);
}
