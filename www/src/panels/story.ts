// A story's side-by-side pictures: the same servers and traffic with one thing changed
// (no retries, jitter with a budget, a LIFO queue…), each a small goodput figure with the
// goodput left after the trigger under it. Shown while the story's preset is on show; an
// edit to the settings hides them (the pictures would no longer be the story's).
//
// Each variant runs in a lane of its own (in the worker when it is big), after policy A's
// picture; a variant's run is kept, so a resize or a change of language redraws it without
// simulating again.

import { GoodputFigure } from "../figures/goodput.js";
import { formatNumber } from "../logic/format.js";
import type { Preset, Variant } from "../logic/presets.js";
import { meanRateAfter, timeDomain } from "../logic/rates.js";
import { displayBinMs, smoothBinMs } from "../logic/series.js";
import { isOngoing } from "../logic/state.js";
import { outageWindow, simOptions, spikeWindow, triggerEnd } from "../logic/run.js";
import { measure } from "../timing.js";
import type { SimResult } from "../wasm/bridge.js";
import { ResultKeeper } from "../wasm/keep.js";
import type { SimRunner } from "../wasm/runner.js";
import { byId, type PanelContext } from "./panel.js";
import { setAttr, setHidden } from "../ui/dom.js";

interface StoryFig {
  variant: Variant;
  lane: string;
  root: HTMLElement;
  title: HTMLElement;
  num: HTMLElement;
  figure: GoodputFigure;
  keep: ResultKeeper;
  result: SimResult | null;
  /** The highest rate its figure drew. */
  peak: number;
}

export class StoryPanel {
  private readonly host = byId("story-figs");
  private figs: StoryFig[] = [];
  private preset: Preset | null = null;
  /** The time axis every picture shares: the longest of the runs so far. */
  private spanMs = 1;

  constructor(
    private readonly ctx: PanelContext,
    private readonly runner: SimRunner,
  ) {}

  /** Shows `preset`'s variants (running each), or hides the panel (null, or no variants). */
  show(preset: Preset | null): void {
    const variants = preset?.variants ?? [];
    if (preset === this.preset && this.figs.length > 0) return;
    this.clear();
    this.preset = variants.length > 0 ? preset : null;
    setHidden(this.host, this.preset === null);
    setAttr(this.host, "data-story", this.preset?.id ?? "");
    variants.forEach((variant, i) => this.figs.push(this.build(variant, i)));
    this.relabel();
    for (const fig of this.figs) this.ctx.frames.later(fig.lane, () => this.run(fig));
  }

  private build(variant: Variant, i: number): StoryFig {
    const root = document.createElement("figure");
    root.className = "story-fig";
    root.dataset["storyFig"] = String(i);
    const caption = document.createElement("figcaption");
    const title = document.createElement("span");
    title.className = "story-title";
    const num = document.createElement("div");
    num.className = "story-num";
    num.dataset["storyGoodput"] = "";
    caption.append(title);
    const goodput = document.createElement("div");
    goodput.className = "chart";
    const queue = document.createElement("div");
    queue.className = "chart queue";
    root.append(caption, goodput, queue, num);
    this.host.append(root);
    return {
      variant,
      lane: `story-${i}`,
      root,
      title,
      num,
      figure: new GoodputFigure({ goodput, queue, mini: true }),
      keep: new ResultKeeper((r) => this.runner.recycle(r)),
      result: null,
      peak: 0,
    };
  }

  private clear(): void {
    for (const fig of this.figs) fig.figure.destroy();
    this.figs = [];
    this.spanMs = 1;
    this.host.replaceChildren();
  }

  private run(fig: StoryFig): void {
    const started = performance.now();
    this.runner.run(fig.lane, simOptions(fig.variant.state, "a"), (o) => {
      // The story was left meanwhile.
      if (!this.figs.includes(fig)) {
        if (o.ok) this.runner.recycle(o.result);
        return;
      }
      if (!o.ok) {
        fig.num.textContent = o.error.message;
        return;
      }
      fig.result = fig.keep.keep(o.result);
      this.spanMs = this.span();
      // The pictures share one time axis and one rate axis: each arrival redraws them all.
      this.drawAll();
      measure("stampede:story", started);
    });
  }

  /** Draws every picture that has its run, on a shared rate axis (the highest peak). */
  private drawAll(): void {
    let top = 0;
    for (const fig of this.figs) top = Math.max(top, this.draw(fig, 0));
    for (const fig of this.figs) if (fig.peak < top) this.draw(fig, top);
  }

  /** Draws one picture, its rate axis at least `yFloor`; returns its peak rate. */
  private draw(fig: StoryFig, yFloor: number): number {
    const r = fig.result;
    if (!r) return 0;
    const s = fig.variant.state;
    const { lang, t } = this.ctx.view();
    const tEnd = Math.max(this.spanMs, timeDomain(s, r));
    const binMs = smoothBinMs(displayBinMs(r.slotMs, Math.ceil(tEnd / r.slotMs)), tEnd, 60);
    fig.peak = fig.figure.draw(r, this.ctx.view(), binMs, Math.ceil(tEnd / binMs), tEnd, outageWindow(s) ?? spikeWindow(s), yFloor);
    // What is left once the trigger is over: the story's measure.
    const end = isOngoing(s.scenario) ? s.durationMs : r.goodput.length * r.slotMs;
    const after = meanRateAfter(r.goodput, r.slotMs, triggerEnd(s), end);
    fig.num.dataset["storyGoodput"] = String(Math.round(after * 10) / 10);
    fig.num.textContent = t("story.goodput", { n: formatNumber(after, lang, 1) });
    fig.root.setAttribute("aria-label", t("story.aria", { label: t(fig.variant.label) }));
    return fig.peak;
  }

  private span(): number {
    let span = 1;
    for (const f of this.figs) if (f.result) span = Math.max(span, timeDomain(f.variant.state, f.result));
    return span;
  }

  /** Words in the reader's language (the figures are rebuilt at their next draw). */
  relabel(): void {
    const { t } = this.ctx.view();
    for (const fig of this.figs) {
      fig.title.textContent = t(fig.variant.label);
      fig.figure.invalidate();
    }
  }

  /** Redraws the kept runs (resize, language, colours). */
  redraw(): void {
    for (const fig of this.figs) fig.figure.resize();
    this.drawAll();
  }
}
