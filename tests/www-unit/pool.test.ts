// The pool of sweep workers (www/src/logic/pool.ts), driven by fake workers that answer
// when the test says: jobs spread over every worker, results land in the jobs' order, a
// newer batch supersedes an older one in its lane only, a refused job or a dead worker
// rejects its batch, and every promise settles.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BatchError, poolSize, Superseded, WorkerPool, type PoolReply, type PoolRequest, type WorkerLike } from "../../www/src/logic/pool.js";

class FakeWorker implements WorkerLike<number, number> {
  onmessage: ((e: { data: PoolReply<number> }) => void) | null = null;
  onerror: ((e: { message?: string; preventDefault?: () => void }) => void) | null = null;
  inbox: PoolRequest<number>[] = [];
  terminated = false;
  postMessage(msg: PoolRequest<number>): void {
    this.inbox.push(msg);
  }
  terminate(): void {
    this.terminated = true;
  }
  /** Answers the oldest job: its square, or a refusal. */
  answer(refuse = false): void {
    const m = this.inbox.shift();
    if (!m) throw new Error("no job to answer");
    this.onmessage?.({
      data: refuse ? { id: m.id, ok: false, error: { name: "RangeError", message: `bad ${m.job}`, field: "failRate" } } : { id: m.id, ok: true, result: m.job * m.job },
    });
  }
  crash(): void {
    this.onerror?.({ message: "boom", preventDefault: () => {} });
  }
}

function fakePool(size: number): { pool: WorkerPool<number, number>; workers: FakeWorker[] } {
  const workers: FakeWorker[] = [];
  const pool = new WorkerPool<number, number>(size, () => {
    const w = new FakeWorker();
    workers.push(w);
    return w;
  });
  return { pool, workers };
}

/** Answers jobs, worker by worker, until none is waiting. */
function drain(workers: FakeWorker[]): void {
  for (let busy = true; busy; ) {
    busy = false;
    for (const w of workers) {
      if (!w.terminated && w.inbox.length > 0) {
        w.answer();
        busy = true;
      }
    }
  }
}

test("poolSize: one worker per logical core, within 1..MAX_POOL; nonsense gives 2", () => {
  assert.equal(poolSize(8), 8);
  assert.equal(poolSize(1), 1);
  assert.equal(poolSize(0), 1);
  assert.equal(poolSize(1000), 16);
  assert.equal(poolSize(undefined), 2);
  assert.equal(poolSize(NaN), 2);
  assert.equal(poolSize(3.7), 3);
});

test("a batch spreads over every worker, one job each at a time, results in the jobs' order", async () => {
  const { pool, workers } = fakePool(3);
  const heard: number[] = [];
  const done = pool.run([1, 2, 3, 4, 5, 6, 7], (i) => heard.push(i));
  assert.equal(workers.length, 3, "three workers started");
  assert.deepEqual(
    workers.map((w) => w.inbox.length),
    [1, 1, 1],
    "each holds one job",
  );
  drain(workers);
  assert.deepEqual(await done, [1, 4, 9, 16, 25, 36, 49]);
  assert.deepEqual([...heard].sort((a, b) => a - b), [0, 1, 2, 3, 4, 5, 6], "every result heard once");
  assert.equal(pool.running(), false);
});

test("reserve holds workers back from new jobs while the page's own run needs a core; lifting it feeds them", async () => {
  const { pool, workers } = fakePool(2);
  const inFlight = () => workers.reduce((n, w) => n + w.inbox.length, 0);
  const done = pool.run([1, 2, 3, 4, 5]);
  assert.equal(inFlight(), 2);
  pool.reserve(1);
  // The jobs already in the workers finish; only one worker takes the next.
  workers[0]!.answer();
  workers[1]!.answer();
  assert.equal(inFlight(), 1, "one worker held back");
  pool.reserve(2);
  for (const w of workers) while (w.inbox.length > 0) w.answer();
  assert.equal(inFlight(), 0, "all held back: the sweep pauses");
  assert.equal(pool.running(), true, "and is not lost");
  pool.reserve(0);
  assert.equal(inFlight(), 2, "lifted: both take jobs at once");
  drain(workers);
  assert.deepEqual(await done, [1, 4, 9, 16, 25]);
  // More than the pool holds them all back; nonsense is no reserve at all.
  pool.reserve(9);
  const again = pool.run([6, 7]);
  assert.equal(inFlight(), 0);
  pool.reserve(Number.NaN);
  assert.equal(inFlight(), 2);
  drain(workers);
  assert.deepEqual(await again, [36, 49]);
});

test("workers start only as jobs need them, and are reused by the next batch", async () => {
  const { pool, workers } = fakePool(4);
  const one = pool.run([5]);
  assert.equal(workers.length, 1);
  drain(workers);
  assert.deepEqual(await one, [25]);
  const two = pool.run([1, 2]);
  assert.equal(workers.length, 2, "one more for the second job");
  drain(workers);
  assert.deepEqual(await two, [1, 4]);
  assert.deepEqual(await pool.run([]), [], "an empty batch resolves at once");
});

test("a newer batch in the same lane supersedes the older: it rejects, its late answers are ignored", async () => {
  const { pool, workers } = fakePool(2);
  const old = pool.run([1, 2, 3, 4], () => {}, "nets");
  const superseded = assert.rejects(old, Superseded);
  const heard: number[] = [];
  const fresh = pool.run([10, 20], (i, r) => heard.push(r), "nets");
  await superseded;
  // The old batch's two jobs in flight answer first; the workers then take the new ones.
  drain(workers);
  assert.deepEqual(await fresh, [100, 400]);
  assert.deepEqual(heard.sort((a, b) => a - b), [100, 400], "no old result reached the new batch");
});

test("lanes run side by side, taking turns for the workers", async () => {
  const { pool, workers } = fakePool(1);
  const order: string[] = [];
  const a = pool.run([1, 2, 3], (i) => order.push(`a${i}`), "a");
  const b = pool.run([4, 5], (i) => order.push(`b${i}`), "b");
  drain(workers);
  assert.deepEqual(await a, [1, 4, 9]);
  assert.deepEqual(await b, [16, 25]);
  // One worker: after a's first job, the lanes alternate.
  assert.deepEqual(order, ["a0", "b0", "a1", "b1", "a2"]);
});

test("a refused job rejects its batch with the package's error as data; the pool keeps working", async () => {
  const { pool, workers } = fakePool(2);
  const batch = pool.run([1, 2, 3]);
  workers[1]?.answer(true);
  await assert.rejects(batch, (e: unknown) => e instanceof BatchError && e.data.field === "failRate" && e.message === "bad 2");
  drain(workers);
  const next = pool.run([3]);
  drain(workers);
  assert.deepEqual(await next, [9]);
});

test("a worker that dies is replaced and its batch rejects naming what happened", async () => {
  const { pool, workers } = fakePool(2);
  const batch = pool.run([1, 2]);
  workers[0]?.crash();
  await assert.rejects(batch, (e: unknown) => e instanceof BatchError && e.message === "boom");
  assert.equal(workers[0]?.terminated, true);
  assert.equal(workers.length, 3, "a fresh worker took its place");
  drain(workers);
  const next = pool.run([4, 5]);
  drain(workers);
  assert.deepEqual(await next, [16, 25]);
});

test("terminate stops every worker and settles the batches in progress", async () => {
  const { pool, workers } = fakePool(2);
  const a = pool.run([1, 2, 3], () => {}, "a");
  const b = pool.run([4], () => {}, "b");
  pool.terminate();
  await assert.rejects(a, Superseded);
  await assert.rejects(b, Superseded);
  assert.ok(workers.every((w) => w.terminated));
});

test("a pool refuses a size that is not a whole number of at least 1", () => {
  assert.throws(() => new WorkerPool(0, () => new FakeWorker()), RangeError);
  assert.throws(() => new WorkerPool(1.5, () => new FakeWorker()), RangeError);
});
