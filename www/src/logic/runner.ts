// Where a run happens. Small runs go straight through on the main thread (a 10,000-client
// burst takes a few milliseconds, so the picture follows the slider within the frame);
// big ones go to a Web Worker so the page never blocks. Each lane (policy A, policy B) has
// at most one run in the worker and one waiting (the latest request; older waiting ones are
// dropped), and never shows a result older than one it has shown.
//
// A stale run in flight is left to finish — its picture is newer than the one on screen, so
// a drag keeps showing intermediate pictures however long each run takes — unless it is
// overdue: see logic/latest.ts for the rule and why.
//
// No wasm and no DOM here: the simulation, the worker and the clock are passed in (the page
// passes the package's, see wasm/runner.ts), so the lanes are unit-tested in Node with a fake
// worker and a hand-cranked clock.

import { errorData, type SettingsErrorData } from "./error-data.js";
import { abandonAt, RunCost } from "./latest.js";
import { MAIN_THREAD_WORK, workEstimate, type SimOptions } from "./run.js";
import { SERIES, type SimResult } from "./sim-result.js";
import { measure, measureSpan } from "../timing.js";

/** What the page asks of the simulation worker. */
export type WorkerRequest =
  | { kind: "run"; id: number; lane: string; opts: SimOptions }
  /** Buffers of results the page has finished with, for the next copies. */
  | { kind: "recycle"; buffers: ArrayBuffer[] };

/** What the simulation worker answers. */
export type WorkerReply =
  /** `simMs`: how long the simulation itself took in the worker (built and run). */
  | { id: number; lane: string; ok: true; result: SimResult; simMs: number }
  /** A structured clone keeps an Error's message but drops its class and own properties
   *  (field, code, min, max…): the error travels as plain data (see logic/errors.ts). */
  | { id: number; lane: string; ok: false; error: SettingsErrorData };

/** The simulation worker as the runner uses it (a `Worker` on the page). */
export interface SimWorker {
  postMessage(msg: WorkerRequest, transfer: ArrayBuffer[]): void;
  onmessage: ((e: { data: WorkerReply }) => void) | null;
  onerror: ((e: { message?: string; preventDefault?: () => void }) => void) | null;
  terminate(): void;
}

/** What the runner needs from the page. */
export interface RunnerDeps {
  /** Runs a simulation on this thread, handing its result to `use` (views valid only during
   *  the call); throws the package's error for settings it refuses. */
  simulate(opts: SimOptions, use: (r: SimResult) => void): void;
  /** Starts the simulation worker (again, after one was abandoned or failed). */
  createWorker(): SimWorker;
  /** Hears when the worker starts and stops having runs in flight (the page holds its
   *  sweeps back meanwhile, see logic/pool.ts `reserve`). */
  onWorking?(working: boolean): void;
  /** The clock (ms) and the overdue check's timer: `performance.now` and `setTimeout` by default. */
  now?(): number;
  setTimer?(callback: () => void, ms: number): unknown;
  clearTimer?(timer: unknown): void;
}

/**
 * How long the worker must have had no run in flight before `onWorking` hears it is idle.
 * While a slider is dragged, the page's runs come one after another with short gaps: the
 * sweeps held back for them would start jobs in every gap, and those jobs (which run to
 * their end) would then compete with the next run for the cores.
 */
export const IDLE_AFTER_MS = 300;

/** A run's lane: "a" and "b" for the two policies, others for a story's side-by-side runs. */
export type Lane = string;

export type Outcome =
  /** `restart`: the picture should play from the start — this run, or one it overtook, was
   *  asked for with `restart` (a preset, the first picture), and no picture since has. */
  | { ok: true; result: SimResult; viaWorker: boolean; restart: boolean }
  /** A refused run: the package's error with its properties (field, code, bounds…) as data. */
  | { ok: false; error: SettingsErrorData; viaWorker: boolean };

type Deliver = (o: Outcome) => void;

interface InFlight {
  id: number;
  gen: number;
  opts: SimOptions;
  deliver: Deliver;
  work: number;
  posted: number;
  /** When the reply is expected (the other lane's run ahead of it in the worker included). */
  expectedEnd: number;
}

interface LaneState {
  /** The generation of the latest request. */
  gen: number;
  /** A request waiting for the worker to finish the one in flight; `since`: when the first of the waiting ones came. */
  pending: { opts: SimOptions; deliver: Deliver; gen: number; since: number } | null;
  inFlight: InFlight | null;
  /** The generation last delivered: nothing older is shown after it. */
  delivered: number;
  /** The latest generation asked for with `restart`, until a result at least as new is
   *  delivered (0: none owed). A restart outlives the run that asked for it: that run may be
   *  dropped while it waits, abandoned, or overtaken by an inline run. */
  restartFrom: number;
  /** The overdue check for the run in flight. */
  timer: unknown;
}

export class SimRunner {
  private worker: SimWorker | null = null;
  private nextId = 1;
  private readonly cost = new RunCost();
  private readonly lanes = new Map<Lane, LaneState>();
  /** Whether `onWorking` last heard that the worker is working. */
  private working = false;
  /** The timer that tells `onWorking` the worker is idle (see `IDLE_AFTER_MS`). */
  private idleTimer: unknown = null;

  private readonly now: () => number;
  private readonly setTimer: (callback: () => void, ms: number) => unknown;
  private readonly clearTimer: (timer: unknown) => void;

  constructor(private readonly deps: RunnerDeps) {
    this.now = deps.now ?? (() => performance.now());
    this.setTimer = deps.setTimer ?? ((callback, ms) => setTimeout(callback, ms));
    this.clearTimer = deps.clearTimer ?? ((timer) => clearTimeout(timer as Parameters<typeof clearTimeout>[0]));
  }

  /** Tells `onWorking` when the worker starts working, and when it has had no run in flight
   *  for `IDLE_AFTER_MS` (at once when `now`). */
  private noteWorking(now = false): void {
    const working = [...this.lanes.values()].some((l) => l.inFlight !== null);
    if (working || now) {
      if (this.idleTimer !== null) this.clearTimer(this.idleTimer);
      this.idleTimer = null;
    }
    if (working === this.working) return;
    if (working || now) {
      this.working = working;
      this.deps.onWorking?.(working);
    } else if (this.idleTimer === null) {
      this.idleTimer = this.setTimer(() => {
        this.idleTimer = null;
        this.noteWorking(true);
      }, IDLE_AFTER_MS);
    }
  }

  private lane(name: Lane): LaneState {
    let l = this.lanes.get(name);
    if (!l) {
      l = { gen: 0, pending: null, inFlight: null, delivered: 0, restartFrom: 0, timer: null };
      this.lanes.set(name, l);
    }
    return l;
  }

  /** Whether these options run on the main thread. */
  static inline(o: SimOptions): boolean {
    return workEstimate(o) <= MAIN_THREAD_WORK;
  }

  /**
   * Runs `opts` in `lane`. Inline runs call `deliver` before returning, with views valid
   * only during the call; worker runs call it later with owned arrays, unless overtaken.
   * `restart`: the picture should play from the start; the first result shown from this
   * request on says so (see `Outcome`), whichever run it comes from.
   */
  run(lane: Lane, opts: SimOptions, deliver: Deliver, restart = false): void {
    const l = this.lane(lane);
    const gen = ++l.gen;
    if (restart) l.restartFrom = gen;
    if (SimRunner.inline(opts)) {
      l.pending = null;
      l.delivered = gen;
      try {
        this.deps.simulate(opts, (result) => deliver({ ok: true, result, viaWorker: false, restart: this.takeRestart(l, gen) }));
      } catch (e) {
        deliver({ ok: false, error: errorData(e), viaWorker: false });
      }
      return;
    }
    if (l.inFlight) {
      const since = l.pending?.since ?? this.now();
      l.pending = { opts, deliver, gen, since };
      this.watch(lane);
      return;
    }
    this.post(lane, opts, deliver, gen);
  }

  /** A result of generation `gen` is shown: whether it owes a restart (which it then pays). */
  private takeRestart(l: LaneState, gen: number): boolean {
    const owed = l.restartFrom !== 0 && gen >= l.restartFrom;
    if (owed) l.restartFrom = 0;
    return owed;
  }

  /**
   * Hands a worker result's buffers back to the worker for its next copies. The result's
   * arrays are detached (empty) afterwards: call it only when nothing will read them again.
   */
  recycle(r: SimResult): void {
    if (!r.recyclable || !this.worker) return;
    const buffers = [...new Set([...SERIES.map((name) => r[name]), r.log].map((a) => a.buffer as ArrayBuffer))];
    const msg: WorkerRequest = { kind: "recycle", buffers };
    this.worker.postMessage(msg, buffers);
  }

  /** Whether a lane waits for the worker: for a run whose result will still be shown. A
   *  run overtaken by a newer one already shown (an inline run, after a worker run was
   *  posted) will not be, so it does not count: its reply calls nobody back. */
  busy(lane: Lane): boolean {
    const l = this.lanes.get(lane);
    return !!l && (l.pending !== null || (l.inFlight !== null && l.inFlight.gen > l.delivered));
  }

  private post(lane: Lane, opts: SimOptions, deliver: Deliver, gen: number): void {
    const id = this.nextId++;
    const now = this.now();
    const work = workEstimate(opts);
    // The worker runs one message at a time: the other lanes' runs go first.
    let start = now;
    for (const [name, l] of this.lanes) if (name !== lane && l.inFlight) start = Math.max(start, l.inFlight.expectedEnd);
    this.lane(lane).inFlight = { id, gen, opts, deliver, work, posted: now, expectedEnd: start + this.cost.expected(work) };
    const msg: WorkerRequest = { kind: "run", id, lane, opts };
    this.ensureWorker().postMessage(msg, []);
    this.noteWorking();
  }

  /** Arms the overdue check of a lane whose newest request waits behind a run in flight. */
  private watch(lane: Lane): void {
    const l = this.lane(lane);
    const f = l.inFlight;
    const p = l.pending;
    if (!f || !p || l.timer !== null) return;
    const at = abandonAt(f.posted, f.expectedEnd, p.since);
    l.timer = this.setTimer(
      () => {
        l.timer = null;
        if (l.inFlight === f && l.pending) this.abandon(f);
      },
      Math.max(0, at - this.now()),
    );
  }

  private unwatch(lane: Lane): void {
    const l = this.lane(lane);
    if (l.timer !== null) this.clearTimer(l.timer);
    l.timer = null;
  }

  private ensureWorker(): SimWorker {
    if (!this.worker) {
      const worker = this.deps.createWorker();
      worker.onmessage = (e) => {
        // A reply from a worker already replaced (abandoned or failed) is not this one's.
        if (this.worker === worker) this.onReply(e.data);
      };
      worker.onerror = (e) => {
        if (this.worker !== worker) return;
        e.preventDefault?.();
        this.failAll(e.message || "the simulation worker failed");
      };
      this.worker = worker;
    }
    return this.worker;
  }

  private onReply(reply: WorkerReply): void {
    const l = this.lanes.get(reply.lane);
    const f = l?.inFlight;
    if (!l) return;
    if (!f || f.id !== reply.id) return;
    l.inFlight = null;
    this.unwatch(reply.lane);
    if (reply.ok) this.cost.finished(f.work, this.now() - f.posted);
    measure(`stampede:worker-${reply.lane}`, f.posted);
    // Where that time went: the simulation itself; the rest is copies and messages.
    // With its events, so that the benchmark gives the page's speed in events per second.
    if (reply.ok) measureSpan(`stampede:worker-sim-${reply.lane}`, reply.simMs, { events: reply.result.events });
    // A result overtaken by a newer request is still newer than what is on screen: showing
    // it keeps the picture moving while a slider is dragged; the newest follows.
    try {
      if (f.gen > l.delivered) {
        l.delivered = f.gen;
        f.deliver(
          reply.ok
            ? { ok: true, result: { ...reply.result, owned: true, recyclable: true }, viaWorker: true, restart: this.takeRestart(l, f.gen) }
            : { ok: false, error: reply.error, viaWorker: true },
        );
      }
    } finally {
      // Even if the page's callback threw: the lane's next run goes, and the sweeps are not
      // held back for a run that is over.
      this.drain(reply.lane);
      this.noteWorking();
    }
  }

  private drain(lane: Lane): void {
    const l = this.lane(lane);
    const p = l.pending;
    if (!p || l.inFlight) return;
    l.pending = null;
    if (p.gen === l.gen) this.post(lane, p.opts, p.deliver, p.gen);
  }

  /**
   * The run in flight is overdue and stale: the worker is restarted (a run cannot be
   * interrupted otherwise). The other lanes' runs, lost with it, go again if they are still
   * their lanes' latest.
   */
  private abandon(stale: InFlight): void {
    this.cost.abandoned(stale.work, this.now() - stale.posted);
    this.worker?.terminate();
    this.worker = null;
    // Policy A first (the main picture), then B, then the rest in the order they came.
    const order = [...this.lanes.keys()].sort((x, y) => rank(x) - rank(y));
    const lost = order.map((lane) => {
      const l = this.lane(lane);
      const f = l.inFlight;
      l.inFlight = null;
      this.unwatch(lane);
      return { lane, f };
    });
    for (const { lane, f } of lost) {
      const l = this.lane(lane);
      if (f && f !== stale && !l.pending && f.gen === l.gen) this.post(lane, f.opts, f.deliver, f.gen);
      else this.drain(lane);
    }
    this.noteWorking();
  }

  private failAll(message: string): void {
    this.worker?.terminate();
    this.worker = null;
    const lost: InFlight[] = [];
    for (const [lane, l] of this.lanes) {
      if (l.inFlight) lost.push(l.inFlight);
      l.inFlight = null;
      l.pending = null;
      this.unwatch(lane);
    }
    // Every lane is cleared (and the sweeps released) before any callback, which may throw.
    this.noteWorking(true);
    for (const f of lost) f.deliver({ ok: false, error: { name: "Error", message }, viaWorker: true });
  }
}

/** Policy A's lane first, then B's, then any other. */
function rank(lane: Lane): number {
  return lane === "a" ? 0 : lane === "b" ? 1 : 2;
}
