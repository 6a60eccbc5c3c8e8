// The page's cadence. Each input is coalesced into one update per animation frame (unless
// its run goes to the worker, which is posted at once: see Steps.mainNow): the main
// picture (herd, load, metrics) first, the secondary figures in frames of their own (the
// compare panel, then the delay histograms and the snippet), so that while a slider moves
// every frame spends its time on the main picture. Figure draws that would otherwise share a
// frame (a scroll can bring the compare herds and the histograms into view at once) queue up
// one per frame. Nothing runs before `start`: until the wasm module is there, a frame is a no-op.
//
// No DOM here: the frame source is passed in (requestAnimationFrame on the page), so the
// cadence is unit-tested in Node with a hand-cranked clock.

import { measure } from "../timing.js";

/** requestAnimationFrame, or a stand-in. */
export type RequestFrame = (callback: () => void) => number;

/** What a panel may ask of the scheduler. */
export interface Frames {
  /** Whether the wasm module is ready (nothing is drawn before). */
  readonly started: boolean;
  /** Runs `draw` in an animation frame of its own, the latest per key. */
  later(key: string, draw: () => void): void;
}

/** The work of each kind of frame; the app supplies it. */
export interface Steps {
  /** Reads the form and runs policy A (its picture may arrive later, from the worker). */
  main(restart: boolean): void;
  /**
   * Runs policy A at once if its run goes to the worker, and says whether it did. Such a run
   * waits for the worker, not for a frame: posting it from the input itself takes the wait
   * for the next frame (up to 16 ms) out of every big run's picture. A run on the main
   * thread still waits for the frame, one per frame while a slider moves. Optional: without
   * it every update waits for the frame.
   */
  mainNow?(restart: boolean): boolean;
  /** Whether the compare run must wait (policy A's worker run is catching up with a drag). */
  compareWaits(): boolean;
  /** Runs (or reuses) policy B and draws the compare panel. */
  compare(): void;
  /** The delay histograms and the embed snippet. */
  delays(): void;
}

export class Scheduler implements Frames {
  private frame = 0;
  private dirtyMain = false;
  private dirtyCompare = false;
  private dirtyDelays = false;
  private restartNext = false;
  private isStarted = false;
  private readonly waiting = new Map<string, () => void>();
  private laterFrame = 0;

  constructor(
    private readonly steps: Steps,
    private readonly requestFrame: RequestFrame,
  ) {}

  get started(): boolean {
    return this.isStarted;
  }

  /** The wasm module is ready: the first picture is requested. */
  start(): void {
    this.isStarted = true;
    this.request(true);
  }

  /** The form changed (or a preset, or the start): one update in the next frame. */
  request(restart: boolean): void {
    this.restartNext ||= restart;
    if (this.isStarted && this.steps.mainNow?.(this.restartNext)) {
      // Posted with the latest form: an update still waiting for the frame is this one.
      this.dirtyMain = false;
      this.restartNext = false;
      return;
    }
    this.dirtyMain = true;
    this.schedule();
  }

  /** The compare panel (and after it the histograms) should follow: a new picture, language or theme. */
  followUp(): void {
    this.dirtyCompare = true;
    this.schedule();
  }

  /** Policy A's run is over without a picture: a compare run held back for it can go now. */
  resume(): void {
    if (this.dirtyCompare) this.schedule();
  }

  /**
   * Runs `draw` in a frame of its own: one waiting draw per frame, in order, the latest for
   * each key. A figure that comes into view with others, or that is slow the first time,
   * then never makes a long task together with another.
   */
  later(key: string, draw: () => void): void {
    // A key already waiting keeps its place (only its draw is the newer one): a figure that
    // asks again every frame, a sweep panel's as its points come, cannot hold back another.
    this.waiting.set(key, draw);
    if (this.laterFrame === 0) this.laterFrame = this.requestFrame(() => this.drainLater());
  }

  private drainLater(): void {
    const next = this.waiting.entries().next();
    if (next.done) {
      this.laterFrame = 0;
      return;
    }
    const [key, draw] = next.value;
    this.waiting.delete(key);
    const started = performance.now();
    // `laterFrame` stays set while the draw runs, so a draw that asks again (the delay
    // histograms ask for their next panel) asks for no frame of its own: two callbacks in
    // the next frame drew two panels in one task. The next frame is asked for once, after
    // the draw, even if it throws.
    try {
      draw();
      // Each deferred draw under its key: a long task shows which figure made it.
      measure(`stampede:later-${key}`, started);
    } finally {
      this.laterFrame = this.waiting.size > 0 ? this.requestFrame(() => this.drainLater()) : 0;
    }
  }

  private schedule(): void {
    if (this.frame === 0) this.frame = this.requestFrame(() => this.onFrame());
  }

  private onFrame(): void {
    this.frame = 0;
    if (!this.isStarted) return;
    if (this.dirtyMain) {
      this.dirtyMain = false;
      const restart = this.restartNext;
      this.restartNext = false;
      this.steps.main(restart);
      // The secondary figures wait for frames of their own.
      if (this.dirtyCompare || this.dirtyDelays) this.schedule();
      return;
    }
    // Policy B waits while policy A's worker run is still catching up with a drag: they share
    // the worker, and B's picture is not the one the reader is steering.
    if (this.dirtyCompare && this.steps.compareWaits()) return;
    if (this.dirtyCompare) {
      this.dirtyCompare = false;
      this.steps.compare();
      // The histograms and the snippet wait for the frame after.
      this.dirtyDelays = true;
      this.schedule();
      return;
    }
    if (this.dirtyDelays) {
      this.dirtyDelays = false;
      this.steps.delays();
    }
  }
}
