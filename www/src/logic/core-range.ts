// A value past the package's range for its option, found without running: while one field's
// own problem blocks the run, the package judges no other field, and a value past its range
// there got no word until the first was mended. These are the package's words for it, from
// its ranges (generated/core.ts), for what a run would send.

import { CORE_LIMITS } from "../generated/core.js";
import type { SettingsErrorData } from "./error-data.js";
import type { FieldError } from "./errors.js";
import type { NumberField } from "./fields.js";
import { optionsFor } from "./options.js";

/** The value at a dotted option path ("policy.baseMs") of built options; undefined if absent. */
export function valueAt(options: unknown, path: string): unknown {
  let v = options;
  for (const key of path.split(".")) v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[key] : undefined;
  return v;
}

/**
 * The package's refusal of control `id`'s value `v`, as its error would be (a RangeError,
 * `out_of_range`, with its range), when `sent` (the options a run would send, built as the
 * run builds them) carries `v` for the control's option and `v` is past that option's range;
 * null otherwise (a value the run does not send, as a timeout of 0 that means none, is the
 * package's to ignore).
 */
export function coreRangeError(id: string, v: number, sent: unknown): FieldError | null {
  const name = optionsFor(id).find((n) => CORE_LIMITS[n] !== undefined && valueAt(sent, n) === v);
  const refusal = name === undefined ? null : rangeRefusal(name, v);
  return refusal && { ...refusal, control: id };
}

/**
 * The error the package throws for option `name` (as `limits()` names it) given `v` past its
 * range, from the page's build-time copy of those ranges; null when the package takes it, or
 * has no range for it.
 */
export function rangeRefusal(name: string, v: number): SettingsErrorData | null {
  const l = CORE_LIMITS[name];
  if (!l) return null;
  const low = l.minExclusive ? v <= l.min : v < l.min;
  if (!low && v <= l.max) return null;
  return {
    name: "RangeError",
    message: `${name}: out of range`,
    field: name,
    code: "out_of_range",
    min: l.min,
    ...(l.minExclusive ? { minExclusive: true as const } : {}),
    max: l.max,
    ...(l.unit ? { unit: l.unit } : {}),
    got: v,
  };
}

/**
 * The package's refusal `e` of a value past field `f`'s own range, for a field its peers bound
 * (`within`; `peer` gives a shown peer's value): the range they leave, as the package's
 * refusal of a value inside the field's range names it (a cap of -5 read "from 0 ms" beside a
 * base of 2 s, where a cap of 0 read "from 2,000 ms"). `e` itself otherwise.
 */
export function byPeers(e: FieldError, f: NumberField, peer: (id: string) => number | undefined): FieldError {
  if (!f.within || e.code !== "out_of_range" || typeof e.got !== "number" || e.min === undefined || e.max === undefined) return e;
  const lo = f.within.min === undefined ? undefined : peer(f.within.min);
  const hi = f.within.max === undefined ? undefined : peer(f.within.max);
  const min = lo !== undefined && Number.isFinite(lo) && e.got < lo ? Math.max(e.min, lo) : e.min;
  const max = hi !== undefined && Number.isFinite(hi) && e.got > hi ? Math.min(e.max, hi) : e.max;
  if (min > max || (min === e.min && max === e.max)) return e;
  if (min === e.min) return { ...e, max };
  // The peer's value is a least value accepted, not one past it.
  const { minExclusive: _, ...rest } = e;
  return { ...rest, min, max };
}
