// The herd figure: the rasterised timeline on a canvas, plus two overlay elements that the
// playback moves each frame (a translucent curtain over the future and the playhead line),
// so animating costs two transforms and no canvas work.
//
// With a scroller (the main figure), the canvas is a window onto a picture that may be
// taller than the view: one pixel row per client, up to 10,000 of them. The scroller lies
// over the canvas and holds only a spacer as tall as the whole picture, so the browser
// scrolls natively (wheel, touch, keyboard, scrollbar); each scroll redraws just the rows in
// view into the viewport-sized canvas.

import type { Lang } from "../logic/state.js";
import { axisLabels } from "../logic/axis.js";
import { formatAxisSeconds } from "../logic/format.js";
import { HerdScratch, rasterHerd, type HerdInput, type HerdPalette, type RasterStats, type RowMode } from "./raster.js";

export interface HerdParts {
  canvas: HTMLCanvasElement;
  /** Covers the part of the run the playhead has not reached. */
  curtain?: HTMLElement | null;
  playhead?: HTMLElement | null;
  /** Receives the time axis labels. */
  axis?: HTMLElement | null;
  /** Called when the canvas's box changes size (the caller redraws). */
  onResize?: () => void;
  /** A scroll container over the canvas, and the spacer inside it that makes it tall. */
  scroller?: HTMLElement | null;
  spacer?: HTMLElement | null;
  /** Called when the scroller moves (the caller redraws from what it kept). */
  onScroll?: () => void;
}

/** Measures axis labels (one canvas for every figure; it is never drawn). */
let measurer: CanvasRenderingContext2D | null = null;

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
  /** The axis's font, read once (reading it is a style recalculation). */
  private axisFont = "";
  private spacerPx = -1;
  private gutterPx = 0;
  /** The rows' scroll position (CSS px), as the last scroll event left it. */
  private scrollTop = 0;

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
    const scroller = parts.scroller;
    if (scroller) {
      // The scroll position is kept from the scroll events, not read per draw: reading
      // scrollTop after the page changed forces a layout, 0.7 ms of every 100,000-client
      // update. (A position the browser clamps, when the rows shrink, comes as an event
      // too; until then the raster clamps it.)
      scroller.addEventListener(
        "scroll",
        () => {
          this.scrollTop = scroller.scrollTop;
          parts.onScroll?.();
        },
        { passive: true },
      );
      this.measureGutter();
      new ResizeObserver(() => {
        if (this.measureGutter()) parts.onResize?.();
      }).observe(scroller);
    }
  }

  /**
   * The scrollbar's width (0 for overlay scrollbars). The scroller keeps its gutter even
   * when nothing scrolls, so the canvas beside it has one width in both row modes.
   */
  get gutter(): number {
    return this.gutterPx;
  }

  private measureGutter(): boolean {
    const s = this.parts.scroller;
    if (!s) return false;
    const g = Math.max(0, s.offsetWidth - s.clientWidth);
    if (g === this.gutterPx) return false;
    this.gutterPx = g;
    // The canvas, curtain and axis stop where the gutter starts.
    const host = s.closest<HTMLElement>(".herd-figure") ?? s.parentElement;
    host?.style.setProperty("--gutter", `${g}px`);
    return true;
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

  /** Backing pixels per CSS pixel, down. */
  private ratio(): number {
    return this.cssHeight > 0 ? this.canvas.height / this.cssHeight : 1;
  }

  draw(
    input: HerdInput,
    tEndMs: number,
    outage: [number, number] | null,
    palette: HerdPalette,
    lang: Lang,
    mode: RowMode = "fit",
  ): RasterStats {
    this.fit();
    const image = this.image;
    const scroller = this.parts.scroller;
    const rowMode: RowMode = scroller ? mode : "fit";
    const ratio = this.ratio();
    this.tEndMs = Math.max(1, tEndMs);
    const stats = rasterHerd(
      this.pixels,
      input,
      {
        width: image?.width ?? 1,
        height: image?.height ?? 1,
        tEndMs: this.tEndMs,
        outage,
        mode: rowMode,
        scrollPx: scroller ? this.scrollTop * ratio : 0,
        patternPx: Math.round(ratio),
      },
      palette,
      this.scratch,
    );
    if (image) this.ctx.putImageData(image, 0, 0);
    this.sizeSpacer(stats.map.virtualHeight > stats.map.height ? stats.map.virtualHeight / ratio : 0);
    this.drawAxis(lang);
    return stats;
  }

  /** The spacer's height in CSS px: the whole picture, or 0 when it fits in view. */
  private sizeSpacer(px: number): void {
    const spacer = this.parts.spacer;
    if (!spacer) return;
    const h = Math.round(px);
    if (h === this.spacerPx) return;
    this.spacerPx = h;
    spacer.style.height = `${h}px`;
    const scroller = this.parts.scroller;
    if (scroller) {
      if (h > 0) scroller.setAttribute("tabindex", "0");
      else scroller.removeAttribute("tabindex");
    }
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
    const width = Math.round(this.cssWidth);
    const key = `${this.tEndMs}:${lang}:${width}`;
    if (key === this.axisKey) return;
    this.axisKey = key;
    // As many labels as fit the figure's width, measured in the axis's font: a small herd
    // gets fewer than a wide one.
    this.axisFont ||= axisFont(axis);
    const measure = labelMeasure(this.axisFont);
    axis.replaceChildren(
      ...axisLabels(this.tEndMs, width, (t, ticks) => formatAxisSeconds(t, lang, ticks), measure).map(({ t, text, align }) => {
        const tick = document.createElement("span");
        tick.className = align === "center" ? "tick" : `tick ${align}`;
        tick.style.left = `${(100 * t) / this.tEndMs}%`;
        tick.textContent = text;
        return tick;
      }),
    );
  }
}

/** `el`'s font as a canvas takes it. (The shorthand reads empty when a longhand such as
 *  font-variant-numeric cannot be written in it: built from its parts.) */
function axisFont(el: HTMLElement): string {
  const cs = getComputedStyle(el);
  return `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
}

/** The width of a label in `font`, in CSS px. */
function labelMeasure(font: string): (text: string) => number {
  measurer ??= document.createElement("canvas").getContext("2d");
  const ctx = measurer;
  if (!ctx) return (text) => text.length * 7;
  ctx.font = font;
  return (text) => ctx.measureText(text).width;
}
