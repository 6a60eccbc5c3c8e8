// An x–y line chart (uPlot) for the sweeps of issue #12's panels: amplification against
// the fail rate, p99 against extra load, bottom attempts against layers. The x axis is a
// quantity, not time; a NaN value is a point not computed yet (or refused), drawn as a gap.
// Every update goes through plot.batch, which draws at once (see figures/rates.ts).

import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { followCursor } from "./legend.js";
import { formatCompact, formatTicks } from "../logic/format.js";

export interface LineSeries {
  label: string;
  stroke: string;
  dash?: number[];
  width?: number;
  /** Draw each point as a dot (a curve of separate runs), or only the line. */
  points?: boolean;
  /** Dots only, no line (a marker). */
  marker?: boolean;
  /** Join the line across missing values (a curve with another series' points among its x). */
  spanGaps?: boolean;
}

export interface LineChartOptions {
  height: number;
  ariaLabel: string;
  /** The x quantity: its axis's title, and the legend's name for it. */
  xLabel: string;
  /** The y quantity: its axis's title. */
  yLabel?: string;
  series: LineSeries[];
  grid: string;
  text: string;
  /** Axis and legend text of an x or y value. */
  xValue?: (v: number) => string;
  yValue?: (v: number) => string;
  /** Base-10 log scale for y (values must be positive). */
  logY?: boolean;
  /** The x range; default: the data's. */
  xRange?: [number, number];
  /** The y axis starts at 0 (linear scale) and reaches at least this. */
  yMin?: number;
  /** x takes whole values only (layers): ticks on whole numbers. */
  xWhole?: boolean;
}

/** The axes' titles: the page's font, a little smaller than its text. */
const TITLE_FONT = "12px system-ui, sans-serif";

export class LineChart {
  private plot: uPlot;

  constructor(
    private readonly host: HTMLElement,
    private readonly opts: LineChartOptions,
  ) {
    const empty: uPlot.AlignedData = [new Float64Array(0), ...opts.series.map(() => new Float64Array(0))];
    this.plot = new uPlot(this.config(), empty, host);
    const canvas = this.plot.ctx.canvas;
    canvas.setAttribute("role", "img");
    canvas.setAttribute("aria-label", opts.ariaLabel);
  }

  private config(): uPlot.Options {
    const o = this.opts;
    const xv = o.xValue ?? ((v: number) => formatCompact(v));
    const yv = o.yValue ?? ((v: number) => formatCompact(v));
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
      scales: {
        x: { time: false, ...(o.xRange ? { range: o.xRange } : {}) },
        y: o.logY
          ? { distr: 3, range: (_u, min, max) => [Math.max(0.5, (min || 1) / 1.5), Math.max(2, (max || 1) * 1.5)] }
          : { range: (_u, _min, max) => [0, Math.max(o.yMin ?? 1, (max || 0) * 1.08)] },
      },
      axes: [
        axis({
          label: o.xLabel,
          labelSize: 20,
          labelFont: TITLE_FONT,
          ...(o.xWhole ? { incrs: [1, 2, 5, 10] } : {}),
          values: (_u, splits) => splits.map((v) => (v == null || (o.xWhole && !Number.isInteger(v)) ? "" : xv(v))),
        }),
        axis({
          // A log axis labels its powers of ten only (uPlot draws the minor ticks between).
          values: (_u, splits) => (o.yValue ? splits.map((v) => (v == null || (o.logY && formatTicks([v], true)[0] === "") ? "" : yv(v))) : formatTicks(splits, o.logY)),
          size: 56,
          ...(o.yLabel ? { label: o.yLabel, labelSize: 20, labelFont: TITLE_FONT } : {}),
        }),
      ],
      series: [
        { label: o.xLabel, value: (_u, v) => (v == null ? "" : xv(v)) },
        ...o.series.map(
          (s): uPlot.Series => ({
            label: s.label,
            stroke: s.stroke,
            width: s.marker ? 0 : (s.width ?? 2),
            spanGaps: s.spanGaps ?? false,
            points: s.marker ? { show: true, size: 11, stroke: s.stroke, fill: s.stroke } : { show: s.points ?? false, size: 6, fill: s.stroke },
            value: (_u, v) => (v == null || Number.isNaN(v) ? "–" : yv(v)),
            ...(s.marker ? { paths: () => null } : {}),
            ...(s.dash ? { dash: s.dash } : {}),
          }),
        ),
      ],
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      legend: { show: true, live: true },
      hooks: { setCursor: [followCursor] },
    };
  }

  /** x ascending; one array of y per series (NaN: no value there). */
  setData(x: ArrayLike<number>, ys: ArrayLike<number>[]): void {
    const clean = (a: ArrayLike<number>) => Array.from(a, (v) => (Number.isFinite(v) ? v : null));
    const data = [Array.from(x), ...ys.map(clean)] as unknown as uPlot.AlignedData;
    this.plot.batch(() => this.plot.setData(data));
  }

  resize(): void {
    const w = Math.max(200, this.host.clientWidth);
    if (Math.abs(w - this.plot.width) >= 1) this.plot.batch(() => this.plot.setSize({ width: w, height: this.opts.height }));
  }

  destroy(): void {
    this.plot.destroy();
  }
}
