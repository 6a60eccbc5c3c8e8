// What retryFetch asks of its environment beyond `fetch` itself, shared by both entries (the
// full one's src/fetch/, the slim one's js/slim/): signals combined the way `fetch` follows
// them, and what a rejected `fetch` says about why it failed.

/** `AbortSignal.any(signals)` when the environment has it and every one is a real
 *  AbortSignal; else `undefined` (the caller then links them by listeners). A combined
 *  signal follows its sources for as long as they live, without listeners anyone must
 *  remove: so a Response retryFetch resolves with stays abortable by the caller's signal
 *  while its body is read, as `fetch`'s does, and a long-lived signal gathers nothing. */
export function anySignal(signals) {
  try {
    const any = typeof AbortSignal === "function" ? AbortSignal.any : undefined;
    if (typeof any !== "function" || !signals.every((s) => s instanceof AbortSignal)) return undefined;
    return Reflect.apply(any, AbortSignal, [signals]);
  } catch {
    // A revoked Proxy among them, or an environment whose `any` throws: linked by hand.
    return undefined;
  }
}

/** The transport errors by their place in the core's `TransportError::ALL`. */
const TIMEOUT = 0;
const CONNECT = 1;
const RESET = 2;
const DNS = 3;

/** The system errors Node's fetch (undici) puts on a failure's `cause`, by the transport
 *  error they are. Anything else (and every failure in a browser, which says nothing but
 *  `TypeError`) is read as a refused connection, `connect`. */
const CODES = {
  ENOTFOUND: DNS,
  EAI_AGAIN: DNS,
  EAI_NONAME: DNS,
  EAI_NODATA: DNS,
  EAI_FAIL: DNS,
  ECONNRESET: RESET,
  EPIPE: RESET,
  ECONNABORTED: RESET,
  UND_ERR_SOCKET: RESET,
  UND_ERR_CLOSED: RESET,
  ETIMEDOUT: TIMEOUT,
  UND_ERR_CONNECT_TIMEOUT: TIMEOUT,
  UND_ERR_HEADERS_TIMEOUT: TIMEOUT,
};

/** The transport error a rejected `fetch` stands for, by its place in the core's
 *  `TransportError::ALL` (0 timeout, 1 connect, 2 reset, 3 dns): the first known `code` on
 *  `e` or its `cause` chain (three deep), else `connect`. Never throws (the error may be
 *  the caller's own `fetch`'s, with getters of its own). */
export function failureKind(e) {
  try {
    let c = e;
    for (let i = 0; i < 3 && c !== null && typeof c === "object"; i++) {
      const code = c.code;
      if (typeof code === "string" && Object.hasOwn(CODES, code)) return CODES[code];
      c = c.cause;
    }
  } catch {}
  return CONNECT;
}
