// The flaky demo endpoints of `stampede serve` (crates/stampede-cli/src/serve/api/handlers.rs),
// answered in the browser: `flaky`, `status/{code}`, `outage`, `slow`, `reset` and `health` under the
// page's own `demo-api/`, with the same parameters, statuses, hint headers, bodies and 400
// messages. Pure: a request in (method, path under `demo-api/`, query, the time), a plain
// answer out; the Service Worker (sw.ts) turns it into a Response. Tested in
// tests/www-unit/demo-api.test.ts.

import { DemoError, Params, checkMethod, finalStatus, pathSegment, type Hints } from "./params.js";

/** The folder, under the page, whose requests the Service Worker answers. */
export const DEMO_DIR = "demo-api/";

/** Largest `fail` of `flaky`. */
export const MAX_FAIL = 1_000;
/** Largest `down_ms` of `outage` (ten minutes). */
export const MAX_DOWN_MS = 600_000;
/** Largest `ms` of `slow`. */
export const MAX_SLOW_MS = 10_000;
/** How many keys the demo remembers; past it, the least recently created key is forgotten. */
export const MAX_KEYS = 1_000;
/** The largest request body, as `stampede serve`'s (MAX_BODY_BYTES): past it, a 413. */
export const MAX_BODY_BYTES = 64 * 1024;
/** The longest path and query, as `stampede serve` bounds a request's head (MAX_HEAD_BYTES):
 *  past it, a 431, before any of it is decoded (a 2 MB query, every pair decoded, held the
 *  worker for 1 to 3 s). */
export const MAX_HEAD_BYTES = 32 * 1024;

export interface DemoRequest {
  method: string;
  /** The path under `demo-api/`, e.g. `flaky` or `status/503` (still percent-encoded). */
  path: string;
  /** The raw query, with or without its `?`. */
  query: string;
  /** Milliseconds on any clock that does not go back (outages are timed on it). */
  now: number;
  /** The body's size in bytes (the Service Worker stops counting past MAX_BODY_BYTES). */
  bodyBytes?: number;
}

export interface DemoAnswer {
  status: number;
  headers: Record<string, string>;
  /** JSON text, or null for a status without a body (204, 205, 304). */
  body: string | null;
  /** How long to wait before answering (`slow`), in ms. */
  delayMs?: number;
}

/** What the demo remembers about one key. */
interface KeyState {
  requests: number;
  /** When the key's first request arrived. */
  created: number;
}

/**
 * The demo's memory: a request counter and the first request's time per key, at most
 * `maxKeys` keys, the least recently created forgotten first (a Map keeps insertion order).
 */
export class DemoStore {
  private readonly keys = new Map<string, KeyState>();

  constructor(private readonly maxKeys = MAX_KEYS) {}

  get size(): number {
    return this.keys.size;
  }

  /** Records a request for `key`: its 1-based attempt number and the key's age in ms. */
  record(key: string, now: number): { attempt: number; sinceFirst: number } {
    let state = this.keys.get(key);
    if (!state) {
      while (this.keys.size >= Math.max(1, this.maxKeys)) {
        const oldest = this.keys.keys().next();
        if (oldest.done) break;
        this.keys.delete(oldest.value);
      }
      state = { requests: 0, created: now };
      this.keys.set(key, state);
    }
    state.requests += 1;
    return { attempt: state.requests, sinceFirst: Math.max(0, now - state.created) };
  }

  reset(key: string): void {
    this.keys.delete(key);
  }
}

const NO_STORE = { "cache-control": "no-store" };

function json(status: number, body: unknown, hints: Hints = {}): DemoAnswer {
  const headers: Record<string, string> = { ...NO_STORE, "content-type": "application/json" };
  // Hints go with failures only.
  if (status >= 400) {
    if (hints.retryAfter !== undefined) headers["retry-after"] = hints.retryAfter;
    if (hints.pushbackMs !== undefined) headers["grpc-retry-pushback-ms"] = hints.pushbackMs;
  }
  return { status, headers, body: JSON.stringify(body) };
}

/** Answers one request to the demo API; never throws. */
export function answer(store: DemoStore, req: DemoRequest): DemoAnswer {
  try {
    return route(store, req);
  } catch (e) {
    if (e instanceof DemoError) return json(e.status, { error: e.message });
    return json(500, { error: String(e) });
  }
}

function route(store: DemoStore, req: DemoRequest): DemoAnswer {
  // As stampede serve: an OPTIONS request is a preflight, answered empty, never an attempt
  // (it was counted, and answered with the endpoint's JSON).
  if (req.method === "OPTIONS") return { status: 200, headers: { ...NO_STORE }, body: null };
  if (req.path.length + req.query.length > MAX_HEAD_BYTES) {
    return json(431, { error: `request head: larger than the limit of ${MAX_HEAD_BYTES} bytes` });
  }
  if ((req.bodyBytes ?? 0) > MAX_BODY_BYTES) {
    return json(413, { error: `body: larger than the limit of ${MAX_BODY_BYTES} bytes` });
  }
  const params = Params.parse(req.query);
  const path = req.path;
  // The endpoints that record a request bound its method, as the server's log does.
  // (`status/` and `status/a/b` are no route: a 404 whatever the method, as in Rust.)
  const records = path === "flaky" || path === "outage" || path === "slow" || /^status\/[^/]+$/.test(path);
  if (records) checkMethod(req.method);
  if (path === "flaky") {
    const key = params.key();
    const fail = params.number("fail", MAX_FAIL);
    const failing = params.failingStatus();
    const hints = params.hints();
    const seen = store.record(key, req.now);
    const status = seen.attempt <= fail ? failing : 200;
    return json(status, status === 200 ? { key, attempt: seen.attempt } : { key, attempt: seen.attempt, status }, hints);
  }
  if (path === "outage") {
    const key = params.key();
    const down = params.number("down_ms", MAX_DOWN_MS);
    const hints = params.hints();
    const seen = store.record(key, req.now);
    const up = seen.sinceFirst >= down;
    const status = up ? 200 : 503;
    return json(status, up ? { key, attempt: seen.attempt, up } : { key, attempt: seen.attempt, status, up }, hints);
  }
  const code = /^status\/([^/]+)$/.exec(path)?.[1];
  if (code !== undefined) {
    const status = finalStatus(pathSegment("code", code));
    const hints = params.hints();
    const key = params.optionalKey();
    if (key !== null) store.record(key, req.now);
    if (status === 204 || status === 205 || status === 304) {
      return { status, headers: { ...NO_STORE }, body: null };
    }
    return json(status, { status }, hints);
  }
  if (path === "slow") {
    const ms = params.number("ms", MAX_SLOW_MS);
    const key = params.optionalKey();
    if (key !== null) store.record(key, req.now);
    return { ...json(200, { slept_ms: ms }), delayMs: ms };
  }
  if (path === "reset") {
    const key = params.key();
    store.reset(key);
    return json(200, { key, reset: true });
  }
  if (path === "health") return json(200, { ok: true });
  throw new DemoError(404, `no such endpoint: ${DEMO_DIR}${path}`);
}

/** The reason phrase HTTP/1.1 servers send for `status` (Response's statusText), or "". */
export function reasonPhrase(status: number): string {
  return REASONS[status] ?? "";
}

/**
 * Every status `stampede serve` names: the `http` crate's `canonical_reason` list (hyper
 * writes it in the status line), the IANA registry's codes with the names that crate gives
 * them. Three predate RFC 9110, which the server still sends: 203 without its hyphen, 413
 * "Payload Too Large" (now "Content Too Large") and 422 "Unprocessable Entity" (now
 * "Unprocessable Content"). A code it does not know gets no phrase here (hyper writes
 * "<none>").
 */
const REASONS: Readonly<Record<number, string>> = {
  100: "Continue",
  101: "Switching Protocols",
  102: "Processing",
  103: "Early Hints",
  200: "OK",
  201: "Created",
  202: "Accepted",
  203: "Non Authoritative Information",
  204: "No Content",
  205: "Reset Content",
  206: "Partial Content",
  207: "Multi-Status",
  208: "Already Reported",
  226: "IM Used",
  300: "Multiple Choices",
  301: "Moved Permanently",
  302: "Found",
  303: "See Other",
  304: "Not Modified",
  305: "Use Proxy",
  307: "Temporary Redirect",
  308: "Permanent Redirect",
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  407: "Proxy Authentication Required",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  411: "Length Required",
  412: "Precondition Failed",
  413: "Payload Too Large",
  414: "URI Too Long",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  417: "Expectation Failed",
  418: "I'm a teapot",
  421: "Misdirected Request",
  422: "Unprocessable Entity",
  423: "Locked",
  424: "Failed Dependency",
  425: "Too Early",
  426: "Upgrade Required",
  428: "Precondition Required",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  451: "Unavailable For Legal Reasons",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
  505: "HTTP Version Not Supported",
  506: "Variant Also Negotiates",
  507: "Insufficient Storage",
  508: "Loop Detected",
  510: "Not Extended",
  511: "Network Authentication Required",
};
