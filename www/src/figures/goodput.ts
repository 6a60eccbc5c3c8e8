// Goodput against throughput: what the servers finished, and how much of it reached a
// client that was still waiting. The gap between the two lines is shaded: work the
// servers did for clients that had already timed out (the wasted series is drawn too, so
// its value can be read). The queue length runs in a small chart under it, on the same
// time axis. This is the figure of a metastable failure: throughput at capacity, goodput
// near zero, long after the trigger is gone.

import { newGoodputBuffers, rebinGoodput, type GoodputSeries } from "../logic/rates.js";
import type { View } from "../panels/panel.js";
import type { Palette } from "./palette.js";
import { RateChart } from "./rates.js";

export interface GoodputHosts {
  goodput: HTMLElement;
  queue: HTMLElement;
  /** The least right padding (CSS px), as the figures above, so the time axes line up. */
  minPadRight?: number;
  /** Smaller charts (the story's side-by-side figures): no queue chart labels, no legend. */
  mini?: boolean;
}

export class GoodputFigure {
  private chart: RateChart | null = null;
  private queueChart: RateChart | null = null;
  private key = "";
  private readonly buf = newGoodputBuffers();

  constructor(private readonly hosts: GoodputHosts) {}

  private ensure(view: View): { chart: RateChart; queueChart: RateChart | null } {
    const { t, lang, palette: p } = view;
    const key = `${lang}|${p.served}|${p.goodput}`;
    if (this.chart && key === this.key) return { chart: this.chart, queueChart: this.queueChart };
    this.destroy();
    this.key = key;
    const mini = this.hosts.mini === true;
    const common = (p: Palette) => ({
      timeLabel: t("load.time"),
      log: false,
      lang,
      grid: p.grid,
      text: p.text,
      outageFill: p.outageFill,
      ...(this.hosts.minPadRight !== undefined ? { minPadRight: this.hosts.minPadRight } : {}),
    });
    this.chart = new RateChart(this.hosts.goodput, {
      ...common(p),
      height: mini ? 150 : 200,
      ariaLabel: t("goodput.aria"),
      legend: !mini,
      series: [
        // Throughput wider, under goodput: where the two are one (nothing wasted), a blue edge
        // still shows on each side of the green (goodput drawn over it hid it whole).
        { label: t("goodput.throughput"), stroke: p.served, width: 4 },
        { label: t("goodput.goodput"), stroke: p.goodput, width: 1.5 },
        { label: t("goodput.wasted"), stroke: p.wasted, width: 1, dash: [3, 3] },
      ],
      // The work between throughput and goodput: done, and thrown away.
      bands: [{ upper: 1, lower: 2, fill: p.wastedFill }],
    });
    this.queueChart = new RateChart(this.hosts.queue, {
      ...common(p),
      height: mini ? 80 : 120,
      ariaLabel: t("queue.aria"),
      legend: !mini,
      series: [{ label: t("queue.length"), stroke: p.queue, fill: p.queueFill, width: 1 }],
    });
    return { chart: this.chart, queueChart: this.queueChart };
  }

  /**
   * Draws a run, `bins` bins of `binMs` up to `tEndMs`, the trigger (an outage, a spike)
   * shaded; the rate axis reaches at least `yFloor` (figures side by side share a scale).
   * Returns the highest rate drawn.
   */
  draw(r: GoodputSeries, view: View, binMs: number, bins: number, tEndMs: number, outage: [number, number] | null, yFloor = 0): number {
    const { chart, queueChart } = this.ensure(view);
    const b = rebinGoodput(r, this.buf, binMs, bins);
    const x = b.x.subarray(0, bins);
    let peak = 0;
    for (let i = 0; i < bins; i++) peak = Math.max(peak, b.throughput[i] ?? 0, b.goodput[i] ?? 0);
    chart.setYFloor(yFloor);
    chart.setData(x, [b.throughput.subarray(0, bins), b.goodput.subarray(0, bins), b.wasted.subarray(0, bins)], outage, tEndMs);
    queueChart?.setData(x, [b.queue.subarray(0, bins)], outage, tEndMs);
    return peak;
  }

  setPlayhead(tMs: number): void {
    this.chart?.setPlayhead(tMs);
    this.queueChart?.setPlayhead(tMs);
  }

  /** Rebuilt at the next draw (language or colours changed). */
  invalidate(): void {
    this.key = "";
  }

  resize(): void {
    this.chart?.resize();
    this.queueChart?.resize();
  }

  destroy(): void {
    this.chart?.destroy();
    this.queueChart?.destroy();
    this.chart = null;
    this.queueChart = null;
  }
}
