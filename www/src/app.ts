// The playground's wiring. It owns the state (the last good settings), the language and the
// colours, runs policy A, and hands what each panel needs to it; the panels own their DOM
// and figures (panels/), the scheduler the frame cadence (app/scheduler.ts), and the link's
// way in and out of the page lives in app/link.ts and app/share.ts.
//
// State flows one way: the form, a preset or a link gives a new state; policy A runs; when
// its picture is drawn the state becomes `good`, and the panels read it (and the view: words,
// colours, scale) through their context. What a reader does inside a panel that belongs to
// the state (speed, row layout) comes back here as an event.
//
// Until the wasm module has loaded and the first picture is drawn, the settings are
// disabled (an edit then would have nothing to run on); html[data-ready] and the
// "stampede:interactive" mark are set only once a real picture is up.

import { localizeError, locateError } from "./logic/errors.js";
import { formatNumber } from "./logic/format.js";
import { PRESETS, type Preset } from "./logic/presets.js";
import { NARROW } from "./ui/page-notes.js";
import { cloneState, type Lang, type PolicyState, type State } from "./logic/state.js";
import { adoptFleet, simOptions } from "./logic/run.js";
import { readPalette, type Palette } from "./figures/palette.js";
import { ResultKeeper } from "./wasm/keep.js";
import { pageRunner, SimRunner, type Outcome } from "./wasm/runner.js";
import { Controls, type PackageError } from "./ui/controls.js";
import { applyTranslations, translator, type T } from "./ui/i18n-dom.js";
import { measure } from "./timing.js";
import { LinkRepair, type LinkProblems } from "./app/link.js";
import { Scheduler } from "./app/scheduler.js";
import { ShareLink } from "./app/share.js";
import { ComparePanel, type RunError } from "./panels/compare.js";
import { DELAY_SAMPLES, DelaysPanel } from "./panels/delays.js";
import { HerdPanel } from "./panels/herd.js";
import { LiveSection } from "./panels/live.js";
import { StoryPanel } from "./panels/story.js";
import { HedgingPanel } from "./panels/hedging.js";
import { LayersPanel } from "./panels/layers.js";
import { NetsPanel } from "./panels/nets.js";
import type { SweepPanel } from "./panels/sweep-panel.js";
import { sweepPool } from "./wasm/pool.js";
import { byId, oncePerFrame, type PanelContext, type View } from "./panels/panel.js";
import { setAttr, setHidden, setText } from "./ui/dom.js";
import { showHeld } from "./ui/held.js";

export type { LinkProblems } from "./app/link.js";

export class App {
  private lang: Lang;
  private t: T;
  private palette: Palette;
  private good: State;
  private readonly reducedMotion: boolean;
  /** The rate charts' log-scale box (a view setting, not part of the state). */
  private readonly logBox = byId<HTMLInputElement>("load-log");
  /** While the page's own run is in its worker, the sweeps leave a core to it and one to the
   *  main thread, which draws its result (with one left, a 5 ms herd draw still took 27 ms
   *  on 2 cores, a long task); on 2 cores they pause meanwhile. */
  private readonly runner = pageRunner((working) => sweepPool().reserve(working ? 2 : 0));
  private readonly keepA = new ResultKeeper((r) => this.runner.recycle(r));
  private readonly scheduler: Scheduler;
  private readonly controls: Controls;
  private readonly link: LinkRepair;
  private readonly shareLink: ShareLink;
  private readonly herd: HerdPanel;
  private readonly compare: ComparePanel;
  private readonly delays: DelaysPanel;
  private readonly live: LiveSection;
  private readonly story: StoryPanel;
  /** Issue #12's panels: each sweeps on the pool of workers once on screen. */
  private readonly sweeps: SweepPanel<unknown>[];
  private errA: PackageError | null = null;
  private errB: PackageError | null = null;
  /** Policy B's settings when it last ran: the link keeps them while B's fields hold a value
   *  its run refused (A's picture is still drawn, so `good` takes the refused value, and it
   *  went into the address and the shared link). */
  private goodB: PolicyState | null = null;
  /** What each package error was raised for (see `dropStale`). */
  private readonly errFor = new WeakMap<PackageError, string>();
  private runs = 0;
  private presetId: string | null = null;
  /** The first real picture is drawn. */
  private pictured = false;
  private enabled = true;

  constructor(initial: State, lang: Lang, presetId: string | null, link: LinkProblems = { ignored: [], given: {} }) {
    this.good = cloneState(initial);
    this.lang = lang;
    this.t = translator(lang);
    this.presetId = presetId;
    this.reducedMotion = matchMedia("(prefers-reduced-motion: reduce)").matches;
    this.palette = readPalette();

    this.scheduler = new Scheduler(
      {
        main: (restart) => this.updateMain(restart),
        mainNow: (restart) => this.updateMainNow(restart),
        compareWaits: () => this.runner.busy("a"),
        compare: () => this.compare.update(),
        delays: () => {
          const started = performance.now();
          this.live.renderEmbed();
          this.delays.update();
          measure("stampede:delays", started);
        },
      },
      (callback) => requestAnimationFrame(callback),
    );
    this.controls = new Controls(this.t, lang, () => {
      this.presetId = null;
      this.story.show(null);
      this.link.end();
      // An edit drops the field's note about the link: the note at the top follows.
      this.link.render();
      this.markPreset();
      this.scheduler.request(false);
    });
    this.link = new LinkRepair(this.controls, () => this.view());
    this.shareLink = new ShareLink(() => ({ state: this.linked(), lang: this.lang, t: this.t, story: this.presetId }));

    const ctx: PanelContext = {
      state: () => this.good,
      view: () => this.view(),
      resultA: () => this.keepA.result,
      resized: oncePerFrame(() => {
        this.herd.resize();
        this.compare.resize();
        this.redrawKept();
        this.story.redraw();
        for (const p of this.sweeps) p.resize();
      }),
      frames: this.scheduler,
    };
    this.compare = new ComparePanel(ctx, this.runner, (s, error) => this.onResultB(s, error));
    this.buildPresets();
    this.herd = new HerdPanel(
      ctx,
      {
        speed: (speed) => {
          this.good.speed = speed;
          this.shareLink.follow();
        },
        rows: (rows) => {
          this.good.rows = rows;
          this.shareLink.follow();
        },
      },
      this.reducedMotion,
    );
    this.delays = new DelaysPanel(ctx);
    this.story = new StoryPanel(ctx, this.runner);
    this.live = new LiveSection(ctx);
    this.sweeps = [new NetsPanel(ctx, sweepPool()), new HedgingPanel(ctx, sweepPool()), new LayersPanel(ctx, sweepPool())];
    this.wire(ctx);
    this.relabel();
    this.controls.show(this.good);
    this.herd.showRows(this.good.rows);
    this.markPreset();
    this.link.note(link, initial.scenario);
    this.showErrors();
    // Nothing can run before the wasm module is there.
    this.setEnabled(false);
  }

  /** The wasm module is ready: the first picture is drawn, then the controls work. */
  start(): void {
    this.scheduler.start();
    // A link to a story shows its side-by-side figures too, as choosing it does.
    const p = PRESETS.find((x) => x.id === this.presetId);
    if (p) this.story.show(p);
  }

  private view(): View {
    return { t: this.t, lang: this.lang, palette: this.palette, logScale: this.logBox.checked };
  }

  /** Enables or disables every control that would run the simulator. */
  private setEnabled(on: boolean): void {
    this.enabled = on;
    this.controls.setEnabled(on);
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-preset]")) b.disabled = !on;
    this.herd.setEnabled(on);
    if (on) this.live.enable();
  }

  private wire(ctx: PanelContext): void {
    // Enter in a field must not submit (and reload) a settings form: the panels' too, where
    // Enter in a lone field (the hedge delay, the nets' fail rate) reloaded the page bare.
    for (const f of document.querySelectorAll<HTMLFormElement>("form.controls, form.beyond-form")) {
      f.addEventListener("submit", (e) => e.preventDefault());
    }
    this.logBox.addEventListener("change", () => {
      this.herd.invalidate();
      this.compare.invalidate();
      this.redrawKept();
    });
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-lang]")) {
      b.addEventListener("click", () => this.setLang(b.dataset["lang"] === "ru" ? "ru" : "en"));
    }
    // Resizes and theme changes redraw what is kept; nothing is simulated again.
    // The section too: on narrow screens #figures is display: contents (narrow.css), no box.
    // Only a change of width resizes a figure: their heights are set by CSS, from the
    // viewport (a window resize, below) or fixed. A section growing taller as its content
    // draws (a sweep panel's first points, an error line) used to redraw every figure: at
    // 100,000 clients, a 50 ms task.
    const widths = new WeakMap<Element, number>();
    const resize = new ResizeObserver((entries) => {
      let wider = false;
      for (const e of entries) {
        if (widths.get(e.target) === e.contentRect.width) continue;
        widths.set(e.target, e.contentRect.width);
        wider = true;
      }
      if (wider) ctx.resized();
    });
    addEventListener("resize", () => ctx.resized());
    resize.observe(byId("figures"));
    resize.observe(byId("herd"));
    for (const p of this.sweeps) resize.observe(p.section);
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
      this.palette = readPalette();
      this.herd.invalidate();
      this.compare.invalidate();
      this.delays.invalidate();
      this.story.relabel();
      this.redrawKept();
      this.story.redraw();
      for (const p of this.sweeps) p.relabel();
      this.scheduler.followUp();
    });
  }

  // --- Policy A: the run behind every panel -----------------------------------------------------

  private updateMain(restart: boolean): void {
    const { state, ok } = this.controls.read(this.good);
    this.dropStale(state);
    if (!ok) {
      this.showErrors();
      // Let the reader fix what the form refused, even before any picture.
      if (!this.enabled) this.setEnabled(true);
      return;
    }
    this.runA(state, restart);
  }

  /** Policy A's run at once, from the input, if it goes to the worker (see Steps.mainNow):
   *  the form as it is now, unless it is refused (the frame's update then shows why). */
  private updateMainNow(restart: boolean): boolean {
    // A change from the last good settings to a small run is rare: they decide whether the
    // form is read here, so that small runs read it once a frame, not once an input.
    if (SimRunner.inline(simOptions(this.good, "a"))) return false;
    const { state, ok } = this.controls.read(this.good);
    if (!ok) return false;
    const opts = simOptions(state, "a");
    if (SimRunner.inline(opts)) return false;
    this.runA(state, restart, opts);
    return true;
  }

  private runA(state: State, restart: boolean, opts = simOptions(state, "a")): void {
    const started = performance.now();
    this.runner.run("a", opts, (o) => this.onResultA(state, o, started), restart);
    // Inline runs have already drawn; a worker run shows that it is on its way.
    this.setBusy(this.runner.busy("a"));
  }

  private onResultA(state: State, o: Outcome, started: number): void {
    const applying = performance.now();
    this.setBusy(this.runner.busy("a"));
    if (!o.ok) {
      const err = locateError(o.error, "a");
      if (!this.pictured && this.repairFromLink(state, err)) return;
      this.errA = this.raised(err, state);
      this.showErrors();
      if (!this.enabled) this.setEnabled(true);
      // A compare run held back while A was busy can go now.
      this.scheduler.resume();
      return;
    }
    this.errA = null;
    // The row layout is a view setting changed outside the form: the latest choice stands.
    state.rows = this.good.rows;
    // What the core sized (workers and queue from the capacity, or the capacity from them)
    // shows in the form and goes into the link.
    adoptFleet(state, o.result.fleet);
    this.controls.showFleet(o.result.fleet, state);
    this.good = state;
    this.herd.draw(o.result, o.restart);
    this.keepA.keep(o.result);
    this.showErrors();
    this.runs++;
    document.documentElement.dataset["runs"] = String(this.runs);
    this.pictured = true;
    if (!this.enabled) this.setEnabled(true);
    this.markInteractive();
    const name = o.viaWorker ? "stampede:update-async" : "stampede:update";
    measure(name, started);
    // This handler alone (the rest of `name` is the run and the reply's way here).
    measure("stampede:apply-a", applying);
    this.shareLink.follow();
    this.live.refreshPolicy();
    this.scheduler.followUp();
  }

  /** Policy B ran (error null) or was refused, for the state `s`. */
  private onResultB(s: State, error: RunError | null): void {
    if (error !== null) {
      const err = locateError(error, "b");
      // Policy B's fields from a bad link fall back like policy A's.
      if (this.repairFromLink(s, err)) return;
      this.errB = this.raised(err, s);
      this.showErrors();
      // The address may have followed A's run with the value B now refuses: it takes B's
      // last good settings back.
      this.shareLink.follow();
      return;
    }
    this.errB = null;
    this.goodB = { ...s.b };
    this.showErrors();
    this.shareLink.follow();
  }

  /** The state the address and Share write: the good state, with policy B as it last ran
   *  while B's fields hold a value its run refused. */
  private linked(): State {
    if (this.errB === null || this.goodB === null) return this.good;
    return { ...this.good, a: { ...this.good.a }, b: { ...this.goodB } };
  }

  /** A value from the link was refused: runs again with it at its default. Returns whether it did. */
  private repairFromLink(state: State, err: PackageError): boolean {
    const fixed = this.link.repair(state, err);
    if (!fixed) return false;
    this.errA = null;
    this.errB = null;
    this.controls.show(fixed);
    this.good = fixed;
    this.showErrors();
    this.scheduler.request(true);
    return true;
  }

  /** Once: the first picture is up and every control works. */
  private markInteractive(): void {
    if (document.documentElement.dataset["ready"] === "1") return;
    performance.mark("stampede:interactive");
    document.documentElement.dataset["ready"] = "1";
    // The sweeping panels start after the first picture, so they never delay it.
    for (const p of this.sweeps) p.start();
  }

  private setBusy(busy: boolean): void {
    document.documentElement.dataset["sim"] = busy ? "busy" : "idle";
    this.herd.computing(busy);
    this.renderStatus();
  }

  /** `err`, remembered with what it was raised for: the scenario and its control's value. */
  private raised(err: PackageError, s: State): PackageError {
    this.errFor.set(err, raisedFor(err, s));
    return err;
  }

  /** A package error is about the value its control held, in the scenario of then: once either
   *  changed it is stale ("Given: 5" under a cap that reads 30000, a closed loop's bound under
   *  a steady run's duration), and it goes; the form's own problems, or the next run, say what
   *  is wrong now. While they are the same it stays, even when the form has problems of its
   *  own and no run can say it again. */
  private dropStale(s: State): void {
    const stale = (e: PackageError | null) => e !== null && this.errFor.get(e) !== raisedFor(e, s);
    if (stale(this.errA)) this.errA = null;
    if (stale(this.errB)) this.errB = null;
  }

  private showErrors(): void {
    const unplaced = this.controls.renderErrors([this.errA, this.errB].filter((e): e is PackageError => e !== null));
    const general = byId("sim-error");
    const messages = unplaced.map((e) => localizeError(e, this.lang));
    if (this.controls.hasProblems() || this.errA) messages.push(this.t("err.kept"));
    setText(general, messages.join(" "));
    setHidden(general, messages.length === 0);
    this.renderStatus();
  }

  /** The status line by the figure's heading says "Simulating…"; the note on the figure, which
   *  refused settings hold the picture (ui/held.ts). */
  private renderStatus(): void {
    const busy = document.documentElement.dataset["sim"] === "busy";
    const status = byId("status");
    const text = busy ? this.t("status.simulating") : "";
    if (status.textContent !== text) status.textContent = text;
    const ids = this.controls.refusedIds(this.errA ? [this.errA] : []);
    const placed = this.errA?.control != null && ids.includes(this.errA.control);
    showHeld(byId("held-note"), ids, this.errA && !placed ? "sim-error" : null, this.t, this.lang);
  }

  /** Redraws every panel from the kept runs (resize, theme, language, log scale). */
  private redrawKept(): void {
    this.herd.redraw();
    this.compare.redraw();
    this.delays.resize();
  }

  // --- Presets and language -------------------------------------------------------------------

  private buildPresets(): void {
    const host = byId("presets");
    for (const p of PRESETS) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "preset";
      b.dataset["preset"] = p.id;
      const title = document.createElement("span");
      title.className = "preset-title";
      title.dataset["i18n"] = p.title;
      // The blurb describes the button, outside its name: inside, a screen reader read the
      // whole paragraph as the button's name. Out of the grid's flow (absolutely placed).
      const blurb = document.createElement("span");
      blurb.className = "preset-blurb visually-hidden";
      blurb.id = `preset-${p.id}-blurb`;
      blurb.dataset["i18n"] = p.blurb;
      b.append(title);
      b.setAttribute("aria-describedby", blurb.id);
      b.addEventListener("click", () => this.applyPreset(p));
      host.append(b, blurb);
    }
  }

  private applyPreset(p: Preset): void {
    this.presetId = p.id;
    this.errA = null;
    this.errB = null;
    this.link.forget();
    this.controls.clearNotices();
    const s = cloneState(p.state);
    // The row layout is the reader's choice, not the story's.
    s.rows = this.good.rows;
    this.controls.show(s);
    this.good = s;
    this.markPreset();
    this.scheduler.request(true);
    this.story.show(p);
    // In one column the figure is docked at the screen's bottom whatever the scroll: the
    // story's lesson goes to the top instead (scrolling to the playground hid it above).
    const narrow = matchMedia(NARROW).matches;
    document.getElementById(narrow ? "preset-lesson" : "herd")?.scrollIntoView({ block: narrow ? "start" : "nearest", behavior: this.reducedMotion ? "auto" : "smooth" });
  }

  private markPreset(): void {
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-preset]")) {
      setAttr(b, "aria-pressed", String(b.dataset["preset"] === this.presetId));
    }
    // The chosen story's one-line lesson, under the strip (each button carries its own for
    // screen readers; the strip stays one line of titles, so the figure stays near the top).
    const lesson = byId("preset-lesson");
    const p = PRESETS.find((x) => x.id === this.presetId);
    const text = p ? this.t(p.blurb) : "";
    setText(lesson, text);
    setHidden(lesson, text === "");
  }

  private setLang(lang: Lang): void {
    if (lang === this.lang) return;
    this.lang = lang;
    this.t = translator(lang);
    this.relabel();
    this.markPreset();
    this.herd.invalidate();
    this.compare.invalidate();
    this.delays.invalidate();
    this.story.relabel();
    this.redrawKept();
    this.story.redraw();
    for (const p of this.sweeps) p.relabel();
    this.showErrors();
    this.scheduler.followUp();
    this.shareLink.relabel();
    this.shareLink.follow();
  }

  private relabel(): void {
    applyTranslations(document, this.lang, { n: formatNumber(DELAY_SAMPLES, this.lang) });
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-lang]")) {
      b.setAttribute("aria-pressed", String(b.dataset["lang"] === this.lang));
    }
    this.controls.relabel(this.t, this.lang, this.good);
    this.live.relabel();
    this.link.render();
    this.herd.relabel();
  }
}

/** What a package error was raised for: the scenario, and the value its control holds. */
function raisedFor(err: PackageError, s: State): string {
  const control = err.control === null ? null : document.getElementById(err.control);
  const value = control instanceof HTMLInputElement || control instanceof HTMLSelectElement ? control.value : "";
  return `${s.scenario}\u0000${value}`;
}
