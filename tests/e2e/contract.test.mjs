// End-to-end tests of the page's outside contract and of its edges: every stable hook with
// the element type the issue promises, each typed number and its slider following each other
// both ways, the fourteen metrics holding numbers; a bad shared link still drawing; controls
// waiting for the wasm module; the herd's one-row-per-client view; the live panel's method,
// budget and embed snippet.
// Run: node --test tests/e2e/   (needs `make dist` and target/release/stampede)

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { afterRun, cliSimulate, dragBase, readMetrics, waitIdle, usePlayground, waitReady, watchConsole } from "./harness.mjs";

const pg = usePlayground();
const { open } = pg;
const T = { timeout: 90_000 };

/** The issue's stable hooks. */
const SELECTS = ["scenario", "strategy"];
const NUMBERS = ["base", "cap", "attempts", "multiplier", "clients", "outage", "capacity", "retry-after", "budget-capacity", "budget-refill", "seed"];
const METRICS = [
  "peakRps",
  "peakRecoveryRps",
  "totalAttempts",
  "amplification",
  "recoveryMs",
  "completionMs",
  "successes",
  "gaveUp",
  "budgetRejected",
  "p99Ms",
  "goodputRps",
  "timeouts",
  "wasted",
  "maxQueue",
];
const NUMBER_TEXT = /^-?\d+(\.\d+)?$/;

/** A value to type into each number, different from the default (and its slider position). */
const TYPED = {
  base: 500,
  cap: 10000,
  attempts: 3,
  multiplier: 3,
  // Low enough that the slider's tenth of travel up (×2.5 on its 100..1,000,000 log scale) keeps
  // the steady run at the end within the page's bound on steady requests.
  clients: 2000,
  outage: 10000,
  capacity: 2000,
  "retry-after": 5000,
  "budget-capacity": 20,
  "budget-refill": 10,
  seed: 500,
};

/** Moves a slider as a pointer drag would: a new value and an input event. */
function slide(page, id, pos) {
  return page.evaluate(
    ({ id, pos }) => {
      const r = document.getElementById(`${id}-range`);
      r.value = String(pos);
      r.dispatchEvent(new Event("input", { bubbles: true }));
    },
    { id, pos },
  );
}

function canvasHash(page, id) {
  return page.evaluate((canvasId) => {
    const c = document.getElementById(canvasId);
    const copy = document.createElement("canvas");
    copy.width = c.width;
    copy.height = c.height;
    const ctx = copy.getContext("2d", { willReadFrequently: true });
    ctx.drawImage(c, 0, 0);
    const d = new Uint32Array(ctx.getImageData(0, 0, c.width, c.height).data.buffer);
    let h = 0;
    for (let i = 0; i < d.length; i++) h = (Math.imul(h, 31) + (d[i] ?? 0)) | 0;
    return h;
  }, id);
}

describe("the page's contract", () => {
  test("every stable hook exists with the element type the issue promises", T, async () => {
    const { page, problems } = await open();
    const kind = (sel) =>
      page.$$eval(sel, (els) => els.map((e) => `${e.tagName.toLowerCase()}${e instanceof HTMLInputElement ? `[${e.type}]` : ""}`));
    for (const id of SELECTS) assert.deepEqual(await kind(`#${id}`), ["select"], id);
    assert.deepEqual(await kind("#budget"), ["input[checkbox]"]);
    for (const id of NUMBERS) {
      assert.deepEqual(await kind(`#${id}`), ["input[number]"], id);
      assert.deepEqual(await kind(`#${id}-range`), ["input[range]"], `${id}-range`);
    }
    assert.deepEqual(await kind("canvas#timeline"), ["canvas"]);
    assert.deepEqual(await kind("canvas#load"), ["canvas"]);
    assert.deepEqual(await kind("#live-url"), ["input[text]"]);
    assert.deepEqual(await kind("#live-method"), ["select"]);
    assert.deepEqual(await kind("#live-send"), ["button"]);
    assert.deepEqual(await kind("#live-cancel"), ["button"]);
    assert.deepEqual(await kind("#live-log"), ["ol"]);
    // Exactly the fourteen metrics, once each, every one a number after a run.
    const names = await page.$$eval("[data-metric]", (els) => els.map((e) => e.getAttribute("data-metric")));
    assert.deepEqual([...names].sort(), [...METRICS].sort());
    const m = await readMetrics(page);
    for (const name of METRICS) assert.match(m[name] ?? "", NUMBER_TEXT, `${name}: ${m[name]}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the metrics measured from the outage's end are hidden in a run without one, their hooks still numbers", T, async () => {
    const { page, problems } = await open("?scenario=spike&outage=0");
    const shown = (name) => page.$eval(`[data-metric="${name}"]`, (e) => !e.closest(".metric")?.hidden);
    assert.equal(await shown("recoveryMs"), false);
    assert.equal(await shown("peakRecoveryRps"), false);
    assert.equal(await shown("peakRps"), true);
    const m = await readMetrics(page);
    for (const name of METRICS) assert.match(m[name] ?? "", NUMBER_TEXT, `${name}: ${m[name]}`);
    await afterRun(page, () => page.fill("#outage", "2000"));
    assert.equal(await shown("recoveryMs"), true);
    assert.equal(await shown("peakRecoveryRps"), true);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("typed text counts when the typing pauses: its prefixes never run or reach the link", T, async () => {
    const { page, problems } = await open();
    const runs = Number(await page.evaluate(() => document.documentElement.dataset.runs));
    await page.click("#attempts", { clickCount: 3 });
    // Keys at once (typed 60 ms apart, a stalled machine let "1" or "10" pass the 300 ms pause).
    await page.keyboard.type("101");
    await page.waitForFunction(() => (document.querySelector('[data-error-for="attempts"]')?.textContent ?? "") !== "", null, { timeout: 10_000 });
    await page.waitForTimeout(600); // the address would have followed a run within 250 ms
    assert.equal(Number(await page.evaluate(() => document.documentElement.dataset.runs)), runs, "1 and 10 never ran");
    assert.equal(new URLSearchParams(await page.evaluate(() => location.search)).get("attempts"), "6", "the link keeps the last good value");
    // Typed and paused: it counts.
    await page.click("#attempts", { clickCount: 3 });
    await page.keyboard.type("4", { delay: 60 });
    await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, runs, { timeout: 30_000 });
    await page.waitForFunction(() => new URLSearchParams(location.search).get("attempts") === "4", null, { timeout: 10_000 });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("each typed number moves its slider, and each slider moves its typed number", T, async () => {
    const { page, problems } = await open();
    for (const id of NUMBERS) {
      const before = Number(await page.inputValue(`#${id}`));
      const pos0 = Number(await page.inputValue(`#${id}-range`));
      const typed = TYPED[id];
      await afterRun(page, () => page.fill(`#${id}`, String(typed)));
      const pos1 = Number(await page.inputValue(`#${id}-range`));
      assert.notEqual(pos1, pos0, `${id}: typing ${typed} (was ${before}) left the slider at ${pos0}`);
      assert.equal(Math.sign(pos1 - pos0), Math.sign(typed - before), `${id}: slider moved the wrong way`);
      assert.equal(await page.inputValue(`#${id}`), String(typed), `${id}: the typed text stays as typed`);
      // The slider, moved the other way by a tenth of its travel, rewrites the number.
      const pos2 = pos1 > 500 ? pos1 - 100 : pos1 + 100;
      await afterRun(page, () => slide(page, id, pos2));
      const after = Number(await page.inputValue(`#${id}`));
      assert.ok(Number.isFinite(after) && after !== typed, `${id}: slider to ${pos2} left the number at ${after}`);
      assert.equal(Math.sign(after - typed), Math.sign(pos2 - pos1), `${id}: number moved the wrong way`);
      assert.equal(await page.getAttribute(`#${id}`, "aria-invalid"), null, id);
    }
    // A scenario, a checkbox and the metrics still hold numbers after all of that.
    await afterRun(page, () => page.selectOption("#scenario", "steady"));
    await afterRun(page, () => page.check("#budget"));
    const m = await readMetrics(page);
    for (const name of METRICS) assert.match(m[name] ?? "", NUMBER_TEXT, `${name}: ${m[name]}`);
    assert.ok(Number(m.budgetRejected) >= 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a bad shared link falls back per key, says so inline, and still draws", T, async () => {
    const { page, problems } = await open("?clients=-5&speed=garbage&cap=10&seed=42");
    // The first picture is there.
    assert.ok(Number(await page.textContent('[data-metric="totalAttempts"]')) > 0);
    // Checked by the page: the default, and a note beside the field.
    assert.equal(await page.inputValue("#clients"), "1000");
    // Outside the page's range: the note gives it.
    assert.match((await page.textContent('[data-error-for="clients"]')) ?? "", /“-5” here, outside 100 to 1,000,000/);
    assert.equal(await page.inputValue("#speed"), "1");
    assert.match((await page.textContent("#link-note")) ?? "", /speed=garbage/);
    // Refused by the package (a cap below the base): the default, and the package's reason.
    assert.equal(await page.inputValue("#cap"), "30000");
    assert.match((await page.textContent('[data-error-for="cap"]')) ?? "", /“10”.*\(Cap: enter a value from 2,000 ms to /);
    // The good keys of the same link stand.
    assert.equal(await page.inputValue("#seed"), "42");
    // Notes are not errors; editing the field clears its note.
    assert.equal(await page.getAttribute("#cap", "aria-invalid"), null);
    assert.equal(await page.isVisible("#sim-error"), false);
    await afterRun(page, () => page.fill("#cap", "20000"));
    assert.equal(await page.isVisible('[data-error-for="cap"]'), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a link naming a story the page does not have says so, and keeps its other settings", T, async () => {
    const { page, problems } = await open("?story=nonexistent&seed=7");
    assert.match((await page.textContent("#link-note")) ?? "", /names a story the page does not have \(“nonexistent”\)/);
    assert.equal(await page.inputValue("#seed"), "7");
    // Alone in the link, it opens as a bare address does: on the first story.
    const alone = await open("?story=nonexistent");
    assert.match((await alone.page.textContent("#link-note")) ?? "", /“nonexistent”/);
    assert.equal(await alone.page.getAttribute('[data-preset="herd"]', "aria-pressed"), "true");
    assert.deepEqual([...problems, ...alone.problems], []);
    await alone.page.close();
    await page.close();
  });

  test("Share writes the whole state into the address and keeps the section in its hash", T, async () => {
    const { page, problems } = await open("?seed=42#compare");
    await afterRun(page, () => page.fill("#attempts", "3"));
    await page.click("#share");
    await page.waitForFunction(() => document.getElementById("share-status")?.textContent !== "");
    const url = new URL(page.url());
    assert.equal(url.hash, "#compare");
    assert.equal(url.searchParams.get("seed"), "42");
    assert.equal(url.searchParams.get("attempts"), "3");
    // "Link copied" goes after a few seconds (it stayed for good).
    await page.waitForFunction(() => document.getElementById("share-status")?.textContent === "", null, { timeout: 8000 });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a link too big to simulate at the defaults keeps its scenario: the value that fits", T, async () => {
    // A closed loop of no think: at the page's default duration it would make millions of
    // requests too many. The duration is already the default, so resetting it fixes nothing:
    // it takes the longest that fits, and the link's scenario, clients and think stand.
    const { page, problems } = await open("?scenario=closed&clients=1000&think=0");
    assert.ok(Number(await page.textContent('[data-metric="totalAttempts"]')) > 0);
    assert.equal(await page.inputValue("#scenario"), "closed");
    assert.equal(await page.inputValue("#clients"), "1000");
    assert.equal(await page.inputValue("#think"), "0");
    const duration = Number(await page.inputValue("#duration"));
    assert.ok(duration > 0 && duration < 120_000, `duration ${duration}`);
    assert.match((await page.textContent('[data-error-for="duration"]')) ?? "", /the value that fits is shown/);
    assert.equal(await page.isVisible("#sim-error"), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("policy B's refusal goes when B's field is back to what its kept run was made from", T, async () => {
    // 20 attempts with a timeout are too many for a million clients; 6 is what the kept B
    // run was made from, so B is not run again, and its refusal must not stay on screen.
    const { page, problems } = await open("?clients=1000000&timeout=100");
    await page.locator("#compare").scrollIntoViewIfNeeded();
    const error = page.locator('[data-error-for="b-attempts"]');
    await page.waitForFunction(() => document.querySelector('[data-cmp="b:cmp.totalAttempts"]')?.textContent !== "…", null, { timeout: 30_000 });
    await page.fill("#b-attempts", "20");
    await page.locator("#b-attempts").blur();
    await page.waitForFunction(() => /Given: 20/.test(document.querySelector('[data-error-for="b-attempts"]')?.textContent ?? ""), null, { timeout: 30_000 });
    await page.fill("#b-attempts", "6");
    await page.locator("#b-attempts").blur();
    await error.waitFor({ state: "hidden", timeout: 10_000 });
    assert.doesNotMatch((await page.textContent("#sim-error")) ?? "", /Given: 20/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a value policy B's run refused stays out of the address: it keeps B as it last ran", T, async () => {
    const { page, problems } = await open("?b-base=3000");
    await page.locator("#compare").scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('[data-cmp="b:cmp.totalAttempts"]')?.textContent !== "…", null, { timeout: 30_000 });
    await page.fill("#b-base", "-1");
    await page.locator("#b-base").blur();
    await page.waitForFunction(() => (document.querySelector('[data-error-for="b-base"]')?.textContent ?? "") !== "", null, { timeout: 30_000 });
    // Policy A still runs on an edit meanwhile (its picture is drawn, the state is kept).
    const runs = Number(await page.evaluate(() => document.documentElement.dataset.runs));
    await page.fill("#clients", "2000");
    await page.locator("#clients").blur();
    await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, runs, { timeout: 30_000 });
    // The address follows within 250 ms: waited for, not assumed after a fixed pause.
    await page.waitForFunction(() => new URLSearchParams(location.search).get("clients") === "2000", null, { timeout: 10_000 });
    const query = new URLSearchParams(await page.evaluate(() => location.search));
    assert.equal(query.get("clients"), "2000");
    assert.equal(query.get("b-base"), "3000", "B as it last ran, not the refused -1");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a link whose every number is nonsense opens on the defaults", T, async () => {
    const { page, problems } = await open("?base=-1&cap=-1&attempts=NaN&multiplier=0&budget-capacity=-3&b-base=-9&retry-after=-1");
    assert.equal(await page.inputValue("#base"), "2000");
    assert.equal(await page.inputValue("#cap"), "30000");
    assert.ok(Number(await page.textContent('[data-metric="totalAttempts"]')) > 0);
    await page.waitForFunction(() => document.querySelector('[data-cmp="b:cmp.totalAttempts"]')?.textContent !== "…");
    assert.equal(await page.inputValue("#b-base"), "2000");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("controls wait for the wasm module; the page is ready only with a real picture", T, async () => {
    const page = await pg.browser.context.newPage();
    const problems = watchConsole(page);
    let release;
    const gate = new Promise((r) => (release = r));
    await page.route("**/*.wasm", async (route) => {
      await gate;
      await route.continue();
    });
    await page.goto(pg.server.url);
    await page.waitForSelector("#group-policy #base");
    const state = () =>
      page.evaluate(() => ({
        ready: document.documentElement.dataset.ready ?? null,
        base: document.getElementById("base").matches(":disabled"),
        strategy: document.getElementById("strategy").matches(":disabled"),
        budget: document.getElementById("budget").matches(":disabled"),
        preset: document.querySelector("[data-preset]").disabled,
        send: document.getElementById("live-send").disabled,
        interactive: performance.getEntriesByName("stampede:interactive").length,
      }));
    assert.deepEqual(await state(), { ready: null, base: true, strategy: true, budget: true, preset: true, send: true, interactive: 0 });
    // A keyboard user cannot slip an edit in either.
    await page.focus("#base-range").catch(() => {});
    await page.keyboard.press("ArrowLeft");
    await page.waitForTimeout(300);
    assert.equal((await state()).ready, null);
    release();
    await waitReady(page);
    // Nothing was edited: the default settings and the core's numbers for them.
    assert.equal(await page.inputValue("#base"), "2000");
    assert.equal(await page.textContent('[data-metric="totalAttempts"]'), String(cliSimulate().total_attempts));
    assert.deepEqual(await state(), { ready: "1", base: false, strategy: false, budget: false, preset: false, send: false, interactive: 1 });
    assert.ok(Number(await page.textContent('[data-metric="totalAttempts"]')) > 0);
    await afterRun(page, () => page.fill("#base", "700"));
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the herd gives every client a row of pixels and scrolls through 10,000 of them", T, async () => {
    const { page, problems } = await open("?clients=10000");
    assert.equal(await page.inputValue("#herd-rows"), "client");
    const view = () =>
      page.evaluate(() => {
        const s = document.getElementById("timeline-scroll");
        const c = document.getElementById("timeline");
        return { scrollHeight: s.scrollHeight, clientHeight: s.clientHeight, canvasRows: c.height, cssRows: c.getBoundingClientRect().height };
      });
    const v = await view();
    // One backing pixel row per client: the scroll height is 10,000 of them (in CSS px).
    const ratio = v.canvasRows / v.cssRows;
    assert.ok(Math.abs(v.scrollHeight * ratio - 10_000) <= 2 * ratio, JSON.stringify(v));
    assert.match((await page.textContent("#timeline-rows")) ?? "", /^Clients 1–\d+ of 10,000/);
    const top = await canvasHash(page, "timeline");
    await page.evaluate(() => {
      document.getElementById("timeline-scroll").scrollTop = 5000;
    });
    await page.waitForFunction(() => /^Clients 5,00\d–/.test(document.getElementById("timeline-rows").textContent ?? ""));
    assert.notEqual(await canvasHash(page, "timeline"), top, "scrolling draws other clients");
    // A new run draws where the reader scrolled to (the position kept from the scroll events).
    await afterRun(page, () => page.fill("#base", "700"));
    assert.match((await page.textContent("#timeline-rows")) ?? "", /^Clients 5,00\d–/);
    // The overview: everyone folded into the view, nothing to scroll.
    await page.selectOption("#herd-rows", "fit");
    await page.waitForFunction(() => /^All 10,000 clients/.test(document.getElementById("timeline-rows").textContent ?? ""));
    const f = await view();
    assert.ok(f.scrollHeight <= f.clientHeight + 1, JSON.stringify(f));
    await page.waitForFunction(() => location.search.includes("rows=fit"));
    // A preset keeps the reader's layout.
    await afterRun(page, () => page.click('[data-preset="jitter"]'));
    assert.equal(await page.inputValue("#herd-rows"), "fit");
    assert.match((await page.textContent("#timeline-rows")) ?? "", /^All 1,000 clients/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the live method and idempotency decide what is retried, and the snippet says the same", T, async () => {
    const { page, problems } = await open();
    const key = () => Math.random().toString(36).slice(2, 10);
    // POST is not retried unless it is marked safe to repeat.
    await page.selectOption("#live-method", "POST");
    await page.fill("#live-url", `/api/flaky?key=${key()}&fail=2&status=503&retry_after=1`);
    await page.click("#live-send");
    await page.waitForFunction(() => document.querySelectorAll("#live-log li").length >= 1 && !document.querySelector("#live-send")?.disabled, null, { timeout: 30_000 });
    assert.deepEqual(await page.$$eval("#live-log li", (lis) => lis.map((li) => li.dataset.status)), ["503"]);
    await page.check("#live-idempotent");
    await page.fill("#live-headers", "Idempotency-Key: k-42");
    await page.fill("#live-timeout", "4000");
    await page.fill("#live-url", `/api/flaky?key=${key()}&fail=2&status=503&retry_after=1`);
    await page.click("#live-send");
    await page.waitForFunction(() => document.querySelectorAll("#live-log li").length >= 3 && !document.querySelector("#live-send")?.disabled, null, { timeout: 30_000 });
    assert.deepEqual(await page.$$eval("#live-log li", (lis) => lis.map((li) => li.dataset.status)), ["503", "503", "200"]);
    const code = (await page.textContent("#embed-code")) ?? "";
    assert.match(code, /\{ method: "POST", headers: \{ "Idempotency-Key": "k-42" \} \}/);
    assert.match(code, /idempotent: true,/);
    assert.match(code, /attemptTimeoutMs: 4000,/);
    // A timeout that is not a number is flagged beside its field, and nothing is sent.
    await page.fill("#live-timeout", "");
    await page.locator("#live-timeout").pressSequentially("1e");
    await page.locator("#live-timeout-error").waitFor({ state: "visible" });
    // A number the package refuses is flagged as it is typed (no Send), worded as the
    // package's refusal would be, and the snippet leaves it out rather than repeat it.
    for (const bad of ["-5", "0", "1e12"]) {
      await page.fill("#live-timeout", bad);
      await page.locator("#live-timeout-error").waitFor({ state: "visible" });
      assert.match((await page.textContent("#live-timeout-error")) ?? "", /Timeout per attempt: .*86,400,000 ms/);
      assert.doesNotMatch((await page.textContent("#embed-code")) ?? "", /attemptTimeoutMs/, `${bad} stays out of the snippet`);
    }
    await page.fill("#live-timeout", "2500");
    await page.locator("#live-timeout-error").waitFor({ state: "hidden" });
    assert.match((await page.textContent("#embed-code")) ?? "", /attemptTimeoutMs: 2500,/);
    assert.deepEqual(problems.filter((p) => !/503/.test(p)), []);
    await page.close();
  });

  test("the live budget follows the settings on every Send, shows its tokens, and the snippet names the same call site", T, async () => {
    const { page, problems } = await open();
    const key = () => Math.random().toString(36).slice(2, 10);
    // Short backoff: the server's Retry-After (1 s) sets the waits.
    await afterRun(page, () => page.fill("#base", "100"));
    await afterRun(page, () => page.fill("#cap", "1000"));
    await afterRun(page, () => page.check("#budget"));
    await afterRun(page, () => page.fill("#budget-capacity", "1"));
    await afterRun(page, () => page.fill("#budget-refill", "0.01"));
    const send = async () => {
      await page.fill("#live-url", `/api/flaky?key=${key()}&fail=2&status=503&retry_after=1`);
      await page.click("#live-send");
      await page.waitForFunction(() => !document.querySelector("#live-send")?.disabled && document.querySelector("#live-status")?.textContent !== "Sending…", null, { timeout: 30_000 });
      return page.$$eval("#live-log li", (lis) => lis.map((li) => li.dataset.status));
    };
    // One token: the first retry spends it, the second is refused — the call ends on a 503.
    assert.deepEqual(await send(), ["503", "503"]);
    const line = (await page.textContent("#live-budget")) ?? "";
    assert.match(line, /GET http:\/\/127\.0\.0\.1:\d+\/api\/flaky/);
    assert.match(line, /1 tokens/);
    assert.match(line, /0(\.0\d)? tokens left/);
    // The bucket is empty and refills at 0.01/s: the next call is not even sent.
    assert.deepEqual(await send(), []);
    assert.match((await page.textContent("#live-status")) ?? "", /Budget exhausted/);
    // A faster refill goes with the next Send and reconfigures the bucket (its tokens are
    // kept, so that very call may still be refused; the refill then works from there on).
    await afterRun(page, () => page.fill("#budget-refill", "100"));
    let statuses = await send();
    if (statuses.length === 0) {
      await page.waitForTimeout(100);
      statuses = await send();
    }
    assert.deepEqual(statuses, ["503", "503", "200"]);
    const tokens = await page.$$eval("#live-log li .a-tokens", (s) => s.map((e) => e.textContent));
    assert.ok(tokens.length >= 2, tokens.join(" | "));
    const site = /“([^”]+)”/.exec((await page.textContent("#live-budget")) ?? "")?.[1];
    assert.ok(site, "the budget line names its call site");
    assert.ok(((await page.textContent("#embed-code")) ?? "").includes(`callSite: ${JSON.stringify(site)}`), "the snippet uses the live call site");
    assert.deepEqual(problems.filter((p) => !/503/.test(p)), []);
    await page.close();
  });

  test("the Russian page words the package's errors with its own labels", T, async () => {
    const { page, problems } = await open("?lang=ru");
    await page.fill("#base", "-5");
    const error = page.locator('[data-error-for="base"]');
    await error.waitFor({ state: "visible" });
    // Worded from the error's field, code and bounds, not from the package's English text.
    assert.match((await error.textContent()) ?? "", /^Базовая задержка: введите значение от 0 мс до .*Получено: -5\.$/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a drag over worker runs longer than the gap between inputs still shows pictures as it goes", { timeout: 120_000 }, async () => {
    // 1,000,000 steady requests from 100,000 clients: every run goes to the worker and takes
    // several times the gap between two inputs of a drag.
    const { page, problems } = await open("?scenario=steady&clients=100000&rate=0.1&duration=100000");
    await page.waitForFunction(() => document.querySelector('[data-cmp="b:cmp.totalAttempts"]')?.textContent !== "…", null, { timeout: 60_000 });
    await waitIdle(page, 60_000);
    await page.waitForTimeout(300);
    const runMs = await page.evaluate(() => Math.max(...performance.getEntriesByName("stampede:worker-a").map((e) => e.duration), 0));
    const r = await dragBase(page, Math.max(4000, 4 * runMs));
    assert.ok(r.pictures >= 1, `no picture during a ${r.inputs}-input drag (a run takes ${Math.round(runMs)} ms)`);
    // The newest settings still land after the drag.
    await waitIdle(page, 60_000);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.sim), "idle");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the compare panel draws its two herds when it comes on screen", T, async () => {
    const { page, problems } = await open();
    await page.waitForFunction(() => document.querySelector('[data-cmp="b:cmp.totalAttempts"]')?.textContent !== "…");
    await page.locator("#compare").scrollIntoViewIfNeeded();
    await page.waitForFunction(() => performance.getEntriesByName("stampede:compare-herd-b").length > 0, null, { timeout: 10_000 });
    const a = await canvasHash(page, "compare-a");
    const b = await canvasHash(page, "compare-b");
    assert.notEqual(a, b, "A (exponential) and B (full jitter) draw different herds");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the aws-occ scenario names no fixed number of writers", T, async () => {
    const { page, problems } = await open();
    const label = await page.$eval('#scenario option[value="aws-occ"]', (o) => o.textContent);
    assert.doesNotMatch(label ?? "", /\d/);
    await afterRun(page, () => page.selectOption("#scenario", "aws-occ"));
    await waitIdle(page);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
