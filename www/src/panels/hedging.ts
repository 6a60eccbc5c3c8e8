// Hedging (#panel-hedging): p99 latency against the extra requests hedges cost, as the
// hedging delay moves (logic/hedging.ts). The curve is a run per delay on the pool of
// sweep workers; `#hedge-delay` is the delay whose numbers are shown and whose point is
// marked on the curve, beside the p99 without hedging.

import { LineChart } from "../figures/lines.js";
import { formatNumber } from "../logic/format.js";
import { extraLoad, HEDGE_DELAY_ENVELOPE, hedgeCurve, hedgingJobs, type HedgePoint } from "../logic/hedging.js";
import type { BeyondOptions } from "../logic/run.js";
import { TypedField } from "../ui/typed-field.js";
import type { Metrics } from "../wasm/bridge.js";
import type { SweepPool } from "../wasm/pool.js";
import { byId, type PanelContext } from "./panel.js";
import { SweepPanel } from "./sweep-panel.js";

interface Picture {
  /** p99 without hedging, ms. */
  off: number | null;
  /** The typed delay's point. */
  now: HedgePoint | null;
  curve: HedgePoint[];
}

export class HedgingPanel extends SweepPanel<number> {
  private readonly delay: TypedField;
  private chart: LineChart | null = null;
  private chartKey = "";
  private good: Picture | null = null;
  private draft: Picture | null = null;
  private batch: { delayMs: number | null }[] = [];

  constructor(ctx: PanelContext, pool: SweepPool) {
    super(ctx, pool, "panel-hedging");
    this.delay = new TypedField("hedge-delay", HEDGE_DELAY_ENVELOPE, () => this.edited());
  }

  protected read(): number | null {
    const v = this.delay.read();
    const { t, lang } = this.ctx.view();
    this.delay.render(t, lang);
    return v;
  }

  protected refused(): boolean {
    return !this.delay.ok;
  }

  protected jobs(delayMs: number): BeyondOptions[] {
    const jobs = hedgingJobs(delayMs, this.ctx.state().seed);
    this.batch = jobs;
    return jobs.map((j) => j.opts);
  }

  protected begin(): void {
    this.draft = { off: null, now: null, curve: [] };
  }

  protected place(i: number, m: Metrics): void {
    const d = this.draft;
    if (!d) return;
    const delayMs = this.batch[i]?.delayMs;
    if (i === 0 || delayMs === null || delayMs === undefined) {
      d.off = m.p99Ms;
      return;
    }
    const point = { delayMs, extra: extraLoad(m), p99Ms: m.p99Ms ?? NaN };
    if (i === 1) d.now = point;
    else d.curve.push(point);
  }

  protected commit(): void {
    if (this.draft) this.draft.curve.sort((a, b) => a.delayMs - b.delayMs);
    this.good = this.draft;
    this.draft = null;
  }

  protected rollback(): void {
    this.draft = null;
  }

  private ensureChart(): LineChart {
    const { t, lang, palette } = this.ctx.view();
    const k = `${lang}|${palette.grid}|${palette.policyB}`;
    if (this.chart && k === this.chartKey) return this.chart;
    this.chart?.destroy();
    this.chartKey = k;
    this.chart = new LineChart(byId("hedging-chart"), {
      height: 240,
      ariaLabel: t("hedging.aria"),
      xLabel: t("hedging.chart.x"),
      yLabel: t("hedging.chart.y"),
      grid: palette.grid,
      text: palette.text,
      yMin: 10,
      xValue: (v) => `${formatNumber(v, lang, 1)}%`,
      yValue: (v) => `${formatNumber(v, lang)} ${t("unit.ms")}`,
      series: [
        { label: t("hedging.series.curve"), stroke: palette.policyB, points: true, spanGaps: true },
        { label: t("hedging.series.now"), stroke: palette.policyA, marker: true },
      ],
    });
    return this.chart;
  }

  protected draw(): void {
    const pic = this.good;
    if (!pic) return;
    const { lang } = this.ctx.view();
    const set = (what: string, v: number | null | undefined, text: (v: number) => string) => {
      const el = this.root.querySelector<HTMLElement>(`[data-hedging="${what}"]`);
      if (!el || v === null || v === undefined || !Number.isFinite(v)) return;
      el.textContent = text(v);
      el.dataset["value"] = String(v);
    };
    const ms = (v: number) => formatNumber(v, lang, 1);
    set("off", pic.off, ms);
    set("on", pic.now?.p99Ms, ms);
    set("extra", pic.now?.extra, (v) => `${formatNumber(v * 100, lang, 1)}%`);
    const c = hedgeCurve(pic.curve, pic.now);
    this.ensureChart().setData(c.x, [c.curve, c.marker]);
  }

  override relabel(): void {
    this.chartKey = "";
    super.relabel();
  }

  resize(): void {
    this.chart?.resize();
  }
}
