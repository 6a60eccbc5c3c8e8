// The compare panel: policy B run on the same scenario as policy A, side by side — two small
// herds, both offered loads on one chart, and the metric table. B's run depends only on its
// own options, so tuning policy A redraws the panel without simulating B again. The two
// herds are drawn only when they can be seen: off screen (while the reader drags a slider
// above, say) they cost nothing, and are drawn on arrival, each in a frame of its own.

import { HerdFigure } from "../figures/herd.js";
import { RateChart } from "../figures/rates.js";
import type { Key } from "../logic/i18n.js";
import { newRateBuffers, rebinRun, timeDomain } from "../logic/rates.js";
import { displayBinMs, rebinRate, smoothBinMs } from "../logic/series.js";
import { isOngoing, type State } from "../logic/state.js";
import { fleetCapacity, outageWindow, simOptions } from "../logic/run.js";
import { measure } from "../timing.js";
import { CompareTable } from "../ui/metrics.js";
import type { SimResult } from "../wasm/bridge.js";
import { ResultKeeper } from "../wasm/keep.js";
import type { Outcome, SimRunner } from "../wasm/runner.js";
import { byId, type PanelContext } from "./panel.js";

/** A run's failure as the runner delivers it. */
export type RunError = Extract<Outcome, { ok: false }>["error"];

/**
 * How policy B's run went, for the state `s` it ran: `null` when it ran, else the package's
 * error (the app places it, or repairs a link with it).
 */
export type CompareReport = (s: State, error: RunError | null) => void;

export class ComparePanel {
  private readonly table: CompareTable;
  private readonly miniA: HerdFigure;
  private readonly miniB: HerdFigure;
  private chart: RateChart | null = null;
  /** What the chart was built for (series, scale, language, colours). */
  private chartKey = "";
  private readonly keep: ResultKeeper;
  private readonly buf = newRateBuffers();
  private result: SimResult | null = null;
  /** The state the kept B run is shown with, and the options it was made from. */
  private state: State | null = null;
  private key = "";
  /** Whether the herds are on screen (or nearly); off screen they wait. */
  private onScreen = false;
  private minisDirty = false;

  constructor(
    private readonly ctx: PanelContext,
    private readonly runner: SimRunner,
    private readonly report: CompareReport,
  ) {
    this.keep = new ResultKeeper((r) => runner.recycle(r));
    this.table = new CompareTable(byId<HTMLTableElement>("compare-table"));
    const onResize = () => ctx.resized();
    this.miniA = new HerdFigure({ canvas: byId<HTMLCanvasElement>("compare-a"), axis: byId("compare-a-axis"), onResize });
    this.miniB = new HerdFigure({ canvas: byId<HTMLCanvasElement>("compare-b"), axis: byId("compare-b-axis"), onResize });
    new IntersectionObserver(
      (entries) => {
        this.onScreen = entries.some((e) => e.isIntersecting);
        if (this.onScreen && this.minisDirty) this.drawMinis();
      },
      { rootMargin: "300px 0px" },
    ).observe(byId("compare"));
  }

  /** Runs policy B for the current state (or reuses its run) and draws the panel. */
  update(): void {
    const started = performance.now();
    const s = this.ctx.state();
    const opts = simOptions(s, "b");
    const key = JSON.stringify(opts);
    if (key === this.key && this.result && !this.runner.busy("b")) {
      this.state = s;
      // Back to settings the kept run was made from: a refusal of others in between is
      // over (its "Given: 20" would stay beside a field that holds 6 again).
      this.report(s, null);
      this.draw(s, this.ctx.resultA(), this.result);
      measure("stampede:compare", started);
      return;
    }
    this.runner.run("b", opts, (o) => {
      if (s !== this.ctx.state()) {
        // A moved on; a newer B will follow.
        if (o.ok) this.runner.recycle(o.result);
        return;
      }
      if (!o.ok) {
        this.report(s, o.error);
        return;
      }
      this.report(s, null);
      this.result = this.keep.keep(o.result);
      this.key = key;
      this.state = s;
      this.draw(s, this.ctx.resultA(), this.result);
      measure("stampede:compare", started);
    });
  }

  /** Redraws from the kept runs (resize, theme, language, scale). */
  redraw(): void {
    if (this.result && this.state) this.draw(this.state, this.ctx.resultA(), this.result);
  }

  /** The chart is rebuilt at its next draw (its scale, language or colours changed). */
  invalidate(): void {
    this.chartKey = "";
  }

  /** The figures' size may have changed: the chart measures itself again. */
  resize(): void {
    this.chart?.resize();
  }

  /** The herds from the kept runs, each in a frame of its own; off screen they wait. */
  private drawMinis(): void {
    if (!this.onScreen) {
      this.minisDirty = true;
      return;
    }
    this.minisDirty = false;
    this.ctx.frames.later("mini-a", () => this.drawMini("a"));
    this.ctx.frames.later("mini-b", () => this.drawMini("b"));
  }

  private drawMini(side: "a" | "b"): void {
    const a = this.ctx.resultA();
    const b = this.result;
    const s = this.state;
    if (!a || !b || !s) return;
    const { palette, lang } = this.ctx.view();
    const started = performance.now();
    const tEnd = Math.max(timeDomain(s, a), timeDomain(s, b));
    (side === "a" ? this.miniA : this.miniB).draw(side === "a" ? a : b, tEnd, outageWindow(s), palette.herd, lang);
    measure(`stampede:compare-herd-${side}`, started);
  }

  private draw(s: State, a: SimResult | null, b: SimResult): void {
    if (!a) return;
    const { t, lang, palette: p, logScale } = this.ctx.view();
    const outage = outageWindow(s);
    const tEnd = Math.max(timeDomain(s, a), timeDomain(s, b));
    this.drawMinis();
    const capacity = fleetCapacity(a.fleet);
    const trafficLeftMs = outage !== null && isOngoing(s.scenario) ? s.durationMs - outage[1] : undefined;
    this.table.show(a.metrics, b.metrics, capacity, s.scenario, outage !== null, lang, trafficLeftMs, t("cmp.notRecovered"));
    const occ = s.scenario === "aws-occ";
    // aws-occ runs no budget (its clients retry until their write wins): the titles say so.
    const budget = (on: boolean) => (on && !occ ? ` + ${t("group.budget").toLowerCase()}` : "");
    byId("compare-a-title").textContent = t(`strategy.${s.a.strategy}` as Key) + budget(s.a.budget);
    byId("compare-b-title").textContent = t(`strategy.${s.b.strategy}` as Key) + budget(s.b.budget);

    const capped = !occ && Number.isFinite(capacity);
    // With a client timeout the question is how much got through: goodput, A against B.
    const good = !occ && s.timeoutMs > 0;
    const key = `${capped}|${good}|${logScale}|${lang}|${p.policyA}`;
    if (!this.chart || key !== this.chartKey) {
      this.chart?.destroy();
      this.chartKey = key;
      this.chart = new RateChart(byId("compare-chart"), {
        height: 180,
        ariaLabel: t(good ? "compare.goodputAria" : "compare.loadAria"),
        timeLabel: t("load.time"),
        log: logScale,
        lang,
        grid: p.grid,
        text: p.text,
        outageFill: p.outageFill,
        series: [
          { label: t(good ? "compare.goodputA" : "compare.offeredA"), stroke: p.policyA, width: 1.5 },
          { label: t(good ? "compare.goodputB" : "compare.offeredB"), stroke: p.policyB, width: 1.5, dash: [5, 3] },
          ...(capped ? [{ label: t("load.capacity"), stroke: p.capacity, dash: [2, 3], width: 1 }] : []),
        ],
      });
    }
    const herdBin = displayBinMs(a.slotMs, Math.ceil(tEnd / a.slotMs));
    // Goodput is noisy at the herd's resolution: coarser bins for it.
    const binMs = good ? smoothBinMs(herdBin, tEnd) : herdBin;
    const bins = Math.ceil(tEnd / binMs);
    const ba = rebinRun(a, this.buf, occ, binMs, bins, capped ? capacity : 0);
    // A's goodput into y1 when it is goodput that is compared; B's into y2 (A's second
    // series is not needed here).
    if (good) rebinRate(a.goodput, a.slotMs, binMs, ba.y1, bins);
    rebinRate(good ? b.goodput : b.offered, b.slotMs, binMs, ba.y2, bins);
    const ys = [ba.y1.subarray(0, bins), ba.y2.subarray(0, bins)];
    if (capped) ys.push(ba.y3.subarray(0, bins));
    this.chart.setData(ba.x.subarray(0, bins), ys, outage, tEnd);
  }
}
