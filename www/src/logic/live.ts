// The live panel's pure parts: reading the headers box, the flaky URLs it offers (the real
// server's and the in-browser demo's), and the call site that names the budget's bucket.

import { CORE_LIMITS } from "../generated/core.js";
import { rangeRefusal } from "./core-range.js";
import type { SettingsErrorData } from "./error-data.js";

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
    const value = line.slice(colon + 1).trim();
    // fetch takes a header's value as bytes, each char one (ISO-8859-1): "привет" threw the
    // browser's own English error from deep inside the call.
    if (!TOKEN.test(name) || /[^\t\x20-\x7e\x80-\xff]/.test(value)) {
      bad.push(i + 1);
      return;
    }
    headers[name] = value;
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

/** The flaky call's query: two 503s, then 200, with a one-second Retry-After. */
function flakyQuery(key: string): string {
  return `?key=${encodeURIComponent(key)}&fail=2&status=503&retry_after=1`;
}

/** The demo server's flaky endpoint on the page's own origin: two 503s, then 200. */
export function defaultLiveUrl(key: string): string {
  return `/api/flaky${flakyQuery(key)}`;
}

/**
 * The folder, relative to the page, whose requests the page's Service Worker answers
 * (the same as www/src/demo/api.ts's DEMO_DIR; the page does not import the worker's code,
 * so that sw.js stays one file; a unit test checks that the two agree).
 */
export const DEMO_PATH = "demo-api/";

/** The same flaky call, answered by the Service Worker in the browser (relative to the page). */
export function demoLiveUrl(key: string): string {
  return `./${DEMO_PATH}flaky${flakyQuery(key)}`;
}

/** Where the live panel's URL points: `stampede serve`, the in-browser demo, or elsewhere. */
export type Endpoint = "server" | "demo" | "custom";

/** Which endpoint `url` (as typed, relative to `page`) is. */
export function endpointOf(url: string, page: string): Endpoint {
  try {
    const u = new URL(url, page);
    const demo = new URL(DEMO_PATH, page);
    if (u.origin === demo.origin && u.pathname.startsWith(demo.pathname)) return "demo";
    if (u.origin === new URL(page).origin && u.pathname.startsWith("/api/")) return "server";
  } catch {
    // not a URL: the user's own
  }
  return "custom";
}

/**
 * Whether `url` (as typed, relative to `page`) is one fetch can call: it parses, it is http
 * or https, and its port is not one fetch blocks. `http://[::1`, `javascript:` or port 6000
 * fail at once, and retryFetch would retry that failure like a refused connection.
 */
export function fetchable(url: string, page: string): boolean {
  if (url === "") return false;
  try {
    const { protocol, port } = new URL(url, page);
    return (protocol === "http:" || protocol === "https:") && !(port !== "" && BAD_PORTS.has(Number(port)));
  } catch {
    return false;
  }
}

/** The ports fetch blocks for http and https, the Fetch Standard's bad ports (Chromium's
 *  ERR_UNSAFE_PORT; Node 20's fetch refuses exactly these from 1 to 11,000): a call to one
 *  fails at once on every attempt, which the panel would retry as a refused connection. */
const BAD_PORTS = new Set(
  [
    0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113,
    115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556,
    563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667,
    6668, 6669, 6679, 6697, 10080,
  ],
);

/**
 * Whether `stampede serve` may be serving the page at `pathname`: it serves it at the root
 * only, so a page in a sub-folder is on a static host and need not probe (a probe there is
 * a 404 in the console).
 */
export function mayBeServed(pathname: string): boolean {
  return pathname === "/" || pathname === "/index.html";
}

/** Whether a `/api/health` answer is `stampede serve`'s: 200 with `{"ok": true}`. */
export function isServerHealth(status: number, body: unknown): boolean {
  return status === 200 && typeof body === "object" && body !== null && (body as { ok?: unknown }).ok === true;
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

/** The retryFetch options the live panel's number boxes hold. */
export type LiveOption = "attemptTimeoutMs" | "hedging.delayMs";

/**
 * Whether `ms` is outside the range the package declares for `option` (its `limits()`, as
 * the page's build-time copy has them), as the error the package would throw: so a box says
 * so as it is typed, not only at Send, and the embed snippet never repeats a value retryFetch
 * refuses. Null when the package takes it.
 */
export function outOfLimit(option: LiveOption, ms: number): SettingsErrorData | null {
  if (!CORE_LIMITS[option]) throw new Error(`live: the core has no limit for ${option}`);
  return rangeRefusal(option, ms);
}

export function parseTimeout(text: string, badInput = false): ParsedTimeout {
  const t = text.trim();
  if (badInput) return { ok: false, problem: "nan" };
  if (t === "") return { ok: true, ms: null };
  const v = Number(t);
  return Number.isFinite(v) ? { ok: true, ms: v } : { ok: false, problem: "nan" };
}
