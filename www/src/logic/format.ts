// Numbers as the page shows them. Metric elements hold plain number text ("10000", "3.25")
// that a test or a reader's script can parse; the human-friendly forms go beside them.

import type { Lang } from "./state.js";

export type MetricName =
  | "peakRps"
  | "peakRecoveryRps"
  | "totalAttempts"
  | "amplification"
  | "recoveryMs"
  | "completionMs"
  | "successes"
  | "gaveUp"
  | "budgetRejected"
  | "p50Ms"
  | "p99Ms"
  | "requests"
  | "calls"
  | "goodputRps"
  | "throughputRps"
  | "timeouts"
  | "wasted"
  | "maxQueue"
  | "meanMs";

/** Shown when a metric has no value (no request succeeded, so no latency). */
export const NO_VALUE = "—";

/**
 * The plain number text of a metric: integers for counts, peaks and times; 2 decimals for
 * ratios; 1 for goodput and throughput (a collapse's few requests per second must not read 0).
 */
export function metricText(name: MetricName, v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return NO_VALUE;
  if (name === "amplification") return String(Math.round(v * 100) / 100);
  if (name === "goodputRps" || name === "throughputRps") return String(Math.round(v * 10) / 10);
  return String(Math.round(v));
}

function locale(lang: Lang): string {
  return lang === "ru" ? "ru-RU" : "en-US";
}

const intFormats = new Map<string, Intl.NumberFormat>();
function intFormat(lang: Lang, digits: number): Intl.NumberFormat {
  const key = `${lang}:${digits}`;
  let f = intFormats.get(key);
  if (!f) {
    f = new Intl.NumberFormat(locale(lang), { maximumFractionDigits: digits });
    intFormats.set(key, f);
  }
  return f;
}

const bigFormats = new Map<Lang, Intl.NumberFormat>();
function bigFormat(lang: Lang): Intl.NumberFormat {
  let f = bigFormats.get(lang);
  if (!f) {
    f = new Intl.NumberFormat(locale(lang), { notation: "scientific", maximumSignificantDigits: 6 });
    bigFormats.set(lang, f);
  }
  return f;
}

/** Past this, a number is written in scientific notation ("1E308"), not in every digit. */
const BIG = 1e15;

/** `text` cut to its first `max` characters (code points: an emoji is never split into
 *  half a surrogate pair), with "…" when it was longer. */
export function clipText(text: string, max: number): string {
  const chars = [...text];
  return chars.length > max ? `${chars.slice(0, max).join("")}…` : text;
}

/** `v` in full, every digit of it and up to 20 decimals: for bounds and values a message
 *  quotes, which must not be rounded (9,007,199,254,740,991, not 9.0072E15). */
export function formatFull(v: number, lang: Lang): string {
  if (!Number.isFinite(v)) return NO_VALUE;
  return intFormat(lang, 20).format(v);
}

/** 12 345 / 12,345, with up to `digits` decimals; 1.5E20 past a quadrillion. */
export function formatNumber(v: number, lang: Lang, digits = 0): string {
  if (!Number.isFinite(v)) return NO_VALUE;
  if (Math.abs(v) >= BIG) return bigFormat(lang).format(v);
  return intFormat(lang, digits).format(v);
}

const UNITS = {
  en: { ms: "ms", s: "s", min: "min", h: "h" },
  ru: { ms: "мс", s: "с", min: "мин", h: "ч" },
} as const;

/** A duration for people: "350 ms", "2 s", "1.5 s", "2.5 min". */
export function formatDuration(ms: number, lang: Lang): string {
  if (!Number.isFinite(ms)) return NO_VALUE;
  const u = UNITS[lang];
  const abs = Math.abs(ms);
  if (abs < 1000) return `${formatNumber(ms, lang, abs < 10 ? 1 : 0)} ${u.ms}`;
  if (abs < 60_000) return `${formatNumber(ms / 1000, lang, abs < 10_000 ? 2 : 1)} ${u.s}`;
  if (abs < 3_600_000) return `${formatNumber(ms / 60_000, lang, 1)} ${u.min}`;
  return `${formatNumber(ms / 3_600_000, lang, 1)} ${u.h}`;
}

/** A clock reading for the playhead: "12.34 s". */
export function formatClock(ms: number, lang: Lang): string {
  return `${formatNumber(ms / 1000, lang, 2)} ${UNITS[lang].s}`;
}

/** "×12.5" — a load as a multiple of capacity. */
export function formatMultiple(ratio: number, lang: Lang): string {
  if (!Number.isFinite(ratio)) return NO_VALUE;
  return `×${formatNumber(ratio, lang, ratio < 10 ? 2 : 1)}`;
}

/** Short axis labels: 0, 500, 1k, 2.5k, 1M. */
export function formatCompact(v: number, lang?: Lang): string {
  const a = Math.abs(v);
  const text = a >= 1e6 ? `${trim(v / 1e6)}M` : a >= 1e3 ? `${trim(v / 1e3)}k` : trim(v);
  return decimalMark(text, lang);
}

/** A number's text with the decimal mark of `lang` (a comma in Russian, as the rest of the
 *  page writes "0,33 с"; the charts' axes read "7.5k"). */
function decimalMark(text: string, lang?: Lang): string {
  return lang === "ru" ? text.replace(".", ",") : text;
}

/**
 * The labels of an axis's ticks (`splits`, evenly spaced): compact as {@link formatCompact}
 * ("1.5k", "2M"), each with as many decimals as it needs to read its own value, so that no
 * two read the same (an axis of 0 to 1 read "0, 0.3, 0.5, 0.8" for 0.25, 0.5, 0.75, and one
 * of thousands "1.3k" for 1250). `log`: a base-10 log axis, whose minor ticks (2–9 × 10^k) get
 * no label (each had one, piled up under the powers of ten).
 */
export function formatTicks(splits: readonly (number | null)[], log = false, lang?: Lang): string[] {
  if (log) return splits.map((v) => (v == null || v <= 0 || Math.abs(Math.log10(v) - Math.round(Math.log10(v))) > 1e-9 ? "" : formatCompact(v, lang)));
  const xs = splits.filter((v): v is number => v != null);
  const step = xs.length > 1 ? Math.abs(xs[1]! - xs[0]!) : 0;
  return splits.map((v) => {
    if (v == null) return "";
    const a = Math.abs(v);
    const [unit, suffix] = a >= 1e6 ? [1e6, "M"] : a >= 1e3 ? [1e3, "k"] : [1, ""];
    // Within a millionth of the step: the float noise of a tick is no digit to show.
    const tolerance = (step > 0 ? step : a || 1) * 1e-6;
    let digits = 0;
    while (digits < 6 && Math.abs(Number((v / unit).toFixed(digits)) * unit - v) > tolerance) digits++;
    return decimalMark(`${Number((v / unit).toFixed(digits))}${suffix}`, lang);
  });
}

function trim(v: number): string {
  return String(Math.round(v * 10) / 10);
}

/** Axis seconds: "0 s", "2 s", "1.5 s", "2 min". */
export function formatAxisSeconds(ms: number, lang: Lang, ticks?: readonly number[]): string {
  const u = UNITS[lang];
  const unit = axisUnit(ticks ?? [ms]);
  if (unit === "min") return `${trim(ms / 60_000)} ${u.min}`;
  if (unit === "s") return `${trim(ms / 1000)} ${u.s}`;
  return `${Math.round(ms)} ${u.ms}`;
}

/** One unit for all of an axis's `ticks` (ms): minutes from two minutes, when every tick is a
 *  whole minute (one tick alone, from two minutes); else seconds from a second (or at 0);
 *  else ms. An axis read "0 s, 50 s, 100 s, 2.5 min" when each tick chose its own. */
function axisUnit(ticks: readonly number[]): "min" | "s" | "ms" {
  const most = Math.max(0, ...ticks.map(Math.abs));
  const whole = ticks.length === 1 || ticks.every((t) => t % 60_000 === 0);
  if (most >= 120_000 && whole) return "min";
  if (most >= 1000 || most === 0) return "s";
  return "ms";
}

/** Ticks for an axis from 0 to `max`: a 1-2-5 step giving about `count` of them. */
export function niceTicks(max: number, count = 6): number[] {
  if (!(max > 0)) return [0];
  const raw = max / count;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((x) => x >= raw) ?? 10 * mag;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}
