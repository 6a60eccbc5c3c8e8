// The whole state in the URL's query string, keyed by the controls' ids, so a link shows
// the same picture. Every key is written (not only those that differ from the defaults):
// a shared link must keep its picture even if a later version changes a default.
//
// Decoding is forgiving: an unknown key is ignored, a malformed value keeps the default,
// so an old or hand-edited link still opens.

import { ALL_FIELDS } from "./fields.js";
import {
  DEFAULT_STATE,
  cloneState,
  isBudgetScope,
  isLang,
  isScenario,
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
  for (const f of ALL_FIELDS) q.set(f.id, numberText(f.get(s)));
  q.set("speed", numberText(s.speed));
  if (lang) q.set("lang", lang);
  return q.toString();
}

/** Shortest text that reads back as the same number. */
function numberText(v: number): string {
  return String(v);
}

export interface Decoded {
  state: State;
  lang?: Lang;
  /** Keys present but unreadable (kept at their defaults). */
  ignored: string[];
}

export function decodeState(search: string, base: State = DEFAULT_STATE): Decoded {
  const q = new URLSearchParams(search.startsWith("?") || search.startsWith("#") ? search.slice(1) : search);
  const s = cloneState(base);
  const ignored: string[] = [];
  const text = (k: string, ok: (v: string) => boolean, apply: (v: string) => void) => {
    const v = q.get(k);
    if (v === null) return;
    if (ok(v)) apply(v);
    else ignored.push(k);
  };
  text("scenario", isScenario, (v) => (s.scenario = v as State["scenario"]));
  text("strategy", isStrategy, (v) => (s.a.strategy = v as State["a"]["strategy"]));
  text("b-strategy", isStrategy, (v) => (s.b.strategy = v as State["b"]["strategy"]));
  text("budget-scope", isBudgetScope, (v) => (s.budgetScope = v as State["budgetScope"]));
  text("budget", isBool, (v) => (s.a.budget = v === BOOL.on));
  text("b-budget", isBool, (v) => (s.b.budget = v === BOOL.on));
  for (const f of ALL_FIELDS) {
    text(f.id, isNumber, (v) => f.set(s, Number(v)));
  }
  text("speed", isNumber, (v) => (s.speed = Number(v)));
  let lang: Lang | undefined;
  text("lang", isLang, (v) => (lang = v as Lang));
  return lang ? { state: s, lang, ignored } : { state: s, ignored };
}

function isBool(v: string): boolean {
  return v === BOOL.on || v === BOOL.off;
}

function isNumber(v: string): boolean {
  return v.trim() !== "" && Number.isFinite(Number(v));
}
