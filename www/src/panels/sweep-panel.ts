// What issue #12's sweeping panels (nets, hedging, layers) share: each runs a batch of
// simulations on the pool of sweep workers in a lane of its own, only once the wasm module
// is ready and the panel is on screen (again after each edit), shows its progress, and
// keeps its last good picture: results fill a draft drawn over the kept one as they come,
// and a refused batch (or a refused typed value) leaves the kept one, with the message
// inline. `data-state` (running, done, error) and `data-runs` (batches finished) on the
// panel's section are hooks for tests; "done" is set once the finished batch is drawn.

import { formatDuration } from "../logic/format.js";
import { localizeError } from "../logic/errors.js";
import { BatchError, Superseded } from "../logic/pool.js";
import type { BeyondOptions } from "../logic/run.js";
import { measure } from "../timing.js";
import type { Metrics } from "../wasm/bridge.js";
import type { SweepPool } from "../wasm/pool.js";
import { byId, type PanelContext } from "./panel.js";

export abstract class SweepPanel<S> {
  protected readonly root: HTMLElement;
  private readonly status: HTMLElement;
  private readonly error: HTMLElement;
  private onScreen = false;
  private started = false;
  private dirty = true;
  private seq = 0;
  /** The status line's words, to say again in another language. */
  private statusWords: { key: "sweep.running" | "sweep.done"; vars: Record<string, string | number> } | null = null;
  /** Why the last batch was refused, until the next one. */
  private batchError: string | null = null;

  constructor(
    protected readonly ctx: PanelContext,
    protected readonly pool: SweepPool,
    private readonly id: string,
  ) {
    this.root = byId(id);
    // A hook for tests: the workers the panel's runs share.
    this.root.dataset["workers"] = String(pool.size);
    this.status = byId(`${id}-status`);
    this.error = byId(`${id}-error`);
    new IntersectionObserver(
      (entries) => {
        this.onScreen = entries.some((e) => e.isIntersecting);
        this.maybeRun();
      },
      { rootMargin: "300px 0px" },
    ).observe(this.root);
  }

  /** Draws the kept picture with the draft over it, in a frame of its own among the
   *  figures that wait their turn (the scheduler's `later`, latest per panel): a sweep's
   *  draw no longer shares a frame with a compare herd's or another sweep's (a compare herd
   *  and a sweep's draw in one frame made a 62 ms long task on 2 cores). */
  protected redraw(): void {
    this.ctx.frames.later(`sweep:${this.id}`, () => this.draw());
  }

  /** The panel's settings from its form (problems shown inline), or null when one is refused. */
  protected abstract read(): S | null;
  /** The batch for `s`. */
  protected abstract jobs(s: S): BeyondOptions[];
  /** A new batch begins: start a draft. */
  protected abstract begin(s: S): void;
  /** Result `i` of the batch in progress. */
  protected abstract place(i: number, m: Metrics): void;
  /** The batch finished: the draft becomes the kept picture. */
  protected abstract commit(): void;
  /** The batch was refused: the draft is dropped. */
  protected abstract rollback(): void;
  /** Draws the kept picture with the draft over it. */
  protected abstract draw(): void;
  /** Whether a typed value is refused (the kept picture stays). */
  protected abstract refused(): boolean;

  /** The panel's section (it observes its own size). */
  get section(): HTMLElement {
    return this.root;
  }

  /** The wasm module is ready: the panel may run once it is on screen. */
  start(): void {
    this.started = true;
    this.maybeRun();
  }

  /** A setting of the panel changed. */
  protected edited(): void {
    this.dirty = true;
    this.maybeRun();
    // Off screen or before the module: the form's problems still show at once.
    if (!this.started || !this.onScreen) this.showError();
  }

  private maybeRun(): void {
    if (!this.started || !this.onScreen || !this.dirty) return;
    const s = this.read();
    this.showError();
    if (s === null) return;
    this.dirty = false;
    this.run(s);
  }

  private run(s: S): void {
    const jobs = this.jobs(s);
    const seq = ++this.seq;
    const started = performance.now();
    let done = 0;
    this.begin(s);
    this.root.dataset["state"] = "running";
    this.progress(0, jobs.length);
    this.pool
      .run(
        jobs,
        (i, m) => {
          if (seq !== this.seq) return;
          this.place(i, m);
          this.progress(++done, jobs.length);
          this.redraw();
        },
        this.id,
      )
      .then(() => {
        if (seq !== this.seq) return;
        this.commit();
        this.batchError = null;
        this.showError();
        this.ms = performance.now() - started;
        this.say({ key: "sweep.done", vars: { n: jobs.length, w: this.pool.size } });
        // Drawn now, not on the next frame: "done" (a hook) means the numbers are on the page.
        this.draw();
        this.root.dataset["state"] = "done";
        this.root.dataset["runs"] = String(Number(this.root.dataset["runs"] ?? 0) + 1);
        measure(`stampede:${this.id}`, started);
      })
      .catch((e: unknown) => {
        if (e instanceof Superseded || seq !== this.seq) return;
        this.rollback();
        this.root.dataset["state"] = "error";
        this.say(null);
        this.batchError = e instanceof BatchError ? localizeError(e.data, this.ctx.view().lang) : String(e);
        this.showError();
        this.redraw();
      });
  }

  private progress(done: number, n: number): void {
    this.say({ key: "sweep.running", vars: { done, n, w: this.pool.size } });
  }

  /** How long the last finished batch took, ms. */
  private ms = 0;

  private say(words: SweepPanel<S>["statusWords"]): void {
    this.statusWords = words;
    const { t, lang } = this.ctx.view();
    // The time is worded at each call, in the reader's language.
    const text = words ? t(words.key, { ...words.vars, t: formatDuration(this.ms, lang) }) : "";
    if (this.status.textContent !== text) this.status.textContent = text;
  }

  /** The last batch's error (if any), and the note that the picture is the last good one. */
  protected showError(): void {
    const messages = [this.batchError ?? "", this.batchError !== null || this.refused() ? this.ctx.view().t("err.kept") : ""].filter((m) => m !== "");
    const text = messages.join(" ");
    if (this.error.textContent !== text) this.error.textContent = text;
    this.error.hidden = text === "";
  }

  /** Words or colours changed: drawn again from what is kept. */
  relabel(): void {
    this.draw();
    // The form's messages and the status line, in the new words.
    this.read();
    this.showError();
    this.say(this.statusWords);
  }

  abstract resize(): void;
}
