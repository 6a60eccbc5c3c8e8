// The demo API's query parameters, read exactly as `stampede serve` reads them
// (crates/stampede-cli/src/serve/api/params.rs and hints.rs): the same decoding, the same
// ranges, the same 400 messages naming the parameter. Pure: no DOM, no Service Worker.

/** A `400` (or `404`) answer's status and message, `"name: problem"`. */
export class DemoError {
  constructor(
    readonly status: number,
    readonly message: string,
  ) {}

  /** A `400` about parameter `name`. */
  static bad(name: string, problem: string): DemoError {
    return new DemoError(400, `${name}: ${problem}`);
  }
}

/** Longest key accepted, in bytes (UTF-8). */
export const MAX_KEY_BYTES = 200;
/** The longest request method kept, in bytes. */
export const MAX_METHOD_BYTES = 16;

// `ignoreBOM`: a leading U+FEFF is part of the text, as in Rust (a decoder drops it by default).
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8Lossy = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

/** Percent-decodes `raw` with `+` for a space; a `%` not followed by two hex digits stays. */
/** A path segment percent-decoded as the server's router decodes it (`%XX` a byte, a stray
 *  `%` kept), or a 400 naming it when the bytes are not UTF-8, in the server's words. */
export function pathSegment(name: string, raw: string): string {
  try {
    return utf8.decode(formDecode(raw, false));
  } catch {
    throw DemoError.bad(name, `expected UTF-8 text once percent-decoded, got ${shown(raw)}`);
  }
}

function formDecode(raw: string, plusIsSpace = true): Uint8Array {
  const bytes = encoder.encode(raw);
  const out: number[] = [];
  const hex = (b: number | undefined) => (b === undefined ? -1 : parseInt(String.fromCharCode(b), 16));
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i] ?? 0;
    const hi = hex(bytes[i + 1]);
    const lo = hex(bytes[i + 2]);
    if (b === 0x25 && hi >= 0 && lo >= 0) {
      out.push(hi * 16 + lo);
      i += 3;
    } else {
      out.push(b === 0x2b && plusIsSpace ? 0x20 : b);
      i += 1;
    }
  }
  return Uint8Array.from(out);
}

/**
 * `value` quoted as Rust's `{:?}` shows a string (the server's messages use it), cut after
 * 40 characters.
 */
/** What Rust's `{:?}` escapes as `\u{…}`: the general categories its `is_printable`
 *  table leaves out (core/src/unicode/printable.py: Cc Cf Cs Co Cn Zl Zp, and Zs but the
 *  space), and grapheme extenders (`escape_grapheme_extended`, on for a `str`). */
const UNPRINTABLE = /^(?:[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}|\p{Grapheme_Extend})$/u;

export function shown(value: string): string {
  const chars = [...value];
  const cut = chars.length > 40;
  const quoted = chars
    .slice(0, 40)
    .map((c) => {
      switch (c) {
        case '"':
          return '\\"';
        case "\\":
          return "\\\\";
        case "\n":
          return "\\n";
        case "\r":
          return "\\r";
        case "\t":
          return "\\t";
        case "\0":
          return "\\0";
      }
      const code = c.codePointAt(0) ?? 0;
      return UNPRINTABLE.test(c) ? `\\u{${code.toString(16)}}` : c;
    })
    .join("");
  return `"${quoted}"${cut ? "…" : ""}`;
}

const U64_MAX = 0xffff_ffff_ffff_ffffn;

/** A string of ASCII digits as a bigint (no sign, no spaces) that fits a u64, as Rust's
 *  `parse_whole` reads it; else null. */
export function parseWhole(raw: string): bigint | null {
  if (!/^[0-9]+$/.test(raw)) return null;
  const n = BigInt(raw);
  return n <= U64_MAX ? n : null;
}

/** The query string as name/value pairs: the first occurrence of a name wins. */
export class Params {
  /** value: its decoded text, or the raw value when the decoded bytes are not UTF-8. */
  private constructor(private readonly pairs: [string, { ok: string } | { raw: string }][]) {}

  /** Parses a query (with or without its `?`) as `application/x-www-form-urlencoded`. */
  static parse(query: string): Params {
    const pairs: [string, { ok: string } | { raw: string }][] = [];
    for (const pair of query.replace(/^\?/, "").split("&")) {
      if (pair === "") continue;
      const eq = pair.indexOf("=");
      const [name, value] = eq < 0 ? [pair, ""] : [pair.slice(0, eq), pair.slice(eq + 1)];
      const decodedName = utf8Lossy.decode(formDecode(name));
      let decoded: { ok: string } | { raw: string };
      try {
        decoded = { ok: utf8.decode(formDecode(value)) };
      } catch {
        decoded = { raw: value };
      }
      pairs.push([decodedName, decoded]);
    }
    return new Params(pairs);
  }

  /** The first value of `name`, if any; a 400 naming it if it is not UTF-8 once decoded. */
  get(name: string): string | null {
    const found = this.pairs.find(([n]) => n === name);
    if (!found) return null;
    const value = found[1];
    if ("ok" in value) return value.ok;
    throw DemoError.bad(name, `expected UTF-8 text once percent-decoded, got ${shown(value.raw)}`);
  }

  /** The required `key`: 1 to 200 bytes. */
  key(): string {
    const key = this.optionalKey();
    if (key === null) throw DemoError.bad("key", `missing; expected 1 to ${MAX_KEY_BYTES} bytes`);
    return key;
  }

  /** `key` if given: 1 to 200 bytes. */
  optionalKey(): string | null {
    const key = this.get("key");
    if (key === null) return null;
    const bytes = encoder.encode(key).length;
    if (bytes === 0) throw DemoError.bad("key", `expected 1 to ${MAX_KEY_BYTES} bytes, got an empty key`);
    if (bytes > MAX_KEY_BYTES) throw DemoError.bad("key", `expected 1 to ${MAX_KEY_BYTES} bytes, got ${bytes} bytes`);
    return key;
  }

  /** The required whole number `name`, in `0..=max`. */
  number(name: string, max: number): number {
    const expected = `a whole number from 0 to ${max}`;
    const raw = this.get(name);
    if (raw === null) throw DemoError.bad(name, `missing; expected ${expected}`);
    const n = parseWhole(raw);
    if (n === null || n > BigInt(max)) throw DemoError.bad(name, `expected ${expected}, got ${shown(raw)}`);
    return Number(n);
  }

  /** `/api/flaky`'s `status`: a failing status, 400 to 599, default 503. */
  failingStatus(): number {
    const raw = this.get("status");
    if (raw === null) return 503;
    const n = parseWhole(raw);
    if (n === null || n < 400n || n > 599n) {
      throw DemoError.bad("status", `expected a failing HTTP status from 400 to 599, got ${shown(raw)}`);
    }
    return Number(n);
  }

  /** The optional hints `retry_after` (delta-seconds or an HTTP-date) and `pushback_ms` (i32). */
  hints(): Hints {
    const hints: Hints = {};
    const retryAfter = this.get("retry_after");
    if (retryAfter !== null) {
      const valid = (parseWhole(retryAfter) !== null || isHttpDate(retryAfter)) && /^[\t\x20-\x7e]*$/.test(retryAfter);
      if (!valid) {
        throw DemoError.bad(
          "retry_after",
          `expected delta-seconds (digits, at most ${U64_MAX}) or an HTTP-date such as "Wed, 21 Oct 2015 07:28:00 GMT", got ${shown(retryAfter)}`,
        );
      }
      hints.retryAfter = retryAfter;
    }
    const pushback = this.get("pushback_ms");
    if (pushback !== null) {
      // As Rust's i32 parses: an optional sign, then digits.
      const n = /^[+-]?[0-9]+$/.test(pushback) ? BigInt(pushback) : null;
      if (n === null || n < -2147483648n || n > 2147483647n) {
        throw DemoError.bad("pushback_ms", `expected a signed 32-bit integer, got ${shown(pushback)}`);
      }
      hints.pushbackMs = n.toString();
    }
    return hints;
  }
}

/** The `/api/status/{code}` code: a final HTTP status, 200 to 599. */
export function finalStatus(raw: string): number {
  const n = parseWhole(raw);
  if (n === null || n < 200n || n > 599n) {
    throw DemoError.bad("code", `expected an HTTP status from 200 to 599 (1xx is not a final status), got ${shown(raw)}`);
  }
  return Number(n);
}

/** Retry hints a failing answer carries, validated. */
export interface Hints {
  retryAfter?: string;
  pushbackMs?: string;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const LONG_DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/**
 * Whether `raw` is an HTTP-date as the `httpdate` crate accepts it: IMF-fixdate, RFC 850 or
 * asctime, a real date from 1970 to 9999 whose weekday is right.
 */
export function isHttpDate(raw: string): boolean {
  if (!/^[\x00-\x7f]*$/.test(raw)) return false;
  const s = raw.trim();
  const two = "([0-9]{2})";
  const time = `${two}:${two}:${two}`;
  const imf = new RegExp(`^(${DAYS.join("|")}), ${two} (${MONTHS.join("|")}) ([0-9]{4}) ${time} GMT$`).exec(s);
  const rfc850 = new RegExp(`^(${LONG_DAYS.join("|")}), ${two}-(${MONTHS.join("|")})-${two} ${time} GMT$`).exec(s);
  const asctime = new RegExp(`^(${DAYS.join("|")}) (${MONTHS.join("|")}) ( [0-9]|[0-9]{2}) ${time} ([0-9]{4})$`).exec(s);
  let wday: number, day: number, mon: number, year: number, h: number, m: number, sec: number;
  if (imf) {
    wday = DAYS.indexOf(imf[1] ?? "");
    [day, mon, year] = [Number(imf[2]), MONTHS.indexOf(imf[3] ?? ""), Number(imf[4])];
    [h, m, sec] = [Number(imf[5]), Number(imf[6]), Number(imf[7])];
  } else if (rfc850) {
    wday = LONG_DAYS.indexOf(rfc850[1] ?? "");
    const yy = Number(rfc850[4]);
    [day, mon, year] = [Number(rfc850[2]), MONTHS.indexOf(rfc850[3] ?? ""), yy < 70 ? 2000 + yy : 1900 + yy];
    [h, m, sec] = [Number(rfc850[5]), Number(rfc850[6]), Number(rfc850[7])];
  } else if (asctime) {
    wday = DAYS.indexOf(asctime[1] ?? "");
    [mon, day, year] = [MONTHS.indexOf(asctime[2] ?? ""), Number((asctime[3] ?? "").trim()), Number(asctime[7])];
    [h, m, sec] = [Number(asctime[4]), Number(asctime[5]), Number(asctime[6])];
  } else {
    return false;
  }
  if (sec > 59 || m > 59 || h > 23 || day < 1 || day > 31 || year < 1970 || year > 9999) return false;
  const d = new Date(Date.UTC(year, mon, day, h, m, sec));
  // A date that does not exist (31 Feb) rolls over; a wrong weekday does not match.
  return d.getUTCFullYear() === year && d.getUTCMonth() === mon && d.getUTCDate() === day && d.getUTCDay() === wday;
}

/** The request's method, as the server bounds it: at most 16 bytes. */
export function checkMethod(method: string): string {
  const bytes = encoder.encode(method).length;
  if (bytes > MAX_METHOD_BYTES) {
    throw DemoError.bad("method", `expected at most ${MAX_METHOD_BYTES} bytes, got ${bytes} bytes (${shown(method)})`);
  }
  return method;
}
