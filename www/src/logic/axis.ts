// Which labels a time axis shows. A herd's axis is as wide as its figure: on a phone the
// compare panel's two small herds are ~160 px each, where eight labels ("0 s10 s20 s…")
// ran into each other and the last ran past the figure's edge.

import { niceTicks } from "./format.js";

/** A label of the axis: its tick, its text, and where it sits against the tick. */
export interface AxisLabel {
  t: number;
  text: string;
  /** "start": the label begins at its tick (the first, at the left edge); "end": it ends
   *  there (the last, at the right edge); else it is centred on it. */
  align: "start" | "center" | "end";
}

/**
 * The labels of an axis from 0 to `maxMs`, `widthPx` wide: the most ticks of a 1-2-5 step (up
 * to `count`) whose labels, each `measure(text)` px wide, fit side by side with `gapPx`
 * between them. Each label is centred on its tick, or kept inside the axis at an edge.
 * At least the first label is always shown.
 */
export function axisLabels(
  maxMs: number,
  widthPx: number,
  /** A tick's label; `ticks`: all of the axis's, for a unit they share. */
  text: (t: number, ticks: readonly number[]) => string,
  measure: (text: string) => number,
  count = 8,
  gapPx = 8,
): AxisLabel[] {
  let labels: AxisLabel[] = [];
  let step = "";
  for (let n = count; n >= 1; n--) {
    const ticks = niceTicks(maxMs, n);
    // Fewer ticks asked for often give the same step: no need to measure it again.
    const key = ticks.join();
    if (key === step) continue;
    step = key;
    labels = [];
    let right = -Infinity;
    let fits = true;
    for (const t of ticks) {
      const s = text(t, ticks);
      const w = measure(s);
      const x = maxMs > 0 ? (t / maxMs) * widthPx : 0;
      const align = x - w / 2 < 0 ? "start" : x + w / 2 > widthPx ? "end" : "center";
      const left = align === "start" ? x : align === "end" ? x - w : x - w / 2;
      if (left < right + gapPx) {
        fits = false;
        break;
      }
      right = left + w;
      labels.push({ t, text: s, align });
    }
    if (fits) return labels;
  }
  // Not even two fit: the first alone.
  return labels.slice(0, 1);
}
