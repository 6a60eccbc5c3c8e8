// Settings errors from the package, for the reader.
//
// Every settings error the package throws is a RangeError or TypeError that carries what went
// wrong as data: the option (`field`: "policy.baseMs", "budget.capacity", "clients"), a
// `code`, and where they apply the bounds (`min`, `max`, `unit`), the allowed values and the
// value given. The page places the message next to the control `field` names and words it
// in the reader's language from those properties, with its own labels. It never reads the
// English text: an error without a code, or about an option the page has no control for,
// is shown with the package's own message.

import { fieldById } from "./fields.js";
import { formatFull } from "./format.js";
import type { SettingsErrorData, SettingsUnit } from "./error-data.js";
import type { Key } from "./i18n.js";
import { isKey, translate } from "./translate.js";
import { controlFor } from "./options.js";
import type { Lang, Side } from "./state.js";

export { errorData, errorMessage, type SettingsErrorData } from "./error-data.js";

/** A settings error where it belongs: next to `control` (null: no control fits). */
export interface FieldError extends SettingsErrorData {
  control: string | null;
}

/**
 * Where a settings error belongs. `side` is the policy the run used: policy fields of a B
 * run belong to the compare panel's controls.
 */
export function locateError(e: SettingsErrorData, side: Side = "a"): FieldError {
  return { ...e, control: e.field === undefined ? null : controlFor(e.field, side) };
}

// --- Messages in the reader's language ------------------------------------------------------

/** The live panel's controls, whose labels are the panel's own. */
const LIVE_LABELS: Record<string, Key> = { "live-timeout": "live.timeout", "live-hedge-delay": "live.hedgeDelay" };

/** The label key of a control (the form's are "field.<id>"). */
export function labelKey(control: string): string {
  return Object.hasOwn(LIVE_LABELS, control) ? (LIVE_LABELS[control] as Key) : `field.${control}`;
}

/** The label of a control in `lang` (undefined when the page has none). */
function controlLabel(control: string, lang: Lang): string | undefined {
  const key = labelKey(control);
  return isKey(key) ? translate(lang, key) : undefined;
}

/**
 * A number in full (a bound or a value given must not be rounded): "86,400,000", "0.0000001";
 * past 1e21 or below 1e-12, as JavaScript writes it ("1e+308"), not in hundreds of digits.
 */
function exact(v: number, lang: Lang): string {
  const a = Math.abs(v);
  if (a >= 1e21 || (a !== 0 && a < 1e-12)) return String(v);
  return formatFull(v, lang);
}

/** A bound as the page writes numbers, with its unit: "86,400,000 ms", "10,000/s". */
function bound(v: number, unit: SettingsUnit | undefined, lang: Lang): string {
  const n = exact(v, lang);
  if (unit === "ms") return `${n} ${translate(lang, "unit.ms")}`;
  if (unit === "per_second") return `${n}${translate(lang, "unit.perSec")}`;
  return n;
}

/** `v` to three significant digits, rounded towards zero. */
function roundDown(v: number): number {
  if (v === 0 || !Number.isFinite(v)) return v;
  const step = 10 ** (Math.floor(Math.log10(Math.abs(v))) - 2);
  return Number((Math.trunc(v / step) * step).toPrecision(3));
}

/** The value given, as typed: numbers exactly (NaN and Infinity by name), text quoted. */
function given(v: Exclude<SettingsErrorData["got"], undefined>, lang: Lang): string {
  if (typeof v === "number") return Number.isFinite(v) ? exact(v, lang) : String(v);
  if (typeof v === "string") return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return String(v);
}

/** A message's text and its placeholders (besides the label). */
interface Sentence {
  key: Key;
  vars: Record<string, string>;
}

/** The sentence for an error's code (null: no code, so no words of the page's own). */
function sentence(e: SettingsErrorData, whole: boolean, lang: Lang, none?: number): Sentence | null {
  const min = e.min === undefined ? undefined : bound(e.min, e.unit, lang);
  const max = e.max === undefined ? undefined : bound(e.max, e.unit, lang);
  const range = (both: Key, atLeast: Key, atMost: Key, neither: Key): Sentence => {
    // A field whose "none" lies below the range (the client timeout's 0) offers it too:
    // "enter a value from 1 ms" beside a label reading "(0: none)" read as a contradiction.
    if (min !== undefined && max !== undefined && none !== undefined && e.min !== undefined && none < e.min && both === "set.range") {
      return { key: "set.rangeOrNone", vars: { none: exact(none, lang), min, max } };
    }
    if (min !== undefined && max !== undefined) return { key: e.minExclusive ? "set.aboveRange" : both, vars: { min, max } };
    if (min !== undefined) return { key: atLeast, vars: { min } };
    if (max !== undefined) return { key: atMost, vars: { max } };
    return { key: neither, vars: {} };
  };
  switch (e.code) {
    case "out_of_range":
      // The error does not say whether the option is whole; the page's field does.
      return whole ? range("set.wholeRange", "set.wholeAtLeast", "set.wholeAtMost", "set.outOfRange") : range("set.range", "set.atLeast", "set.atMost", "set.outOfRange");
    case "not_a_number":
      return { key: "set.nan", vars: {} };
    case "not_whole":
      return range("set.wholeRange", "set.wholeAtLeast", "set.wholeAtMost", "set.whole");
    case "wrong_type":
      return { key: "set.type", vars: {} };
    case "unknown_value":
      return e.allowed ? { key: "set.oneOf", vars: { allowed: e.allowed.join(", ") } } : { key: "set.unknown", vars: {} };
    case "too_long":
      return e.max === undefined ? { key: "set.tooLongNoMax", vars: {} } : { key: "set.tooLong", vars: { max: exact(e.max, lang) } };
    case "bad_syntax":
      return { key: "set.syntax", vars: {} };
    case "not_read":
      return { key: "set.notRead", vars: {} };
    case "too_much_work":
      // This max is computed from the other settings (0.0333… requests per client per
      // second), not declared: three significant digits, rounded down so it still fits.
      if (e.max !== undefined) return { key: "set.work", vars: { max: bound(roundDown(e.max), e.unit, lang) } };
      // Only a larger value fits (a closed loop's think): the least, rounded up by the core.
      return e.min === undefined ? { key: "set.workNoMax", vars: {} } : { key: "set.workAtLeast", vars: { min: bound(e.min, e.unit, lang) } };
    case undefined:
      return null;
  }
}

/**
 * A settings error in `lang`: the control's label and what the control accepts, built from
 * the error's properties; the package's own message when the page has no label for its
 * field or the error carries no code.
 */
export function localizeError(e: SettingsErrorData, lang: Lang): string {
  const control = e.field === undefined ? null : controlFor(e.field);
  const label = control === null ? undefined : controlLabel(control, lang);
  const field = control === null ? undefined : fieldById(control);
  const what = sentence(e, field?.integer === true, lang, field?.none);
  if (label === undefined || what === null) return e.message;
  const text = translate(lang, what.key, { label, ...what.vars });
  if (e.got === undefined) return text;
  return `${text} ${translate(lang, "set.got", { got: given(e.got, lang) })}`;
}
