// "Which safety net?" (#panel-nets): the same failure met by each net, amplification and
// success side by side, and amplification against the fail rate for each, every run a
// job for the pool of sweep workers (one per core), so the page stays free while ~100
// simulations run. The panel works only while on screen: its batch starts when it first
// comes into view (and again after an edit), and a newer batch supersedes an older one.
//
// The last good picture stays until a new batch has finished (panels/sweep-panel.ts).

import { LineChart } from "../figures/lines.js";
import { formatNumber } from "../logic/format.js";
import {
  FAIL_RATE_RANGE,
  emptySweep,
  netLabel,
  netsJobs,
  NET_IDS,
  NO_LIMIT_ATTEMPTS,
  placeSweep,
  summarize,
  type NetId,
  type NetJob,
  type NetSummary,
  type NetsFailure,
  type SweepTable,
} from "../logic/nets.js";
import type { BeyondOptions } from "../logic/run.js";
import { isBudgetScope, type BudgetScope } from "../logic/state.js";
import { measure } from "../timing.js";
import { renderRich } from "../ui/rich.js";
import { TypedField } from "../ui/typed-field.js";
import type { Metrics } from "../wasm/bridge.js";
import type { SweepPool } from "../wasm/pool.js";
import { byId, type PanelContext } from "./panel.js";
import { SweepPanel } from "./sweep-panel.js";

/** The nets, in the table's and the legend's order. */
export const PANEL_NETS: readonly NetId[] = NET_IDS;

/** Each net's line pattern (none: solid), so that nets of like colours differ in their lines
 *  too: the blues (attempts, aws) and the yellows of the dark palette (grpc, breaker) were told
 *  apart by colour alone when every other line was dashed the same. The swatch in the table
 *  draws the same pattern. */
const NET_DASH: readonly (readonly number[] | undefined)[] = [undefined, [6, 3], undefined, [6, 3], [2, 3], [9, 3, 2, 3], undefined, [6, 3]];

const SVG = "http://www.w3.org/2000/svg";

/** The table's swatch of a net: a short stretch of its line, in its pattern. */
function swatchFor(i: number): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "net-swatch");
  svg.setAttribute("viewBox", "0 0 22 8");
  svg.setAttribute("aria-hidden", "true");
  const line = document.createElementNS(SVG, "line");
  const attrs: [string, string][] = [["x1", "0"], ["y1", "4"], ["x2", "22"], ["y2", "4"], ["stroke-width", "3"]];
  for (const [k, v] of attrs) line.setAttribute(k, v);
  const dash = NET_DASH[i];
  if (dash) line.setAttribute("stroke-dasharray", dash.join(" "));
  svg.append(line);
  return svg;
}

interface Row {
  amp: HTMLElement;
  success: HTMLElement;
  blocked: HTMLElement;
}

interface Picture {
  table: Map<NetId, NetSummary>;
  sweep: SweepTable;
}

export class NetsPanel extends SweepPanel<{ f: NetsFailure; scope: BudgetScope }> {
  private readonly failure = byId<HTMLSelectElement>("nets-failure");
  private readonly scope = byId<HTMLSelectElement>("nets-scope");
  private readonly rate: TypedField;
  private readonly rows = new Map<NetId, Row>();
  private chart: LineChart | null = null;
  private chartKey = "";
  /** The last finished batch's picture, and the one being filled. */
  private good: Picture | null = null;
  private draft: Picture | null = null;
  private batch: NetJob[] = [];

  constructor(ctx: PanelContext, pool: SweepPool) {
    super(ctx, pool, "panel-nets");
    this.rate = new TypedField("nets-fail-rate", FAIL_RATE_RANGE, () => this.edited());
    this.failure.addEventListener("change", () => this.edited());
    this.scope.addEventListener("change", () => this.edited());
    this.buildRows();
    this.draw();
  }

  private buildRows(): void {
    const body = byId("nets-table").querySelector("tbody");
    if (!body) throw new Error("#nets-table has no tbody");
    for (const [i, net] of PANEL_NETS.entries()) {
      const tr = document.createElement("tr");
      tr.dataset["net"] = net;
      const name = document.createElement("th");
      name.scope = "row";
      const swatch = swatchFor(i);
      const label = document.createElement("span");
      label.className = "net-label";
      name.append(swatch, label);
      const cell = (what: string) => {
        const td = document.createElement("td");
        td.className = "num";
        td.dataset["nets"] = what;
        td.textContent = "…";
        return td;
      };
      const row = { amp: cell("amplification"), success: cell("success"), blocked: cell("blocked") };
      tr.append(name, row.amp, row.success, row.blocked);
      body.append(tr);
      this.rows.set(net, row);
    }
  }

  protected read(): { f: NetsFailure; scope: BudgetScope } | null {
    const kind = this.failure.value === "outage" ? "outage" : "rate";
    this.rate.input.disabled = kind === "outage";
    const p = kind === "rate" ? this.rate.read() : (this.rate.clear(), 0);
    const { t, lang } = this.ctx.view();
    this.rate.render(t, lang);
    if (p === null) return null;
    const scope = isBudgetScope(this.scope.value) ? this.scope.value : "shared";
    return { f: { kind, failRate: p }, scope };
  }

  protected refused(): boolean {
    return !this.rate.ok;
  }

  protected jobs(s: { f: NetsFailure; scope: BudgetScope }): BeyondOptions[] {
    this.batch = netsJobs(PANEL_NETS, s.f, s.scope, this.ctx.state().seed);
    return this.batch.map((j) => j.opts);
  }

  protected begin(): void {
    this.draft = { table: new Map(), sweep: emptySweep(PANEL_NETS) };
  }

  protected place(i: number, m: Metrics): void {
    const job = this.batch[i];
    if (!job || !this.draft) return;
    if (!placeSweep(this.draft.sweep, job, m)) this.draft.table.set(job.net, summarize(m));
  }

  protected commit(): void {
    this.good = this.draft;
    this.draft = null;
  }

  protected rollback(): void {
    this.draft = null;
  }

  /** The kept picture with the draft's results over it. */
  private picture(): Picture | null {
    const g = this.good;
    const d = this.draft;
    if (!d) return g;
    if (!g) return d;
    const table = new Map(g.table);
    for (const [k, v] of d.table) table.set(k, v);
    const sweep = emptySweep(PANEL_NETS);
    for (const [net, ys] of sweep.series) {
      const old = g.sweep.series.get(net);
      const fresh = d.sweep.series.get(net);
      for (let i = 0; i < ys.length; i++) ys[i] = Number.isNaN(fresh?.[i] ?? NaN) ? (old?.[i] ?? NaN) : (fresh?.[i] ?? NaN);
    }
    return { table, sweep };
  }

  private ensureChart(): LineChart {
    const { t, lang, palette } = this.ctx.view();
    const key = `${lang}|${palette.nets.join()}|${palette.grid}`;
    if (this.chart && key === this.chartKey) return this.chart;
    this.chart?.destroy();
    this.chartKey = key;
    this.chart = new LineChart(byId("nets-chart"), {
      height: 260,
      ariaLabel: t("nets.aria"),
      xLabel: t("nets.chart.x"),
      yLabel: t("nets.col.amplification"),
      grid: palette.grid,
      text: palette.text,
      xRange: [0, 0.5],
      yMin: 2,
      xValue: (v) => `${formatNumber(v * 100, lang)}%`,
      yValue: (v) => `${formatNumber(v, lang, 2)}×`,
      series: PANEL_NETS.map((net, i) => ({
        label: this.netText(net),
        stroke: palette.nets[i % palette.nets.length] ?? palette.text,
        points: true,
        ...(NET_DASH[i] ? { dash: [...(NET_DASH[i] ?? [])] } : {}),
      })),
    });
    return this.chart;
  }

  private netText(net: NetId): string {
    return this.ctx.view().t(netLabel(net), { n: NO_LIMIT_ATTEMPTS });
  }

  protected draw(): void {
    const { t, lang, palette } = this.ctx.view();
    const note = byId("nets-figure-note");
    const noteText = t("nets.figure", { n: this.pool.size });
    if (note.dataset["text"] !== noteText) {
      note.dataset["text"] = noteText;
      renderRich(note, noteText);
    }
    PANEL_NETS.forEach((net, i) => {
      const tr = this.root.querySelector<HTMLElement>(`tr[data-net="${net}"]`);
      const label = tr?.querySelector<HTMLElement>(".net-label");
      if (label) label.textContent = this.netText(net);
      const line = tr?.querySelector<SVGLineElement>(".net-swatch line");
      line?.setAttribute("stroke", palette.nets[i % palette.nets.length] ?? "currentColor");
    });
    const pic = this.picture();
    if (!pic) return;
    const started = performance.now();
    for (const [net, row] of this.rows) {
      const s = pic.table.get(net);
      setCell(row.amp, s?.amplification, (v) => formatNumber(v, lang, 2));
      setCell(row.success, s?.success, (v) => `${formatNumber(v * 100, lang, 1)}%`);
      setCell(row.blocked, s?.blocked, (v) => `${formatNumber(v * 100, lang, 1)}%`);
    }
    const chart = this.ensureChart();
    chart.setData(
      pic.sweep.x,
      PANEL_NETS.map((n) => pic.sweep.series.get(n) ?? new Float64Array(0)),
    );
    measure("stampede:nets-draw", started);
  }

  /** Words and colours changed: rebuilt at once from what is kept. */
  override relabel(): void {
    this.chartKey = "";
    super.relabel();
  }

  resize(): void {
    this.chart?.resize();
  }
}

/** A cell's text and its exact value (`data-value`, for tests); "…" until there is one. */
function setCell(td: HTMLElement, v: number | undefined, text: (v: number) => string): void {
  if (v === undefined) return;
  td.textContent = text(v);
  td.dataset["value"] = String(v);
}
