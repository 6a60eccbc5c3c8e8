// The runner's lanes (www/src/logic/runner.ts), driven by a fake worker that answers when the
// test says and a hand-cranked clock: a drag shows the stale run and then the newest (never
// the ones in between, never an older one after a newer), a restart reaches the first
// picture from its request on whichever run brings it, the sweeps hear when the worker is
// busy, and a throwing callback, a crashed worker or an overdue run leave no lane stuck.
import { test } from "node:test";
import assert from "node:assert/strict";
import { abandonAt, OVERHEAD_MS } from "../../www/src/logic/latest.js";
import { IDLE_AFTER_MS, SimRunner, type Outcome, type SimWorker, type WorkerReply, type WorkerRequest } from "../../www/src/logic/runner.js";
import { MAIN_THREAD_WORK, type PolicyOptions, type SimOptions } from "../../www/src/logic/run.js";
import type { SimResult } from "../../www/src/logic/sim-result.js";

/** A burst of `clients` × 6 attempts, told apart by its seed. */
function opts(clients: number, seed: number): SimOptions {
  return { scenario: "burst", clients, policy: { maxAttempts: 6 } as PolicyOptions, seed };
}
const BIG = 100_000;
const SMALL = 1_000;
assert.ok(BIG * 6 > MAIN_THREAD_WORK && SMALL * 6 <= MAIN_THREAD_WORK);

/** A result that says which run it came from (its seed, in `logRows`). */
function result(seed: number): SimResult {
  return { logRows: seed, events: 1 } as unknown as SimResult;
}

class FakeWorker implements SimWorker {
  onmessage: ((e: { data: WorkerReply }) => void) | null = null;
  onerror: ((e: { message?: string; preventDefault?: () => void }) => void) | null = null;
  inbox: Extract<WorkerRequest, { kind: "run" }>[] = [];
  terminated = false;
  postMessage(msg: WorkerRequest): void {
    if (msg.kind === "run") this.inbox.push(msg);
  }
  terminate(): void {
    this.terminated = true;
  }
  /** Answers the oldest run: its seed's result, or a refusal. */
  answer(refuse = false): void {
    const m = this.inbox.shift();
    if (!m) throw new Error("no run to answer");
    this.onmessage?.({
      data: refuse
        ? { id: m.id, lane: m.lane, ok: false, error: { name: "RangeError", message: `bad ${m.opts.seed}`, field: "clients" } }
        : { id: m.id, lane: m.lane, ok: true, result: result(m.opts.seed), simMs: 1 },
    });
  }
  crash(): void {
    this.onerror?.({ message: "boom", preventDefault: () => {} });
  }
}

/** A runner over fake workers, a fake inline simulation and a hand-cranked clock. */
function harness() {
  const workers: FakeWorker[] = [];
  const working: boolean[] = [];
  const log: string[] = [];
  let clock = 1000;
  let timers: { at: number; run: () => void; id: number }[] = [];
  let nextTimer = 1;
  const runner = new SimRunner({
    simulate: (o, use) => {
      if (o.seed < 0) throw new RangeError("seed must be at least 0");
      use(result(o.seed));
    },
    createWorker: () => {
      const w = new FakeWorker();
      workers.push(w);
      return w;
    },
    onWorking: (w) => {
      working.push(w);
      log.push(`working ${w}`);
    },
    now: () => clock,
    setTimer: (run, ms) => {
      const id = nextTimer++;
      timers.push({ at: clock + ms, run, id });
      return id;
    },
    clearTimer: (id) => {
      timers = timers.filter((t) => t.id !== id);
    },
  });
  /** Moves the clock on by `ms`, firing the timers due. */
  const tick = (ms: number) => {
    clock += ms;
    for (const t of timers.filter((t) => t.at <= clock)) {
      timers = timers.filter((x) => x !== t);
      t.run();
    }
  };
  const worker = () => {
    const w = workers.at(-1);
    if (!w) throw new Error("no worker yet");
    return w;
  };
  return { runner, workers, worker, working, log, tick, pendingTimers: () => timers.length };
}

/** What a lane showed: the seeds of its results (or "error"), with a restart as "!". */
function shown(into: string[]) {
  return (o: Outcome) => into.push(o.ok ? `${o.result.logRows}${o.restart ? "!" : ""}` : "error");
}

test("the sweeps hear when the worker starts having runs in flight and when the last one is over", () => {
  const h = harness();
  const seen: string[] = [];
  h.runner.run("a", opts(BIG, 1), shown(seen));
  assert.deepEqual(h.working, [true]);
  h.runner.run("b", opts(BIG, 2), shown(seen));
  assert.deepEqual(h.working, [true], "a second lane's run changes nothing");
  h.worker().answer();
  assert.deepEqual(h.working, [true], "lane b's run is still in flight");
  h.worker().answer();
  assert.deepEqual(h.working, [true], "not at once: in a drag the next run follows in a moment");
  h.tick(IDLE_AFTER_MS - 1);
  assert.deepEqual(h.working, [true]);
  h.tick(1);
  assert.deepEqual(h.working, [true, false]);
  assert.deepEqual(seen, ["1", "2"]);
  // An inline run never holds the sweeps back.
  h.runner.run("a", opts(SMALL, 3), shown(seen));
  assert.deepEqual(h.working, [true, false]);
  assert.deepEqual(seen, ["1", "2", "3"]);
});

test("a drag's gaps between runs do not release the sweeps; a pause does", () => {
  const h = harness();
  const seen: string[] = [];
  // Runs of 50 ms, each input 100 ms after the last: the worker is idle half the time.
  for (let seed = 1; seed <= 5; seed++) {
    h.runner.run("a", opts(BIG, seed), shown(seen));
    h.tick(50);
    h.worker().answer();
    h.tick(50);
  }
  assert.deepEqual(seen, ["1", "2", "3", "4", "5"]);
  assert.deepEqual(h.working, [true], "held from the first run to the last");
  h.tick(IDLE_AFTER_MS - 50);
  assert.deepEqual(h.working, [true, false], "released once idle for IDLE_AFTER_MS");
  assert.equal(h.pendingTimers(), 0);
});

test("a drag: the run in flight is still shown, then only the newest of the requests that waited", () => {
  const h = harness();
  const seen: string[] = [];
  for (const seed of [1, 2, 3, 4]) h.runner.run("a", opts(BIG, seed), shown(seen));
  assert.deepEqual(h.worker().inbox.map((m) => m.opts.seed), [1], "one run in the worker at a time");
  assert.equal(h.runner.busy("a"), true);
  h.worker().answer();
  assert.deepEqual(seen, ["1"]);
  assert.deepEqual(h.worker().inbox.map((m) => m.opts.seed), [4], "the waiting requests 2 and 3 were dropped");
  h.worker().answer();
  assert.deepEqual(seen, ["1", "4"]);
  assert.equal(h.runner.busy("a"), false);
  h.tick(IDLE_AFTER_MS);
  assert.deepEqual(h.working, [true, false], "the worker stayed busy from the first post to the last reply");
});

test("a restart reaches the first picture from its request on, whichever run brings it", async (t) => {
  await t.test("its own run, in flight: that picture restarts, the next does not", () => {
    const h = harness();
    const seen: string[] = [];
    h.runner.run("a", opts(BIG, 1), shown(seen), true);
    h.runner.run("a", opts(BIG, 2), shown(seen));
    h.worker().answer();
    h.worker().answer();
    assert.deepEqual(seen, ["1!", "2"]);
  });
  await t.test("its request dropped while waiting: the newer request's picture restarts, not the older run's", () => {
    const h = harness();
    const seen: string[] = [];
    h.runner.run("a", opts(BIG, 1), shown(seen));
    h.runner.run("a", opts(BIG, 2), shown(seen), true); // waits…
    h.runner.run("a", opts(BIG, 3), shown(seen)); // …and is replaced
    h.worker().answer();
    h.worker().answer();
    h.runner.run("a", opts(BIG, 4), shown(seen));
    h.worker().answer();
    assert.deepEqual(seen, ["1", "3!", "4"]);
  });
  await t.test("a refused run keeps it owed (the last good picture stays)", () => {
    const h = harness();
    const seen: string[] = [];
    h.runner.run("a", opts(BIG, 1), shown(seen), true);
    h.worker().answer(true);
    h.runner.run("a", opts(BIG, 2), shown(seen));
    h.worker().answer();
    assert.deepEqual(seen, ["error", "2!"]);
    // Refused inline too.
    h.runner.run("a", opts(SMALL, -1), shown(seen), true);
    h.runner.run("a", opts(SMALL, 5), shown(seen));
    assert.deepEqual(seen, ["error", "2!", "error", "5!"]);
  });
  await t.test("an inline run that overtakes a worker run brings it; the worker's late reply is not shown", () => {
    const h = harness();
    const seen: string[] = [];
    h.runner.run("a", opts(BIG, 1), shown(seen), true);
    h.runner.run("a", opts(SMALL, 2), shown(seen));
    assert.deepEqual(seen, ["2!"]);
    assert.equal(h.runner.busy("a"), false, "the run in flight will not be shown");
    h.worker().answer();
    assert.deepEqual(seen, ["2!"]);
    h.tick(IDLE_AFTER_MS);
    assert.deepEqual(h.working, [true, false]);
  });
  await t.test("lanes owe their own restarts", () => {
    const h = harness();
    const seen: string[] = [];
    h.runner.run("a", opts(BIG, 1), shown(seen), true);
    h.runner.run("b", opts(BIG, 2), shown(seen));
    h.worker().answer();
    h.worker().answer();
    assert.deepEqual(seen, ["1!", "2"]);
  });
});

test("a page callback that throws leaves nothing stuck: the next run goes and the sweeps are released", () => {
  const h = harness();
  const seen: string[] = [];
  h.runner.run(
    "a",
    opts(BIG, 1),
    () => {
      throw new Error("the page's callback");
    },
  );
  h.runner.run("a", opts(BIG, 2), shown(seen));
  assert.throws(() => h.worker().answer(), /the page's callback/);
  assert.deepEqual(h.worker().inbox.map((m) => m.opts.seed), [2], "the waiting run was posted");
  h.worker().answer();
  assert.deepEqual(seen, ["2"]);
  h.tick(IDLE_AFTER_MS);
  assert.deepEqual(h.working, [true, false]);
  // A lone run whose callback throws still releases the sweeps.
  h.runner.run("b", opts(BIG, 3), () => {
    throw new Error("again");
  });
  assert.throws(() => h.worker().answer(), /again/);
  h.tick(IDLE_AFTER_MS);
  assert.deepEqual(h.working, [true, false, true, false]);
});

test("a crashed worker fails every lane's run, releasing the sweeps before any callback; the next run starts a new worker", () => {
  const h = harness();
  h.runner.run("a", opts(BIG, 1), (o) => h.log.push(`a ${o.ok ? "ok" : o.error.message}`));
  h.runner.run("a", opts(BIG, 2), (o) => h.log.push(`a2 ${o.ok ? "ok" : o.error.message}`));
  h.runner.run("b", opts(BIG, 3), (o) => h.log.push(`b ${o.ok ? "ok" : o.error.message}`));
  const first = h.worker();
  first.crash();
  assert.equal(first.terminated, true);
  assert.deepEqual(h.log, ["working true", "working false", "a boom", "b boom"], "the waiting request goes with the crash");
  assert.equal(h.runner.busy("a"), false);
  assert.equal(h.runner.busy("b"), false);
  const seen: string[] = [];
  h.runner.run("a", opts(BIG, 4), shown(seen));
  assert.equal(h.workers.length, 2);
  h.worker().answer();
  assert.deepEqual(seen, ["4"]);
  // The dead worker's late words are not heard.
  first.onmessage?.({ data: { id: 1, lane: "a", ok: true, result: result(1), simMs: 1 } });
  first.crash();
  assert.deepEqual(seen, ["4"]);
});

test("an overdue stale run is abandoned: a new worker runs the newest request, and the other lanes' lost runs go again", () => {
  const h = harness();
  const seen: string[] = [];
  h.runner.run("b", opts(BIG, 10), shown(seen));
  h.runner.run("a", opts(BIG, 1), shown(seen));
  h.tick(5);
  h.runner.run("a", opts(BIG, 2), shown(seen));
  const first = h.worker();
  assert.equal(h.pendingTimers(), 1, "the overdue check is armed");
  // Not before it is overdue: the run ahead of it (b's) counts, and a MIN_WAIT_MS floor.
  const due = abandonAt(1000, 1000 + 2 * (OVERHEAD_MS + BIG * 6 * 0.0002), 1005) - 1005;
  h.tick(due - 1);
  assert.equal(first.terminated, false);
  h.tick(1);
  assert.equal(first.terminated, true);
  assert.equal(h.workers.length, 2);
  // Policy A's newest first, then B's lost run again.
  assert.deepEqual(
    h.worker().inbox.map((m) => [m.lane, m.opts.seed]),
    [
      ["a", 2],
      ["b", 10],
    ],
  );
  h.worker().answer();
  h.worker().answer();
  assert.deepEqual(seen, ["2", "10"]);
  h.tick(IDLE_AFTER_MS);
  assert.deepEqual(h.working, [true, false], "the abandon reposted at once: the sweeps stayed held");
  // The abandoned worker's reply, if it ever came, is not shown.
  first.answer();
  assert.deepEqual(seen, ["2", "10"]);
});

test("a reply in time cancels the overdue check", () => {
  const h = harness();
  const seen: string[] = [];
  h.runner.run("a", opts(BIG, 1), shown(seen));
  h.runner.run("a", opts(BIG, 2), shown(seen));
  assert.equal(h.pendingTimers(), 1);
  h.worker().answer();
  assert.equal(h.pendingTimers(), 0);
  h.tick(60_000);
  assert.equal(h.workers.length, 1, "no worker was abandoned");
  h.worker().answer();
  assert.deepEqual(seen, ["1", "2"]);
});
