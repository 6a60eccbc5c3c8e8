// "Where to retry" (#panel-layers): attempts at the bottom of a chain of services against
// the number of layers, retrying at every layer or at the top only (logic/layers.ts), each
// point a run on the pool of sweep workers. `#layers` is the layers of the numbers shown
// (and the figure's reach), `#layers-attempts` the attempts of every layer, `#retry-at`
// which way the marker follows.

import { LineChart } from "../figures/lines.js";
import { formatNumber } from "../logic/format.js";
import {
  bottomPerRequest,
  LAYER_ATTEMPTS_ENVELOPE,
  LAYERS_ENVELOPE,
  layersAxis,
  layersJobs,
  RETRY_AT,
  type LayersSettings,
} from "../logic/layers.js";
import type { BeyondOptions, RetryAt } from "../logic/run.js";
import { TypedField } from "../ui/typed-field.js";
import type { Metrics } from "../wasm/bridge.js";
import type { SweepPool } from "../wasm/pool.js";
import { byId, type PanelContext } from "./panel.js";
import { SweepPanel } from "./sweep-panel.js";

interface Picture {
  settings: LayersSettings;
  /** Bottom attempts per request, by layers then way of retrying. */
  bottom: Map<string, number>;
}

const key = (layers: number, at: RetryAt) => `${layers}|${at}`;

export class LayersPanel extends SweepPanel<LayersSettings> {
  private readonly layers: TypedField;
  private readonly attempts: TypedField;
  private readonly retryAt = byId<HTMLSelectElement>("retry-at");
  private chart: LineChart | null = null;
  private chartKey = "";
  private good: Picture | null = null;
  private draft: Picture | null = null;
  private batch: { layers: number; retryAt: RetryAt }[] = [];

  constructor(ctx: PanelContext, pool: SweepPool) {
    super(ctx, pool, "panel-layers");
    this.layers = new TypedField("layers", LAYERS_ENVELOPE, () => this.edited());
    this.attempts = new TypedField("layers-attempts", LAYER_ATTEMPTS_ENVELOPE, () => this.edited());
    // The way of retrying only moves the marker and the emphasis: nothing to run again.
    this.retryAt.addEventListener("change", () => this.draw());
  }

  private way(): RetryAt {
    return this.retryAt.value === "top" ? "top" : "every";
  }

  protected read(): LayersSettings | null {
    const layers = this.layers.read();
    const attempts = this.attempts.read();
    const { t, lang } = this.ctx.view();
    this.layers.render(t, lang);
    this.attempts.render(t, lang);
    if (layers === null || attempts === null) return null;
    return { layers, attempts, retryAt: this.way() };
  }

  protected refused(): boolean {
    return !this.layers.ok || !this.attempts.ok;
  }

  protected jobs(s: LayersSettings): BeyondOptions[] {
    const jobs = layersJobs(s, this.ctx.state().seed);
    this.batch = jobs;
    return jobs.map((j) => j.opts);
  }

  protected begin(s: LayersSettings): void {
    this.draft = { settings: s, bottom: new Map() };
  }

  protected place(i: number, m: Metrics): void {
    const job = this.batch[i];
    if (job && this.draft) this.draft.bottom.set(key(job.layers, job.retryAt), bottomPerRequest(m));
  }

  protected commit(): void {
    this.good = this.draft;
    this.draft = null;
  }

  protected rollback(): void {
    this.draft = null;
  }

  /** The kept picture: a batch of a dozen runs replaces it whole, once finished. */
  private picture(): Picture | null {
    return this.good;
  }

  private ensureChart(): LineChart {
    const { t, lang, palette } = this.ctx.view();
    const k = `${lang}|${palette.grid}|${palette.policyA}`;
    if (this.chart && k === this.chartKey) return this.chart;
    this.chart?.destroy();
    this.chartKey = k;
    this.chart = new LineChart(byId("layers-chart"), {
      height: 240,
      ariaLabel: t("layers.aria"),
      xLabel: t("layers.chart.x"),
      yLabel: t("layers.chart.y"),
      grid: palette.grid,
      text: palette.text,
      logY: true,
      xWhole: true,
      xValue: (v) => formatNumber(v, lang),
      yValue: (v) => `${formatNumber(v, lang)}×`,
      series: [
        { label: t("layers.retryAt.every"), stroke: palette.policyA, points: true },
        { label: t("layers.retryAt.top"), stroke: palette.policyB, points: true, dash: [6, 3] },
        { label: t("layers.series.now"), stroke: palette.text, marker: true },
      ],
    });
    return this.chart;
  }

  protected draw(): void {
    const pic = this.picture();
    if (!pic) return;
    const { lang } = this.ctx.view();
    const way = this.way();
    const s = pic.settings;
    for (const at of RETRY_AT) {
      const dd = this.root.querySelector<HTMLElement>(`[data-layers="${at}"]`);
      const v = pic.bottom.get(key(s.layers, at));
      if (!dd || v === undefined) continue;
      dd.textContent = `${formatNumber(v, lang, v < 10 ? 2 : 0)}×`;
      dd.dataset["value"] = String(v);
      dd.closest("div")?.classList.toggle("chosen", at === way);
    }
    const count = this.root.querySelector<HTMLElement>("[data-layers-count]");
    if (count) count.textContent = formatNumber(s.layers, lang);
    const x = layersAxis(s.layers);
    const series = (at: RetryAt) => x.map((l) => pic.bottom.get(key(l, at)) ?? NaN);
    const marker = x.map((l) => (l === s.layers ? (pic.bottom.get(key(l, way)) ?? NaN) : NaN));
    this.ensureChart().setData(x, [series("every"), series("top"), marker]);
  }

  override relabel(): void {
    this.chartKey = "";
    super.relabel();
  }

  resize(): void {
    this.chart?.resize();
  }
}
