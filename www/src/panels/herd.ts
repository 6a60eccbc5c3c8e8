// The main picture: the herd (one row per client), the load chart under it on the same time
// axis, the metric strip, and the playback controls (play, speed, scrub, the row layout).
// It draws policy A's run when the app hands it one and redraws from the kept run on a
// scroll, a resize or a change of language, colours or scale; it never simulates.

import { GoodputFigure } from "../figures/goodput.js";
import { HerdFigure } from "../figures/herd.js";
import { Playback } from "../figures/playback.js";
import type { RowMap } from "../figures/raster.js";
import { RateChart } from "../figures/rates.js";
import { formatClock, formatDuration, formatNumber } from "../logic/format.js";
import { attemptsBy, newRateBuffers, rebinRun, runningTotal, timeDomain } from "../logic/rates.js";
import { displayBinMs, smoothBinMs } from "../logic/series.js";
import { SPEEDS, hasServer, isOngoing, isRowMode, type RowMode, type Scenario, type Strategy } from "../logic/state.js";
import { fleetCapacity, outageWindow, spikeWindow } from "../logic/run.js";
import { whyKeys } from "../logic/why.js";
import { measure } from "../timing.js";
import { setText } from "../ui/dom.js";
import { renderRich } from "../ui/rich.js";
import { announce, showMetrics } from "../ui/metrics.js";
import type { SimResult } from "../wasm/bridge.js";
import { byId, oncePerFrame, type PanelContext } from "./panel.js";

/** What the reader changed here that belongs to the state (and so to the link). */
export interface HerdEvents {
  speed(speed: number): void;
  rows(rows: RowMode): void;
}

export class HerdPanel {
  private readonly herd: HerdFigure;
  private readonly playback: Playback;
  private readonly play = byId<HTMLButtonElement>("play");
  private readonly speed = byId<HTMLSelectElement>("speed");
  private readonly scrub = byId<HTMLInputElement>("scrub");
  private readonly rows = byId<HTMLSelectElement>("herd-rows");
  private readonly figure = byId("herd-figure");
  private loadChart: RateChart | null = null;
  private readonly goodput: GoodputFigure;
  private readonly goodputUnit = byId("goodput-unit");
  /** What the load chart was built for (series, scale, language, colours). */
  private loadKey = "";
  private readonly buf = newRateBuffers();
  private binMs = 100;
  private cumBins = 0;
  private tEndMs = 1;
  private atEnd = true;

  constructor(
    private readonly ctx: PanelContext,
    private readonly events: HerdEvents,
    private readonly reducedMotion: boolean,
  ) {
    for (const s of SPEEDS) {
      const o = document.createElement("option");
      o.value = String(s);
      this.speed.append(o);
    }
    this.labelSpeeds();
    const redrawHerd = oncePerFrame(() => this.redrawHerd());
    this.herd = new HerdFigure({
      canvas: byId<HTMLCanvasElement>("timeline"),
      curtain: byId("timeline-curtain"),
      playhead: byId("timeline-playhead"),
      axis: byId("timeline-axis"),
      scroller: byId("timeline-scroll"),
      spacer: byId("timeline-spacer"),
      onScroll: redrawHerd,
      onResize: () => ctx.resized(),
    });
    this.goodput = new GoodputFigure({ goodput: byId("goodput-chart"), queue: byId("queue-chart"), minPadRight: this.herd.gutter });
    this.playback = new Playback(
      {
        render: (t, end) => this.renderPlayhead(t, end),
        playing: (on) => this.renderPlaying(on),
      },
      { request: (tick) => requestAnimationFrame(tick), cancel: (id) => cancelAnimationFrame(id) },
      reducedMotion,
    );
    if ("IntersectionObserver" in window) {
      new IntersectionObserver((entries) => this.playback.visible(entries.some((e) => e.isIntersecting))).observe(this.figure);
    }

    this.play.addEventListener("click", () => {
      if (!this.playback.active && this.playback.time >= this.playback.duration) this.playback.seek(0);
      this.playback.toggle();
    });
    this.speed.addEventListener("change", () => {
      const speed = Number(this.speed.value);
      this.events.speed(speed);
      this.playback.setSpeed(speed);
    });
    this.scrub.addEventListener("input", () => this.playback.seek((Number(this.scrub.value) / 1000) * this.playback.duration));
    this.rows.addEventListener("change", () => {
      const rows = this.rows.value;
      if (!isRowMode(rows)) return;
      this.events.rows(rows);
      this.redrawHerd();
    });
    // Reduced motion: the picture stands still at its end and nothing plays by itself; Play
    // still plays it for whoever asks (it was disabled: a teacher whose system asks for
    // reduced motion could not show the herd move).
    if (reducedMotion) byId("reduced-note").hidden = false;
  }

  setEnabled(on: boolean): void {
    this.play.disabled = !on;
    this.speed.disabled = !on;
    this.scrub.disabled = !on;
  }

  /** A newer run of policy A is (or no longer is) on its way: the animation of the
   *  picture it replaces slows down meanwhile (see figures/playback.ts). */
  computing(on: boolean): void {
    this.playback.throttle(on);
  }

  /** Shows the row layout (set outside a run: from the link, or the reader's last choice). */
  showRows(rows: RowMode): void {
    this.rows.value = rows;
  }

  /** Draws a new run of policy A; `restart` plays it from the start. */
  draw(r: SimResult, restart: boolean): void {
    const s = this.ctx.state();
    const { t, palette, lang } = this.ctx.view();
    const outage = outageWindow(s);
    this.tEndMs = timeDomain(s, r);
    // The load chart first: it sets the plot area that the herd lines up with.
    const t0 = performance.now();
    this.drawLoad(r, outage);
    const t1 = performance.now();
    measure("stampede:draw-load", t0);
    const stats = this.herd.draw(r, this.tEndMs, outage, palette.herd, lang, s.rows);
    measure("stampede:draw-herd", t1);
    this.renderRowsLabel(r, stats.map);
    if (hasServer(s.scenario)) {
      const t2 = performance.now();
      const binMs = smoothBinMs(this.binMs, this.tEndMs);
      // Its bins are coarser than the load chart's (smoothed to ~120 points): said, so that
      // its peaks are not read against the load chart's.
      const bin = formatDuration(binMs, lang);
      setText(this.goodputUnit, binMs === this.binMs ? t("goodput.unitSame", { bin }) : t("goodput.unit", { bin, loadBin: formatDuration(this.binMs, lang) }));
      // The trigger shaded: the outage, or else the spike.
      this.goodput.draw(r, this.ctx.view(), binMs, Math.ceil(this.tEndMs / binMs), this.tEndMs, outage ?? spikeWindow(s));
      this.goodput.setPlayhead(this.playback.time);
      measure("stampede:draw-goodput", t2);
    }
    const capacity = fleetCapacity(r.fleet);
    // Ongoing traffic: how long it went on after the outage (a recovery that lasts as long
    // came only when the traffic stopped).
    const trafficLeftMs = outage !== null && isOngoing(s.scenario) ? s.durationMs - outage[1] : undefined;
    showMetrics(r.metrics, capacity, s.scenario, outage !== null, t, lang, trafficLeftMs);
    announce(r.metrics, t, lang);
    this.explain(s.scenario, s.a.strategy, !Number.isFinite(capacity), s.timeoutMs > 0);
    this.speed.value = String(s.speed);
    this.playback.setSpeed(s.speed);
    this.playback.load(this.tEndMs, restart);
  }

  /** The texts under the figures follow the run on show (logic/why.ts); a language change
   *  renders the same keys again (ui/i18n-dom.ts). */
  private explain(scenario: Scenario, strategy: Strategy, unlimited: boolean, timeout: boolean): void {
    const { t } = this.ctx.view();
    for (const [figure, key] of Object.entries(whyKeys(scenario, strategy, unlimited, timeout))) {
      const el = document.querySelector<HTMLElement>(`[data-why="${figure}"]`);
      if (!el || el.dataset["i18nRich"] === key) continue;
      el.dataset["i18nRich"] = key;
      renderRich(el, t(key));
    }
  }

  /** Redraws the kept run (resize, theme, language, scale), keeping the playhead where it was. */
  redraw(): void {
    const a = this.ctx.resultA();
    if (!a) return;
    const t = this.playback.time;
    const playing = this.playback.active;
    this.draw(a, false);
    if (playing) this.playback.play();
    else if (t < this.tEndMs) this.playback.seek(t);
  }

  /** The load chart is rebuilt at its next draw (its scale, language or colours changed). */
  invalidate(): void {
    this.loadKey = "";
    this.goodput.invalidate();
  }

  /** The figures' size may have changed: the chart measures itself again. */
  resize(): void {
    this.loadChart?.resize();
    this.goodput.resize();
  }

  relabel(): void {
    this.renderPlaying(this.playback.active);
    this.labelSpeeds();
  }

  /** The speeds in the page's language: "0,25×" in Russian, as its other decimals. */
  private labelSpeeds(): void {
    const { lang } = this.ctx.view();
    for (const o of this.speed.options) o.textContent = `${formatNumber(Number(o.value), lang, 2)}×`;
  }

  /** The herd alone, from the kept run (a scroll, or the row layout changed). */
  private redrawHerd(): void {
    const a = this.ctx.resultA();
    if (!a) return;
    const s = this.ctx.state();
    const { palette, lang } = this.ctx.view();
    const started = performance.now();
    const stats = this.herd.draw(a, this.tEndMs, outageWindow(s), palette.herd, lang, s.rows);
    this.renderRowsLabel(a, stats.map);
    measure("stampede:draw-herd-view", started);
  }

  private renderRowsLabel(r: SimResult, map: RowMap): void {
    const s = this.ctx.state();
    const { t, lang } = this.ctx.view();
    const rows = formatNumber(r.logRows, lang);
    let text: string;
    if (map.virtualHeight > map.height) {
      text = t("herd.rowsScroll", {
        from: formatNumber(map.first + 1, lang),
        to: formatNumber(map.first + map.cells, lang),
        rows,
      });
    } else if (map.folded) {
      text = t("herd.rowsMany", { rows, per: formatNumber(map.perCell, lang, 1) });
    } else {
      text = t("herd.rowsOne", { rows });
    }
    if (r.logStride > 1) {
      text += ` (${t("herd.sampled", { stride: r.logStride, clients: formatNumber(s.clients, lang) })})`;
    }
    byId("timeline-rows").textContent = text;
    const legendConflict = document.querySelector<HTMLElement>("[data-legend=rejected] [data-i18n]");
    if (legendConflict) legendConflict.textContent = t(s.scenario === "aws-occ" ? "legend.conflict" : "legend.rejected");
    const dockConflict = document.querySelector<HTMLElement>("[data-dock-legend=rejected] [data-i18n]");
    if (dockConflict) dockConflict.textContent = t(s.scenario === "aws-occ" ? "legend.short.conflict" : "legend.short.rejected");
  }

  private ensureLoadChart(occ: boolean, capped: boolean): RateChart {
    const { t, lang, palette: p, logScale } = this.ctx.view();
    const key = `${occ}|${capped}|${logScale}|${lang}|${p.offered}`;
    if (this.loadChart && key === this.loadKey) return this.loadChart;
    this.loadChart?.destroy();
    this.loadKey = key;
    this.loadChart = new RateChart(byId("load-chart"), {
      height: 220,
      // Room on the right for the herd's scrollbar, which sits beside the plot area above.
      minPadRight: this.herd.gutter,
      canvasId: "load",
      ariaLabel: t("load.aria"),
      timeLabel: t("load.time"),
      log: logScale,
      lang,
      grid: p.grid,
      text: p.text,
      outageFill: p.outageFill,
      series: occ
        ? [
            { label: t("load.writes"), stroke: p.offered, width: 1.5 },
            // Dashed as well as orange: it must not read as the vermillion line without hue.
            { label: t("load.conflicts"), stroke: p.rejected, width: 1.5, dash: [4, 3] },
          ]
        : [
            { label: t("load.offered"), stroke: p.offered, width: 1.5 },
            { label: t("load.served"), stroke: p.served, fill: p.servedFill, width: 1 },
            // Unlimited workers have no capacity line.
            ...(capped ? [{ label: t("load.capacity"), stroke: p.capacity, dash: [6, 4], width: 1.5 }] : []),
          ],
    });
    return this.loadChart;
  }

  private drawLoad(r: SimResult, outage: [number, number] | null): void {
    const s = this.ctx.state();
    const occ = s.scenario === "aws-occ";
    const capacity = fleetCapacity(r.fleet);
    const capped = !occ && Number.isFinite(capacity);
    const chart = this.ensureLoadChart(occ, capped);
    this.binMs = displayBinMs(r.slotMs, Math.ceil(this.tEndMs / r.slotMs));
    const bins = Math.ceil(this.tEndMs / this.binMs);
    const b = rebinRun(r, this.buf, occ, this.binMs, bins, capped ? capacity : 0);
    // The running total of attempts, for the playhead's counter.
    runningTotal(b, this.binMs, bins);
    this.cumBins = bins;
    const ys = [b.y1.subarray(0, bins), b.y2.subarray(0, bins)];
    if (capped) ys.push(b.y3.subarray(0, bins));
    chart.setData(b.x.subarray(0, bins), ys, outage, this.tEndMs);
    chart.setPlayhead(this.playback.time);
    // The herd above shares the chart's time axis: line their plot areas up.
    const inset = chart.plotInset();
    const left = `${inset.left}px`;
    const right = `${Math.max(0, inset.right - this.herd.gutter)}px`;
    if (this.figure.style.paddingLeft !== left) this.figure.style.paddingLeft = left;
    if (this.figure.style.paddingRight !== right) this.figure.style.paddingRight = right;
  }

  private renderPlayhead(tMs: number, endMs: number): void {
    const { t, lang } = this.ctx.view();
    this.herd.setPlayhead(tMs);
    this.loadChart?.setPlayhead(tMs >= endMs ? Infinity : tMs);
    this.goodput.setPlayhead(tMs >= endMs ? Infinity : tMs);
    const clock = formatClock(Math.min(tMs, endMs), lang);
    byId("clock").textContent = clock;
    const pos = String(Math.round((1000 * tMs) / endMs));
    if (this.scrub.value !== pos) this.scrub.value = pos;
    // The playhead's value is its track position (0..1000): a screen reader hears the time.
    if (this.scrub.getAttribute("aria-valuetext") !== clock) this.scrub.setAttribute("aria-valuetext", clock);
    const soFar = attemptsBy(this.buf, this.binMs, this.cumBins, tMs);
    byId("so-far").textContent = t("play.soFar", { n: formatNumber(Math.round(soFar), lang), count: Math.round(soFar) });
    const atEnd = tMs >= endMs;
    if (atEnd !== this.atEnd) {
      this.atEnd = atEnd;
      if (!this.playback.active) this.renderPlaying(false);
    }
  }

  private renderPlaying(on: boolean): void {
    const atEnd = this.playback.time >= this.playback.duration;
    this.play.textContent = this.ctx.view().t(on ? "play.pause" : atEnd && !this.reducedMotion ? "play.replay" : "play.play");
    this.play.setAttribute("aria-pressed", String(on));
  }
}
