// End-to-end tests of the playground: the built page (www/dist) served by `stampede serve`
// on a free loopback port, driven in Debian's Chromium through playwright-core.
// Run: node --test tests/e2e/   (needs `make dist` and target/release/stampede)

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  afterRun,
  cliSimulate,
  drawEverything,
  inked,
  launchBrowser,
  readMetrics,
  usePlayground,
  waitIdle,
  waitReady,
  watchConsole,
} from "./harness.mjs";

const pg = usePlayground();
const { open } = pg;
const T = { timeout: 90_000 };

async function clickPreset(page, id) {
  await afterRun(page, () => page.click(`[data-preset="${id}"]`));
}

async function metric(page, name) {
  return Number(await page.textContent(`[data-metric="${name}"]`));
}

describe("the playground", () => {
  test("loads with no console errors and draws the first picture", T, async () => {
    const { page, problems } = await open();
    assert.equal(await page.locator("canvas#timeline").count(), 1);
    assert.equal(await page.locator("canvas#load").count(), 1);
    assert.ok((await inked(page, "timeline")).share > 0.001, "timeline is drawn");
    assert.ok((await inked(page, "load")).share > 0.001, "load chart is drawn");
    const m = await readMetrics(page);
    for (const [k, v] of Object.entries(m)) assert.match(v ?? "", /^-?\d+(\.\d+)?$|^—$/, `${k}: ${v}`);
    // The same numbers as the core computes for the page's default settings (the CLI's defaults).
    const core = cliSimulate();
    assert.equal(m.totalAttempts, String(core.total_attempts));
    assert.equal(m.peakRps, String(Math.round(core.peak_rps)));
    assert.equal(m.successes, String(core.successes));
    assert.equal(m.gaveUp, String(core.gave_up));
    // The compare panel and the histograms fill in a later frame (the histograms once they are
    // on screen: off screen they wait).
    await page.waitForFunction(() => document.querySelector('[data-cmp="b:cmp.totalAttempts"]')?.textContent !== "…");
    await page.locator("#distributions").scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelectorAll(".delay-panel").length > 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("every preset draws its picture", T, async () => {
    const { page, problems } = await open();
    for (const id of ["herd", "jitter", "storm", "budget", "aws"]) {
      await clickPreset(page, id);
      const herd = await inked(page, "timeline");
      const load = await inked(page, "load");
      assert.ok(herd.share > 0.001 && herd.colours > 2, `${id}: timeline is blank (${JSON.stringify(herd)})`);
      assert.ok(load.share > 0.001, `${id}: load chart is blank`);
      assert.equal(await page.getAttribute(`[data-preset="${id}"]`, "aria-pressed"), "true");
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("full jitter lowers the peak that hits the recovering server", T, async () => {
    const { page, problems } = await open();
    await clickPreset(page, "herd");
    const exponential = await metric(page, "peakRecoveryRps");
    await clickPreset(page, "jitter");
    const full = await metric(page, "peakRecoveryRps");
    assert.ok(full < exponential, `full jitter ${full} < exponential ${exponential}`);
    // The same through the strategy control.
    await clickPreset(page, "herd");
    await afterRun(page, () => page.selectOption("#strategy", "full"));
    assert.equal(await metric(page, "peakRecoveryRps"), full);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a retry budget shortens the recovery after a long outage", T, async () => {
    const { page, problems } = await open();
    await clickPreset(page, "storm");
    const without = await metric(page, "recoveryMs");
    await clickPreset(page, "budget");
    const withBudget = await metric(page, "recoveryMs");
    assert.ok(without > 30_000, `storm recovery ${without} ms`);
    assert.ok(withBudget < without, `budget ${withBudget} < no budget ${without}`);
    assert.ok((await metric(page, "budgetRejected")) > 0);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a value past its field's range is named with that range, not as the steady run's requests", T, async () => {
    const { page, problems } = await open("?scenario=spike");
    const before = await readMetrics(page);
    // 1e308 made the page's own bound on steady requests say "these settings make —".
    await page.fill("#spike-factor", "1e308");
    const error = page.locator('[data-error-for="spike-factor"]');
    await error.waitFor({ state: "visible" });
    await page.waitForFunction(() => /1,000/.test(document.querySelector('[data-error-for="spike-factor"]')?.textContent ?? ""), null, { timeout: 10_000 });
    const text = (await error.textContent()) ?? "";
    assert.match(text, /from 0 to 1,000/, text);
    assert.doesNotMatch(text, /—/, text);
    assert.deepEqual(await readMetrics(page), before, "the last picture is kept");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("invalid input shows an inline message and keeps the last metrics", T, async () => {
    const { page, problems } = await open();
    const before = await readMetrics(page);
    const error = page.locator('[data-error-for="base"]');
    const general = page.locator("#sim-error");
    const cases = [
      ["", /number/i],
      ["-5", /^Base delay: enter a value from 0 ms to .* Given: -5\.$/],
      ["1e12", /^Base delay: enter a value from 0 ms to .* Given: 1,000,000,000,000\.$/],
    ];
    for (const [text, message] of cases) {
      await page.fill("#base", text);
      await error.waitFor({ state: "visible" });
      // The message follows in the next frame (the previous case's may still be showing).
      await page
        .waitForFunction(([re, flags]) => new RegExp(re, flags).test(document.querySelector('[data-error-for="base"]')?.textContent ?? ""), [message.source, message.flags], { timeout: 5000 })
        .catch(() => {});
      assert.match((await error.textContent()) ?? "", message, `base = ${JSON.stringify(text)}`);
      assert.equal(await page.getAttribute("#base", "aria-invalid"), "true");
      assert.equal(await general.isVisible(), true);
      await page.waitForTimeout(100);
      assert.deepEqual(await readMetrics(page), before, `metrics kept for base = ${JSON.stringify(text)}`);
    }
    // Cleared after a refused value: the field's own word, and nothing about the value it
    // no longer holds, in the field or in the general line.
    await page.fill("#base", "");
    await page.waitForFunction(() => !/Given/.test(document.querySelector('[data-error-for="base"]')?.textContent ?? "Given"), null, { timeout: 5000 });
    await page.waitForTimeout(100);
    assert.doesNotMatch((await general.textContent()) ?? "", /Given/);
    assert.equal(await general.isVisible(), true, "the general line still says the last good picture is kept");
    // Not a number at all: the browser's own word (badInput).
    await page.fill("#base", "");
    await page.locator("#base").pressSequentially("1e");
    await page.waitForFunction(() => document.querySelector('[data-error-for="base"]')?.textContent !== "");
    // A cap below the base: the package names the cap, and the base as its least value.
    await page.fill("#base", "2000");
    await page.fill("#cap", "10");
    await page.locator('[data-error-for="cap"]').waitFor({ state: "visible" });
    assert.match((await page.textContent('[data-error-for="cap"]')) ?? "", /^Cap: enter a value from 2,000 ms to .* Given: 10\.$/);
    // Below the field's own range too: the same least value, the base (it read "from 0 ms").
    await page.fill("#cap", "-5");
    await page.waitForFunction(() => /Given: -5\./.test(document.querySelector('[data-error-for="cap"]')?.textContent ?? ""));
    assert.match((await page.textContent('[data-error-for="cap"]')) ?? "", /^Cap: enter a value from 2,000 ms to .* Given: -5\.$/);
    // Out of the page's envelope.
    await page.fill("#cap", "30000");
    await page.fill("#clients", "1000000000");
    await page.locator('[data-error-for="clients"]').waitFor({ state: "visible" });
    assert.deepEqual(await readMetrics(page), before);
    // Fixing it brings the picture back, the same as before.
    await afterRun(page, () => page.fill("#clients", "1000"));
    assert.equal(await error.isVisible(), false);
    assert.equal(await general.isVisible(), false);
    assert.deepEqual(await readMetrics(page), before);
    assert.deepEqual(problems, [], "a caught RangeError must not reach the console");
    await page.close();
  });

  test("a package error goes once its field changes, even while another field is wrong", T, async () => {
    // The cap said "Given: 5" under a cap that read 30000: the package's word stayed until a
    // run succeeded, and none could while attempts held 2.5.
    const { page, problems } = await open();
    const capError = page.locator('[data-error-for="cap"]');
    const attemptsError = page.locator('[data-error-for="attempts"]');
    await page.fill("#base", "2000");
    await page.fill("#cap", "10");
    await capError.waitFor({ state: "visible" });
    assert.match((await capError.textContent()) ?? "", /Given: 10\.$/);
    // Another field wrong: the cap's word still holds (its value has not changed).
    await page.fill("#attempts", "2.5");
    await attemptsError.waitFor({ state: "visible" });
    await page.waitForTimeout(100);
    assert.match((await capError.textContent()) ?? "", /Given: 10\.$/);
    // The cap changed: its word goes; the attempts' stays.
    await page.fill("#cap", "30000");
    await capError.waitFor({ state: "hidden" });
    assert.equal(await attemptsError.isVisible(), true);
    assert.equal(await page.getAttribute("#cap", "aria-invalid"), null);
    await afterRun(page, () => page.fill("#attempts", "6"));
    assert.equal(await attemptsError.isVisible(), false);
    assert.equal(await page.locator("#sim-error").isVisible(), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the delay histograms draw a panel a frame, and follow a change of attempts made meanwhile", T, async () => {
    const { page, problems } = await open();
    await waitIdle(page);
    const captions = () => page.$$eval(".delay-panel figcaption", (cs) => cs.map((c) => c.textContent.split(" · ")[0]));
    await page.locator("#distributions").scrollIntoViewIfNeeded();
    // Six attempts: five retries, five panels, in order.
    await page.waitForFunction(() => document.querySelectorAll(".delay-panel").length === 5);
    assert.deepEqual(await captions(), ["Retry 1", "Retry 2", "Retry 3", "Retry 4", "Retry 5"]);
    // Each panel in a frame of its own: no deferred draw held two of them.
    const draws = await page.evaluate(() => performance.getEntriesByName("stampede:later-delay-panels").length);
    assert.ok(draws >= 5, `${draws} frames drew the five panels`);
    // Nine attempts, then three before the panels for nine are all drawn: two panels stay.
    // Typed in place (page.fill would scroll the form into view, and off screen the
    // histograms wait).
    const type = (v) =>
      page.evaluate((v) => {
        const input = document.getElementById("attempts");
        input.value = v;
        input.dispatchEvent(new Event("input", { bubbles: true }));
      }, v);
    await afterRun(page, async () => {
      await type("9");
      await page.waitForFunction(() => document.querySelectorAll(".delay-panel").length > 5);
      await type("3");
    });
    await page.waitForFunction(() => document.querySelectorAll(".delay-panel").length === 2);
    // A dozen frames more: no panel drawn late for nine attempts comes back.
    await page.evaluate(() => new Promise((r) => { let n = 12; const f = () => (--n ? requestAnimationFrame(f) : r()); requestAnimationFrame(f); }));
    assert.deepEqual(await captions(), ["Retry 1", "Retry 2"]);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("content growing taller redraws no figure; a change of width redraws them", T, async () => {
    const { page, problems } = await open();
    await waitIdle(page);
    const herdDraws = () =>
      page.evaluate(async () => {
        // Two frames for the resize observer and the redraw it schedules.
        for (let i = 0; i < 3; i++) await new Promise((r) => requestAnimationFrame(r));
        return window.__herdDraws;
      });
    await page.evaluate(() => {
      window.__herdDraws = 0;
      new PerformanceObserver((l) => {
        window.__herdDraws += l.getEntries().filter((e) => e.name === "stampede:draw-herd").length;
      }).observe({ type: "measure" });
    });
    assert.equal(await herdDraws(), 0);
    // What a panel's first draw or an error line does: the playground and a sweep panel grow
    // taller, no wider (it used to redraw every figure: 50 ms at 100,000 clients).
    await page.evaluate(() => {
      for (const id of ["herd", "panel-nets"]) {
        const tall = document.createElement("div");
        tall.style.height = "300px";
        document.getElementById(id)?.append(tall);
      }
    });
    assert.equal(await herdDraws(), 0, "taller, not wider: nothing redrawn");
    // Narrower: the figures fit the new width.
    await page.evaluate(() => {
      document.body.style.maxWidth = "900px";
    });
    assert.ok((await herdDraws()) >= 1, "narrower: the herd is redrawn");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a slider moves its typed field and re-simulates while it moves", T, async () => {
    const { page, problems } = await open();
    const before = await page.textContent('[data-metric="totalAttempts"]');
    const slider = page.locator("#base-range");
    await afterRun(page, async () => {
      await slider.focus();
      // A tenth of the track (2 s → 790 ms): an arrow steps the base by its own precision
      // now (2 s → 1.99 s), and that herd's attempts are the same.
      await page.keyboard.press("PageDown");
    });
    const base = Number(await page.inputValue("#base"));
    assert.ok(base < 2000 && base > 0, `base ${base}`);
    assert.notEqual(await page.textContent('[data-metric="totalAttempts"]'), before);
    // The form is synced from the state on every input, but only what changed is written:
    // of the controls, the base's readout and its slider's aria-valuetext alone (a write of
    // the same value still costs a style pass, and at 100,000 clients those frames run beside
    // the worker's simulation).
    const written = await page.evaluate(async () => {
      const seen = new Set();
      const mo = new MutationObserver((list) => {
        for (const m of list) {
          const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
          if (el?.closest("#controls, #presets")) seen.add(el.id || `${el.tagName.toLowerCase()}.${el.className}`);
        }
      });
      mo.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
      const slider = document.getElementById("base-range");
      slider.value = String(Number(slider.value) - 20);
      slider.dispatchEvent(new Event("input", { bubbles: true }));
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      mo.disconnect();
      return [...seen].sort();
    });
    assert.deepEqual(written, ["base-range", "base-readout"]);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the live panel calls the flaky endpoint: two 503s, then 200, as the server logged", T, async () => {
    const { page, problems } = await open();
    const url = await page.inputValue("#live-url");
    const key = new URL(url, pg.server.url).searchParams.get("key");
    assert.ok(key, url);
    assert.match(url, /fail=2/);
    await page.click("#live-send");
    await page.waitForFunction(() => document.querySelectorAll("#live-log li").length >= 3 && !document.querySelector("#live-send")?.disabled, null, { timeout: 30_000 });
    const statuses = await page.$$eval("#live-log li", (lis) => lis.map((li) => li.dataset.status));
    assert.deepEqual(statuses, ["503", "503", "200"]);
    // Each retry says how long it waits (the longer of the backoff and the server's Retry-After).
    const waits = await page.$$eval("#live-log li .a-wait", (s) => s.map((e) => e.textContent));
    assert.equal(waits.length, 2);
    assert.ok(waits.every((w) => /waits \d/.test(w ?? "")), waits.join(" | "));
    const body = await page.locator("#live-body");
    assert.match((await body.textContent()) ?? "", /"attempt":\s*3/);
    assert.equal(await body.evaluate((e) => e.children.length), 0, "the body is text, not HTML");
    const log = await (await fetch(new URL(`/api/log?key=${encodeURIComponent(key)}`, pg.server.url))).json();
    assert.equal(log.entries.length, 3);
    assert.deepEqual(log.entries.map((e) => e.status), [503, 503, 200]);
    // Until the next Send, the URL box shows the URL just called, whose answer is the body.
    assert.equal(await page.inputValue("#live-url"), url);
    // A second Send shows the retries again: it takes a fresh key (with one key per visit,
    // it got 200 at once), and the box shows it.
    await page.click("#live-send");
    await page.waitForFunction(() => document.querySelectorAll("#live-log li").length >= 3 && !document.querySelector("#live-send")?.disabled, null, { timeout: 30_000 });
    assert.deepEqual(await page.$$eval("#live-log li", (lis) => lis.map((li) => li.dataset.status)), ["503", "503", "200"]);
    const next = await page.inputValue("#live-url");
    const nextKey = new URL(next, pg.server.url).searchParams.get("key");
    assert.notEqual(nextKey, key);
    assert.equal(next.replace(/key=\w+/, ""), url.replace(/key=\w+/, ""), "only the key changed");
    assert.match((await body.textContent()) ?? "", new RegExp(`"key":\\s*"${nextKey}"`), "the body is the new key's answer");
    assert.deepEqual(problems.filter((p) => !/503/.test(p)), [], "only the expected 503s are logged");
    await page.close();
  });

  test("Cancel aborts a live call", T, async () => {
    const { page, problems } = await open();
    await page.fill("#live-url", "/api/slow?ms=8000");
    await page.click("#live-send");
    await page.waitForFunction(() => !document.querySelector("#live-cancel")?.disabled);
    await page.waitForTimeout(200);
    await page.click("#live-cancel");
    await page.waitForFunction(() => !document.querySelector("#live-send")?.disabled, null, { timeout: 5000 });
    assert.match((await page.textContent("#live-status")) ?? "", /Cancel/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a URL fetch cannot call is refused at once, not retried as a refused connection", T, async () => {
    const { page, problems } = await open();
    for (const url of ["http://[::1", "javascript:alert(1)"]) {
      await page.fill("#live-url", url);
      await page.click("#live-send");
      await page.waitForFunction(() => /http or https/.test(document.querySelector("#live-status")?.textContent ?? ""), null, { timeout: 2000 });
      assert.equal(await page.getAttribute("#live-url", "aria-invalid"), "true");
      assert.equal(await page.locator("#live-log li").count(), 0, url);
      assert.equal(await page.isDisabled("#live-send"), false, url);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the URL holds the state: the same link shows the same picture", T, async () => {
    const { page, problems } = await open();
    await afterRun(page, () => page.selectOption("#strategy", "equal"));
    await afterRun(page, () => page.fill("#base", "500"));
    await afterRun(page, () => page.fill("#clients", "5000"));
    await afterRun(page, () => page.fill("#seed", "42"));
    await afterRun(page, () => page.check("#budget"));
    await afterRun(page, () => page.fill("#budget-capacity", "20"));
    await page.waitForFunction(() => location.search.includes("seed=42") && location.search.includes("budget-capacity=20"));
    const link = page.url();
    const metrics = await readMetrics(page);
    const again = await pg.browser.context.newPage();
    const problems2 = watchConsole(again);
    await again.goto(link);
    await waitReady(again);
    assert.equal(await again.inputValue("#strategy"), "equal");
    assert.equal(await again.inputValue("#base"), "500");
    assert.equal(await again.inputValue("#clients"), "5000");
    assert.equal(await again.inputValue("#seed"), "42");
    assert.equal(await again.isChecked("#budget"), true);
    assert.equal(await again.inputValue("#budget-capacity"), "20");
    assert.deepEqual(await readMetrics(again), metrics);
    assert.deepEqual([...problems, ...problems2], []);
    await again.close();
    await page.close();
  });

  test("100,000 and 1,000,000 clients run in the worker and still draw", T, async () => {
    const { page, problems } = await open();
    const before = await page.textContent('[data-metric="totalAttempts"]');
    await page.fill("#clients", "100000");
    await page.waitForFunction((n) => document.querySelector('[data-metric="totalAttempts"]')?.textContent !== n, before, { timeout: 30_000 });
    await waitIdle(page);
    assert.ok((await metric(page, "totalAttempts")) > 500_000);
    assert.ok((await inked(page, "timeline")).share > 0.001);
    assert.match((await page.textContent("#timeline-rows")) ?? "", /every 10th/);
    // The most the page offers: a million clients, still in the worker, still drawn.
    await afterRun(page, () => page.fill("#clients", "1000000"), 60_000);
    assert.ok((await metric(page, "totalAttempts")) > 5_000_000);
    assert.ok((await inked(page, "timeline")).share > 0.001);
    assert.match((await page.textContent("#timeline-rows")) ?? "", /every 100th/);
    // A small run (on the main thread) overtaking a worker run still in flight: its picture
    // is shown at once, and the page is no longer busy (the overtaken reply will show nothing).
    await page.fill("#clients", "999999");
    await page.waitForFunction(() => document.documentElement.dataset.sim === "busy", null, { timeout: 10_000, polling: 10 });
    await page.fill("#clients", "1000");
    await page.waitForFunction(() => {
      const n = Number(document.querySelector('[data-metric="totalAttempts"]')?.textContent);
      return n > 0 && n < 100_000;
    }, null, { timeout: 10_000, polling: 10 });
    assert.equal(await page.evaluate(() => document.documentElement.dataset.sim), "idle");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the Russian version translates every label", T, async () => {
    const { page, problems } = await open();
    await page.click('[data-lang="ru"]');
    assert.equal(await page.getAttribute("html", "lang"), "ru");
    assert.match((await page.textContent("#herd-h")) ?? "", /Стадо/);
    // The parts drawn later (policy B, the histograms, the sweeping panels) count too.
    await drawEverything(page);
    const empty = await page.$$eval("[data-i18n]", (els) =>
      els.filter((e) => e.textContent === "" && !(e.dataset.i18n ?? "").startsWith("unit.")).map((e) => e.dataset.i18n),
    );
    assert.deepEqual(empty, []);
    await page.waitForFunction(() => location.search.includes("lang=ru"));
    const again = await pg.browser.context.newPage();
    await again.goto(page.url());
    await waitReady(again);
    assert.match((await again.textContent("#herd-h")) ?? "", /Стадо/);
    await again.close();
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("prefers-reduced-motion shows a still picture with the playhead at the end, and Play still plays it", T, async () => {
    const still = await launchBrowser({ reducedMotion: "reduce" });
    try {
      const page = await still.context.newPage();
      const problems = watchConsole(page);
      await page.goto(pg.server.url);
      await waitReady(page);
      assert.equal(await page.isVisible("#reduced-note"), true);
      assert.equal(await page.isVisible("#timeline-playhead"), false);
      assert.equal(await page.inputValue("#scrub"), "1000");
      assert.match((await page.getAttribute("#timeline-curtain", "style")) ?? "", /scaleX\(0\)/);
      assert.equal(await page.getAttribute("#play", "aria-pressed"), "false", "nothing plays by itself");
      // Asked, it plays (it was disabled: a teacher whose system asks for reduced motion
      // could not show the herd move).
      assert.equal(await page.isDisabled("#play"), false);
      await page.click("#play");
      await page.waitForFunction(() => document.getElementById("play")?.getAttribute("aria-pressed") === "true");
      await page.waitForFunction(() => Number(document.getElementById("scrub")?.value) < 1000);
      assert.deepEqual(problems, []);
    } finally {
      await still.close();
    }
  });

  test("controls are labelled and reachable by keyboard", T, async () => {
    const { page, problems } = await open();
    const unlabelled = await page.$$eval("input, select, textarea", (els) =>
      els.filter((e) => !(e.labels && e.labels.length > 0) && !e.getAttribute("aria-label")).map((e) => e.id || e.outerHTML),
    );
    assert.deepEqual(unlabelled, []);
    await page.focus("#strategy");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "base-range");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a chart's legend names its series; the values and the time show only under the cursor", T, async () => {
    const { page, problems } = await open();
    const legend = page.locator(".u-legend").first();
    await legend.scrollIntoViewIfNeeded();
    // What a reader sees of the legend: its visible entries' names and values.
    const seen = () =>
      legend.evaluate((l) =>
        [...l.querySelectorAll(".u-series")]
          .filter((tr) => tr.getClientRects().length > 0)
          .map((tr) => {
            const value = tr.querySelector(".u-value");
            const shown = value && value.getClientRects().length > 0 ? value.textContent : null;
            return { name: tr.querySelector(".u-label")?.textContent, value: shown, colon: getComputedStyle(tr.querySelector("th"), "::after").content };
          }),
      );
    const away = await seen();
    assert.deepEqual(away.map((e) => e.name), ["offered", "served", "capacity"]);
    for (const e of away) assert.deepEqual([e.value, e.colon], [null, "none"], `${e.name}: no value, no colon`);
    // Over the plot: the time and every series' value at that point, after their colons.
    const over = await page.locator(".u-over").first().boundingBox();
    await page.mouse.move(over.x + over.width / 3, over.y + over.height / 2);
    await page.waitForFunction(() => document.querySelector(".uplot")?.classList.contains("cursor-on"));
    const under = await seen();
    assert.deepEqual(under.map((e) => e.name), ["time", "offered", "served", "capacity"]);
    for (const e of under) assert.ok(e.value !== null && e.value !== "" && e.colon === '":"', `${e.name}: ${JSON.stringify(e)}`);
    assert.match(under[0].value, /\d s$/);
    // Away again, back to the names.
    await page.mouse.move(0, 0);
    await page.waitForFunction(() => !document.querySelector(".uplot")?.classList.contains("cursor-on"));
    assert.deepEqual((await seen()).map((e) => e.name), ["offered", "served", "capacity"]);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the texts under the figures say what the picture shows: jitter, no capacity line, contention", T, async () => {
    const { page, problems } = await open();
    const why = (figure) => page.textContent(`[data-why="${figure}"]`);
    const swatch = () => page.$eval('[data-legend="outage"]', (li) => !li.hidden);
    // Story 1, exponential backoff without jitter: the stripes are the fleet retrying together.
    await clickPreset(page, "herd");
    assert.match(await why("herd"), /Every vertical stripe in the figure is the whole fleet/);
    assert.match(await why("load"), /the dashed line is what the server can serve/);
    assert.equal(await swatch(), true, "an outage: its swatch");
    // Story 2, full jitter: no stripe claim.
    await clickPreset(page, "jitter");
    assert.match(await why("herd"), /^Why jitter thins the herd/);
    assert.doesNotMatch(await why("herd"), /vertical stripe/);
    // The collapse: unlimited workers, no capacity line, no queue, no outage.
    await clickPreset(page, "collapse");
    assert.match(await why("load"), /there is no capacity line/);
    assert.doesNotMatch(await why("load"), /dashed line/);
    assert.match(await why("goodput"), /queue nothing/);
    assert.equal(await swatch(), false, "no outage: no outage swatch");
    const peakUnit = () => page.textContent('[data-metric="peakRps"] ~ .unit');
    assert.equal(await peakUnit(), "req/s");
    // The contention experiment: its load is writes to one row, its peak in writes/s.
    await clickPreset(page, "aws");
    assert.match(await why("herd"), /^Why contention grows/);
    assert.equal(await peakUnit(), "writes/s");
    assert.match(await why("load"), /^Write attempts/);
    // In Russian, the same choice.
    await page.click('[data-lang="ru"]');
    await page.waitForFunction(() => document.documentElement.lang === "ru");
    assert.match(await why("herd"), /^Почему конкуренция/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a recovery of 0 ms because nobody came back after the outage says so", T, async () => {
    const { page, problems } = await open();
    const aside = () => page.textContent('[data-aside="recoveryMs"]');
    assert.notEqual(await aside(), "no one came back after the outage");
    // Retrying at once, every client spends its attempts inside the 2 s outage and gives up.
    await afterRun(page, () => page.selectOption("#strategy", "none"));
    assert.equal(await metric(page, "recoveryMs"), 0);
    assert.equal(await metric(page, "successes"), 0);
    assert.equal(await aside(), "no one came back after the outage");
    // The compare table says the same of policy A: no peak after the outage, no recovery,
    // neither ticked (its "×0" was ticked the best).
    await page.locator("#compare-table").scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector('[data-cmp="b:cmp.totalAttempts"]')?.textContent !== "…", null, { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('[data-cmp="a:cmp.peakRecovery"]')?.textContent === "—", null, { timeout: 30_000 });
    for (const key of ["cmp.peakRecovery", "cmp.recovery"]) {
      assert.equal(await page.textContent(`[data-cmp="a:${key}"]`), "—", key);
      assert.equal(await page.evaluate((k) => document.querySelector(`[data-cmp="a:${k}"]`).classList.contains("better"), key), false, key);
    }
    // Done soonest because every request gave up: no tick for that either (policy B, whose
    // requests succeed after the outage, takes far longer).
    const completion = (side) => page.evaluate((s) => document.querySelector(`[data-cmp="${s}:cmp.completion"]`).classList.contains("better"), side);
    assert.equal(await completion("a"), false);
    assert.equal(await completion("b"), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the compare table ticks no goodput or latency won by serving fewer", T, async () => {
    const { page, problems } = await open();
    // The budget preset: A's budget fails requests fast, so its run ends sooner and its
    // goodput, averaged over its own length, came out higher though it served fewer (754
    // against 683.8 requests/s: 90,499 served against 91,563), and it was ticked.
    await clickPreset(page, "budget");
    await page.locator("#compare-table").scrollIntoViewIfNeeded();
    await page.waitForFunction(() => !["…", ""].includes(document.querySelector('[data-cmp="b:cmp.successes"]')?.textContent ?? ""), null, { timeout: 60_000 });
    const cell = (side, key) =>
      page.evaluate(([s, k]) => {
        const el = document.querySelector(`[data-cmp="${s}:${k}"]`);
        return { text: el.textContent, ticked: el.classList.contains("better") };
      }, [side, key]);
    const served = async (side) => Number((await cell(side, "cmp.successes")).text.replace(/[^\d]/g, ""));
    const [a, b] = [await served("a"), await served("b")];
    assert.ok(a < b, `the budget served ${a}, the storm ${b}`);
    assert.equal((await cell("a", "cmp.goodput")).ticked, false, "the budget's goodput is ticked");
    for (const key of ["cmp.goodput", "cmp.p50", "cmp.p99"]) assert.equal((await cell("a", key)).ticked, false, key);
    assert.equal((await cell("b", "cmp.successes")).ticked, false, "a difference under 5% is no win");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("an amplification below 1 says the blocked requests sent nothing", T, async () => {
    const { page, problems } = await open();
    const aside = () => page.textContent('[data-aside="amplification"]');
    assert.ok((await metric(page, "amplification")) >= 1);
    assert.equal(await aside(), "attempts per request");
    // The budget story blocks requests outright: fewer attempts than requests.
    await clickPreset(page, "budget");
    assert.ok((await metric(page, "amplification")) < 1);
    assert.equal(await aside(), "attempts per request; the blocked ones sent none");
    assert.deepEqual(problems, []);
    await page.close();
  });
});
