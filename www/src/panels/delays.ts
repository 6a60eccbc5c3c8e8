// The delay histograms: policy A's delay before each retry, sampled from the package
// (the same code that waits in retryFetch). They depend on policy A and the seed only, so
// they are resampled only when those change, and only while on screen: off screen the draw
// waits, and runs in a frame of its own once the panel comes into view.

import { DelayFigure, MAX_PANELS } from "../figures/delays.js";
import { errorData, localizeError } from "../logic/errors.js";
import { delayHistograms } from "../logic/histogram.js";
import { type State } from "../logic/state.js";
import { policyOptions } from "../logic/run.js";
import { sampleDelays } from "../wasm/bridge.js";
import { byId, type PanelContext } from "./panel.js";

/** Delay sequences sampled for the histograms. */
export const DELAY_SAMPLES = 4000;

export class DelaysPanel {
  private readonly figure = new DelayFigure(byId("delays"));
  private readonly note = byId("delays-note");
  /** What the drawn histograms were made from (policy, seed, language, colour). */
  private key = "";
  private onScreen = false;
  private waiting = false;

  constructor(private readonly ctx: PanelContext) {
    new IntersectionObserver(
      (entries) => {
        this.onScreen = entries.some((e) => e.isIntersecting);
        if (this.onScreen && this.waiting && ctx.frames.started) {
          this.waiting = false;
          ctx.frames.later("delays", () => this.draw(ctx.state()));
        }
      },
      { rootMargin: "300px 0px" },
    ).observe(byId("distributions"));
  }

  /** Draws for the current state now if on screen, else once the panel comes into view. */
  update(): void {
    if (this.onScreen) this.draw(this.ctx.state());
    else this.waiting = true;
  }

  /** Forgets the drawn histograms: the next draw samples afresh (language or colours changed). */
  invalidate(): void {
    this.figure.clear();
    this.key = "";
  }

  resize(): void {
    this.figure.resize();
  }

  private draw(s: State): void {
    const { t, lang, palette } = this.ctx.view();
    const retries = s.a.maxAttempts - 1;
    if (retries < 1) {
      this.key = "";
      this.figure.clear();
      this.note.textContent = t("delays.none");
      return;
    }
    this.note.textContent = retries > MAX_PANELS ? t("delays.more", { shown: MAX_PANELS, n: retries }) : "";
    // The histograms depend on policy A and the seed only.
    const key = `${JSON.stringify(policyOptions(s.a, s.seed))}|${lang}|${palette.histogram}`;
    if (key === this.key) return;
    this.key = key;
    let samples: Float64Array;
    try {
      samples = sampleDelays(policyOptions(s.a, s.seed), DELAY_SAMPLES);
    } catch (e) {
      this.note.textContent = localizeError(errorData(e), lang);
      this.key = "";
      return;
    }
    const h = delayHistograms(samples, retries);
    this.figure.set(h, {
      fill: palette.histogram,
      stroke: palette.histogram,
      grid: palette.grid,
      text: palette.text,
      lang,
      title: (n) => t("delays.retry", { n }),
      median: (v) => t("delays.median", { v }),
    });
    this.drawPanels();
  }

  /** The histograms' panels, one a frame (see `DelayFigure.set`). */
  private drawPanels(): void {
    this.ctx.frames.later("delay-panels", () => {
      if (this.figure.drawNext()) this.drawPanels();
    });
  }
}
