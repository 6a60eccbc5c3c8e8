// End-to-end tests of the queueing model on the page: the Server group's hooks and their
// sliders, typing a timeout changing the picture, the sizing (capacity or workers) showing
// what the core sized, a bad value kept beside its field with the last picture kept, the
// goodput figure and its metrics, the story presets with their side-by-side figures, and
// the new settings in a shared link.
// Run: node --test tests/e2e/   (needs `make dist` and target/release/stampede)

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { once } from "node:events";
import { afterRun, readMetrics, usePlayground, waitIdle, waitReady, watchConsole } from "./harness.mjs";

const pg = usePlayground();
const { open } = pg;
const T = { timeout: 120_000 };

const SERVER_NUMBERS = ["servers", "workers", "queue", "service", "timeout", "fail-rate"];
const SERVER_SELECTS = ["queue-order", "service-dist", "balance", "latency-dist"];
const NEW_METRICS = ["goodputRps", "timeouts", "wasted", "maxQueue"];
const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

/** A value to type into each Server field, away from its default. */
const TYPED = { servers: 3, workers: 4, queue: 20, service: 40, timeout: 200, "fail-rate": 0.2 };

/** How much of a canvas is drawn: the share of pixels that are not its commonest colour. */
function inked(page, selector) {
  return page.evaluate((sel) => {
    const c = document.querySelector(sel);
    if (!(c instanceof HTMLCanvasElement) || c.width === 0 || c.height === 0) return 0;
    const copy = document.createElement("canvas");
    copy.width = c.width;
    copy.height = c.height;
    const ctx = copy.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(c, 0, 0);
    const data = new Uint32Array(ctx.getImageData(0, 0, c.width, c.height).data.buffer);
    const counts = new Map();
    for (const p of data) counts.set(p, (counts.get(p) ?? 0) + 1);
    const top = Math.max(...counts.values());
    return (data.length - top) / data.length;
  }, selector);
}

function canvasHash(page, selector) {
  return page.evaluate((sel) => {
    const c = document.querySelector(sel);
    const copy = document.createElement("canvas");
    copy.width = c.width;
    copy.height = c.height;
    const ctx = copy.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(c, 0, 0);
    const d = new Uint32Array(ctx.getImageData(0, 0, c.width, c.height).data.buffer);
    let h = 0;
    for (let i = 0; i < d.length; i++) h = (Math.imul(h, 31) + (d[i] ?? 0)) | 0;
    return h;
  }, selector);
}

async function metric(page, name) {
  return Number(await page.textContent(`[data-metric="${name}"]`));
}

/** Opens the folded server settings (fail rate, queue timeout…). */
async function openAdvanced(page) {
  await page.evaluate(() => {
    document.getElementById("server-advanced").open = true;
  });
}

describe("the Server group and the goodput figure", () => {
  test("the hooks exist with their element types; the new metrics hold numbers", T, async () => {
    const { page, problems } = await open();
    const kind = (sel) =>
      page.$$eval(sel, (els) => els.map((e) => `${e.tagName.toLowerCase()}${e instanceof HTMLInputElement ? `[${e.type}]` : ""}`));
    for (const id of SERVER_NUMBERS) {
      assert.deepEqual(await kind(`#${id}`), ["input[number]"], id);
      assert.deepEqual(await kind(`#${id}-range`), ["input[range]"], `${id}-range`);
    }
    for (const id of SERVER_SELECTS) assert.deepEqual(await kind(`#${id}`), ["select"], id);
    assert.deepEqual(await page.$$eval("#scenario option", (os) => os.map((o) => o.value)), ["burst", "steady", "spike", "closed", "aws-occ"]);
    // Folded away until asked for: the advanced settings, the fail rate among them.
    assert.equal(await page.getAttribute("#server-advanced", "open"), null);
    assert.equal(await page.isVisible("#fail-rate"), false);
    assert.equal(await page.isVisible("#timeout"), true);
    const m = await readMetrics(page);
    for (const name of NEW_METRICS) assert.match(m[name] ?? "", NUMBER_TEXT, `${name}: ${m[name]}`);
    assert.ok((await inked(page, "#goodput-chart canvas")) > 0.001, "the goodput chart is drawn");
    assert.ok((await inked(page, "#queue-chart canvas")) > 0.001, "the queue chart is drawn");
    // The line under the group says what the core sized.
    assert.match((await page.textContent("#fleet-line")) ?? "", /^Sized by the capacity: 1 × \d+ workers/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("spike and closed show their own settings, and only those; aws-occ has no Server group", T, async () => {
    const { page, problems } = await open();
    const shown = (ids) => Promise.all(ids.map((id) => page.isVisible(`#${id}`)));
    assert.deepEqual(await shown(["spike-start", "spike-length", "spike-factor", "think", "rate", "timeout"]), [false, false, false, false, false, true]);
    await afterRun(page, () => page.selectOption("#scenario", "spike"));
    assert.deepEqual(await shown(["spike-start", "spike-length", "spike-factor", "think", "rate", "duration"]), [true, true, true, false, true, true]);
    await afterRun(page, () => page.fill("#spike-factor", "4"));
    await afterRun(page, () => page.selectOption("#scenario", "closed"));
    assert.deepEqual(await shown(["spike-factor", "think", "rate", "duration", "outage-start"]), [false, true, false, true, true]);
    await afterRun(page, () => page.fill("#think", "500"));
    const m = await readMetrics(page);
    assert.ok(Number(m.totalAttempts) > 0, `closed loop ran: ${m.totalAttempts}`);
    await afterRun(page, () => page.selectOption("#scenario", "aws-occ"));
    assert.equal(await page.isVisible("#group-server"), false);
    assert.equal(await page.isVisible("#goodput-figure"), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("aws-occ runs no budget: the compare titles and the live call name none", T, async () => {
    const { page, problems } = await open("?budget=1&b-budget=1");
    const texts = () =>
      page.evaluate(() => ["compare-a-title", "compare-b-title", "live-policy", "embed-code"].map((id) => document.getElementById(id)?.textContent ?? ""));
    // The compare panel and the snippet draw after the picture: wait for them.
    await page.waitForFunction(() => /budget/i.test(document.getElementById("compare-b-title")?.textContent ?? "") && /refillPerSec/.test(document.getElementById("embed-code")?.textContent ?? ""));
    for (const [i, text] of (await texts()).entries()) assert.match(text, i === 3 ? /refillPerSec/ : /budget/i, `before: ${text}`);
    await afterRun(page, () => page.selectOption("#scenario", "aws-occ"));
    await page.waitForFunction(() => !/budget/i.test(document.getElementById("compare-b-title")?.textContent ?? ""));
    await page.waitForFunction(() => !/refillPerSec/.test(document.getElementById("embed-code")?.textContent ?? ""));
    for (const text of await texts()) assert.doesNotMatch(text, /budget|refillPerSec/i, `aws-occ: ${text}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("each Server field moves its slider, and each slider its field", T, async () => {
    const { page, problems } = await open();
    await openAdvanced(page);
    for (const id of SERVER_NUMBERS) {
      const before = Number(await page.inputValue(`#${id}`));
      const pos0 = Number(await page.inputValue(`#${id}-range`));
      const typed = TYPED[id];
      await afterRun(page, () => page.fill(`#${id}`, String(typed)));
      const pos1 = Number(await page.inputValue(`#${id}-range`));
      assert.notEqual(pos1, pos0, `${id}: typing ${typed} (was ${before}) left the slider at ${pos0}`);
      assert.equal(Math.sign(pos1 - pos0), Math.sign(typed - before), `${id}: slider moved the wrong way`);
      assert.equal(await page.inputValue(`#${id}`), String(typed), `${id}: the typed text stays as typed`);
      const pos2 = pos1 > 500 ? pos1 - 100 : pos1 + 100;
      await afterRun(page, () =>
        page.evaluate(
          ({ id, pos }) => {
            const r = document.getElementById(`${id}-range`);
            r.value = String(pos);
            r.dispatchEvent(new Event("input", { bubbles: true }));
          },
          { id, pos: pos2 },
        ),
      );
      const after = Number(await page.inputValue(`#${id}`));
      assert.ok(Number.isFinite(after) && after !== typed, `${id}: slider to ${pos2} left the number at ${after}`);
      assert.equal(Math.sign(after - typed), Math.sign(pos2 - pos1), `${id}: number moved the wrong way`);
      assert.equal(await page.getAttribute(`#${id}`, "aria-invalid"), null, id);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("typing a client timeout changes the picture: attempts time out and work is wasted", T, async () => {
    const { page, problems } = await open();
    assert.equal(await metric(page, "timeouts"), 0);
    assert.equal(await metric(page, "wasted"), 0);
    const goodput = await canvasHash(page, "#goodput-chart canvas");
    const herd = await canvasHash(page, "#timeline");
    // The herd comes back at once to 5 workers of 10 ms and a queue of 50: a 30 ms timeout
    // gives up on most of what waits.
    await afterRun(page, () => page.fill("#timeout", "30"));
    assert.ok((await metric(page, "timeouts")) > 0, "attempts time out");
    assert.ok((await metric(page, "wasted")) > 0, "servers finish work for clients gone");
    assert.notEqual(await canvasHash(page, "#goodput-chart canvas"), goodput, "the goodput figure changed");
    assert.notEqual(await canvasHash(page, "#timeline"), herd, "the herd changed");
    await page.waitForFunction(() => location.search.includes("timeout=30"));
    // Back to none: the same numbers as at first.
    await afterRun(page, () => page.fill("#timeout", "0"));
    assert.equal(await metric(page, "timeouts"), 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the workers lead once typed: the capacity follows from them, and back", T, async () => {
    const { page, problems } = await open();
    const workers = Number(await page.inputValue("#workers"));
    assert.ok(workers >= 1, `the core's workers for 500/s: ${workers}`);
    await afterRun(page, () => page.fill("#workers", String(workers * 2)));
    // 1 server × 2w workers of 10 ms: twice the capacity, in the capacity field and the line.
    await page.waitForFunction((w) => Number(document.getElementById("capacity").value) === w * 2 * 100, workers);
    const line = new RegExp(`^1 × ${workers * 2} workers of 10 ms, queue \\d+ each: ${(workers * 200).toLocaleString("en-US")} req/s\\.$`);
    assert.match((await page.textContent("#fleet-line")) ?? "", line);
    await page.waitForFunction(() => location.search.includes("sizing=workers"));
    // The capacity leads again: the core picks the workers.
    await afterRun(page, () => page.fill("#capacity", "300"));
    await page.waitForFunction(() => /^Sized by the capacity/.test(document.getElementById("fleet-line").textContent ?? ""));
    assert.equal(Number(await page.inputValue("#workers")), 3);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a bad server value shows its message inline and keeps the last picture", T, async () => {
    const { page, problems } = await open();
    await openAdvanced(page);
    const before = await readMetrics(page);
    const cases = [
      ["timeout", "", /number/i],
      ["timeout", "-5", /^Client timeout \(0: none\): enter 0 \(none\) or a value from 1 ms to .*Given: -5\.$/],
      ["fail-rate", "2", /^Fail rate \(500s, 0–1\): enter a value from 0 to 1\. Given: 2\.$/],
      ["servers", "1.5", /whole number/i],
    ];
    for (const [id, text, message] of cases) {
      await page.fill(`#${id}`, text);
      const error = page.locator(`[data-error-for="${id}"]`);
      await error.waitFor({ state: "visible" });
      await page
        .waitForFunction(([i, re]) => new RegExp(re).test(document.querySelector(`[data-error-for="${i}"]`)?.textContent ?? ""), [id, message.source], { timeout: 5000 })
        .catch(() => {});
      assert.match((await error.textContent()) ?? "", message, `${id} = ${JSON.stringify(text)}`);
      assert.equal(await page.getAttribute(`#${id}`, "aria-invalid"), "true");
      assert.match((await page.textContent("#sim-error")) ?? "", /last valid settings/);
      await page.waitForTimeout(100);
      assert.deepEqual(await readMetrics(page), before, `metrics kept for ${id} = ${JSON.stringify(text)}`);
      // Fixed: the same picture as before.
      await afterRun(page, () => page.fill(`#${id}`, id === "servers" ? "1" : "0"));
      assert.equal(await error.isVisible(), false);
    }
    assert.deepEqual(await readMetrics(page), before);
    // Too many servers down for the fleet: the package names the field.
    await page.fill("#outage-servers", "3");
    await page.locator('[data-error-for="outage-servers"]').waitFor({ state: "visible" });
    assert.deepEqual(await readMetrics(page), before);
    assert.deepEqual(problems, [], "a caught RangeError must not reach the console");
    await page.close();
  });

  test("each story preset runs, shows its goodput figure and its side-by-side pictures", T, async () => {
    const { page, problems } = await open();
    const stories = { collapse: 2, crash: 3, lifo: 3 };
    const after = {};
    for (const [id, n] of Object.entries(stories)) {
      await afterRun(page, () => page.click(`[data-preset="${id}"]`));
      assert.equal(await page.getAttribute(`[data-preset="${id}"]`, "aria-pressed"), "true");
      assert.ok((await inked(page, "#goodput-chart canvas")) > 0.001, `${id}: goodput chart`);
      const m = await readMetrics(page);
      for (const name of NEW_METRICS) assert.match(m[name] ?? "", NUMBER_TEXT, `${id} ${name}: ${m[name]}`);
      assert.ok(Number(m.timeouts) > 0, `${id}: clients time out`);
      // The story's pictures, each with its goodput after the trigger.
      await page.waitForFunction(
        ([story, count]) => {
          const host = document.getElementById("story-figs");
          const nums = [...document.querySelectorAll("#story-figs [data-story-goodput]")].map((e) => e.dataset.storyGoodput);
          return host && !host.hidden && host.dataset.story === story && nums.length === count && nums.every((v) => v !== "");
        },
        [id, n],
        { timeout: 60_000 },
      );
      after[id] = await page.$$eval("#story-figs [data-story-goodput]", (els) => els.map((e) => Number(e.dataset.storyGoodput)));
      const figs = await page.$$eval("#story-figs canvas", (cs) => cs.length);
      assert.ok(figs >= n, `${id}: ${figs} canvases for ${n} pictures`);
    }
    // What the stories say: retries at once keep goodput down after the trigger, which
    // jitter (and a budget) or no retries at all do not; LIFO and a queue timeout keep it up.
    const [immediate, jitter] = after.collapse;
    assert.ok(jitter > immediate, `collapse: jitter ${jitter} > immediate ${immediate}`);
    const [retries, none, budget] = after.crash;
    assert.ok(none > retries && budget > retries, `crash: none ${none}, jitter+budget ${budget} > retries ${retries}`);
    const [fifo, lifo, queueTimeout] = after.lifo;
    assert.ok(lifo > fifo && queueTimeout > fifo, `lifo ${lifo}, queue timeout ${queueTimeout} > fifo ${fifo}`);
    // An edit leaves the story: its pictures go.
    await afterRun(page, () => page.fill("#seed", "2"));
    assert.equal(await page.isVisible("#story-figs"), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a link copied while a story is on show opens that story: its button, lesson and pictures", T, async () => {
    const { page, problems } = await open();
    await afterRun(page, () => page.click('[data-preset="crash"]'));
    // Its retries keep the fleet overloaded until the traffic stops: no recovery to speak of.
    assert.match((await page.textContent('[data-aside="recoveryMs"]')) ?? "", /^not while the traffic lasted \(\d+ s\)$/);
    await page.waitForFunction(() => new URLSearchParams(location.search).get("story") === "crash", null, { timeout: 10_000 });
    const link = await page.evaluate(() => location.search);
    const lesson = await page.textContent("#preset-lesson");
    const copy = await pg.browser.context.newPage();
    await copy.goto(pg.server.url + link);
    await waitReady(copy);
    assert.equal(await copy.getAttribute('[data-preset="crash"]', "aria-pressed"), "true");
    assert.equal(await copy.textContent("#preset-lesson"), lesson);
    assert.ok((lesson ?? "").length > 20, lesson);
    await copy.waitForFunction(() => document.getElementById("story-figs")?.dataset.story === "crash" && !document.getElementById("story-figs").hidden, null, { timeout: 60_000 });
    await copy.close();
    // Settings changed by hand since: that is not the story any more.
    const edited = new URLSearchParams(link);
    edited.set("seed", "2");
    const other = await pg.browser.context.newPage();
    await other.goto(`${pg.server.url}?${edited}`);
    await waitReady(other);
    assert.equal(await other.$('[data-preset][aria-pressed="true"]'), null);
    assert.equal(await other.isVisible("#preset-lesson"), false);
    // An edit leaves the story: the address drops its name.
    await afterRun(page, () => page.fill("#seed", "3"));
    await page.waitForFunction(() => !new URLSearchParams(location.search).has("story"), null, { timeout: 10_000 });
    await other.close();
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the live call that gave up on another origin's refused port says what a browser cannot tell apart", T, async () => {
    const { page, problems } = await open("?attempts=2&base=10&cap=10");
    // A port the system just gave and took back: nothing listens there (another origin).
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const port = probe.address().port;
    await new Promise((r) => probe.close(r));
    await page.waitForFunction(() => !document.getElementById("live-send")?.disabled, null, { timeout: 15_000 });
    await page.fill("#live-url", `http://127.0.0.1:${port}/`);
    await page.click("#live-send");
    await page.waitForFunction(() => /^Gave up/.test(document.getElementById("live-status")?.textContent ?? ""), null, { timeout: 20_000 });
    assert.match((await page.textContent("#live-status")) ?? "", /^Gave up after 2 attempts: .*\(In a browser, fetch cannot tell a refused connection from a host it cannot reach or an answer without CORS headers/);
    // Chromium logs the refused loads itself; nothing else.
    assert.deepEqual(problems.filter((p) => !/ERR_CONNECTION_REFUSED|Failed to load resource/.test(p)), []);
    await page.close();
  });

  test("a link's traffic past the page's requests per run says so beside the field", T, async () => {
    const { page, problems } = await open("?scenario=steady&clients=5000&rate=10");
    const note = (await page.textContent('[data-error-for="clients"]')) ?? "";
    assert.match(note, /“5000” here, which with its other traffic settings makes more than 1,000,000 requests/);
    assert.equal(await page.inputValue("#clients"), "1000");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a flaky key the last call spent is not offered again after another endpoint was tried", T, async () => {
    const { page, problems } = await open("?base=10&cap=10");
    const key = async () => new URL(await page.inputValue("#live-url"), "http://x/").searchParams.get("key");
    await page.waitForFunction(() => !document.getElementById("live-send")?.disabled, null, { timeout: 15_000 });
    const first = await key();
    await page.click("#live-send");
    await page.waitForFunction(() => /^200/.test(document.getElementById("live-status")?.textContent ?? ""), null, { timeout: 30_000 });
    // Another URL tried (one fetch cannot call: nothing is sent), then the server's again.
    await page.selectOption("#live-endpoint", "custom");
    await page.fill("#live-url", "ftp://example.invalid/");
    await page.click("#live-send");
    await page.waitForFunction(() => !document.getElementById("live-send")?.disabled && (document.getElementById("live-status")?.textContent ?? "") !== "Sending…");
    await page.selectOption("#live-endpoint", "server");
    const again = await key();
    assert.ok(again && again !== first, `the key ${again} after ${first}`);
    // The other URL's refusal is gone with it: the panel starts over.
    assert.equal(await page.getAttribute("#live-url", "aria-invalid"), null);
    assert.equal(await page.textContent("#live-status"), "Nothing sent yet.");
    assert.equal(await page.locator("#live-log li").count(), 0);
    assert.deepEqual(problems.filter((p) => !/503/.test(p)), []);
    await page.close();
  });

  test("the new settings travel in a link and come back the same", T, async () => {
    const { page, problems } = await open();
    await afterRun(page, () => page.selectOption("#scenario", "spike"));
    await afterRun(page, () => page.fill("#servers", "2"));
    await afterRun(page, () => page.fill("#workers", "3"));
    await afterRun(page, () => page.selectOption("#queue-order", "lifo"));
    await afterRun(page, () => page.selectOption("#service-dist", "exponential"));
    await afterRun(page, () => page.fill("#timeout", "300"));
    await openAdvanced(page);
    await afterRun(page, () => page.fill("#fail-rate", "0.05"));
    await page.waitForFunction(() => location.search.includes("fail-rate=0.05") && location.search.includes("queue-order=lifo"));
    const link = page.url();
    const metrics = await readMetrics(page);
    const again = await pg.browser.context.newPage();
    const problems2 = watchConsole(again);
    await again.goto(link);
    await waitReady(again);
    await waitIdle(again);
    for (const [id, v] of [["scenario", "spike"], ["servers", "2"], ["workers", "3"], ["queue-order", "lifo"], ["service-dist", "exponential"], ["timeout", "300"], ["fail-rate", "0.05"]]) {
      assert.equal(await again.inputValue(`#${id}`), v, id);
    }
    assert.deepEqual(await readMetrics(again), metrics);
    // The folded setting the link carries opens its fold: the reader sees why the picture differs.
    assert.equal(await again.evaluate(() => document.getElementById("server-advanced").open), true);
    assert.deepEqual([...problems, ...problems2], []);
    await again.close();
    await page.close();
  });

  test("a slider stops at the field that bounds it: servers down at the servers, the cap at the base", T, async () => {
    const { page, problems } = await open();
    // Nothing folded differs from the defaults: the fold stays shut.
    assert.equal(await page.evaluate(() => document.getElementById("server-advanced").open), false);
    await afterRun(page, () => page.fill("#servers", "3"));
    await openAdvanced(page);
    // The slider's End went to its own end, 100, which one server (here three) cannot lose.
    await page.focus("#outage-servers-range");
    await afterRun(page, () => page.keyboard.press("End"));
    assert.equal(await page.inputValue("#outage-servers"), "3");
    // Dragged to the track's end, the thumb too stops at 3 (it stayed where the pointer let go).
    const track = await page.locator("#outage-servers-range").boundingBox();
    await page.mouse.move(track.x + 4, track.y + track.height / 2);
    await page.mouse.down();
    await page.mouse.move(track.x + track.width - 2, track.y + track.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction(() => { const r = document.getElementById("outage-servers-range"); return Number(r.value) < Number(r.max) / 2; });
    assert.equal(await page.inputValue("#outage-servers"), "3");
    // 0 means all of them: its readout says so (it said "none").
    await page.fill("#outage-servers", "0");
    await page.waitForFunction(() => document.getElementById("outage-servers-readout")?.textContent === "all");
    assert.equal(await page.isVisible('[data-error-for="outage-servers"]'), false);
    // Dragged to its far left, the cap stops at the base (2 s by default) instead of refusing.
    const base = await page.inputValue("#base");
    await page.focus("#cap-range");
    await afterRun(page, () => page.keyboard.press("Home"));
    assert.equal(await page.inputValue("#cap"), base);
    assert.equal(await page.isVisible('[data-error-for="cap"]'), false);
    // The budget's sliders with no budget ticked are dimmed, and say why; ticked, they are not.
    const idle = () => page.evaluate(() => ["budget-capacity", "budget-refill", "budget-scope"].map((id) => document.querySelector(`[data-field="${id}"]`).classList.contains("idle")));
    assert.deepEqual(await idle(), [true, true, true]);
    // Its reason in the page's language, after a switch too.
    await page.click('[data-lang="ru"]');
    assert.match((await page.getAttribute('[data-field="budget-refill"]', "title")) ?? "", /Бюджет не включён/);
    await page.click('[data-lang="en"]');
    await afterRun(page, () => page.check("#budget"));
    assert.deepEqual(await idle(), [false, false, false]);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
