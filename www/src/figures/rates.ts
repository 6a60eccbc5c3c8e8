// Rate charts (uPlot): offered load against capacity, and A against B in the compare panel.
// Data arrays are the caller's reusable buffers; the chart keeps no copy.
//
// Every update goes through plot.batch, which redraws synchronously: left to itself uPlot
// redraws in a microtask, after the caller's performance.measure has closed (so the
// measured update would leave the chart out) and after placePlayhead has read the old scale.

import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { followCursor } from "./legend.js";
import { formatAxisSeconds, formatCompact, formatTicks } from "../logic/format.js";
import type { Lang } from "../logic/state.js";

export interface RateSeries {
  label: string;
  stroke: string;
  fill?: string;
  dash?: number[];
  width?: number;
}

export interface RateChartOptions {
  height: number;
  /** The id given to the chart's canvas (a stable hook: `canvas#load`). */
  canvasId?: string;
  ariaLabel: string;
  /** The legend's name for x. */
  timeLabel: string;
  series: RateSeries[];
  log: boolean;
  lang: Lang;
  grid: string;
  text: string;
  outageFill: string;
  /** The least right padding (CSS px): room for something beside the plot area. */
  minPadRight?: number;
  /** Areas filled between two series (1-based, as in `series`): the upper one first. */
  bands?: { upper: number; lower: number; fill: string }[];
  /** Whether the legend is shown (default true). */
  legend?: boolean;
}

export class RateChart {
  private readonly host: HTMLElement;
  private readonly opts: RateChartOptions;
  private plot: uPlot;
  private outage: [number, number] | null = null;
  private readonly playhead: HTMLDivElement;
  private playheadS = Infinity;
  private xMaxS = 1;
  /** The least top of the y axis (linear scale): figures side by side share one. */
  private yFloor = 0;

  constructor(host: HTMLElement, opts: RateChartOptions) {
    this.host = host;
    this.opts = opts;
    const empty: uPlot.AlignedData = [new Float64Array(0), ...opts.series.map(() => new Float64Array(0))];
    this.plot = new uPlot(this.config(), empty, host);
    const canvas = this.plot.ctx.canvas;
    if (opts.canvasId) canvas.id = opts.canvasId;
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", opts.ariaLabel);
    this.playhead = document.createElement("div");
    this.playhead.className = "chart-playhead";
    this.playhead.hidden = true;
    this.plot.over.appendChild(this.playhead);
  }

  private config(): uPlot.Options {
    const o = this.opts;
    const axis = (extra: Partial<uPlot.Axis>): uPlot.Axis => ({
      stroke: o.text,
      grid: { stroke: o.grid, width: 1 },
      ticks: { stroke: o.grid, width: 1 },
      ...extra,
    });
    return {
      width: Math.max(200, this.host.clientWidth),
      height: o.height,
      pxAlign: 0,
      // uPlot's own right padding (half a y axis) unless more is asked for.
      ...(o.minPadRight && o.minPadRight > 25 ? { padding: [null, o.minPadRight, null, null] as uPlot.Padding } : {}),
      scales: {
        x: { time: false, range: () => [0, this.xMaxS] },
        y: {
          distr: o.log ? 3 : 1,
          range: (_u, _min, max) => (o.log ? [1, Math.max(10, max * 1.3)] : [0, Math.max(1, max * 1.05, this.yFloor)]),
        },
      },
      axes: [
        axis({
          values: (_u, splits) => {
            const ticks = splits.map((v) => v * 1000);
            return ticks.map((t) => formatAxisSeconds(t, o.lang, ticks));
          },
        }),
        axis({ values: (_u, splits) => formatTicks(splits, o.log, o.lang), size: 56 }),
      ],
      series: [
        { label: o.timeLabel, value: (_u, v) => (v == null ? "" : formatAxisSeconds(v * 1000, o.lang)) },
        ...o.series.map(
          (s): uPlot.Series => ({
            label: s.label,
            stroke: s.stroke,
            width: s.width ?? 1.5,
            points: { show: false },
            value: (_u, v) => (v == null ? "" : formatCompact(v, o.lang)),
            ...(s.fill ? { fill: s.fill } : {}),
            ...(s.dash ? { dash: s.dash } : {}),
          }),
        ),
      ],
      ...(o.bands ? { bands: o.bands.map((b): uPlot.Band => ({ series: [b.upper, b.lower], fill: b.fill })) } : {}),
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      legend: { show: o.legend ?? true, live: true },
      hooks: {
        drawClear: [(u) => this.shadeOutage(u)],
        setCursor: [followCursor],
      },
    };
  }

  private shadeOutage(u: uPlot): void {
    if (!this.outage) return;
    const x0 = u.valToPos(this.outage[0] / 1000, "x", true);
    const x1 = u.valToPos(this.outage[1] / 1000, "x", true);
    const { top, height, left, width } = u.bbox;
    const a = Math.max(left, Math.min(x0, x1));
    const b = Math.min(left + width, Math.max(x0, x1));
    if (b <= a) return;
    u.ctx.save();
    u.ctx.fillStyle = this.opts.outageFill;
    u.ctx.fillRect(a, top, b - a, height);
    u.ctx.restore();
  }

  /**
   * x in seconds; each series' values per x; the x axis runs from 0 to `xMaxMs`. In log
   * mode values below 1 are drawn at 1.
   */
  setData(x: Float64Array, ys: Float64Array[], outage: [number, number] | null, xMaxMs: number): void {
    this.outage = outage;
    this.xMaxS = Math.max(0.001, xMaxMs / 1000);
    if (this.opts.log) for (const y of ys) for (let i = 0; i < y.length; i++) if ((y[i] ?? 0) < 1) y[i] = 1;
    // Drawn now, inside the caller's measured update; the playhead then reads the new scale.
    this.plot.batch(() => this.plot.setData([x, ...ys]));
    this.placePlayhead();
  }

  /** The y axis reaches at least `v` (linear scale), from the next `setData` on. */
  setYFloor(v: number): void {
    this.yFloor = Number.isFinite(v) ? Math.max(0, v) : 0;
  }

  /** The playhead at `tMs`; Infinity hides it. */
  setPlayhead(tMs: number): void {
    this.playheadS = tMs / 1000;
    this.placePlayhead();
  }

  private placePlayhead(): void {
    if (!Number.isFinite(this.playheadS) || this.playheadS >= this.xMaxS) {
      this.playhead.hidden = true;
      return;
    }
    this.playhead.hidden = false;
    this.playhead.style.transform = `translateX(${this.plot.valToPos(this.playheadS, "x").toFixed(1)}px)`;
  }

  /** The plot area's distance from the chart's left and right edges (CSS px, whole, as the
   *  layout rounds them). Read from the sizes uPlot wrote into the plot area's style, not
   *  from its layout box: asking the box (offsetLeft) forced a layout of the whole page in
   *  the middle of every update, 0.7 ms of the 100,000-client one. */
  plotInset(): { left: number; right: number } {
    const { over } = this.plot;
    // The layout box only if uPlot wrote no size (it always does): asked for lazily.
    const px = (v: string, box: () => number): number => {
      const n = Number.parseFloat(v);
      return Number.isFinite(n) ? Math.round(n) : box();
    };
    const left = px(over.style.left, () => over.offsetLeft);
    const width = px(over.style.width, () => over.clientWidth);
    return { left, right: Math.max(0, this.plot.width - left - width) };
  }

  resize(): void {
    const w = Math.max(200, this.host.clientWidth);
    if (Math.abs(w - this.plot.width) >= 1) this.plot.batch(() => this.plot.setSize({ width: w, height: this.opts.height }));
    this.placePlayhead();
  }

  destroy(): void {
    this.plot.destroy();
  }
}
