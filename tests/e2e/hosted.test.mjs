// The page as a teacher hosts it: `make dist` output, unchanged, served from a sub-path by a
// plain static server (tests/e2e/static-host.mjs, not `stampede serve`), driven in Chromium.
// The presets draw there, and the live panel calls the flaky endpoint its Service Worker
// simulates; with `stampede serve`, the real API stays the default.
// Run: node --test tests/e2e/hosted.test.mjs   (needs `make dist` and target/release/stampede)

import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { DIST, afterRun, inked, launchBrowser, missingPrerequisites, readMetrics, startServer, waitReady, watchConsole } from "./harness.mjs";
import { serveStatic } from "./static-host.mjs";

const T = { timeout: 120_000 };
const PREFIX = "/some/deep/path/";

const missing = missingPrerequisites();
if (missing) throw new Error(`end-to-end tests need:\n  ${missing.join("\n  ")}`);

/** Sends the live call and waits until it is over; returns the attempts' statuses. */
async function sendLive(page) {
  await page.waitForFunction(() => !document.querySelector("#live-send")?.disabled, null, { timeout: 15_000 });
  await page.click("#live-send");
  await page.waitForFunction(
    () => document.querySelectorAll("#live-log li").length > 0 && !document.querySelector("#live-send")?.disabled,
    null,
    { timeout: 30_000 },
  );
  return page.$$eval("#live-log li", (lis) => lis.map((li) => li.dataset.status));
}

describe("on a static host, under a sub-path", () => {
  let host;
  let browser;
  before(async () => {
    host = await serveStatic(DIST, PREFIX);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await host?.stop();
  });

  async function open() {
    const page = await browser.context.newPage();
    const problems = watchConsole(page);
    await page.goto(host.url);
    await waitReady(page);
    return { page, problems };
  }

  test("every preset draws its picture and shows its metrics", T, async () => {
    const { page, problems } = await open();
    const presets = await page.$$eval("[data-preset]", (bs) => bs.map((b) => b.getAttribute("data-preset")));
    assert.ok(presets.length >= 5, presets.join());
    for (const id of presets) {
      await afterRun(page, () => page.click(`[data-preset="${id}"]`));
      const herd = await inked(page, "timeline");
      assert.ok(herd.share > 0.001 && herd.colours > 2, `${id}: timeline is blank (${JSON.stringify(herd)})`);
      assert.ok((await inked(page, "load")).share > 0.001, `${id}: load chart is blank`);
      const m = await readMetrics(page);
      assert.match(m.totalAttempts ?? "", /^\d+$/, `${id}: total attempts ${m.totalAttempts}`);
      assert.ok(Number(m.totalAttempts) > 0, `${id}: no attempts`);
    }
    // The built page keeps its strict policy: the Service Worker is allowed by worker-src
    // 'self', not by loosening script-src (a violation would be a console error, checked below).
    const csp = await page.getAttribute('meta[http-equiv="Content-Security-Policy"]', "content");
    assert.match(csp ?? "", /script-src 'self' 'wasm-unsafe-eval';/);
    assert.match(csp ?? "", /worker-src 'self'/);
    assert.doesNotMatch(csp ?? "", /'unsafe-inline'|'unsafe-eval'/);
    // Every file came from under the sub-path; nothing asked for the origin's root.
    assert.ok(host.requests.length > 3);
    assert.deepEqual(host.requests.filter((p) => !p.startsWith(PREFIX)), []);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the live panel defaults to the in-browser endpoint, and retries against it", T, async () => {
    const { page, problems } = await open();
    await page.waitForSelector("#live-endpoint[data-probed]");
    assert.equal(await page.getAttribute("#live-endpoint", "data-probed"), "none");
    assert.equal(await page.inputValue("#live-endpoint"), "demo");
    // No probe on a sub-path: stampede serve serves the page at the root only.
    assert.ok(!host.requests.includes("/api/health"));
    const url = await page.inputValue("#live-url");
    assert.match(url, /^\.\/demo-api\/flaky\?key=\w+&fail=2&status=503&retry_after=1$/);
    assert.match((await page.textContent("#live-endpoint-note")) ?? "", /Simulated in your browser/);
    // The snippet to copy says its address lives only inside this page.
    await page.waitForFunction(() => /demo-api/.test(document.getElementById("embed-code")?.textContent ?? ""));
    assert.match((await page.textContent("#embed-code")) ?? "", /\/\/ this address is the page's simulated demo[^\n]*\nconst response = await retryFetch\("http[^"]*\/demo-api\/flaky/);
    const before = host.requests.length;
    const statuses = await sendLive(page);
    assert.deepEqual(statuses, ["503", "503", "200"]);
    // Each retry waited before the next attempt.
    const waits = await page.$$eval("#live-log li .a-wait", (s) => s.map((e) => e.textContent ?? ""));
    assert.equal(waits.length, 2);
    assert.ok(waits.every((w) => /waits \d/.test(w)), waits.join(" | "));
    assert.match((await page.textContent("#live-body")) ?? "", /"attempt":3/);
    assert.match((await page.textContent("#live-status")) ?? "", /^200 OK after 3 attempts/);
    // The Service Worker answered: no attempt reached the static host.
    assert.deepEqual(host.requests.slice(before).filter((p) => p.includes("demo-api")), []);
    assert.deepEqual(problems.filter((p) => !/503/.test(p)), [], "only the expected 503s are logged");
    await page.close();
  });

  test("after a hard reload (which bypasses the Service Worker) the in-browser endpoint still answers", T, async () => {
    const { page, problems } = await open();
    await page.waitForSelector("#live-endpoint[data-probed]");
    assert.deepEqual(await sendLive(page), ["503", "503", "200"], "controlled after the first visit");
    // Shift + Reload: the page loads without a controller, and the worker stays active.
    await page.addInitScript(() => {
      window.__controlledAtStart = navigator.serviceWorker?.controller != null;
    });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Page.reload", { ignoreCache: true });
    await waitReady(page);
    assert.equal(await page.evaluate(() => window.__controlledAtStart), false, "a hard reload starts uncontrolled");
    await page.waitForSelector("#live-endpoint[data-probed]");
    const before = host.requests.length;
    assert.deepEqual(await sendLive(page), ["503", "503", "200"]);
    assert.deepEqual(host.requests.slice(before).filter((p) => p.includes("demo-api")), [], "the worker answered, not the host");
    assert.deepEqual(problems.filter((p) => !/503/.test(p)), []);
    await page.close();
  });

  test("the in-browser outage endpoint answers 503 until down_ms has passed", T, async () => {
    const { page } = await open();
    await page.waitForSelector("#live-endpoint[data-probed]");
    await page.fill("#live-url", "./demo-api/outage?key=o1&down_ms=1500");
    assert.equal(await page.inputValue("#live-endpoint"), "demo");
    const statuses = await sendLive(page);
    assert.ok(statuses.length >= 2, statuses.join());
    assert.equal(statuses.at(-1), "200");
    assert.ok(statuses.slice(0, -1).every((s) => s === "503"), statuses.join());
    assert.match((await page.textContent("#live-body")) ?? "", /"up":true/);
    // A bad parameter is a 400 naming it, as stampede serve says it (not retried).
    await page.fill("#live-url", "./demo-api/flaky?key=k&fail=x");
    assert.deepEqual(await sendLive(page), ["400"]);
    assert.equal(await page.textContent("#live-body"), '{"error":"fail: expected a whole number from 0 to 1000, got \\"x\\""}');
    await page.close();
  });

  test("Cancel aborts a call to the in-browser slow endpoint", T, async () => {
    const { page, problems } = await open();
    await page.waitForSelector("#live-endpoint[data-probed]");
    await page.fill("#live-url", "./demo-api/slow?ms=8000");
    await page.waitForFunction(() => !document.querySelector("#live-send")?.disabled);
    const t0 = Date.now();
    await page.click("#live-send");
    await page.waitForFunction(() => !document.querySelector("#live-cancel")?.disabled);
    await page.waitForTimeout(300);
    await page.click("#live-cancel");
    await page.waitForFunction(() => !document.querySelector("#live-send")?.disabled, null, { timeout: 5000 });
    assert.ok(Date.now() - t0 < 6000, "cancelled well before the 8 s answer");
    assert.match((await page.textContent("#live-status")) ?? "", /Cancel/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("without Service Workers, the panel says why and sends nothing", T, async () => {
    const page = await browser.context.newPage();
    await page.addInitScript(() => {
      delete Navigator.prototype.serviceWorker;
    });
    await page.goto(host.url);
    await waitReady(page);
    await page.waitForSelector("#live-endpoint[data-probed]");
    const before = host.requests.length;
    await page.click("#live-send");
    await page.waitForFunction(() => !document.querySelector("#live-send")?.disabled && /unavailable/.test(document.querySelector("#live-status")?.textContent ?? ""));
    assert.match((await page.textContent("#live-status")) ?? "", /in-browser endpoint is unavailable: this browser offers no Service Worker here/);
    assert.equal(await page.locator("#live-log li").count(), 0);
    assert.deepEqual(host.requests.slice(before).filter((p) => p.includes("demo-api")), [], "nothing reached the static host");
    await page.close();
  });
});

describe("with stampede serve", () => {
  let server;
  let browser;
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("the real API stays the default, and the in-browser one is offered too", T, async () => {
    const page = await browser.context.newPage();
    const problems = watchConsole(page);
    await page.goto(server.url);
    await waitReady(page);
    await page.waitForSelector("#live-endpoint[data-probed]");
    assert.equal(await page.getAttribute("#live-endpoint", "data-probed"), "server");
    assert.equal(await page.inputValue("#live-endpoint"), "server");
    const url = await page.inputValue("#live-url");
    assert.match(url, /^\/api\/flaky\?key=/);
    assert.deepEqual(await sendLive(page), ["503", "503", "200"]);
    const key = new URL(url, server.url).searchParams.get("key");
    const log = await (await fetch(new URL(`/api/log?key=${key}`, server.url))).json();
    assert.deepEqual(
      log.entries.map((e) => e.status),
      [503, 503, 200],
      "the real server answered",
    );
    // The in-browser endpoint works beside it, and the server never sees its calls. After a
    // call the key is a new one (the next Send starts over), the same for either endpoint.
    await page.selectOption("#live-endpoint", "demo");
    const demoUrl = await page.inputValue("#live-url");
    assert.match(demoUrl, /^\.\/demo-api\/flaky\?key=/);
    const demoKey = new URL(demoUrl, server.url).searchParams.get("key");
    assert.notEqual(demoKey, key, "a fresh key after the first call");
    assert.deepEqual(await sendLive(page), ["503", "503", "200"]);
    const after = await (await fetch(new URL(`/api/log?key=${key}`, server.url))).json();
    assert.equal(after.entries.length, 3, "the server's log of the first call is as it was");
    const none = await (await fetch(new URL(`/api/log?key=${demoKey}`, server.url))).json();
    assert.equal(none.entries.length, 0, "the server saw none of the in-browser calls");
    assert.deepEqual(problems.filter((p) => !/503/.test(p)), []);
    await page.close();
  });
});
