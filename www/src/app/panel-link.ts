// The panels' own settings in the link: the safety nets' failure, rate and scope, the
// hedge's delay, where to retry in a chain of services and how long the chain is, and the
// rate charts' log scale. They are not the State (no main run reads them), but a teacher who
// set the nets panel to "30% failures, one client's calls" shares that picture. Only values
// that differ from the page's own go into the address; a link's value the control cannot
// take is left out and named in the link's note.

import { HEDGE_DELAY_ENVELOPE } from "../logic/hedging.js";
import { LAYERS_ENVELOPE, LAYER_ATTEMPTS_ENVELOPE } from "../logic/layers.js";
import { FAIL_RATE_RANGE } from "../logic/nets.js";
import { parseTyped, type Envelope } from "../logic/typed.js";

/** The select controls, by id: the link takes one of their options' values. */
const SELECTS = ["nets-failure", "nets-scope", "retry-at"] as const;
/** The number controls, by id, with the envelope their panel reads. */
const NUMBERS: Record<string, Envelope> = {
  "nets-fail-rate": FAIL_RATE_RANGE,
  "hedge-delay": HEDGE_DELAY_ENVELOPE,
  layers: LAYERS_ENVELOPE,
  "layers-attempts": LAYER_ATTEMPTS_ENVELOPE,
};
/** The check boxes, by id: "1" checked, "0" not. */
const BOXES = ["load-log"] as const;

function select(id: string): HTMLSelectElement | null {
  const el = document.getElementById(id);
  return el instanceof HTMLSelectElement ? el : null;
}

function input(id: string): HTMLInputElement | null {
  const el = document.getElementById(id);
  return el instanceof HTMLInputElement ? el : null;
}

/** `text` as its panel reads it (logic/typed.ts), or null when the panel would refuse it. */
function within(text: string, env: Envelope): number | null {
  const p = parseTyped(text, env);
  return p.ok ? p.value : null;
}

/** The value the page starts a select with (its `selected` option, else its first). */
function defaultOf(el: HTMLSelectElement): string {
  const options = [...el.options];
  return (options.find((o) => o.defaultSelected) ?? options[0])?.value ?? "";
}

/** Sets the panels' controls from `search` before the panels are built. Returns the
 *  link's values that could not be used, as `key=value` (clipped by the caller's note). */
export function applyPanelParams(search: string): string[] {
  const q = new URLSearchParams(search.startsWith("?") ? search.slice(1) : search);
  const refused: string[] = [];
  for (const id of SELECTS) {
    const el = select(id);
    const v = q.get(id);
    if (!el || v === null) continue;
    if ([...el.options].some((o) => o.value === v)) el.value = v;
    else refused.push(`${id}=${v}`);
  }
  for (const [id, range] of Object.entries(NUMBERS)) {
    const el = input(id);
    const v = q.get(id);
    if (!el || v === null) continue;
    const n = within(v, range);
    if (n !== null) el.value = String(n);
    else refused.push(`${id}=${v}`);
  }
  for (const id of BOXES) {
    const el = input(id);
    const v = q.get(id);
    if (!el || v === null) continue;
    if (v === "1" || v === "0") el.checked = v === "1";
    else refused.push(`${id}=${v}`);
  }
  return refused;
}

/** The panels' settings that differ from the page's own, as `&key=value` pairs to append
 *  to the state's query ("" when none do). */
export function panelQuery(): string {
  const pairs: [string, string][] = [];
  for (const id of SELECTS) {
    const el = select(id);
    if (el && el.value !== defaultOf(el)) pairs.push([id, el.value]);
  }
  for (const [id, range] of Object.entries(NUMBERS)) {
    const el = input(id);
    if (!el) continue;
    const n = within(el.value, range);
    // A value the panel refuses (it keeps its last picture) stays out of the link.
    if (n !== null && el.value !== el.defaultValue) pairs.push([id, String(n)]);
  }
  for (const id of BOXES) {
    const el = input(id);
    if (el && el.checked !== el.defaultChecked) pairs.push([id, el.checked ? "1" : "0"]);
  }
  return pairs.map(([k, v]) => `&${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("");
}

/** The ids whose changes the address follows. */
export const PANEL_LINK_IDS: readonly string[] = [...SELECTS, ...Object.keys(NUMBERS), ...BOXES];
