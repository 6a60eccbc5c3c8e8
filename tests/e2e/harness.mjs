// Shared by the end-to-end tests and the page benchmark: starts `stampede serve` on a free
// loopback port with the built page, launches Debian's Chromium through playwright-core with a
// fresh profile, and tears both down. Everything is bounded in time and stays on 127.0.0.1.

import { after, before } from "node:test";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const SERVER_BIN = process.env.STAMPEDE_BIN ?? join(ROOT, "target", "release", "stampede");
export const DIST = process.env.STAMPEDE_DIST ?? join(ROOT, "www", "dist");
export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-quic",
];

/** What is missing to run against the built page, or null. */
export function missingPrerequisites() {
  const missing = [];
  if (!existsSync(SERVER_BIN)) missing.push(`${SERVER_BIN} (cargo build --release -p stampede-cli)`);
  if (!existsSync(join(DIST, "index.html"))) missing.push(`${DIST}/index.html (make dist)`);
  if (!existsSync(CHROMIUM)) missing.push(`${CHROMIUM} (apt-get install chromium)`);
  return missing.length ? missing : null;
}

function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/** Starts the demo server; resolves with { url, stop } once it prints its address. */
export async function startServer({ timeoutMs = 15_000 } = {}) {
  const port = await freePort();
  const addr = `127.0.0.1:${port}`;
  const child = spawn(SERVER_BIN, ["serve", "--addr", addr, "--static", DIST], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const stop = () =>
    new Promise((res) => {
      if (child.exitCode !== null || child.signalCode !== null) return res();
      const kill = setTimeout(() => child.kill("SIGKILL"), 3000);
      child.once("exit", () => {
        clearTimeout(kill);
        res();
      });
      child.kill("SIGTERM");
    });
  await new Promise((res, rej) => {
    const timer = setTimeout(() => {
      void stop();
      rej(new Error(`stampede serve did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk) => {
      output += chunk;
      if (output.includes("stampede serve:")) {
        clearTimeout(timer);
        res();
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      rej(new Error(`stampede serve exited (${code}):\n${output}`));
    });
  });
  child.removeAllListeners("exit");
  return { url: `http://${addr}/`, stop, output: () => output };
}

/** Launches Chromium with a fresh, empty profile (a touch screen with `hasTouch`); resolves with { context, close }. */
export async function launchBrowser({ reducedMotion = "no-preference", viewport = { width: 1280, height: 900 }, hasTouch = false } = {}) {
  const profile = mkdtempSync(join(tmpdir(), "stampede-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    headless: true,
    viewport,
    hasTouch,
    reducedMotion,
    colorScheme: "light",
    locale: "en-US",
    timeout: 30_000,
  });
  const close = async () => {
    await context.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}

/** Collects console errors, warnings and page errors of a page. */
export function watchConsole(page) {
  const problems = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  return problems;
}

/** Waits for the page's first picture (html[data-ready] and one successful run). */
export async function waitReady(page, timeout = 15_000) {
  await page.waitForFunction(() => document.documentElement.dataset.ready === "1" && Number(document.documentElement.dataset.runs ?? 0) > 0, null, { timeout });
  await waitIdle(page);
}

/** Waits until no simulation is pending (worker runs included). */
export async function waitIdle(page, timeout = 20_000) {
  await page.waitForFunction(() => document.documentElement.dataset.sim !== "busy", null, { timeout, polling: 50 });
}

/** Runs `action`, then waits for a newer successful run than before it. */
export async function afterRun(page, action, timeout = 20_000) {
  const before = await page.evaluate(() => Number(document.documentElement.dataset.runs ?? 0));
  await action();
  await page.waitForFunction((n) => Number(document.documentElement.dataset.runs ?? 0) > n, before, { timeout, polling: 20 });
  await waitIdle(page);
}

/** The text of every [data-metric] element. */
export function readMetrics(page) {
  return page.evaluate(() =>
    Object.fromEntries([...document.querySelectorAll("[data-metric]")].map((e) => [e.getAttribute("data-metric"), e.textContent])),
  );
}

/** The core's own metrics for a simulation, from the CLI (`stampede simulate --json`). */
export function cliSimulate(args = []) {
  return JSON.parse(execFileSync(SERVER_BIN, ["simulate", "--json", ...args], { cwd: ROOT, encoding: "utf8", timeout: 30_000 }));
}

/**
 * Drags the base slider back and forth for `ms`, an input every 50 ms as a hand would, and
 * returns `{ inputs, pictures }`: the inputs sent and the pictures (finished runs) shown
 * meanwhile.
 */
export function dragBase(page, ms) {
  return page.evaluate(async (dragMs) => {
    const html = document.documentElement;
    const runs0 = Number(html.dataset.runs);
    const slider = document.getElementById("base-range");
    const start = Number(slider.value);
    const t0 = performance.now();
    let i = 0;
    while (performance.now() - t0 < dragMs) {
      slider.value = String(start - 100 + ((i++ * 37) % 200));
      slider.dispatchEvent(new Event("input", { bubbles: true }));
      await new Promise((res) => setTimeout(res, 50));
    }
    return { inputs: i, pictures: Number(html.dataset.runs) - runs0 };
  }, ms);
}

/** A phone's screen: 390 × 844 CSS pixels, with touch (launchBrowser's options). */
export const PHONE = { viewport: { width: 390, height: 844 }, hasTouch: true };

/** Whether box `b` (a bounding box, or null) lies wholly within a viewport of that size. */
export function inViewport(b, { width, height } = PHONE.viewport) {
  return b !== null && b.y >= 0 && b.x >= 0 && b.y + b.height <= height + 0.5 && b.x + b.width <= width + 0.5;
}

/**
 * Sets up one suite's playground: `stampede serve` and Chromium (with `browserOptions`, as
 * launchBrowser takes them: PHONE for a phone) start before its tests and stop after them.
 * Returns `{ server, browser, open }`, where `open(query)` is a fresh page on the playground
 * (optionally with a query), its console watched, ready to use.
 */
export function usePlayground(browserOptions = {}) {
  const missing = missingPrerequisites();
  if (missing) {
    throw new Error(`end-to-end tests need:\n  ${missing.join("\n  ")}`);
  }
  const pg = {
    server: undefined,
    browser: undefined,
    async open(query = "") {
      const page = await pg.browser.context.newPage();
      const problems = watchConsole(page);
      await page.goto(pg.server.url + query);
      await waitReady(page);
      return { page, problems };
    },
  };
  before(async () => {
    pg.server = await startServer();
    pg.browser = await launchBrowser(browserOptions);
  });
  after(async () => {
    await pg.browser?.close();
    await pg.server?.stop();
  });
  return pg;
}

/** How much of a canvas is drawn: the share of pixels that are neither of its two commonest colours. */
export function inked(page, id) {
  return page.evaluate((canvasId) => {
    const c = document.getElementById(canvasId);
    if (!(c instanceof HTMLCanvasElement) || c.width === 0 || c.height === 0) return { share: 0, colours: 0 };
    // Read through a copy, so the page's own canvas is never read back.
    const copy = document.createElement("canvas");
    copy.width = c.width;
    copy.height = c.height;
    const ctx = copy.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(c, 0, 0);
    const data = new Uint32Array(ctx.getImageData(0, 0, c.width, c.height).data.buffer);
    const counts = new Map();
    for (const p of data) counts.set(p, (counts.get(p) ?? 0) + 1);
    const sorted = [...counts.values()].sort((a, b) => b - a);
    const rest = data.length - (sorted[0] ?? 0) - (sorted[1] ?? 0);
    return { share: rest / data.length, colours: counts.size };
  }, id);
}

/**
 * Brings every lazily drawn part of the page into view and waits until it is drawn: the
 * compare table (policy B), the delay histograms and snippet, and the three sweeping
 * panels (which run only once on screen). For checks that must cover the whole page.
 */
export async function drawEverything(page, timeout = 90_000) {
  const sweeps = ["panel-nets", "panel-hedging", "panel-layers"];
  for (const id of ["compare", "distributions", ...sweeps]) {
    await page.locator(`#${id}`).scrollIntoViewIfNeeded();
    if (sweeps.includes(id)) {
      // On screen, the panel starts its batch (its observer fires on a later frame).
      await page.waitForFunction((id) => ["running", "done"].includes(document.getElementById(id)?.dataset.state ?? ""), id, { timeout, polling: 50 });
    }
  }
  await page.waitForFunction(
    (sweeps) =>
      sweeps.every((id) => document.getElementById(id)?.dataset.state === "done") &&
      document.querySelector('[data-cmp="b:cmp.totalAttempts"]')?.textContent !== "…" &&
      document.querySelectorAll(".delay-panel").length > 0,
    sweeps,
    { timeout, polling: 100 },
  );
}
