// Where the live panel's calls can go: `stampede serve`'s demo API when the page is served by
// it (probed at /api/health on the page's origin), or the same flaky endpoints simulated in
// the browser by the page's Service Worker (www/src/demo/sw.ts, built as ./sw.js) on any
// static host. The worker must control the page before the first call reaches it.

import { isServerHealth } from "../logic/live.js";

/** Whether `stampede serve` answers on the page's origin (its `/api/health`), within `timeoutMs`. */
export async function probeServer(timeoutMs = 2000): Promise<boolean> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetch("/api/health", { cache: "no-store", signal: controller.signal });
    const type = res.headers.get("content-type") ?? "";
    return isServerHealth(res.status, type.includes("json") ? await res.json() : null);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Why the in-browser endpoint cannot work here: no Service Worker, a refused one, or one too late. */
export type DemoProblem = "unsupported" | "refused" | "late";

/** The in-browser endpoint cannot work here; `problem` says why (the page words it per language). */
export class DemoUnavailable extends Error {
  override readonly name = "DemoUnavailable";
  constructor(
    readonly problem: DemoProblem,
    message: string,
  ) {
    super(message);
  }
}

let controlled: Promise<void> | null = null;

/**
 * Registers the page's Service Worker (once) and resolves when it controls the page: its
 * `ready`, then a controller (the worker claims open pages on activation, and a page it
 * does not control when asked). Rejects with a
 * DemoUnavailable naming the cause: no Service Worker support (an insecure origin such as
 * file:// or plain http other than localhost), a refused registration, or no control within
 * `timeoutMs`.
 */
export function demoReady(timeoutMs = 10_000): Promise<void> {
  controlled ??= register(timeoutMs);
  // A failure is not cached: the next call tries again.
  controlled.catch(() => {
    controlled = null;
  });
  return controlled;
}

async function register(timeoutMs: number): Promise<void> {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) {
    throw new DemoUnavailable("unsupported", "this browser offers no Service Worker here (it needs https or localhost)");
  }
  const sw = navigator.serviceWorker;
  try {
    await sw.register("./sw.js");
  } catch (e) {
    throw new DemoUnavailable("refused", `the Service Worker ./sw.js could not be registered (${e instanceof Error ? e.message : String(e)})`);
  }
  const gotControl = new Promise<void>((resolve) => {
    if (sw.controller) return resolve();
    sw.addEventListener("controllerchange", () => resolve(), { once: true });
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DemoUnavailable("late", `the Service Worker did not take control within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    // An active worker that does not control the page (after a hard reload) is asked to.
    const ready = sw.ready.then((registration) => {
      if (!sw.controller) registration.active?.postMessage("claim");
      return gotControl;
    });
    await Promise.race([ready, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Keeps the worker running (and its counters alive) while a call waits between attempts:
 * browsers stop an idle Service Worker after about 30 s. Returns the function that stops.
 */
export function keepDemoAlive(everyMs = 10_000): () => void {
  const ping = () => navigator.serviceWorker?.controller?.postMessage("keep-alive");
  const timer = setInterval(ping, everyMs);
  return () => clearInterval(timer);
}
