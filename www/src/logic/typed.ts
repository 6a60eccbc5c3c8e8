// A panel's own typed number (issue #12's panels: `#nets-fail-rate`, `#hedge-delay`,
// `#layers`, …): read as the settings form reads its fields (logic/fields.ts), within the
// panel's envelope. The envelope is what the panel can run at once on the page; whether a
// value makes sense as a setting is still the package's to say when it runs.

import type { FieldProblem, Parsed } from "./fields.js";
import type { Key } from "./i18n.js";

export interface Envelope {
  min: number;
  max: number;
  integer?: boolean;
}

/** A typed value within `env` (`badInput`: the browser says the text is not a number). */
export function parseTyped(text: string, env: Envelope, badInput = false): Parsed {
  const t = text.trim();
  if (badInput) return { ok: false, problem: { kind: "nan" } };
  if (t === "") return { ok: false, problem: { kind: "empty" } };
  const v = Number(t);
  if (!Number.isFinite(v)) return { ok: false, problem: { kind: "nan" } };
  if (env.integer && !Number.isInteger(v)) return { ok: false, problem: { kind: "integer" } };
  if (v < env.min || v > env.max) return { ok: false, problem: { kind: "range", min: env.min, max: env.max } };
  return { ok: true, value: v };
}

/** The dictionary's words for a problem, and what fills them. */
export function problemWords(p: FieldProblem): { key: Key; vars?: Record<string, number> } {
  switch (p.kind) {
    case "empty":
      return { key: "err.empty" };
    case "nan":
      return { key: "err.nan" };
    case "integer":
      return { key: "err.integer" };
    case "range":
      return { key: "err.range", vars: { min: p.min, max: p.max } };
  }
}
