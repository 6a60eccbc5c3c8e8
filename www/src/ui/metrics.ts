// Metrics on screen: the strip under the herd (stable hooks: `[data-metric=…]` holding the
// plain number, units and human forms beside it) and the compare table (A against B).

import { fairOnSuccesses, isBetter, unrecovered } from "../logic/better.js";
import { formatDuration, formatMultiple, formatNumber, metricText, type MetricName } from "../logic/format.js";
import type { Key } from "../logic/i18n.js";
import type { Lang, Scenario } from "../logic/state.js";
import type { Metrics } from "../wasm/bridge.js";
import type { T } from "./i18n-dom.js";

const STRIP: MetricName[] = [
  "peakRps",
  "peakRecoveryRps",
  "totalAttempts",
  "amplification",
  "recoveryMs",
  "completionMs",
  "successes",
  "gaveUp",
  "budgetRejected",
  "p99Ms",
  "goodputRps",
  "timeouts",
  "wasted",
  "maxQueue",
];

let stripEls: { name: MetricName; value: HTMLElement | null; aside: HTMLElement | null }[] | null = null;
let hideEls: HTMLElement[] = [];
/** The unit beside the peak's card: writes/s for the contention experiment, req/s else. */
let peakUnit: HTMLElement | null = null;

function setText(el: HTMLElement | null, text: string): void {
  if (el && el.textContent !== text) el.textContent = text;
}

/** The metrics measured from the outage's end: without an outage in the run they mean
 *  nothing (a collapse after a spike showed "Recovery 0 ms"), so they are hidden then (their
 *  hooks keep a plain number, as every `[data-metric]` does). */
const AFTER_OUTAGE: ReadonlySet<MetricName> = new Set(["peakRecoveryRps", "recoveryMs"]);
let afterOutageEls: HTMLElement[] = [];

/** `capacityRps`: the fleet's (Infinity with unlimited workers: no "× capacity" then).
 *  `outage`: whether the run has one. */
/** `trafficLeftMs`: with ongoing traffic, how long it lasted after the outage ended. */
export function showMetrics(m: Metrics, capacityRps: number, scenario: Scenario, outage: boolean, t: T, lang: Lang, trafficLeftMs?: number): void {
  if (!stripEls) {
    stripEls = STRIP.map((name) => ({
      name,
      value: document.querySelector<HTMLElement>(`[data-metric="${name}"]`),
      aside: document.querySelector<HTMLElement>(`[data-aside="${name}"]`),
    }));
    hideEls = [...document.querySelectorAll<HTMLElement>("[data-hide-for]")];
    peakUnit = document.querySelector<HTMLElement>('[data-metric="peakRps"] ~ .unit');
    afterOutageEls = stripEls.flatMap(({ name, value }) => {
      const el = AFTER_OUTAGE.has(name) ? value?.closest<HTMLElement>(".metric") : null;
      return el ? [el] : [];
    });
  }
  // The contention experiment's load is writes to one row: its peak is in writes per second,
  // as its chart says (the card said req/s). The key stays on the span, so a language switch
  // renders the same unit (ui/i18n-dom.ts).
  const unitKey = scenario === "aws-occ" ? "unit.wps" : "unit.rps";
  if (peakUnit && peakUnit.dataset["i18n"] !== unitKey) {
    peakUnit.dataset["i18n"] = unitKey;
    setText(peakUnit, t(unitKey));
  }
  for (const { name, value, aside } of stripEls) {
    const text = metricText(name, m[name as keyof Metrics]);
    setText(value, text);
    // A card is ~110 px inside on a phone: nine digits at the cards' size ran past its edge
    // (a peak of 102282970 requests/s). The hook keeps the plain number: smaller type instead.
    value?.classList.toggle("long", text.length > 7 && text.length <= 9);
    value?.classList.toggle("longer", text.length > 9);
    setText(aside, asideText(name, m, capacityRps, scenario, t, lang, trafficLeftMs));
  }
  for (const el of hideEls) {
    // The cards measured from the outage's end, and the herd's outage swatch, need one.
    const needsOutage = afterOutageEls.includes(el) || el.dataset["needsOutage"] !== undefined;
    const hidden = (el.dataset["hideFor"] ?? "").split(" ").includes(scenario) || (!outage && needsOutage);
    if (el.hidden !== hidden) el.hidden = hidden;
  }
}

/** How long the results stay unchanged before a screen reader hears them: a drag or a run
 *  of arrow presses is one announcement, at rest, not one a run. */
const ANNOUNCE_AFTER_MS = 1000;
let announceTimer: ReturnType<typeof setTimeout> | undefined;

/** Says the run's outcome in one sentence in a polite live region (`#sr-summary`, visually
 *  hidden): a screen reader heard nothing back from a slider, the figure being a picture
 *  and the cards numbers that change in place. */
export function announce(m: Metrics, t: T, lang: Lang): void {
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    const el = document.getElementById("sr-summary");
    if (!el) return;
    setText(
      el,
      t("sr.summary", {
        successes: formatNumber(m.successes, lang),
        requests: formatNumber(m.requests, lang),
        peak: formatNumber(m.peakRps, lang),
        amplification: formatNumber(m.amplification, lang, 2),
      }),
    );
  }, ANNOUNCE_AFTER_MS);
}

function asideText(name: MetricName, m: Metrics, cap: number, scenario: Scenario, t: T, lang: Lang, trafficLeftMs?: number): string {
  switch (name) {
    case "peakRps":
    case "peakRecoveryRps":
      return scenario === "aws-occ" || !Number.isFinite(cap) ? "" : t("metric.capacityMultiple", { x: formatMultiple(m[name] / cap, lang) });
    case "goodputRps":
      return t("metric.ofThroughput", { n: formatNumber(m.throughputRps, lang, 1) });
    case "timeouts":
      return m.totalAttempts > 0 ? t("metric.ofAttempts", { p: formatNumber((100 * m.timeouts) / m.totalAttempts, lang, 1) }) : "";
    case "wasted":
      return t("metric.wastedAside");
    case "maxQueue":
      return t("metric.maxQueueAside");
    case "amplification":
      // Below 1 only when some requests sent nothing at all (blocked before their first attempt).
      return m.amplification < 1 ? t("metric.perRequestBlocked") : t("metric.perRequest");
    case "recoveryMs":
      // No attempt after the outage: the server was never tested (every client gave up
      // during it), which a bare "0 ms" made read as the best recovery of all.
      if (m.peakRecoveryRps === 0) return t("metric.nobodyBack");
      // Overloaded into the traffic's last window (100 ms): it came back only when the
      // traffic stopped, which a bare "45 s" made read as a recovery.
      // (The bracket is how long the traffic lasted after the outage: it showed the recovery
      // figure again, "not while the traffic lasted (2.8 min)" beside a 1.8 min run.)
      if (trafficLeftMs !== undefined && unrecovered(m.recoveryMs, trafficLeftMs)) return t("metric.notRecovered", { d: formatDuration(trafficLeftMs, lang) });
      return formatDuration(m.recoveryMs, lang);
    case "completionMs":
      return formatDuration(m[name], lang);
    case "p99Ms":
      return m.p99Ms === null ? "" : formatDuration(m.p99Ms, lang);
    case "successes":
      return t("metric.ofRequests", { n: formatNumber(m.requests, lang) });
    default:
      return "";
  }
}

// --- Compare table ---------------------------------------------------------------------------

interface Row {
  key: Key;
  value: (m: Metrics, cap: number) => number | null;
  text: (v: number | null, lang: Lang) => string;
  /** Which is better: the lower value, or the higher. */
  better: "lower" | "higher";
  scenarios?: Scenario[];
  /** Measured from the outage's end: "—" in a run without one. */
  afterOutage?: true;
  /** Ticked only in a run where some request succeeded (the completion of a run whose every
   *  request gave up came soonest, and read as the better one). */
  needsSuccess?: true;
  /** Measured over the successes: ticked only in a run that served at least as many
   *  (logic/better.ts, fairOnSuccesses). */
  overSuccesses?: true;
}

const count = (v: number | null, lang: Lang) => (v === null ? "—" : formatNumber(v, lang));
const duration = (v: number | null, lang: Lang) => (v === null ? "—" : formatDuration(v, lang));
const NOT_OCC: Scenario[] = ["burst", "steady", "spike", "closed"];
/** A multiple of the capacity; none with unlimited workers. */
const ofCapacity = (v: number, cap: number) => (Number.isFinite(cap) && cap > 0 ? v / cap : null);

const ROWS: Row[] = [
  { key: "cmp.peakRecovery", value: (m, c) => ofCapacity(m.peakRecoveryRps, c), text: (v, l) => (v === null ? "—" : formatMultiple(v, l)), better: "lower", scenarios: NOT_OCC, afterOutage: true },
  { key: "cmp.peak", value: (m, c) => ofCapacity(m.peakRps, c), text: (v, l) => (v === null ? "—" : formatMultiple(v, l)), better: "lower", scenarios: NOT_OCC },
  { key: "cmp.goodput", value: (m) => m.goodputRps, text: (v, l) => (v === null ? "—" : formatNumber(v, l, 1)), better: "higher", scenarios: NOT_OCC, overSuccesses: true },
  { key: "cmp.totalAttempts", value: (m) => m.totalAttempts, text: count, better: "lower", scenarios: NOT_OCC },
  { key: "cmp.calls", value: (m) => m.calls, text: count, better: "lower", scenarios: ["aws-occ"] },
  { key: "cmp.amplification", value: (m) => m.amplification, text: (v, l) => (v === null ? "—" : formatNumber(v, l, 2)), better: "lower" },
  { key: "cmp.recovery", value: (m) => m.recoveryMs, text: duration, better: "lower", scenarios: NOT_OCC, afterOutage: true },
  { key: "cmp.completion", value: (m) => m.completionMs, text: duration, better: "lower", needsSuccess: true },
  { key: "cmp.p50", value: (m) => m.p50Ms, text: duration, better: "lower", overSuccesses: true },
  { key: "cmp.p99", value: (m) => m.p99Ms, text: duration, better: "lower", overSuccesses: true },
  { key: "cmp.successes", value: (m) => m.successes, text: count, better: "higher" },
  { key: "cmp.gaveUp", value: (m) => m.gaveUp, text: count, better: "lower" },
  { key: "cmp.blocked", value: (m) => m.budgetRejected, text: count, better: "lower", scenarios: NOT_OCC },
  { key: "cmp.timeouts", value: (m) => m.timeouts, text: count, better: "lower", scenarios: NOT_OCC },
  { key: "cmp.wasted", value: (m) => m.wasted, text: count, better: "lower", scenarios: NOT_OCC },
];

/** `text` with its spaces made no-break: a number and its unit stay on one line. */
const unbroken = (text: string) => text.replace(/ /g, "\u00a0");

export class CompareTable {
  private readonly body: HTMLTableSectionElement;
  private readonly cells: { row: HTMLTableRowElement; label: HTMLElement; a: HTMLElement; b: HTMLElement }[] = [];

  constructor(table: HTMLTableElement) {
    this.body = table.tBodies[0] ?? table.createTBody();
    for (const r of ROWS) {
      const row = this.body.insertRow();
      const label = document.createElement("th");
      label.scope = "row";
      label.dataset["i18n"] = r.key;
      row.append(label);
      const a = row.insertCell();
      const b = row.insertCell();
      a.dataset["cmp"] = `a:${r.key}`;
      b.dataset["cmp"] = `b:${r.key}`;
      this.cells.push({ row, label, a, b });
    }
  }

  /** `outage`: whether the runs have one (the rows measured from its end read "—" if not).
   *  `trafficLeftMs`: with ongoing traffic, how long it lasted after the outage; a recovery
   *  that never came while it lasted reads `notRecovered` and counts as the worst. */
  show(a: Metrics | null, b: Metrics | null, cap: number, scenario: Scenario, outage: boolean, lang: Lang, trafficLeftMs?: number, notRecovered = "—"): void {
    ROWS.forEach((r, i) => {
      const c = this.cells[i];
      if (!c) return;
      c.row.hidden = !!r.scenarios && !r.scenarios.includes(scenario);
      const applies = outage || !r.afterOutage;
      const recovery = r.key === "cmp.recovery";
      const never = (m: Metrics | null) => !!m && applies && recovery && unrecovered(m.recoveryMs, trafficLeftMs);
      // Nobody came back after the outage (every client gave up during it): the server was
      // never tested, and "0 ms" was ticked the best recovery of all. The card says so.
      const untested = (m: Metrics) => (recovery || r.key === "cmp.peakRecovery") && m.peakRecoveryRps === 0;
      const value = (m: Metrics | null) => (m && applies ? (never(m) ? Infinity : untested(m) ? null : r.value(m, cap)) : null);
      const text = (m: Metrics | null, v: number | null) => (!m ? "…" : never(m) ? notRecovered : r.text(v, lang));
      const va = value(a);
      const vb = value(b);
      const ta = text(a, va);
      const tb = text(b, vb);
      // A value stays with its unit on a phone ("58.1 s" broke after the number); a cell of
      // words (a recovery that never came) wraps as words do.
      c.a.textContent = never(a) ? ta : unbroken(ta);
      c.b.textContent = never(b) ? tb : unbroken(tb);
      // Done sooner because every request gave up is no better: no tick for that.
      const tickable = (m: Metrics | null, other: Metrics | null) =>
        (!r.needsSuccess || (m !== null && m.successes > 0)) && (!r.overSuccesses || (m !== null && other !== null && fairOnSuccesses(m.successes, other.successes)));
      c.a.classList.toggle("better", tickable(a, b) && isBetter(va, vb, r.better, ta, tb));
      c.b.classList.toggle("better", tickable(b, a) && isBetter(vb, va, r.better, tb, ta));
    });
  }
}
