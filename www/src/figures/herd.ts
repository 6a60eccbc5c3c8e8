// The herd figure: the rasterised timeline on a canvas, plus two overlay elements that the
// playback moves each frame (a translucent curtain over the future and the playhead line),
// so animating costs two transforms and no canvas work.

import type { Lang } from "../logic/state.js";
import { formatAxisSeconds, niceTicks } from "../logic/format.js";
import { HerdScratch, rasterHerd, type HerdInput, type HerdPalette, type RasterStats } from "./raster.js";

export interface HerdParts {
  canvas: HTMLCanvasElement;
  /** Covers the part of the run the playhead has not reached. */
  curtain?: HTMLElement | null;
  playhead?: HTMLElement | null;
  /** Receives the time axis labels. */
  axis?: HTMLElement | null;
  /** Called when the canvas's box changes size (the caller redraws). */
  onResize?: () => void;
}

/** Backing-store limits: beyond these a pixel would not show more. */
const MAX_W = 2400;
const MAX_H = 1400;

export class HerdFigure {
  readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private readonly parts: HerdParts;
  private image: ImageData | null = null;
  private pixels = new Uint32Array(0);
  private readonly scratch = new HerdScratch();
  private cssWidth = 0;
  private cssHeight = 0;
  private tEndMs = 1;
  private axisKey = "";

  constructor(parts: HerdParts) {
    this.parts = parts;
    this.canvas = parts.canvas;
    const ctx = this.canvas.getContext("2d");
    if (!ctx) throw new Error("no 2d canvas");
    this.ctx = ctx;
    // The box's size is tracked, not measured per draw: measuring would force a layout.
    new ResizeObserver((entries) => {
      const box = entries[entries.length - 1]?.contentRect;
      if (!box || (Math.abs(box.width - this.cssWidth) < 0.5 && Math.abs(box.height - this.cssHeight) < 0.5)) return;
      this.cssWidth = box.width;
      this.cssHeight = box.height;
      parts.onResize?.();
    }).observe(this.canvas);
  }

  /** Matches the backing store to the element's box × devicePixelRatio. */
  private fit(): void {
    if (this.cssWidth === 0) {
      const rect = this.canvas.getBoundingClientRect();
      this.cssWidth = rect.width;
      this.cssHeight = rect.height;
    }
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    const w = Math.max(1, Math.min(MAX_W, Math.round(this.cssWidth * dpr)));
    const h = Math.max(1, Math.min(MAX_H, Math.round(this.cssHeight * dpr)));
    if (this.canvas.width !== w || this.canvas.height !== h || !this.image) {
      this.canvas.width = w;
      this.canvas.height = h;
      this.image = this.ctx.createImageData(w, h);
      this.pixels = new Uint32Array(this.image.data.buffer);
    }
  }

  draw(
    input: HerdInput,
    tEndMs: number,
    outage: [number, number] | null,
    palette: HerdPalette,
    lang: Lang,
  ): RasterStats {
    this.fit();
    const image = this.image;
    if (!image) return { marks: 0, clientsPerRow: 0 };
    this.tEndMs = Math.max(1, tEndMs);
    const stats = rasterHerd(
      this.pixels,
      input,
      { width: image.width, height: image.height, tEndMs: this.tEndMs, outage },
      palette,
      this.scratch,
    );
    this.ctx.putImageData(image, 0, 0);
    this.drawAxis(lang);
    return stats;
  }

  /** Moves the curtain and playhead to simulated time `tMs`. */
  setPlayhead(tMs: number): void {
    const p = Math.min(1, Math.max(0, tMs / this.tEndMs));
    const { curtain, playhead } = this.parts;
    if (curtain) curtain.style.transform = `scaleX(${1 - p})`;
    if (playhead) {
      playhead.style.transform = `translateX(${(p * this.cssWidth).toFixed(1)}px)`;
      playhead.hidden = p >= 1;
    }
  }

  private drawAxis(lang: Lang): void {
    const axis = this.parts.axis;
    if (!axis) return;
    const key = `${this.tEndMs}:${lang}`;
    if (key === this.axisKey) return;
    this.axisKey = key;
    axis.replaceChildren(
      ...niceTicks(this.tEndMs, 8).map((t) => {
        const tick = document.createElement("span");
        tick.className = "tick";
        tick.style.left = `${(100 * t) / this.tEndMs}%`;
        tick.textContent = formatAxisSeconds(t, lang);
        return tick;
      }),
    );
  }
}
