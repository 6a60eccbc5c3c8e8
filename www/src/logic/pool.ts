// A pool of workers that runs a batch of independent jobs on every core: the pure part of
// wasm/pool.ts (it knows workers only by postMessage, onmessage, onerror and terminate, so
// the unit tests drive it with fake ones).
//
// One batch per lane (a panel): a new batch supersedes the lane's one before it. The old batch's queued jobs
// are dropped at once and its promise rejects with a `Superseded` error; its jobs already in
// a worker finish (a sweep point takes milliseconds, and killing a worker costs a new wasm
// instance) and their answers are ignored. Each worker holds one job at a time, so the pool
// hands the next job to whichever worker answers first: fast and slow points even out.
// Lanes take turns job by job, so one panel's long sweep does not hold up another's.
//
// While the page's own simulation runs (the picture a reader is steering, in its worker),
// the pool can hold workers back (`reserve`): on a machine of few cores, sweeps on every core
// starved that run and the main thread's drawing (a 5 ms herd draw measured 42 ms, a long
// task, while the nets panel swept beside a 100,000-client run on 2 cores; with one sweep
// worker held back, 26 ms). Jobs already in a worker finish; the held-back workers take jobs
// again when the reserve is lifted.
//
// Every promise settles: a job refused by the package rejects its batch with the package's
// error (as plain data, see logic/error-data.ts), and a worker that dies is replaced and its
// batch rejects naming what happened.

import type { SettingsErrorData } from "./error-data.js";

/** What goes to a worker: a job and its number. */
export interface PoolRequest<J> {
  id: number;
  job: J;
}

/** What comes back: the job's result, or why it was refused. */
export type PoolReply<R> = { id: number; ok: true; result: R } | { id: number; ok: false; error: SettingsErrorData };

/** The part of a Web Worker the pool uses. */
export interface WorkerLike<J, R> {
  postMessage(msg: PoolRequest<J>): void;
  onmessage: ((e: { data: PoolReply<R> }) => void) | null;
  onerror: ((e: { message?: string; preventDefault?: () => void }) => void) | null;
  terminate(): void;
}

/** A batch was replaced by a newer one before it finished (not a failure: ignore it). */
export class Superseded extends Error {
  constructor() {
    super("a newer batch replaced this one");
    this.name = "Superseded";
  }
}

/** A job of the batch was refused, or a worker failed: the first such error, as data. */
export class BatchError extends Error {
  constructor(readonly data: SettingsErrorData) {
    super(data.message);
    this.name = "BatchError";
  }
}

/** The most workers a pool starts, whatever the machine reports. */
export const MAX_POOL = 16;

/**
 * How many workers for `hardwareConcurrency` logical cores (undefined or nonsense: 2):
 * one per core. The main thread needs little while a sweep runs (it only draws the points
 * as they come), and the browser schedules it ahead of background workers.
 */
export function poolSize(hardwareConcurrency: number | undefined): number {
  const n = Number.isFinite(hardwareConcurrency) ? Math.floor(hardwareConcurrency as number) : 2;
  return Math.min(MAX_POOL, Math.max(1, n));
}

interface Slot<J, R> {
  worker: WorkerLike<J, R>;
  /** The job in it (its id), or 0. */
  busy: number;
}

interface Batch<J, R> {
  lane: string;
  jobs: J[];
  results: (R | undefined)[];
  next: number;
  done: number;
  onResult: (index: number, result: R) => void;
  resolve: (results: R[]) => void;
  reject: (e: Error) => void;
  settled: boolean;
}

export class WorkerPool<J, R> {
  private readonly slots: Slot<J, R>[] = [];
  /** The batch of each lane; lanes share the workers, taking turns job by job. */
  private readonly batches = new Map<string, Batch<J, R>>();
  /** The lane served last (round robin). */
  private turn = 0;
  private nextId = 1;
  /** Job id → the batch and index it belongs to. */
  private readonly owners = new Map<number, { batch: Batch<J, R>; index: number }>();
  /** Workers held back from new jobs (see `reserve`). */
  private reserved = 0;

  constructor(
    readonly size: number,
    private readonly spawn: () => WorkerLike<J, R>,
  ) {
    if (!(Number.isInteger(size) && size >= 1)) throw new RangeError(`pool size must be a whole number ≥ 1, got ${size}`);
  }

  /** Workers started so far (they start with the first batch that needs them). */
  get started(): number {
    return this.slots.length;
  }

  /** Whether `lane` (any lane when not given) has a batch running. */
  running(lane?: string): boolean {
    return lane === undefined ? this.batches.size > 0 : this.batches.has(lane);
  }

  /**
   * Runs `jobs` across the workers in `lane`; `onResult` hears each result as it comes (in
   * any order). Resolves with the results in the jobs' order; rejects with `Superseded` when
   * a newer batch starts in the same lane first, or `BatchError` when a job is refused or a
   * worker fails. Batches of different lanes run side by side, taking turns for the workers.
   */
  run(jobs: J[], onResult: (index: number, result: R) => void = () => {}, lane = ""): Promise<R[]> {
    this.cancel(lane);
    return new Promise<R[]>((resolve, reject) => {
      const batch: Batch<J, R> = {
        lane,
        jobs,
        results: new Array<R | undefined>(jobs.length),
        next: 0,
        done: 0,
        onResult,
        resolve,
        reject,
        settled: false,
      };
      if (jobs.length === 0) {
        batch.settled = true;
        resolve([]);
        return;
      }
      this.batches.set(lane, batch);
      // Workers start as jobs need them, up to the pool's size.
      const idle = this.slots.filter((x) => x.busy === 0).length;
      const want = Math.min(this.size, this.slots.length + Math.max(0, jobs.length - idle));
      while (this.slots.length < want) this.slots.push(this.makeSlot());
      for (const slot of this.slots) this.feed(slot);
    });
  }

  /**
   * Holds `n` of the workers back from new jobs (0 lifts it; at most all of them, which
   * pauses the sweeps): while the page's own run needs a core. Jobs already in a worker
   * finish; lifting the reserve hands jobs to the idle workers again.
   */
  reserve(n: number): void {
    const r = Math.min(this.size, Math.max(0, Math.floor(Number.isFinite(n) ? n : 0)));
    if (r === this.reserved) return;
    this.reserved = r;
    for (const slot of this.slots) this.feed(slot);
  }

  /** Drops the lane's batch in progress (its promise rejects with `Superseded`). */
  cancel(lane = ""): void {
    const b = this.batches.get(lane);
    if (!b) return;
    this.batches.delete(lane);
    this.settle(b, new Superseded());
  }

  /** Stops every worker; batches in progress reject with `Superseded`. */
  terminate(): void {
    for (const lane of [...this.batches.keys()]) this.cancel(lane);
    for (const s of this.slots) s.worker.terminate();
    this.slots.length = 0;
    this.owners.clear();
  }

  private makeSlot(): Slot<J, R> {
    const slot: Slot<J, R> = { worker: this.spawn(), busy: 0 };
    slot.worker.onmessage = (e) => this.onReply(slot, e.data);
    slot.worker.onerror = (e) => {
      e.preventDefault?.();
      this.onCrash(slot, e.message || "a sweep worker failed");
    };
    return slot;
  }

  /** The next lane whose batch has a job to hand out, taking turns. */
  private nextBatch(): Batch<J, R> | undefined {
    const open = [...this.batches.values()].filter((b) => b.next < b.jobs.length);
    if (open.length === 0) return undefined;
    this.turn = (this.turn + 1) % open.length;
    return open[this.turn];
  }

  /** Gives an idle worker a job, if any is waiting. */
  private feed(slot: Slot<J, R>): void {
    if (slot.busy !== 0) return;
    if (this.slots.filter((x) => x.busy !== 0).length >= this.size - this.reserved) return;
    const b = this.nextBatch();
    if (!b) return;
    const index = b.next++;
    const id = this.nextId++;
    slot.busy = id;
    this.owners.set(id, { batch: b, index });
    slot.worker.postMessage({ id, job: b.jobs[index] as J });
  }

  private current(b: Batch<J, R>): boolean {
    return this.batches.get(b.lane) === b && !b.settled;
  }

  private onReply(slot: Slot<J, R>, reply: PoolReply<R>): void {
    if (slot.busy === reply.id) slot.busy = 0;
    const owner = this.owners.get(reply.id);
    this.owners.delete(reply.id);
    if (owner && this.current(owner.batch)) {
      const b = owner.batch;
      if (reply.ok) {
        b.results[owner.index] = reply.result;
        b.done++;
        b.onResult(owner.index, reply.result);
        if (b.done === b.jobs.length && this.current(b)) {
          this.batches.delete(b.lane);
          b.settled = true;
          b.resolve(b.results as R[]);
        }
      } else {
        this.batches.delete(b.lane);
        this.settle(b, new BatchError(reply.error));
      }
    }
    this.feed(slot);
  }

  /** A worker died: it is replaced, and the batch whose job it held fails. */
  private onCrash(slot: Slot<J, R>, message: string): void {
    const i = this.slots.indexOf(slot);
    if (i < 0) return;
    slot.worker.terminate();
    const owner = slot.busy !== 0 ? this.owners.get(slot.busy) : undefined;
    if (slot.busy !== 0) this.owners.delete(slot.busy);
    const fresh = this.makeSlot();
    this.slots[i] = fresh;
    if (owner && this.current(owner.batch)) {
      this.batches.delete(owner.batch.lane);
      this.settle(owner.batch, new BatchError({ name: "Error", message }));
    }
    this.feed(fresh);
  }

  private settle(b: Batch<J, R>, e: Error): void {
    if (b.settled) return;
    b.settled = true;
    b.reject(e);
  }
}
