// Where a run happens. Small runs go straight through on the main thread (a 10,000-client
// burst takes a few milliseconds, so the picture follows the slider within the frame);
// big ones go to a Web Worker so the page never blocks. Each lane (policy A, policy B) has
// at most one run in the worker and one waiting (the latest request; older waiting ones are
// dropped), and never shows a result older than one it has shown.
//
// A stale run in flight is left to finish — its picture is newer than the one on screen, so
// a drag keeps showing intermediate pictures however long each run takes — unless it is
// overdue: see logic/latest.ts for the rule and why.

import { errorData, type SettingsErrorData } from "../logic/error-data.js";
import { abandonAt, RunCost } from "../logic/latest.js";
import { MAIN_THREAD_WORK, workEstimate, type SimOptions } from "../logic/run.js";
import { measure, measureSpan } from "../timing.js";
import { SERIES, simulate, type SimResult } from "./bridge.js";
import type { WorkerReply, WorkerRequest } from "./sim.worker.js";

/** A run's lane: "a" and "b" for the two policies, others for a story's side-by-side runs. */
export type Lane = string;

export type Outcome =
  | { ok: true; result: SimResult; viaWorker: boolean }
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
  /** The overdue check for the run in flight. */
  timer: number;
}

export class SimRunner {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly cost = new RunCost();
  private readonly lanes = new Map<Lane, LaneState>();
  /** Whether the worker had a run in flight when `onWorking` last heard. */
  private working = false;

  /** `onWorking` hears when the worker starts and stops having runs in flight (the page
   *  holds its sweeps back meanwhile, see logic/pool.ts `reserve`). */
  constructor(private readonly onWorking: (working: boolean) => void = () => {}) {}

  private noteWorking(): void {
    const working = [...this.lanes.values()].some((l) => l.inFlight !== null);
    if (working === this.working) return;
    this.working = working;
    this.onWorking(working);
  }

  private lane(name: Lane): LaneState {
    let l = this.lanes.get(name);
    if (!l) {
      l = { gen: 0, pending: null, inFlight: null, delivered: 0, timer: 0 };
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
   */
  run(lane: Lane, opts: SimOptions, deliver: Deliver): void {
    const l = this.lane(lane);
    const gen = ++l.gen;
    if (SimRunner.inline(opts)) {
      l.pending = null;
      l.delivered = gen;
      try {
        simulate(opts, (result) => deliver({ ok: true, result, viaWorker: false }));
      } catch (e) {
        deliver({ ok: false, error: errorData(e), viaWorker: false });
      }
      return;
    }
    if (l.inFlight) {
      const since = l.pending?.since ?? performance.now();
      l.pending = { opts, deliver, gen, since };
      this.watch(lane);
      return;
    }
    this.post(lane, opts, deliver, gen);
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
    const now = performance.now();
    const work = workEstimate(opts);
    // The worker runs one message at a time: the other lanes' runs go first.
    let start = now;
    for (const [name, l] of this.lanes) if (name !== lane && l.inFlight) start = Math.max(start, l.inFlight.expectedEnd);
    this.lane(lane).inFlight = { id, gen, opts, deliver, work, posted: now, expectedEnd: start + this.cost.expected(work) };
    const msg: WorkerRequest = { kind: "run", id, lane, opts };
    this.ensureWorker().postMessage(msg);
    this.noteWorking();
  }

  /** Arms the overdue check of a lane whose newest request waits behind a run in flight. */
  private watch(lane: Lane): void {
    const l = this.lane(lane);
    const f = l.inFlight;
    const p = l.pending;
    if (!f || !p || l.timer !== 0) return;
    const at = abandonAt(f.posted, f.expectedEnd, p.since);
    l.timer = window.setTimeout(() => {
      l.timer = 0;
      if (l.inFlight === f && l.pending) this.abandon(f);
    }, Math.max(0, at - performance.now()));
  }

  private unwatch(lane: Lane): void {
    const l = this.lane(lane);
    if (l.timer !== 0) clearTimeout(l.timer);
    l.timer = 0;
  }

  private ensureWorker(): Worker {
    if (!this.worker) {
      this.worker = new Worker(new URL("./sim.worker.ts", import.meta.url), { type: "module", name: "stampede-sim" });
      this.worker.onmessage = (e: MessageEvent<WorkerReply>) => this.onReply(e.data);
      this.worker.onerror = (e) => {
        e.preventDefault();
        this.failAll(e.message || "the simulation worker failed");
      };
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
    if (reply.ok) this.cost.finished(f.work, performance.now() - f.posted);
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
            ? { ok: true, result: { ...reply.result, owned: true, recyclable: true }, viaWorker: true }
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
    this.cost.abandoned(stale.work, performance.now() - stale.posted);
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
    this.noteWorking();
    for (const f of lost) f.deliver({ ok: false, error: { name: "Error", message }, viaWorker: true });
  }
}

/** Policy A's lane first, then B's, then any other. */
function rank(lane: Lane): number {
  return lane === "a" ? 0 : lane === "b" ? 1 : 2;
}
