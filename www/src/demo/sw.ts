// The Service Worker (built as sw.js beside index.html, so its scope is the page's folder):
// answers requests under `<scope>demo-api/` from the pure demo API (api.ts), so the live
// panel has a flaky endpoint on any static host. Every other request goes to the network
// untouched: nothing is cached.
//
// Its memory (a counter per key) lives as long as the browser keeps the worker running;
// the live panel pings it during a call so that a call's retries always see one counter.

import { DEMO_DIR, DemoStore, answer, reasonPhrase } from "./api.js";

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
  const a = answer(store, {
    method: e.request.method,
    path: url.pathname.slice(base.pathname.length),
    query: url.search,
    now: performance.now(),
  });
  const body = e.request.method === "HEAD" ? null : a.body;
  const respond = () => new Response(body, { status: a.status, statusText: reasonPhrase(a.status), headers: a.headers });
  const delay = a.delayMs ?? 0;
  e.respondWith(delay > 0 ? new Promise<Response>((resolve) => setTimeout(() => resolve(respond()), delay)) : respond());
});
