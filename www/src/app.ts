// The playground's controller: reads the form, runs the simulator (main thread or worker),
// hands results to the figures, keeps the URL in step. Each input is coalesced into one
// update per animation frame: the main picture (herd, load, metrics) first, the secondary
// figures in frames of their own (the compare panel, then the delay histograms and the
// snippet), so that while a slider moves every frame spends its time on the main picture.
//
// Until the wasm module has loaded and the first picture is drawn, the settings are
// disabled (an edit then would have nothing to run on); html[data-ready] and the
// "stampede:interactive" mark are set only once a real picture is up.

import { displayBinMs, ensureCapacity, rebinRate } from "./logic/series.js";
import { delayHistograms } from "./logic/histogram.js";
import { errorData, localizeError, locateError } from "./logic/errors.js";
import { fieldById } from "./logic/fields.js";
import { formatDuration, formatNumber, formatClock } from "./logic/format.js";
import { PRESETS, type Preset } from "./logic/presets.js";
import { embedSnippet } from "./logic/snippet.js";
import {
  DEFAULT_STATE,
  SPEEDS,
  budgetOptions,
  cloneState,
  isRowMode,
  outageWindow,
  policyOptions,
  simOptions,
  type Lang,
  type State,
} from "./logic/state.js";
import { encodeState } from "./logic/url.js";
import type { Key } from "./logic/i18n.js";
import { DelayFigure, MAX_PANELS } from "./figures/delays.js";
import { HerdFigure } from "./figures/herd.js";
import { readPalette, type Palette } from "./figures/palette.js";
import type { RowMap } from "./figures/raster.js";
import { Playback } from "./figures/playback.js";
import { RateChart } from "./figures/rates.js";
import { sampleDelays, type SimResult } from "./wasm/bridge.js";
import { ResultKeeper } from "./wasm/keep.js";
import { SimRunner, type Outcome } from "./wasm/runner.js";
import { Controls, type PackageError } from "./ui/controls.js";
import { applyTranslations, translator, type T } from "./ui/i18n-dom.js";
import { LivePanel } from "./ui/live.js";
import { measure } from "./timing.js";
import { CompareTable, showMetrics } from "./ui/metrics.js";

/** Delay sequences sampled for the histograms. */
const DELAY_SAMPLES = 4000;
/** The address bar follows the state at most this often (browsers throttle history calls). */
const URL_EVERY_MS = 250;
/** A link whose values the package keeps refusing is repaired at most this many times. */
const MAX_REPAIRS = 8;

/** What the link had that the page could not use (see logic/url.ts). */
export interface LinkProblems {
  ignored: string[];
  given: Record<string, string>;
}

function byId<E extends HTMLElement>(id: string): E {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} is missing`);
  return e as E;
}

/** The time the figures span: the whole run and the outage, with a little air. */
function timeDomain(s: State, r: SimResult): number {
  const series = r.offered.length * r.slotMs;
  const outage = outageWindow(s);
  return Math.max(1, series, r.metrics.completionMs, outage ? outage[1] : 0) * 1.02;
}

interface Buffers {
  x: Float64Array;
  y1: Float64Array;
  y2: Float64Array;
  y3: Float64Array;
  cum: Float64Array;
}

function newBuffers(): Buffers {
  return { x: new Float64Array(0), y1: new Float64Array(0), y2: new Float64Array(0), y3: new Float64Array(0), cum: new Float64Array(0) };
}

export class App {
  private lang: Lang;
  private t: T;
  private palette: Palette;
  private good: State;
  private readonly reducedMotion: boolean;
  private readonly runner = new SimRunner();
  private readonly controls: Controls;
  private readonly herd: HerdFigure;
  private readonly miniA: HerdFigure;
  private readonly miniB: HerdFigure;
  private loadChart: RateChart | null = null;
  private loadKey = "";
  private compareChart: RateChart | null = null;
  private compareKey = "";
  private readonly delays: DelayFigure;
  private readonly table: CompareTable;
  private readonly playback: Playback;
  private readonly live: LivePanel;
  private readonly keepA = new ResultKeeper((r) => this.runner.recycle(r));
  private readonly keepB = new ResultKeeper((r) => this.runner.recycle(r));
  private bufA = newBuffers();
  private bufB = newBuffers();
  private binMs = 100;
  private cumBins = 0;
  private tEndMs = 1;
  private errA: PackageError | null = null;
  private errB: PackageError | null = null;
  private resultB: SimResult | null = null;
  private stateB: State | null = null;
  /** What the kept B run and the drawn histograms were made from. */
  private keyB = "";
  private keyDelays = "";

  private frame = 0;
  private dirtyMain = false;
  private dirtyCompare = false;
  private dirtyDelays = false;
  private restartNext = false;
  private urlTimer = 0;
  private runs = 0;
  private presetId: string | null = null;
  /** The wasm module has loaded (App.start). */
  private started = false;
  /** The first real picture is drawn. */
  private pictured = false;
  private enabled = true;
  /**
   * Until both policies have run once and the reader has touched nothing, a refused value
   * came from the link: it falls back to its default (with a note) instead of blanking the page.
   */
  private linkPhase = true;
  private repairs = 0;
  /** Notes about the link that belong to no single field, re-worded on a language switch. */
  private linkNotes: ((t: T, lang: Lang) => string)[] = [];
  private scrollFrame = 0;
  /** Whether the compare panel's herds are on screen (or nearly); off screen they wait. */
  private compareOnScreen = false;
  private minisDirty = false;
  /** Figure draws that wait for frames of their own, one per frame (see runLater). */
  private readonly later = new Map<string, () => void>();
  private laterFrame = 0;
  /** The same for the delay histograms. */
  private delaysOnScreen = false;
  private delaysWaiting = false;

  constructor(initial: State, lang: Lang, presetId: string | null, link: LinkProblems = { ignored: [], given: {} }) {
    this.good = cloneState(initial);
    this.lang = lang;
    this.t = translator(lang);
    this.presetId = presetId;
    this.reducedMotion = matchMedia("(prefers-reduced-motion: reduce)").matches;
    this.palette = readPalette();

    this.controls = new Controls(this.t, lang, () => {
      this.presetId = null;
      this.linkPhase = false;
      this.markPreset();
      this.request(false);
    });
    this.table = new CompareTable(byId<HTMLTableElement>("compare-table"));
    this.buildPresets();
    this.buildSpeeds();

    const onResize = () => this.scheduleRedraw();
    this.herd = new HerdFigure({
      canvas: byId<HTMLCanvasElement>("timeline"),
      curtain: byId("timeline-curtain"),
      playhead: byId("timeline-playhead"),
      axis: byId("timeline-axis"),
      scroller: byId("timeline-scroll"),
      spacer: byId("timeline-spacer"),
      onScroll: () => this.scheduleHerd(),
      onResize,
    });
    this.miniA = new HerdFigure({ canvas: byId<HTMLCanvasElement>("compare-a"), axis: byId("compare-a-axis"), onResize });
    this.miniB = new HerdFigure({ canvas: byId<HTMLCanvasElement>("compare-b"), axis: byId("compare-b-axis"), onResize });
    this.delays = new DelayFigure(byId("delays"));
    // The compare panel's two herds are drawn only when they can be seen: off screen (while
    // the reader drags a slider above, say) they cost nothing, and are drawn on arrival.
    new IntersectionObserver(
      (entries) => {
        this.compareOnScreen = entries.some((e) => e.isIntersecting);
        if (this.compareOnScreen && this.minisDirty) this.drawMinis();
      },
      { rootMargin: "300px 0px" },
    ).observe(byId("compare"));
    new IntersectionObserver(
      (entries) => {
        this.delaysOnScreen = entries.some((e) => e.isIntersecting);
        if (this.delaysOnScreen && this.delaysWaiting && this.started) {
          this.delaysWaiting = false;
          this.runLater("delays", () => this.drawDelays(this.good));
        }
      },
      { rootMargin: "300px 0px" },
    ).observe(byId("distributions"));

    this.playback = new Playback(
      {
        render: (t, end) => this.renderPlayhead(t, end),
        playing: (on) => this.renderPlaying(on),
      },
      byId("herd-figure"),
      this.reducedMotion,
    );
    this.live = new LivePanel(
      () => ({
        policy: policyOptions(this.good.a),
        budget: this.good.a.budget ? budgetOptions(this.good) : null,
        description: this.describePolicy(this.good),
      }),
      this.t,
      lang,
      () => this.renderEmbed(),
    );
    this.wire();
    this.relabel();
    this.controls.show(this.good);
    byId<HTMLSelectElement>("herd-rows").value = this.good.rows;
    this.markPreset();
    this.noteLink(link);
    // Nothing can run before the wasm module is there.
    this.setEnabled(false);
  }

  /** The wasm module is ready: the first picture is drawn, then the controls work. */
  start(): void {
    this.started = true;
    this.request(true);
  }

  /** Enables or disables every control that would run the simulator. */
  private setEnabled(on: boolean): void {
    this.enabled = on;
    this.controls.setEnabled(on);
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-preset]")) b.disabled = !on;
    byId<HTMLButtonElement>("play").disabled = !on || this.reducedMotion;
    byId<HTMLSelectElement>("speed").disabled = !on;
    byId<HTMLInputElement>("scrub").disabled = !on;
    if (on) this.live.enable();
  }

  // --- A link's unusable values --------------------------------------------------------------

  /** Shows, next to each field, what the link had that could not be used (the default is shown). */
  private noteLink(link: LinkProblems): void {
    const general: string[] = [];
    for (const key of link.ignored) {
      const value = link.given[key] ?? "";
      const span = document.getElementById(`${key}-error`);
      if (span && !span.closest<HTMLElement>(".field")?.hidden) {
        this.controls.setNotice(key, (t) => t("link.field", { value }));
      } else {
        general.push(`${key}=${value}`);
      }
    }
    if (general.length > 0) {
      const list = general.join(", ");
      this.linkNotes.push((t) => t("link.general", { list }));
    }
    this.renderLinkNotes();
    this.showErrors();
  }

  private renderLinkNotes(): void {
    const el = byId("link-note");
    const text = this.linkNotes.map((n) => n(this.t, this.lang)).join(" ");
    if (el.textContent !== text) el.textContent = text;
    el.hidden = text === "";
  }

  /**
   * A value only the package could refuse (a cap below the base, a negative seed…) came
   * with the link: the field it names falls back to its default, with a note beside it, and
   * the run goes again — so a bad link still opens with a picture. Returns whether it did.
   */
  private repairFromLink(state: State, err: PackageError): boolean {
    if (!this.linkPhase || this.repairs >= MAX_REPAIRS) return false;
    this.repairs++;
    const f = err.control ? fieldById(err.control) : undefined;
    let fixed: State;
    if (f && f.get(state) !== f.get(DEFAULT_STATE)) {
      fixed = cloneState(state);
      f.set(fixed, f.get(DEFAULT_STATE));
      const value = String(f.get(state));
      this.controls.setNotice(f.id, (t, lang) => t("link.refused", { value, message: localizeError(err, lang) }));
    } else {
      // Nothing to single out: the whole picture falls back to the defaults.
      fixed = { ...cloneState(DEFAULT_STATE), rows: state.rows, speed: state.speed };
      this.linkNotes.push((t, lang) => t("link.reset", { message: localizeError(err, lang) }));
      this.renderLinkNotes();
    }
    this.errA = null;
    this.errB = null;
    this.controls.show(fixed);
    this.good = fixed;
    this.showErrors();
    this.request(true);
    return true;
  }

  /** The reader acted: notes about the link are done with. */
  private forgetLink(): void {
    this.linkPhase = false;
    if (this.linkNotes.length > 0) {
      this.linkNotes = [];
      this.renderLinkNotes();
    }
  }

  // --- Setup --------------------------------------------------------------------------------

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
      const blurb = document.createElement("span");
      blurb.className = "preset-blurb";
      blurb.dataset["i18n"] = p.blurb;
      b.append(title, blurb);
      b.addEventListener("click", () => this.applyPreset(p));
      host.append(b);
    }
  }

  private buildSpeeds(): void {
    const sel = byId<HTMLSelectElement>("speed");
    for (const s of SPEEDS) {
      const o = document.createElement("option");
      o.value = String(s);
      o.textContent = `${s}×`;
      sel.append(o);
    }
  }

  private wire(): void {
    // Enter in a field must not submit (and reload) a settings form.
    for (const f of document.querySelectorAll<HTMLFormElement>("form.controls")) {
      f.addEventListener("submit", (e) => e.preventDefault());
    }
    byId("play").addEventListener("click", () => {
      if (!this.playback.active && this.playback.time >= this.playback.duration) this.playback.seek(0);
      this.playback.toggle();
    });
    const speed = byId<HTMLSelectElement>("speed");
    speed.addEventListener("change", () => {
      this.good.speed = Number(speed.value);
      this.playback.setSpeed(this.good.speed);
      this.scheduleUrl();
    });
    const scrub = byId<HTMLInputElement>("scrub");
    scrub.addEventListener("input", () => this.playback.seek((Number(scrub.value) / 1000) * this.playback.duration));
    byId<HTMLInputElement>("load-log").addEventListener("change", () => {
      this.loadKey = "";
      this.compareKey = "";
      this.redrawKept();
    });
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-lang]")) {
      b.addEventListener("click", () => this.setLang(b.dataset["lang"] === "ru" ? "ru" : "en"));
    }
    byId("share").addEventListener("click", () => void this.share());
    byId("embed-copy").addEventListener("click", () => void this.copyEmbed());
    const rows = byId<HTMLSelectElement>("herd-rows");
    rows.addEventListener("change", () => {
      if (!isRowMode(rows.value)) return;
      this.good.rows = rows.value;
      this.redrawHerd();
      this.scheduleUrl();
    });

    // Resizes and theme changes redraw what is kept; nothing is simulated again.
    new ResizeObserver(() => this.scheduleRedraw()).observe(byId("figures"));
    matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
      this.palette = readPalette();
      this.loadKey = "";
      this.compareKey = "";
      this.delays.clear();
      this.keyDelays = "";
      this.redrawKept();
      this.dirtyCompare = true;
      this.schedule();
    });
    if (this.reducedMotion) {
      const play = byId<HTMLButtonElement>("play");
      play.disabled = true;
      byId("reduced-note").hidden = false;
    }
  }

  // --- Updating -----------------------------------------------------------------------------

  /** The form changed (or a preset, or the start): one update in the next frame. */
  request(restart: boolean): void {
    this.dirtyMain = true;
    this.restartNext ||= restart;
    this.schedule();
  }

  private schedule(): void {
    if (this.frame === 0) this.frame = requestAnimationFrame(() => this.onFrame());
  }

  private onFrame(): void {
    this.frame = 0;
    // Before the wasm module is ready nothing runs; App.start requests the first picture.
    if (!this.started) return;
    if (this.dirtyMain) {
      this.dirtyMain = false;
      const restart = this.restartNext;
      this.restartNext = false;
      this.updateMain(restart);
      // The secondary figures wait for frames of their own.
      if (this.dirtyCompare || this.dirtyDelays) this.schedule();
      return;
    }
    // Policy B waits while policy A's worker run is still catching up with a drag: they share
    // the worker, and B's picture is not the one the reader is steering.
    if (this.dirtyCompare && this.runner.busy("a")) return;
    if (this.dirtyCompare) {
      this.dirtyCompare = false;
      this.updateCompare();
      // The histograms and the snippet wait for the frame after.
      this.dirtyDelays = true;
      this.schedule();
      return;
    }
    if (this.dirtyDelays) {
      this.dirtyDelays = false;
      const started = performance.now();
      this.renderEmbed();
      if (this.delaysOnScreen) this.drawDelays(this.good);
      else this.delaysWaiting = true;
      measure("stampede:delays", started);
    }
  }

  private updateMain(restart: boolean): void {
    const { state, ok } = this.controls.read(this.good);
    if (!ok) {
      this.showErrors();
      // Let the reader fix what the form refused, even before any picture.
      if (!this.enabled) this.setEnabled(true);
      return;
    }
    const started = performance.now();
    this.runner.run("a", simOptions(state, "a"), (o) => this.onResultA(state, o, restart, started));
    // Inline runs have already drawn; a worker run shows that it is on its way.
    this.setBusy(this.runner.busy("a"));
  }

  private onResultA(state: State, o: Outcome, restart: boolean, started: number): void {
    this.setBusy(this.runner.busy("a"));
    if (!o.ok) {
      const err = locateError(o.error, "a");
      if (!this.pictured && this.repairFromLink(state, err)) return;
      this.errA = err;
      this.showErrors();
      if (!this.enabled) this.setEnabled(true);
      // A compare run held back while A was busy can go now.
      if (this.dirtyCompare) this.schedule();
      return;
    }
    this.errA = null;
    // The row layout is a view setting changed outside the form: the latest choice stands.
    state.rows = this.good.rows;
    this.good = state;
    this.drawMain(o.result, restart);
    this.keepA.keep(o.result);
    this.showErrors();
    this.runs++;
    document.documentElement.dataset["runs"] = String(this.runs);
    this.pictured = true;
    if (!this.enabled) this.setEnabled(true);
    this.markInteractive();
    const name = o.viaWorker ? "stampede:update-async" : "stampede:update";
    measure(name, started);
    this.scheduleUrl();
    this.live.refreshPolicy();
    this.dirtyCompare = true;
    this.schedule();
  }

  /** Once: the first picture is up and every control works. */
  private markInteractive(): void {
    if (document.documentElement.dataset["ready"] === "1") return;
    performance.mark("stampede:interactive");
    document.documentElement.dataset["ready"] = "1";
  }

  private setBusy(busy: boolean): void {
    document.documentElement.dataset["sim"] = busy ? "busy" : "idle";
    const status = byId("status");
    const text = busy ? this.t("status.simulating") : "";
    if (status.textContent !== text) status.textContent = text;
  }

  private showErrors(): void {
    const unplaced = this.controls.renderErrors([this.errA, this.errB].filter((e): e is PackageError => e !== null));
    const general = byId("sim-error");
    const messages = unplaced.map((e) => localizeError(e, this.lang));
    if (this.controls.hasProblems() || this.errA) messages.push(this.t("err.kept"));
    general.textContent = messages.join(" ");
    general.hidden = messages.length === 0;
  }

  // --- The main picture ---------------------------------------------------------------------

  private drawMain(r: SimResult, restart: boolean): void {
    const s = this.good;
    const outage = outageWindow(s);
    this.tEndMs = timeDomain(s, r);
    // The load chart first: it sets the plot area that the herd lines up with.
    const t0 = performance.now();
    this.drawLoad(r, outage);
    const t1 = performance.now();
    measure("stampede:draw-load", t0);
    const stats = this.herd.draw(r, this.tEndMs, outage, this.palette.herd, this.lang, s.rows);
    measure("stampede:draw-herd", t1);
    this.renderRowsLabel(r, stats.map);
    showMetrics(r.metrics, s.capacityRps, s.scenario, this.t, this.lang);
    byId<HTMLSelectElement>("speed").value = String(s.speed);
    this.playback.setSpeed(s.speed);
    this.playback.load(this.tEndMs, restart);
  }

  /** The herd alone, from the kept run (a scroll, or the row layout changed). */
  private scheduleHerd(): void {
    if (this.scrollFrame !== 0) return;
    this.scrollFrame = requestAnimationFrame(() => {
      this.scrollFrame = 0;
      this.redrawHerd();
    });
  }

  private redrawHerd(): void {
    const a = this.keepA.result;
    if (!a) return;
    const started = performance.now();
    const stats = this.herd.draw(a, this.tEndMs, outageWindow(this.good), this.palette.herd, this.lang, this.good.rows);
    this.renderRowsLabel(a, stats.map);
    measure("stampede:draw-herd-view", started);
  }

  private renderRowsLabel(r: SimResult, map: RowMap): void {
    const rows = formatNumber(r.logRows, this.lang);
    let text: string;
    if (map.virtualHeight > map.height) {
      text = this.t("herd.rowsScroll", {
        from: formatNumber(map.first + 1, this.lang),
        to: formatNumber(map.first + map.cells, this.lang),
        rows,
      });
    } else if (map.folded) {
      text = this.t("herd.rowsMany", { rows, per: formatNumber(map.perCell, this.lang, 1) });
    } else {
      text = this.t("herd.rowsOne", { rows });
    }
    if (r.logStride > 1) {
      text += ` (${this.t("herd.sampled", { stride: r.logStride, clients: formatNumber(this.good.clients, this.lang) })})`;
    }
    byId("timeline-rows").textContent = text;
    const legendConflict = document.querySelector<HTMLElement>("[data-legend=rejected] [data-i18n]");
    if (legendConflict) legendConflict.textContent = this.t(this.good.scenario === "aws-occ" ? "legend.conflict" : "legend.rejected");
  }

  private logScale(): boolean {
    return byId<HTMLInputElement>("load-log").checked;
  }

  private ensureLoadChart(occ: boolean): RateChart {
    const key = `${occ}|${this.logScale()}|${this.lang}|${this.palette.offered}`;
    if (this.loadChart && key === this.loadKey) return this.loadChart;
    this.loadChart?.destroy();
    const p = this.palette;
    this.loadKey = key;
    this.loadChart = new RateChart(byId("load-chart"), {
      height: 220,
      // Room on the right for the herd's scrollbar, which sits beside the plot area above.
      minPadRight: this.herd.gutter,
      canvasId: "load",
      ariaLabel: this.t("load.aria"),
      timeLabel: this.t("load.time"),
      log: this.logScale(),
      lang: this.lang,
      grid: p.grid,
      text: p.text,
      outageFill: p.outageFill,
      series: occ
        ? [
            { label: this.t("load.writes"), stroke: p.offered, width: 1.5 },
            // Dashed as well as orange: it must not read as the vermillion line without hue.
            { label: this.t("load.conflicts"), stroke: p.rejected, width: 1.5, dash: [4, 3] },
          ]
        : [
            { label: this.t("load.offered"), stroke: p.offered, width: 1.5 },
            { label: this.t("load.served"), stroke: p.served, fill: p.servedFill, width: 1 },
            { label: this.t("load.capacity"), stroke: p.capacity, dash: [6, 4], width: 1.5 },
          ],
    });
    return this.loadChart;
  }

  /** Rebins a run's offered and served (aws-occ: conflicting) series into `buf`, as rates. */
  private rebin(r: SimResult, buf: Buffers, occ: boolean, binMs: number, bins: number, capacity: number): Buffers {
    buf.x = ensureCapacity(buf.x, bins);
    buf.y1 = ensureCapacity(buf.y1, bins);
    buf.y2 = ensureCapacity(buf.y2, bins);
    buf.y3 = ensureCapacity(buf.y3, bins);
    for (let b = 0; b < bins; b++) buf.x[b] = (b * binMs) / 1000;
    rebinRate(r.offered, r.slotMs, binMs, buf.y1, bins);
    rebinRate(occ ? r.rejected : r.served, r.slotMs, binMs, buf.y2, bins);
    buf.y3.fill(capacity, 0, bins);
    return buf;
  }

  private drawLoad(r: SimResult, outage: [number, number] | null): void {
    const occ = this.good.scenario === "aws-occ";
    const chart = this.ensureLoadChart(occ);
    this.binMs = displayBinMs(r.slotMs, Math.ceil(this.tEndMs / r.slotMs));
    const bins = Math.ceil(this.tEndMs / this.binMs);
    const b = this.rebin(r, this.bufA, occ, this.binMs, bins, this.good.capacityRps);
    // The running total of attempts, for the playhead's counter.
    b.cum = ensureCapacity(b.cum, bins);
    let acc = 0;
    for (let i = 0; i < bins; i++) {
      acc += ((b.y1[i] ?? 0) * this.binMs) / 1000;
      b.cum[i] = acc;
    }
    this.cumBins = bins;
    const ys = occ ? [b.y1.subarray(0, bins), b.y2.subarray(0, bins)] : [b.y1.subarray(0, bins), b.y2.subarray(0, bins), b.y3.subarray(0, bins)];
    chart.setData(b.x.subarray(0, bins), ys, outage, this.tEndMs);
    chart.setPlayhead(this.playback.time);
    // The herd above shares the chart's time axis: line their plot areas up.
    const inset = chart.plotInset();
    const fig = byId("herd-figure");
    const left = `${inset.left}px`;
    const right = `${Math.max(0, inset.right - this.herd.gutter)}px`;
    if (fig.style.paddingLeft !== left) fig.style.paddingLeft = left;
    if (fig.style.paddingRight !== right) fig.style.paddingRight = right;
  }

  private renderPlayhead(tMs: number, endMs: number): void {
    this.herd.setPlayhead(tMs);
    this.loadChart?.setPlayhead(tMs >= endMs ? Infinity : tMs);
    byId("clock").textContent = formatClock(Math.min(tMs, endMs), this.lang);
    const scrub = byId<HTMLInputElement>("scrub");
    const pos = String(Math.round((1000 * tMs) / endMs));
    if (scrub.value !== pos) scrub.value = pos;
    const bin = Math.min(this.cumBins - 1, Math.floor(tMs / this.binMs));
    const soFar = bin >= 0 ? (this.bufA.cum[bin] ?? 0) : 0;
    byId("so-far").textContent = this.t("play.soFar", { n: formatNumber(Math.round(soFar), this.lang) });
    const atEnd = tMs >= endMs;
    if (atEnd !== this.atEnd) {
      this.atEnd = atEnd;
      if (!this.playback.active) this.renderPlaying(false);
    }
  }

  private renderPlaying(on: boolean): void {
    const play = byId<HTMLButtonElement>("play");
    const atEnd = this.playback.time >= this.playback.duration;
    play.textContent = this.t(on ? "play.pause" : atEnd && !this.reducedMotion ? "play.replay" : "play.play");
    play.setAttribute("aria-pressed", String(on));
  }

  private redrawFrame = 0;
  private atEnd = true;

  /** A redraw from the kept results in the next frame (once, however many resizes). */
  private scheduleRedraw(): void {
    if (this.redrawFrame !== 0) return;
    this.redrawFrame = requestAnimationFrame(() => {
      this.redrawFrame = 0;
      this.loadChart?.resize();
      this.compareChart?.resize();
      this.redrawKept();
    });
  }

  /** Redraws from the kept results (resize, theme, language, log scale). */
  private redrawKept(): void {
    const a = this.keepA.result;
    if (a) {
      const t = this.playback.time;
      const playing = this.playback.active;
      this.drawMain(a, false);
      if (playing) this.playback.play();
      else if (t < this.tEndMs) this.playback.seek(t);
    }
    if (this.resultB && this.stateB) this.drawCompare(this.stateB, a, this.resultB);
    this.delays.resize();
  }

  // --- Secondary figures -------------------------------------------------------------------------

  private updateCompare(): void {
    const started = performance.now();
    const s = this.good;
    const opts = simOptions(s, "b");
    const key = JSON.stringify(opts);
    // Policy B's run depends only on its own options: tuning policy A reuses it.
    if (key === this.keyB && this.resultB && !this.runner.busy("b")) {
      this.stateB = s;
      this.drawCompare(s, this.keepA.result, this.resultB);
      measure("stampede:compare", started);
      return;
    }
    this.runner.run("b", opts, (o) => {
      if (s !== this.good) {
        // A moved on; a newer B will follow.
        if (o.ok) this.runner.recycle(o.result);
        return;
      }
      if (!o.ok) {
        const err = locateError(o.error, "b");
        // Policy B's fields from a bad link fall back like policy A's.
        if (this.repairFromLink(s, err)) return;
        this.errB = err;
        this.showErrors();
        return;
      }
      this.errB = null;
      this.showErrors();
      this.resultB = this.keepB.keep(o.result);
      this.keyB = key;
      this.stateB = s;
      this.drawCompare(s, this.keepA.result, this.resultB);
      measure("stampede:compare", started);
    });
  }

  /**
   * Runs `draw` in a frame of its own: one waiting draw per frame, in order, the latest for
   * each key. A figure that comes into view with others (a scroll can bring the compare
   * herds and the histograms at once), or that is slow the first time, then never makes a
   * long task together with another.
   */
  private runLater(key: string, draw: () => void): void {
    this.later.delete(key);
    this.later.set(key, draw);
    if (this.laterFrame === 0) this.laterFrame = requestAnimationFrame(() => this.drainLater());
  }

  private drainLater(): void {
    this.laterFrame = 0;
    const next = this.later.entries().next();
    if (next.done) return;
    const [key, draw] = next.value;
    this.later.delete(key);
    draw();
    if (this.later.size > 0) this.laterFrame = requestAnimationFrame(() => this.drainLater());
  }

  /** The compare panel's herds from the kept runs, each in a frame of its own; off screen they wait. */
  private drawMinis(): void {
    if (!this.compareOnScreen) {
      this.minisDirty = true;
      return;
    }
    this.minisDirty = false;
    this.runLater("mini-a", () => this.drawMini("a"));
    this.runLater("mini-b", () => this.drawMini("b"));
  }

  private drawMini(side: "a" | "b"): void {
    const a = this.keepA.result;
    const b = this.resultB;
    const s = this.stateB;
    if (!a || !b || !s) return;
    const started = performance.now();
    const tEnd = Math.max(timeDomain(s, a), timeDomain(s, b));
    (side === "a" ? this.miniA : this.miniB).draw(side === "a" ? a : b, tEnd, outageWindow(s), this.palette.herd, this.lang);
    measure(`stampede:compare-herd-${side}`, started);
  }

  private drawCompare(s: State, a: SimResult | null, b: SimResult): void {
    if (!a) return;
    const outage = outageWindow(s);
    const tEnd = Math.max(timeDomain(s, a), timeDomain(s, b));
    this.drawMinis();
    this.table.show(a.metrics, b.metrics, s.capacityRps, s.scenario, this.lang);
    byId("compare-a-title").textContent = this.t(`strategy.${s.a.strategy}` as Key) + (s.a.budget ? ` + ${this.t("group.budget").toLowerCase()}` : "");
    byId("compare-b-title").textContent = this.t(`strategy.${s.b.strategy}` as Key) + (s.b.budget ? ` + ${this.t("group.budget").toLowerCase()}` : "");

    const occ = s.scenario === "aws-occ";
    const key = `${occ}|${this.logScale()}|${this.lang}|${this.palette.policyA}`;
    if (!this.compareChart || key !== this.compareKey) {
      this.compareChart?.destroy();
      this.compareKey = key;
      const p = this.palette;
      this.compareChart = new RateChart(byId("compare-chart"), {
        height: 180,
        ariaLabel: this.t("compare.loadAria"),
        timeLabel: this.t("load.time"),
        log: this.logScale(),
        lang: this.lang,
        grid: p.grid,
        text: p.text,
        outageFill: p.outageFill,
        series: [
          { label: this.t("compare.offeredA"), stroke: p.policyA, width: 1.5 },
          { label: this.t("compare.offeredB"), stroke: p.policyB, width: 1.5, dash: [5, 3] },
          ...(occ ? [] : [{ label: this.t("load.capacity"), stroke: p.capacity, dash: [2, 3], width: 1 }]),
        ],
      });
    }
    const binMs = displayBinMs(a.slotMs, Math.ceil(tEnd / a.slotMs));
    const bins = Math.ceil(tEnd / binMs);
    const ba = this.rebin(a, this.bufB, occ, binMs, bins, s.capacityRps);
    // B's offered into y2 (A's second series is not needed here).
    rebinRate(b.offered, b.slotMs, binMs, ba.y2, bins);
    const ys = [ba.y1.subarray(0, bins), ba.y2.subarray(0, bins)];
    if (!occ) ys.push(ba.y3.subarray(0, bins));
    this.compareChart.setData(ba.x.subarray(0, bins), ys, outage, tEnd);
  }

  private drawDelays(s: State): void {
    const retries = s.a.maxAttempts - 1;
    const note = byId("delays-note");
    if (retries < 1) {
      this.keyDelays = "";
      this.delays.clear();
      note.textContent = this.t("delays.none");
      return;
    }
    note.textContent = retries > MAX_PANELS ? this.t("delays.more", { shown: MAX_PANELS, n: retries }) : "";
    // The histograms depend on policy A and the seed only.
    const key = `${JSON.stringify(policyOptions(s.a, s.seed))}|${this.lang}|${this.palette.histogram}`;
    if (key === this.keyDelays) return;
    this.keyDelays = key;
    let samples: Float64Array;
    try {
      samples = sampleDelays(policyOptions(s.a, s.seed), DELAY_SAMPLES);
    } catch (e) {
      note.textContent = localizeError(errorData(e), this.lang);
      this.keyDelays = "";
      return;
    }
    const h = delayHistograms(samples, retries);
    this.delays.draw(h, {
      fill: this.palette.histogram,
      stroke: this.palette.histogram,
      grid: this.palette.grid,
      text: this.palette.text,
      lang: this.lang,
      title: (n) => this.t("delays.retry", { n }),
      median: (v) => this.t("delays.median", { v }),
    });
  }

  /** The snippet repeats the live panel's call exactly (same URL, headers, options, call site). */
  private renderEmbed(): void {
    const s = this.good;
    const call = this.live.call();
    byId("embed-code").textContent = embedSnippet({
      policy: s.a,
      budget: s.a.budget ? budgetOptions(s) : null,
      url: call.url,
      method: call.method,
      headers: call.headers,
      idempotent: call.idempotent,
      attemptTimeoutMs: call.attemptTimeoutMs,
      callSite: call.callSite,
      comments: {
        init: this.t("embed.comment.init"),
        seed: this.t("embed.comment.seed"),
        budget: this.t("embed.comment.budget"),
      },
    });
  }

  // --- Presets, language, sharing ------------------------------------------------------------

  private applyPreset(p: Preset): void {
    this.presetId = p.id;
    this.errA = null;
    this.errB = null;
    this.forgetLink();
    this.controls.clearNotices();
    const s = cloneState(p.state);
    // The row layout is the reader's choice, not the story's.
    s.rows = this.good.rows;
    this.controls.show(s);
    this.good = s;
    this.markPreset();
    this.request(true);
    document.getElementById("herd")?.scrollIntoView({ block: "nearest", behavior: this.reducedMotion ? "auto" : "smooth" });
  }

  private markPreset(): void {
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-preset]")) {
      b.setAttribute("aria-pressed", String(b.dataset["preset"] === this.presetId));
    }
  }

  private setLang(lang: Lang): void {
    if (lang === this.lang) return;
    this.lang = lang;
    this.t = translator(lang);
    this.relabel();
    this.loadKey = "";
    this.compareKey = "";
    this.delays.clear();
    this.keyDelays = "";
    this.redrawKept();
    this.showErrors();
    this.dirtyCompare = true;
    this.schedule();
    this.scheduleUrl();
  }

  private relabel(): void {
    applyTranslations(document, this.lang, { n: formatNumber(DELAY_SAMPLES, this.lang) });
    for (const b of document.querySelectorAll<HTMLButtonElement>("[data-lang]")) {
      b.setAttribute("aria-pressed", String(b.dataset["lang"] === this.lang));
    }
    this.controls.relabel(this.t, this.lang, this.good);
    this.live.relabel(this.t, this.lang);
    this.renderLinkNotes();
    this.renderPlaying(this.playback.active);
  }

  private describePolicy(s: State): string {
    const a = s.a;
    const parts = [
      this.t(`strategy.${a.strategy}` as Key),
      `${formatDuration(a.baseMs, this.lang)} … ${formatDuration(a.capMs, this.lang)}`,
      `×${formatNumber(a.multiplier, this.lang, 2)}`,
      `${this.t("field.attempts")}: ${a.maxAttempts}`,
    ];
    if (a.budget) {
      parts.push(`${this.t("group.budget")}: ${formatNumber(s.budgetCapacity, this.lang)} + ${formatNumber(s.budgetRefill, this.lang, 2)}${this.t("unit.perSec")}`);
    }
    return parts.join(", ");
  }

  private scheduleUrl(): void {
    if (this.urlTimer !== 0) return;
    this.urlTimer = window.setTimeout(() => {
      this.urlTimer = 0;
      const q = encodeState(this.good, this.lang);
      if (location.search.slice(1) !== q) history.replaceState(null, "", `?${q}${location.hash}`);
    }, URL_EVERY_MS);
  }

  private async share(): Promise<void> {
    const q = encodeState(this.good, this.lang);
    history.replaceState(null, "", `?${q}`);
    const status = byId("share-status");
    try {
      await navigator.clipboard.writeText(location.href);
      status.textContent = this.t("share.copied");
    } catch {
      status.textContent = this.t("share.failed");
    }
  }

  private async copyEmbed(): Promise<void> {
    const status = byId("embed-status");
    try {
      await navigator.clipboard.writeText(byId("embed-code").textContent ?? "");
      status.textContent = this.t("embed.copied");
    } catch {
      // Select the code so that the reader can copy it by hand.
      const range = document.createRange();
      range.selectNodeContents(byId("embed-code"));
      const sel = getSelection();
      sel?.removeAllRanges();
      sel?.addRange(range);
      status.textContent = this.t("share.failed");
    }
  }
}
