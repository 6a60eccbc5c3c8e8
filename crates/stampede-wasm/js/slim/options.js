// The slim entry's options: read here, checked in wasm.
//
// JavaScript reads every option — a getter or Proxy trap that throws, a value of the wrong
// type: a TypeError naming the field, as the full entry's — and stages what it found, by
// slot, as numbers and strings (src/slim/opts.rs); the wasm checks every range with the
// core's rules and keeps a bad value's error for `lastError`, built here into the same
// RangeError as the full entry's (js/errors.js). What to read comes from the wasm
// (`schema`): every name is the core's field's JavaScript name, none is written here.
import { FetchCall, lastError, lastErrorNumbers, schema, stage, stageText, unstage } from "./wasm.js";
import { arrayOptions, notRead, settingsError, threwError, typeError, rangeError, unpairedError } from "../errors.js";
import { cutHint } from "../headers.js";

export { threwError };

/** Where an entry is read (src/slim/opts.rs, `At`). */
export const FETCH = 0;
export const CLASSIFY = 1;
export const POLICY = 2;
export const BUDGET = 3;
/** What it is (`Kind`). */
const NUMBER = 0;
const TEXT = 1;
const BOOL = 2;
const FINITE = 3;
const BUDGET_KIND = 4;
export const HEADER = 5;
const GROUP = 6;
/** The budget kind a budget without `kind` is. */
const BUCKET = 1;

let entries;
let kinds;
let maxText;
/** The transport errors' names, by the codes FetchCall takes (0 connect, 1 timeout, 2 abort). */
let transportNames;

/** A transport error's name by the wasm's number ("timeout", "connect", …): read from the
 *  schema, which a call with no options at all has not parsed yet. */
export function transportName(i) {
  table();
  return transportNames[i];
}

/** The schema, parsed once: `{ at, kind, kinds, slot, name }` in reading order. */
export function table() {
  if (!entries) {
    const code = (l, i) => l.charCodeAt(i) - 48;
    const lines = schema().split("\n").filter(Boolean);
    [kinds, transportNames] = lines.filter((l) => l[0] === "#").map((l) => l.slice(1).split(","));
    entries = lines
      .filter((l) => l[0] !== "#")
      .map((l) => ({ at: code(l, 0), kind: code(l, 1), kinds: code(l, 2), slot: code(l, 3), name: l.slice(4) }));
    maxText = FetchCall.maxText();
  }
  return entries;
}

/** `v[key]`, which may run a getter or a Proxy trap: an exception names `{prefix}{key}`. */
export function get(v, prefix, key) {
  try {
    return Reflect.get(v, key);
  } catch (e) {
    throw threwError(prefix, key, e);
  }
}

/** `v` as a string of at most the core's `MAX_TEXT_CHARS` characters, checked before it is
 *  copied into wasm memory (which never shrinks). */
export function text(v, prefix, field) {
  table();
  if (typeof v !== "string") throw typeError(prefix, field, "a string", v);
  if (v.length > maxText) throw settingsError(prefix, field, "too_long", v, 5, NaN, maxText, "chars", true, undefined, "");
  if (/\p{Cs}/u.test(v)) throw unpairedError(prefix, field, v);
  return v;
}

/** A hint value given to `classify` or `parseRetryAfter`: a string of any length, cut as
 *  `cutHint` cuts it (a setting's string longer than `maxText` is refused; a header's is the
 *  server's, which the caller only passes on). */
export function hintText(v, prefix, field) {
  table();
  if (typeof v !== "string") throw typeError(prefix, field, "a string", v);
  const h = cutHint(v, maxText);
  if (/\p{Cs}/u.test(h)) throw unpairedError(prefix, field, h);
  return h;
}

/** A finite number argument (`nowMs`), or undefined when omitted. */
export function finite(v, field, prefix = "") {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number") throw typeError(prefix, field, "a number", v);
  if (!Number.isFinite(v)) throw rangeError(prefix, field, "a finite number", v);
  return v;
}

/** Reads the options object `value` (`what` in an error; `undefined` or `null` for none):
 *  the entries read at `at`, named under `prefix`, go into `ops` for [`commit`](#commit).
 *  Returns the values read, by name. */
export function read(value, what, prefix, at, ops, found = {}) {
  if (value === undefined || value === null) return found;
  if (typeof value !== "object" || arrayOptions(value, what)) throw typeError("", what, "an object", value);
  let kind = 15;
  for (const e of table()) {
    if (e.at !== at) continue;
    if (e.kind === BUDGET_KIND) kind = BUCKET;
    if (e.kind === HEADER) continue;
    // A field only other kinds of budget read is refused, naming them (an unknown kind:
    // none, and the wasm names the kind).
    const foreign = e.kind !== GROUP && !(e.kinds & kind);
    if (foreign && !(kind & 15)) continue;
    const v = get(value, prefix, e.name);
    if (v === undefined || v === null) continue;
    if (foreign) throw notRead(prefix, e.name, kinds[Math.log2(kind)], kinds.filter((_, i) => e.kinds & (1 << i)).join(), v);
    found[e.name] = v;
    switch (e.kind) {
      case NUMBER:
      case FINITE:
        if (e.kind === FINITE) finite(v, e.name, prefix);
        else if (typeof v !== "number") throw typeError(prefix, e.name, "a number", v);
        ops.push([e.slot, v]);
        break;
      case BOOL:
        if (typeof v !== "boolean") throw typeError(prefix, e.name, "true or false", v);
        ops.push([e.slot, v ? 1 : 0]);
        break;
      case GROUP:
        ops.push([e.slot, 1]);
        read(v, e.name, `${e.name}.`, e.kinds, ops);
        break;
      default:
        ops.push([e.slot, text(v, prefix, e.name)]);
        // A budget reads its kind's fields only (an unknown kind: none, and the wasm
        // names the kind).
        // Named as the core's lookup compares: trimmed of Unicode white space, ASCII letters
        // in either case (error.rs, find_name).
        if (e.kind === BUDGET_KIND) kind = 1 << kinds.indexOf(v.replace(/^\p{White_Space}+|\p{White_Space}+$/gu, "").replace(/[A-Z]/g, (c) => c.toLowerCase()));
    }
  }
  return found;
}

/** Stages `ops` (numbers and strings by slot, as `read` collected them) in the wasm, in
 *  place of whatever was staged before. Only once every getter of the caller's objects has
 *  run: a getter may call back into the package, whose own call stages its own values. */
export function commit(ops) {
  unstage();
  for (const [slot, v] of ops) {
    if (typeof v === "string") stageText(slot, v);
    else stage(slot, v);
  }
}

/** The RangeError of the settings error the wasm kept (src/slim/errors.rs). */
export function fail() {
  const parts = lastError().split("\u0001");
  const [prefix, field, code, unit, allowed, detail] = parts;
  const [shape, min, max, whole, got, isText] = lastErrorNumbers();
  const value = isText ? parts.slice(6).join("\u0001") : got;
  return settingsError(prefix, field, code, value, shape, min, max, unit, whole === 1, shape === 3 ? allowed.split("\u0002") : undefined, detail);
}

/** The wasm's answer `v`, or the settings error it kept when it gave none (`undefined`,
 *  or NaN for a number). */
export function ok(v) {
  if (v === undefined || Number.isNaN(v)) throw fail();
  return v;
}

/** A number the wasm returns NaN for when there is none (src/call.rs, `or_nan`). */
export const opt = (v) => (Number.isNaN(v) ? undefined : v);

let origin;
/** The monotonic clock (ms, on the epoch scale: `Date.now()` at the first reading plus
 *  `performance.now()` since), which budgets and deadlines run on: see src/clock.rs. */
export function now() {
  if (typeof performance === "undefined") return Date.now();
  const p = performance.now();
  origin ??= Date.now() - p;
  return origin + p;
}
