// Response headers given as `[name, value]` pairs, the third form of fetch's HeadersInit
// (beside a plain object and a Headers): both entries' classify reads them through here.

import { threwError, typeError } from "./errors.js";

const PAIRS = "an object, a Headers or [name, value] pairs";

/** `pairs` copied into a fresh array of `[name, value]` arrays, each name a string, or a
 *  TypeError naming `headers`: for a malformed pair, or for what the caller's iterators throw
 *  (its cause). Nothing the caller owns is read again after this. */
export function headerPairs(pairs) {
  let list;
  try {
    list = Array.from(pairs, (p) => (p !== null && typeof p === "object" ? Array.from(p) : p));
  } catch (err) {
    throw threwError("", "headers", err);
  }
  for (const p of list) {
    if (!Array.isArray(p) || p.length !== 2 || typeof p[0] !== "string") throw typeError("", "headers", PAIRS, p);
  }
  return list;
}
