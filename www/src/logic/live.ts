// The live panel's pure parts: reading the headers box, the default flaky URL, and the
// call site that names the budget's bucket.

export interface ParsedHeaders {
  headers: Record<string, string>;
  /** Lines that are not `Name: value` (1-based line numbers). */
  bad: number[];
}

/** HTTP header names are tokens (RFC 9110 §5.1). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** `Name: value` per line; blank lines and `#` comments are skipped. */
export function parseHeaders(text: string): ParsedHeaders {
  const headers: Record<string, string> = {};
  const bad: number[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim() : "";
    if (!TOKEN.test(name)) {
      bad.push(i + 1);
      return;
    }
    headers[name] = line.slice(colon + 1).trim();
  });
  return { headers, bad };
}

/** A short random key, so each visit's flaky endpoint starts fresh. */
export function randomKey(random: () => number = Math.random): string {
  let k = "";
  const abc = "abcdefghijklmnopqrstuvwxyz0123456789";
  for (let i = 0; i < 8; i++) k += abc[Math.floor(random() * abc.length)] ?? "x";
  return k;
}

/** The demo server's flaky endpoint on the page's own origin: two 503s, then 200. */
export function defaultLiveUrl(key: string): string {
  return `/api/flaky?key=${encodeURIComponent(key)}&fail=2&status=503&retry_after=1`;
}

/** The budget's bucket for a call: its method and path (not the query, which varies per call). */
export function callSiteFor(method: string, url: string, base: string): string {
  try {
    const u = new URL(url, base);
    return `${method.toUpperCase()} ${u.origin}${u.pathname}`;
  } catch {
    return `${method.toUpperCase()} ${url}`;
  }
}

/** The per-attempt timeout box: empty means none; otherwise a number (its range is the package's to judge). */
export type ParsedTimeout = { ok: true; ms: number | null } | { ok: false; problem: "nan" };

export function parseTimeout(text: string, badInput = false): ParsedTimeout {
  const t = text.trim();
  if (badInput) return { ok: false, problem: "nan" };
  if (t === "") return { ok: true, ms: null };
  const v = Number(t);
  return Number.isFinite(v) ? { ok: true, ms: v } : { ok: false, problem: "nan" };
}
