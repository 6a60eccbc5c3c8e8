// The whole state in the URL's query string, keyed by the controls' ids, so a link shows
// the same picture. Every key is written (not only those that differ from the defaults):
// a shared link must keep its picture even if a later version changes a default.
//
// Decoding is forgiving, key by key: an unknown key is ignored, and a value the page could
// not show — not a number, outside the field's envelope (the same check as a typed value),
// a speed the menu does not have, steady traffic beyond the page's limit — falls back to
// the default and is reported, so an old, truncated or hand-edited link still opens with a
// picture. (What only the package can judge, such as a cap below the base, is repaired
// after the first run: see App.repairFromLink.)

import { ALL_FIELDS, MAX_STEADY_REQUESTS, isRated, parseField, steadyRequests } from "./fields.js";
import {
  DEFAULT_STATE,
  cloneState,
  isBalance,
  isBudgetScope,
  isLang,
  isLatencyDist,
  isQueueOrder,
  isRowMode,
  isScenario,
  isServiceDist,
  isSizing,
  isSpeed,
  isStrategy,
  type Lang,
  type State,
} from "./state.js";

const BOOL = { on: "1", off: "0" };

export function encodeState(s: State, lang?: Lang): string {
  const q = new URLSearchParams();
  q.set("scenario", s.scenario);
  q.set("strategy", s.a.strategy);
  q.set("budget", s.a.budget ? BOOL.on : BOOL.off);
  q.set("budget-scope", s.budgetScope);
  q.set("b-strategy", s.b.strategy);
  q.set("b-budget", s.b.budget ? BOOL.on : BOOL.off);
  q.set("sizing", s.sizing);
  q.set("balance", s.balance);
  q.set("queue-order", s.queueOrder);
  q.set("service-dist", s.serviceDist);
  q.set("latency-dist", s.latencyDist);
  for (const f of ALL_FIELDS) q.set(f.id, numberText(f.get(s)));
  q.set("speed", numberText(s.speed));
  q.set("rows", s.rows);
  if (lang) q.set("lang", lang);
  return q.toString();
}

/** Shortest text that reads back as the same number (String(-0) is "0": not that). */
function numberText(v: number): string {
  return Object.is(v, -0) ? "-0" : String(v);
}

export interface Decoded {
  state: State;
  lang?: Lang;
  /** Keys present but unusable (kept at their defaults), in the order of the controls. */
  ignored: string[];
  /** What the link had for each ignored key. */
  given: Record<string, string>;
}

export function decodeState(search: string, base: State = DEFAULT_STATE): Decoded {
  const q = new URLSearchParams(search.startsWith("?") || search.startsWith("#") ? search.slice(1) : search);
  const s = cloneState(base);
  const ignored: string[] = [];
  const given: Record<string, string> = {};
  const refuse = (k: string, v: string) => {
    if (!ignored.includes(k)) ignored.push(k);
    given[k] = v;
  };
  const text = (k: string, ok: (v: string) => boolean, apply: (v: string) => void) => {
    const v = q.get(k);
    if (v === null) return;
    if (ok(v)) apply(v);
    else refuse(k, v);
  };
  text("scenario", isScenario, (v) => (s.scenario = v as State["scenario"]));
  text("strategy", isStrategy, (v) => (s.a.strategy = v as State["a"]["strategy"]));
  text("b-strategy", isStrategy, (v) => (s.b.strategy = v as State["b"]["strategy"]));
  text("budget-scope", isBudgetScope, (v) => (s.budgetScope = v as State["budgetScope"]));
  text("budget", isBool, (v) => (s.a.budget = v === BOOL.on));
  text("b-budget", isBool, (v) => (s.b.budget = v === BOOL.on));
  text("sizing", isSizing, (v) => (s.sizing = v as State["sizing"]));
  text("balance", isBalance, (v) => (s.balance = v as State["balance"]));
  text("queue-order", isQueueOrder, (v) => (s.queueOrder = v as State["queueOrder"]));
  text("service-dist", isServiceDist, (v) => (s.serviceDist = v as State["serviceDist"]));
  text("latency-dist", isLatencyDist, (v) => (s.latencyDist = v as State["latencyDist"]));
  for (const f of ALL_FIELDS) {
    // The same check as a typed value; the scenario (decoded above) sets the envelope.
    text(f.id, (v) => parseField(f, v, false, s.scenario).ok, (v) => f.set(s, Number(v)));
  }
  text("speed", (v) => isNumber(v) && isSpeed(Number(v)), (v) => (s.speed = Number(v)));
  text("rows", isRowMode, (v) => (s.rows = v as State["rows"]));
  // Steady traffic the page refuses as a whole: the link's traffic settings give way.
  if (isRated(s.scenario) && steadyRequests(s) > MAX_STEADY_REQUESTS) {
    const traffic: [string, "clients" | "ratePerClient" | "durationMs" | "spikeLengthMs" | "spikeFactor"][] = [
      ["clients", "clients"],
      ["rate", "ratePerClient"],
      ["duration", "durationMs"],
      ["spike-length", "spikeLengthMs"],
      ["spike-factor", "spikeFactor"],
    ];
    for (const [k, field] of traffic) {
      if (k.startsWith("spike-") && s.scenario !== "spike") continue;
      const v = q.get(k);
      if (v !== null && s[field] !== base[field]) {
        s[field] = base[field];
        refuse(k, v);
      }
    }
  }
  let lang: Lang | undefined;
  text("lang", isLang, (v) => (lang = v as Lang));
  return lang ? { state: s, lang, ignored, given } : { state: s, ignored, given };
}

function isBool(v: string): boolean {
  return v === BOOL.on || v === BOOL.off;
}

function isNumber(v: string): boolean {
  return v.trim() !== "" && Number.isFinite(Number(v));
}
