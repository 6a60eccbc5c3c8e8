// The Service Worker (built as sw.js beside index.html, so its scope is the page's folder):
// answers requests under `<scope>demo-api/` from the pure demo API (api.ts), so the live
// panel has a flaky endpoint on any static host. Every other request goes to the network
// untouched: nothing is cached.
//
// Its memory (a counter per key) lives as long as the browser keeps the worker running;
// the live panel pings it during a call so that a call's retries always see one counter.

import { DEMO_DIR, DemoStore, MAX_BODY_BYTES, answer, reasonPhrase } from "./api.js";

// The worker's global scope, typed by hand: the page's tsconfig has the DOM lib, not WebWorker.
interface FetchEvent extends Event {
  request: Request;
  respondWith(response: Promise<Response> | Response): void;
}
interface ExtendableEvent extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface ExtendableMessageEvent extends ExtendableEvent {
  data: unknown;
}
const sw = self as unknown as {
  registration: { scope: string };
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(type: "install" | "activate", f: (e: ExtendableEvent) => void): void;
  addEventListener(type: "fetch", f: (e: FetchEvent) => void): void;
  addEventListener(type: "message", f: (e: ExtendableMessageEvent) => void): void;
};

const store = new DemoStore();
const base = new URL(DEMO_DIR, sw.registration.scope);

// Take over at once, on the first visit too: the page waits for this before its first call.
sw.addEventListener("install", (e) => e.waitUntil(sw.skipWaiting()));
sw.addEventListener("activate", (e) => e.waitUntil(sw.clients.claim()));
// A ping from the page keeps the worker (and its counters) alive during a call. "claim"
// comes from a page the worker, already active, does not control (a hard reload, Shift +
// Reload, bypasses it; activation, which claims, does not come again): it takes it over.
sw.addEventListener("message", (e) => e.waitUntil(e.data === "claim" ? sw.clients.claim() : Promise.resolve()));

sw.addEventListener("fetch", (e) => {
  const url = new URL(e.request.url);
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return;
  e.respondWith(respond(e.request, url));
});

async function respond(request: Request, url: URL): Promise<Response> {
  const bodyBytes = await bodySize(request);
  const a = answer(store, {
    method: request.method,
    path: url.pathname.slice(base.pathname.length),
    query: url.search,
    // Read once the body is in, so requests reach the demo in the order of their clock.
    now: performance.now(),
    bodyBytes,
  });
  const body = request.method === "HEAD" ? null : a.body;
  const delay = a.delayMs ?? 0;
  if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
  return new Response(body, { status: a.status, statusText: reasonPhrase(a.status), headers: a.headers });
}

/** The request body's size in bytes, read no further than one past the limit (where the
 *  browser gives a Request its body as a stream: Firefox does not, and reads it whole). */
async function bodySize(request: Request): Promise<number> {
  if (request.method === "GET" || request.method === "HEAD") return 0;
  if (!request.body) return (await request.arrayBuffer()).byteLength;
  const reader = request.body.getReader();
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
    if (bytes > MAX_BODY_BYTES) {
      reader.cancel().catch(() => {});
      return bytes;
    }
  }
}
