// A thrown error as plain data, the settings error's properties included.
//
// The package's settings errors carry what went wrong as own properties (`field`, `code`,
// `min`, `minExclusive`, `max`, `unit`, `allowed`, `got`). A structured clone — postMessage from the
// simulation worker — keeps an Error's name and message but drops its class and its own
// properties, so the worker sends this plain form instead, and the inline path uses the same
// form so the page handles both alike. Kept apart from errors.ts (wording and placement) so
// the worker does not load the page's dictionaries.

import type { SettingsErrorCode, Unit as SettingsUnit } from "stampede";

export type { SettingsErrorCode, SettingsUnit };

/** A thrown error as plain data: its name and message, and a settings error's properties. */
export interface SettingsErrorData {
  name: string;
  message: string;
  field?: string;
  code?: SettingsErrorCode;
  min?: number;
  /** True when `min` itself is refused (more than min). */
  minExclusive?: true;
  max?: number;
  unit?: SettingsUnit;
  allowed?: string[];
  /** The value given, when it was a primitive that survives a structured clone. */
  got?: string | number | boolean | bigint | null;
}

// Every code and unit, to keep only values the contract knows (a Record, so one added to
// the package's types fails to compile here until listed).
const CODES: Record<SettingsErrorCode, true> = {
  out_of_range: true,
  not_a_number: true,
  not_whole: true,
  wrong_type: true,
  unknown_value: true,
  too_long: true,
  bad_syntax: true,
  too_much_work: true,
  not_read: true,
};
const UNITS: Record<SettingsUnit, true> = { ms: true, per_second: true, count: true, fraction: true, chars: true };

/** A thrown value as plain, cloneable data; properties of the wrong type are left out. */
export function errorData(e: unknown): SettingsErrorData {
  if (!(e instanceof Error)) return { name: "Error", message: errorMessage(e) };
  const p = e as Error & Record<string, unknown>;
  const d: SettingsErrorData = { name: e.name, message: e.message };
  if (typeof p["field"] === "string") d.field = p["field"];
  const code = p["code"];
  if (typeof code === "string" && Object.hasOwn(CODES, code)) d.code = code as SettingsErrorCode;
  if (typeof p["min"] === "number") d.min = p["min"];
  if (p["minExclusive"] === true) d.minExclusive = true;
  if (typeof p["max"] === "number") d.max = p["max"];
  const unit = p["unit"];
  if (typeof unit === "string" && Object.hasOwn(UNITS, unit)) d.unit = unit as SettingsUnit;
  const allowed = p["allowed"];
  if (Array.isArray(allowed) && allowed.every((a) => typeof a === "string")) d.allowed = [...allowed];
  if (Object.hasOwn(p, "got")) {
    const got = p["got"];
    // A symbol would make postMessage throw; objects are not part of the contract.
    if (got === null || ["string", "number", "boolean", "bigint"].includes(typeof got)) d.got = got as SettingsErrorData["got"];
  }
  return d;
}

/** A thrown value's message, whatever was thrown. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === "string") return e;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}
