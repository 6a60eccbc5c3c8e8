// The entries of a headers argument that is not a Headers (nothing with `get(name)`), read as
// fetch's HeadersInit reads them: an iterable (an Array, a Set, a generator, `arguments`) is
// a sequence of [name, value] pairs, anything else a record of its own properties. Both
// entries' classify read them through here (the full entry's Rust through a `catch` binding).

import { rangeError, threwError, typeError } from "./errors.js";

/** A server's hint value as the core reads it: one longer than `max` (the core's
 *  `MAX_TEXT_CHARS`) is cut to `max + 1` units (a surrogate pair kept whole), which the core
 *  rules malformed (src/retry_after.rs, `overlong`) without the rest being copied. Both entries'
 *  classify, parseRetryAfter and the slim retryFetch cut through here (the full entry's Rust
 *  through a binding; its retryFetch's inline snippet, src/fetch/js.rs, does the same). */
export const cutHint = (h, max) => (h.length <= max ? h : h.slice(0, (h.charCodeAt(max) & 0xfc00) === 0xd800 ? max + 2 : max + 1));

/** The most pairs read: more is no response's headers (and a hostile iterable never ends). */
const MAX_PAIRS = 10_000;
const PAIRS = "an object, a Headers or [name, value] pairs";

/** `h`'s entries as fresh `[name, value]` arrays, each name a string: for a record its own
 *  enumerable properties, for an iterable its pairs, each checked as it is read (the first
 *  malformed one stops the walk, so a huge or endless iterable costs nothing more). A TypeError
 *  names `headers` for a malformed pair, or for what the caller's code throws (its cause); a
 *  RangeError for more than MAX_PAIRS pairs. Nothing the caller owns is read again after this. */
export function headerEntries(h) {
  const out = [];
  let bad = false;
  let culprit;
  try {
    if (typeof h[Symbol.iterator] !== "function") return Object.entries(h);
    for (const p of h) {
      const pair = p !== null && typeof p === "object" && typeof p[Symbol.iterator] === "function" ? firstThree(p) : undefined;
      if (pair?.length !== 2 || typeof pair[0] !== "string" || out.length === MAX_PAIRS) {
        bad = true;
        culprit = p;
        break;
      }
      out.push(pair);
    }
  } catch (err) {
    throw threwError("", "headers", err);
  }
  if (!bad) return out;
  if (out.length === MAX_PAIRS) throw rangeError("", "headers", `at most ${MAX_PAIRS} [name, value] pairs`, h);
  throw typeError("", "headers", PAIRS, culprit);
}

/** The first three items of the iterable `p` (three: enough to tell a pair from a longer one). */
function firstThree(p) {
  const items = [];
  for (const x of p) if (items.push(x) === 3) break;
  return items;
}
