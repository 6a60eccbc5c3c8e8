// Delay distributions: one small bar chart (uPlot) per retry, all on the same time range,
// so the widening of each retry's window — and what jitter does to it — reads at a glance.

import uPlot from "uplot";
import { formatAxisSeconds, formatDuration } from "../logic/format.js";
import { axisEnd, type Histograms } from "../logic/histogram.js";
import type { Lang } from "../logic/state.js";

export interface DelayStyle {
  fill: string;
  stroke: string;
  grid: string;
  text: string;
  lang: Lang;
  /** "Retry 3" */
  title: (retry: number) => string;
  /** "median 1.2 s" */
  median: (text: string) => string;
}

/** More retries than this are summarised by the first ones. */
export const MAX_PANELS = 9;

interface Panel {
  root: HTMLElement;
  caption: HTMLElement;
  plot: uPlot;
}

export class DelayFigure {
  private readonly host: HTMLElement;
  private panels: Panel[] = [];
  private styleKey = "";
  /** The histograms taken, and the next of their panels to draw. */
  private shown: { h: Histograms; style: DelayStyle; want: number; yMax: number; next: number } | null = null;

  constructor(host: HTMLElement) {
    this.host = host;
  }

  /**
   * Takes new histograms. Their panels are drawn by `drawNext`, one a call: the page calls it
   * once a frame, since a panel's draw (uPlot's build the first time, a layout, the axis text)
   * takes 2–5 ms, and all of them in one frame made a 25–44 ms task when the section came
   * into view.
   */
  set(h: Histograms, style: DelayStyle): void {
    const want = Math.min(MAX_PANELS, h.shares.length);
    const key = `${style.fill}|${style.grid}|${style.lang}`;
    if (key !== this.styleKey) {
      this.clear();
      this.styleKey = key;
    }
    while (this.panels.length > want) this.panels.pop()?.root.remove();
    let maxShare = 0;
    for (let i = 0; i < want; i++) for (const v of h.shares[i] ?? []) maxShare = Math.max(maxShare, v);
    this.shown = { h, style, want, yMax: Math.max(0.01, maxShare * 1.1), next: 0 };
  }

  /** Draws the next panel of the histograms `set` took; says whether another waits. */
  drawNext(): boolean {
    const s = this.shown;
    if (!s || s.next >= s.want) return false;
    const i = s.next++;
    const { h, style } = s;
    // Panels are added in order, so panel `i` is either there or the next one.
    const panel = this.panels[i] ?? this.addPanel(style);
    panel.caption.textContent = `${style.title(i + 1)} · ${style.median(formatDuration(h.medians[i] ?? 0, style.lang))}`;
    const xMax = axisEnd(h.centers.length * h.binMs);
    panel.plot.batch(() => {
      panel.plot.setScale("x", { min: 0, max: xMax });
      panel.plot.setData([h.centers, h.shares[i] ?? new Float64Array(h.centers.length)], false);
      panel.plot.setScale("x", { min: 0, max: xMax });
      panel.plot.setScale("y", { min: 0, max: s.yMax });
    });
    return s.next < s.want;
  }

  private addPanel(style: DelayStyle): Panel {
    const root = document.createElement("figure");
    root.className = "delay-panel";
    const caption = document.createElement("figcaption");
    root.append(caption);
    this.host.append(root);
    const width = Math.max(160, root.clientWidth || 220);
    const plot = new uPlot(
      {
        width,
        height: 120,
        pxAlign: 0,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: false, auto: false }, y: { auto: false } },
        axes: [
          {
            stroke: style.text,
            grid: { show: false },
            ticks: { stroke: style.grid },
            values: (_u, splits) => splits.map((v) => formatAxisSeconds(v, style.lang, splits)),
            space: 50,
          },
          { show: false },
        ],
        series: [
          {},
          {
            fill: style.fill,
            stroke: style.stroke,
            width: 0,
            paths: uPlot.paths.bars?.({ size: [1, 100], gap: 1 }),
            points: { show: false },
          },
        ],
      },
      [new Float64Array(0), new Float64Array(0)],
      root,
    );
    plot.ctx.canvas.setAttribute("aria-hidden", "true");
    const panel = { root, caption, plot };
    this.panels.push(panel);
    return panel;
  }

  resize(): void {
    for (const p of this.panels) {
      const w = Math.max(160, p.root.clientWidth);
      if (Math.abs(w - p.plot.width) >= 1) p.plot.setSize({ width: w, height: 120 });
    }
  }

  clear(): void {
    for (const p of this.panels) {
      p.plot.destroy();
      p.root.remove();
    }
    this.panels = [];
    this.shown = null;
  }
}
