// "Which safety net?" (#panel-nets): the same failure met by each net, amplification and
// success side by side, and amplification against the fail rate for each, every run a
// job for the pool of sweep workers (one per core), so the page stays free while ~100
// simulations run. The panel works only while on screen: its batch starts when it first
// comes into view (and again after an edit), and a newer batch supersedes an older one.
//
// The last good picture stays until a new batch has finished: results fill a draft,
// drawn as they come over the kept one, and a refused batch puts the kept one back.

import { LineChart } from "../figures/lines.js";
import { formatDuration, formatNumber } from "../logic/format.js";
import { localizeError } from "../logic/errors.js";
import {
  emptySweep,
  netLabel,
  netsJobs,
  NO_LIMIT_ATTEMPTS,
  placeSweep,
  summarize,
  type NetId,
  type NetJob,
  type NetMetrics,
  type NetSummary,
  type NetsFailure,
  type SweepTable,
} from "../logic/nets.js";
import { BatchError, Superseded } from "../logic/pool.js";
import { isBudgetScope, type BudgetScope } from "../logic/state.js";
import { measure } from "../timing.js";
import { renderRich } from "../ui/rich.js";
import { TypedField } from "../ui/typed-field.js";
import type { SweepPool } from "../wasm/pool.js";
import { byId, oncePerFrame, type PanelContext } from "./panel.js";

/** The nets the package runs (issue #12's others join as they land in the core). */
export const PANEL_NETS: readonly NetId[] = ["none", "attempts", "bucket"];

interface Row {
  amp: HTMLElement;
  success: HTMLElement;
  blocked: HTMLElement;
}

interface Picture {
  table: Map<NetId, NetSummary>;
  sweep: SweepTable;
}

export class NetsPanel {
  private readonly root = byId("panel-nets");
  private readonly failure = byId<HTMLSelectElement>("nets-failure");
  private readonly scope = byId<HTMLSelectElement>("nets-scope");
  private readonly rate: TypedField;
  private readonly status = byId("nets-status");
  private readonly error = byId("nets-error");
  private readonly rows = new Map<NetId, Row>();
  private chart: LineChart | null = null;
  private chartKey = "";
  /** The last finished batch's picture, and the one being filled. */
  private good: Picture | null = null;
  private draft: Picture | null = null;
  private onScreen = false;
  private started = false;
  private dirty = true;
  private seq = 0;
  private readonly redraw = oncePerFrame(() => this.draw());

  constructor(
    private readonly ctx: PanelContext,
    private readonly pool: SweepPool,
  ) {
    this.rate = new TypedField("nets-fail-rate", { min: 0, max: 1 }, () => this.edited());
    this.failure.addEventListener("change", () => this.edited());
    this.scope.addEventListener("change", () => this.edited());
    this.buildRows();
    new IntersectionObserver(
      (entries) => {
        this.onScreen = entries.some((e) => e.isIntersecting);
        this.maybeRun();
      },
      { rootMargin: "300px 0px" },
    ).observe(this.root);
    this.draw();
  }

  /** The wasm module is ready: the panel may run once it is on screen. */
  start(): void {
    this.started = true;
    this.maybeRun();
  }

  private buildRows(): void {
    const body = byId("nets-table").querySelector("tbody");
    if (!body) throw new Error("#nets-table has no tbody");
    for (const net of PANEL_NETS) {
      const tr = document.createElement("tr");
      tr.dataset["net"] = net;
      const name = document.createElement("th");
      name.scope = "row";
      const swatch = document.createElement("span");
      swatch.className = "net-swatch";
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

  private edited(): void {
    this.dirty = true;
    this.maybeRun();
  }

  private settings(): { f: NetsFailure; scope: BudgetScope } | null {
    const kind = this.failure.value === "outage" ? "outage" : "rate";
    const p = this.rate.read();
    this.rate.input.disabled = kind === "outage";
    const { t, lang } = this.ctx.view();
    this.rate.render(t, lang);
    if (p === null && kind === "rate") return null;
    const scope = isBudgetScope(this.scope.value) ? this.scope.value : "shared";
    return { f: { kind, failRate: p ?? 0 }, scope };
  }

  private maybeRun(): void {
    if (!this.started || !this.onScreen || !this.dirty) return;
    const s = this.settings();
    if (!s) {
      this.showError(null);
      return;
    }
    this.dirty = false;
    this.run(s.f, s.scope);
  }

  private run(f: NetsFailure, scope: BudgetScope): void {
    const jobs = netsJobs(PANEL_NETS, f, scope, this.ctx.state().seed);
    const seq = ++this.seq;
    const draft: Picture = { table: new Map(), sweep: emptySweep(PANEL_NETS) };
    this.draft = draft;
    const started = performance.now();
    let done = 0;
    this.root.dataset["state"] = "running";
    this.showStatus(done, jobs.length);
    this.pool
      .run(
        jobs.map((j) => j.opts),
        (i, m) => {
          const job = jobs[i] as NetJob;
          if (!placeSweep(draft.sweep, job, m as NetMetrics)) draft.table.set(job.net, summarize(m as NetMetrics));
          done++;
          this.showStatus(done, jobs.length);
          this.redraw();
        },
        "nets",
      )
      .then(() => {
        if (seq !== this.seq) return;
        this.good = draft;
        this.draft = null;
        this.showError(null);
        this.root.dataset["state"] = "done";
        this.root.dataset["runs"] = String(Number(this.root.dataset["runs"] ?? 0) + 1);
        const { t, lang } = this.ctx.view();
        this.status.textContent = t("nets.done", { n: jobs.length, w: this.pool.size, t: formatDuration(performance.now() - started, lang) });
        measure("stampede:nets", started);
        this.redraw();
      })
      .catch((e: unknown) => {
        if (e instanceof Superseded || seq !== this.seq) return;
        this.draft = null;
        this.root.dataset["state"] = "error";
        this.status.textContent = "";
        this.showError(e instanceof BatchError ? localizeError(e.data, this.ctx.view().lang) : String(e));
        this.redraw();
      });
  }

  private showStatus(done: number, n: number): void {
    this.status.textContent = this.ctx.view().t("nets.running", { done, n, w: this.pool.size });
  }

  private showError(message: string | null): void {
    const messages = [message ?? "", this.rate.ok ? "" : this.ctx.view().t("err.kept")].filter((m) => m !== "");
    this.error.textContent = messages.join(" ");
    this.error.hidden = messages.length === 0;
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
        ...(i % 2 === 1 ? { dash: [6, 3] } : {}),
      })),
    });
    return this.chart;
  }

  private netText(net: NetId): string {
    return this.ctx.view().t(netLabel(net), { n: NO_LIMIT_ATTEMPTS });
  }

  private draw(): void {
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
      const swatch = tr?.querySelector<HTMLElement>(".net-swatch");
      if (swatch) swatch.style.background = palette.nets[i % palette.nets.length] ?? "";
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
  relabel(): void {
    this.chartKey = "";
    this.draw();
    const s = this.settings();
    if (s) this.showError(null);
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
