// End-to-end tests of issue #12's panels: "Which safety net?" (#panel-nets) shows the
// engine's own numbers (the same run through `stampede simulate --json`), sweeps on a pool
// of Web Workers while the main thread keeps drawing frames, keeps its last good picture
// on bad input, and speaks Russian; hedging (#panel-hedging) cuts p99 for the engine's extra
// requests; "Where to retry" (#panel-layers) shows the SRE book's
// 64 and the Builders' Library's 243; the live panel hedges in parallel.
// Run: node --test tests/e2e/   (needs `make dist` and target/release/stampede)

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { cliSimulate, usePlayground } from "./harness.mjs";

const pg = usePlayground();
const { open } = pg;
const T = { timeout: 120_000 };

/** Scrolls a panel into view and waits until its batch number `runs` has finished. */
async function panelDone(page, id, runs = 1, timeout = 60_000) {
  await page.locator(`#${id}`).scrollIntoViewIfNeeded();
  await page.waitForFunction(
    ({ id, runs }) => {
      const el = document.getElementById(id);
      return el?.dataset.state === "done" && Number(el.dataset.runs ?? 0) >= runs;
    },
    { id, runs },
    { timeout, polling: 50 },
  );
}

/** The exact values of a nets row (data-value of each cell). */
function netsRow(page, net) {
  return page.evaluate((net) => {
    const row = document.querySelector(`#nets-table tr[data-net="${net}"]`);
    const v = (what) => Number(row?.querySelector(`[data-nets="${what}"]`)?.getAttribute("data-value"));
    return { amplification: v("amplification"), success: v("success"), blocked: v("blocked") };
  }, net);
}

/** The CLI flags of the nets panel's failure (logic/nets.ts netsBase) with fail rate `p`. */
function netsFlags(p) {
  return [
    "--scenario", "steady", "--clients", "100", "--rate", "10", "--duration", "10000", "--outage", "0",
    "--workers", "0", "--queue", "0", "--service", "10", "--latency", "20", "--latency-dist", "exponential",
    "--fail-rate", String(p), "--strategy", "none", "--base", "1", "--cap", "1", "--seed", "1",
  ];
}

describe("Which safety net?", () => {
  test("the table shows the engine's numbers for the same failure, and the figure is drawn", T, async () => {
    const { page, problems } = await open();
    await panelDone(page, "panel-nets");
    const attempts = await netsRow(page, "attempts");
    const core = cliSimulate([...netsFlags(0.2), "--attempts", "4"]);
    assert.equal(attempts.amplification, core.amplification, "attempts only: amplification as the CLI computes it");
    assert.equal(attempts.success, core.successes / core.requests);
    // And against theory: 1 + p + p² + p³ at p = 0.2 is 1.248 (10,000 requests: within 0.03).
    assert.ok(Math.abs(attempts.amplification - 1.248) < 0.03, `amplification ${attempts.amplification}`);
    const none = await netsRow(page, "none");
    const coreNone = cliSimulate([...netsFlags(0.2), "--attempts", "100"]);
    assert.equal(none.amplification, coreNone.amplification, "no limit: the core's most attempts");
    const bucket = await netsRow(page, "bucket");
    const coreBucket = cliSimulate([...netsFlags(0.2), "--attempts", "4", "--budget", "100:100", "--budget-scope", "shared"]);
    assert.equal(bucket.amplification, coreBucket.amplification, "the token bucket, shared");
    assert.equal(bucket.blocked, coreBucket.budget_rejected / coreBucket.requests);
    // Every other net, each through its own CLI flag (logic/nets.ts netOptions), shared.
    const shared = [...netsFlags(0.2), "--attempts", "4", "--budget-scope", "shared"];
    for (const [net, flags] of [
      ["ratio", ["--retry-ratio", "0.1:5:0"]],
      ["grpc", ["--grpc-throttle", "10:0.1"]],
      ["aws", ["--aws-quota"]],
      ["breaker", ["--breaker", "0.1", "--breaker-mode", "retries"]],
      ["throttle", ["--adaptive-throttle", "2"]],
    ]) {
      const row = await netsRow(page, net);
      const core = cliSimulate([...shared, ...flags]);
      assert.equal(row.amplification, core.amplification, `${net}: amplification`);
      assert.equal(row.success, core.successes / core.requests, `${net}: success`);
      assert.equal(row.blocked, (core.budget_rejected + core.breaker_rejected + core.throttled) / core.requests, `${net}: failed fast`);
    }
    // The figure: a canvas with the sweep drawn (every net a line over 0–50%).
    const drawn = await page.evaluate(() => {
      const c = document.querySelector("#nets-chart canvas");
      return c instanceof HTMLCanvasElement && c.width > 0 && c.height > 0;
    });
    assert.ok(drawn, "the nets figure has a canvas");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the sweep runs on a pool of workers, one per core, while the main thread keeps drawing frames", T, async () => {
    const { page, problems } = await open();
    await panelDone(page, "panel-nets");
    const workers = Number(await page.getAttribute("#panel-nets", "data-workers"));
    const cores = await page.evaluate(() => navigator.hardwareConcurrency);
    assert.equal(workers, Math.min(16, Math.max(1, cores)), "one worker per logical core");
    // Start a new sweep and watch the main thread meanwhile: the gaps between animation
    // frames, its long tasks (over 50 ms), and any simulation run on it (the page measures
    // each as "stampede:simulate"). Run inline, the ~100 runs would be one task as long as
    // the whole sweep with no frame in it; in the workers, frames keep coming. The machine
    // is shared (2 cores, other builds), so the bounds are relative to the sweep's length,
    // not absolute frame budgets.
    const watch = await page.evaluate(async () => {
      const panel = document.getElementById("panel-nets");
      const runs = Number(panel.dataset.runs);
      const longTasks = [];
      let inline = 0;
      const obs = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          if (e.entryType === "longtask") longTasks.push(e.duration);
          else if (e.name === "stampede:simulate") inline++;
        }
      });
      obs.observe({ entryTypes: ["longtask", "measure"] });
      const input = document.getElementById("nets-fail-rate");
      input.value = "0.35";
      input.dispatchEvent(new Event("input", { bubbles: true }));
      let frames = 0;
      let worst = 0;
      let last = performance.now();
      const t0 = last;
      await new Promise((resolve) => {
        const tick = (now) => {
          frames++;
          worst = Math.max(worst, now - last);
          last = now;
          if ((panel.dataset.state === "done" && Number(panel.dataset.runs) > runs) || now - t0 > 30_000) resolve();
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      });
      obs.disconnect();
      return { frames, worst, ms: performance.now() - t0, longest: Math.max(0, ...longTasks), inline, done: panel.dataset.state };
    });
    const report = JSON.stringify(watch);
    assert.equal(watch.done, "done", "the sweep finished");
    assert.equal(watch.inline, 0, `no simulation ran on the main thread: ${report}`);
    // A frame at least every 50 ms of the sweep (five in all at most: a fast host sweeps in
    // under 100 ms), and no gap or task near the sweep's length, or 100 ms for a short sweep
    // (one collection's pause is not the sweep blocking the page; the inline count is the
    // direct check that it ran in the workers).
    assert.ok(watch.frames >= Math.min(5, Math.floor(watch.ms / 50)), `frames kept coming during the sweep: ${report}`);
    assert.ok(watch.worst < Math.max(0.5 * watch.ms, 100), `no frame gap near the sweep's length: ${report}`);
    assert.ok(watch.longest < Math.max(0.5 * watch.ms, 100), `no main-thread task near the sweep's length: ${report}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a bad fail rate is named inline and the last good picture stays", T, async () => {
    const { page, problems } = await open();
    await panelDone(page, "panel-nets");
    const before = await netsRow(page, "attempts");
    const runs = Number(await page.getAttribute("#panel-nets", "data-runs"));
    for (const bad of ["2", "e", ""]) {
      await page.fill("#nets-fail-rate", "");
      // Typed key by key: "e" alone is the browser's badInput (not a number), not a value.
      await page.locator("#nets-fail-rate").pressSequentially(bad);
      // Typed text counts once the typing pauses, or at once on Enter (a change).
      await page.locator("#nets-fail-rate").dispatchEvent("change");
      await page.waitForFunction(() => !document.getElementById("nets-fail-rate-error")?.hidden);
      const message = await page.textContent("#nets-fail-rate-error");
      assert.ok(message && message.length > 0, `${JSON.stringify(bad)}: a message`);
      assert.equal(await page.getAttribute("#nets-fail-rate", "aria-invalid"), "true");
      assert.match((await page.textContent("#panel-nets-error")) ?? "", /last valid settings/);
    }
    assert.match((await page.textContent("#nets-fail-rate-error")) ?? "", /Enter a number/);
    await page.waitForTimeout(300);
    assert.deepEqual(await netsRow(page, "attempts"), before, "the table kept its numbers");
    assert.equal(Number(await page.getAttribute("#panel-nets", "data-runs")), runs, "nothing ran");
    // A good value again: the message goes, a new sweep runs.
    await page.fill("#nets-fail-rate", "0.1");
    await panelDone(page, "panel-nets", runs + 1);
    assert.equal(await page.isHidden("#nets-fail-rate-error"), true);
    assert.ok((await netsRow(page, "attempts")).amplification < before.amplification, "p 0.1 costs less than 0.2");
    // The outage: the fail rate does not apply.
    await page.selectOption("#nets-failure", "outage");
    await panelDone(page, "panel-nets", runs + 2);
    assert.equal(await page.isDisabled("#nets-fail-rate"), true);
    const outage = await netsRow(page, "none");
    assert.ok(outage.amplification > 5, `no limit retries through the outage: ${outage.amplification}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("in Russian", T, async () => {
    const { page, problems } = await open("?lang=ru");
    await panelDone(page, "panel-nets");
    assert.equal(await page.textContent("#nets-h"), "Какая страховка?");
    assert.match((await page.textContent("#panel-nets .why")) ?? "", /сколько повторов безопасно/);
    assert.match((await page.textContent('#nets-table tr[data-net="attempts"] th')) ?? "", /Только лимит попыток/);
    assert.match((await page.textContent("#nets-figure-note")) ?? "", /воркер/);
    assert.match((await page.textContent("#panel-nets-status")) ?? "", /прогонов/);
    await panelDone(page, "panel-hedging");
    assert.match((await page.textContent("#hedging-h")) ?? "", /^Хеджирование/);
    assert.equal(await page.textContent('label[for="hedge-delay"]'), "Задержка хеджирования");
    await panelDone(page, "panel-layers");
    assert.equal(await page.textContent("#layers-h"), "Где повторять");
    assert.match((await page.textContent("#panel-layers .why")) ?? "", /повторяет каждый слой/);
    assert.equal(await page.textContent('#retry-at option[value="top"]'), "только верхний слой");
    // A bad value, in Russian too.
    await page.fill("#nets-fail-rate", "");
    await page.locator("#nets-fail-rate").pressSequentially("e");
    await page.waitForFunction(() => !document.getElementById("nets-fail-rate-error")?.hidden);
    assert.match((await page.textContent("#nets-fail-rate-error")) ?? "", /Введите число|Это не число/);
    // Back to English: the panels' words follow at once, the status line and the message included.
    await page.click('[data-lang="en"]');
    assert.equal(await page.textContent("#nets-h"), "Which safety net?");
    assert.match((await page.textContent("#panel-layers-status")) ?? "", /runs on \d+ workers/);
    assert.match((await page.textContent("#nets-fail-rate-error")) ?? "", /not a number|Enter a number/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("Hedging", () => {
  test("hedging cuts p99 for extra requests, with the engine's numbers", T, async () => {
    const { page, problems } = await open();
    await panelDone(page, "panel-hedging");
    const value = (what) => page.evaluate((what) => Number(document.querySelector(`[data-hedging="${what}"]`)?.getAttribute("data-value")), what);
    const off = await value("off");
    const on = await value("on");
    const extra = await value("extra");
    assert.ok(on < off, `p99 with hedging ${on} < without ${off}`);
    assert.ok(extra > 0 && extra < 1, `extra requests ${extra}`);
    // The engine's own numbers for the same run (logic/hedging.ts hedgingRun).
    const flags = ["--scenario", "steady", "--clients", "100", "--rate", "10", "--duration", "10000", "--outage", "0", "--workers", "0", "--queue", "0", "--service", "10", "--service-dist", "lognormal", "--service-spread", "1.2", "--latency", "2", "--fail-rate", "0", "--strategy", "none", "--base", "1", "--cap", "1"];
    const core = cliSimulate([...flags, "--hedge", "20:2"]);
    assert.equal(on, core.p99_ms);
    assert.equal(extra, core.hedges / core.requests);
    assert.equal(off, cliSimulate(flags).p99_ms);
    // A longer delay: fewer extra requests.
    const runs = Number(await page.getAttribute("#panel-hedging", "data-runs"));
    await page.fill("#hedge-delay", "100");
    // Wait for the picture of the new delay itself (a count of runs can be met by another
    // event's run), bounded; the assertion below says what was there if it never came.
    await page.waitForFunction((extra) => Number(document.querySelector('[data-hedging="extra"]')?.getAttribute("data-value")) < extra, extra, { timeout: 60_000, polling: 50 }).catch(() => {});
    await panelDone(page, "panel-hedging", runs + 1);
    assert.ok((await value("extra")) < extra, "a longer delay sends fewer hedges");
    // Typed key by key, the delay counts once the typing pauses: one run, of the whole value
    // (each keystroke ran the value so far: "150" ran 1 and 15 on the way).
    const typed = Number(await page.getAttribute("#panel-hedging", "data-runs"));
    await page.fill("#hedge-delay", "");
    await page.locator("#hedge-delay").pressSequentially("150", { delay: 60 });
    await panelDone(page, "panel-hedging", typed + 1);
    await page.waitForTimeout(600);
    assert.equal(Number(await page.getAttribute("#panel-hedging", "data-runs")), typed + 1, "one run for the typed value");
    assert.equal(await page.isHidden("#hedge-delay-error"), true);
    // Enter in the lone field counts the value at once and submits nothing (it reloaded the
    // page bare, every setting lost).
    await page.evaluate(() => (window.stillHere = true));
    const entered = Number(await page.getAttribute("#panel-hedging", "data-runs"));
    await page.fill("#hedge-delay", "");
    await page.locator("#hedge-delay").pressSequentially("120");
    await page.keyboard.press("Enter");
    await panelDone(page, "panel-hedging", entered + 1);
    assert.equal(await page.evaluate(() => window.stillHere), true, "the page was not reloaded");
    assert.equal(await page.inputValue("#hedge-delay"), "120");
    // A bad delay: named inline, the numbers kept.
    await page.fill("#hedge-delay", "0");
    await page.waitForFunction(() => !document.getElementById("hedge-delay-error")?.hidden);
    assert.equal(await page.getAttribute("#hedge-delay", "aria-invalid"), "true");
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("Where to retry", () => {
  test("layers 3 × 4 attempts: 64 at the bottom retrying everywhere, 4 at the top, as the engine counts", T, async () => {
    const { page, problems } = await open();
    await panelDone(page, "panel-layers");
    const value = (at) => page.evaluate((at) => Number(document.querySelector(`[data-layers="${at}"]`)?.getAttribute("data-value")), at);
    assert.equal(await value("every"), 64);
    assert.equal(await value("top"), 4);
    // The engine's own count for the same run (logic/layers.ts layersRun: 10 clients, a burst, the bottom failing).
    const flags = ["--scenario", "burst", "--clients", "10", "--outage", "0", "--fail-rate", "1", "--workers", "0", "--queue", "0", "--latency", "2", "--strategy", "none", "--base", "1", "--cap", "1", "--attempts", "4", "--layers", "3"];
    const core = cliSimulate([...flags, "--retry-at", "every"]);
    assert.equal(core.bottom_attempts / core.requests, 64);
    // 3 attempts at 5 layers: the Builders' Library's 243.
    const runs = Number(await page.getAttribute("#panel-layers", "data-runs"));
    await page.fill("#layers-attempts", "3");
    await panelDone(page, "panel-layers", runs + 1);
    await page.fill("#layers", "5");
    // Each fill is one input event, so one batch: wait for the picture of 5 layers itself
    // (the count of runs alone would also be met by a batch still at 4 layers if the two
    // edits were ever coalesced).
    await page.waitForFunction(() => document.querySelector('#panel-layers [data-layers="every"]')?.getAttribute("data-value") === "243", null, { timeout: 60_000, polling: 50 }).catch(() => {});
    await panelDone(page, "panel-layers", runs + 2);
    assert.equal(await value("every"), 243);
    assert.equal(await value("top"), 3);
    // Out of the page's envelope: named inline, the numbers kept.
    await page.fill("#layers", "60");
    await page.waitForFunction(() => !document.getElementById("layers-error")?.hidden);
    assert.match((await page.textContent("#layers-error")) ?? "", /from 1 to 6/);
    assert.equal(await value("every"), 243);
    assert.equal(await page.getAttribute("#layers", "aria-invalid"), "true");
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("the live panel's breaker and hedging", () => {
  test("hedging sends parallel attempts, drawn in rows of their own, one of them the winner", T, async () => {
    const { page, problems } = await open();
    await page.locator("#live").scrollIntoViewIfNeeded();
    await page.waitForFunction(() => !document.getElementById("live-send")?.disabled);
    // Every attempt takes 800 ms: hedges after 300 ms overlap the first attempt.
    await page.fill("#live-url", "/api/slow?ms=800");
    await page.check("#live-hedging");
    await page.fill("#live-hedge-delay", "300");
    await page.check("#live-breaker");
    const code = (await page.textContent("#embed-code")) ?? "";
    assert.match(code, /breaker: \{\},/, "the snippet repeats the breaker");
    assert.match(code, /hedging: \{ delayMs: 300, maxAttempts: \d \},/, "and the hedging");
    await page.click("#live-send");
    await page.waitForFunction(() => document.getElementById("live-send")?.disabled === false && (document.getElementById("live-status")?.textContent ?? "").startsWith("200"), null, { timeout: 20_000 });
    const seen = await page.evaluate(() => ({
      hedges: document.querySelectorAll('#live-log li[data-hedge="true"]').length,
      won: document.querySelectorAll('#live-log li[data-won="true"]').length,
      bars: document.querySelectorAll("#live-strip .strip-attempt").length,
      hedgeBars: document.querySelectorAll("#live-strip .strip-attempt.hedge").length,
      stacked: [...document.querySelectorAll("#live-strip .strip-attempt")].filter((b) => b.style.top !== "").length,
    }));
    assert.ok(seen.hedges >= 1, `hedges reported: ${JSON.stringify(seen)}`);
    assert.equal(seen.won, 1, `one winner: ${JSON.stringify(seen)}`);
    assert.equal(seen.hedgeBars, seen.hedges, "every hedge drawn as a hedge");
    assert.ok(seen.stacked >= 1, `parallel attempts stack below the first: ${JSON.stringify(seen)}`);
    // A hedging delay that is not a number is named beside it, and nothing is sent.
    await page.fill("#live-hedge-delay", "");
    await page.locator("#live-hedge-delay").pressSequentially("e");
    await page.click("#live-send");
    await page.waitForFunction(() => !document.getElementById("live-hedge-delay-error")?.hidden);
    assert.equal(await page.getAttribute("#live-hedge-delay", "aria-invalid"), "true");
    assert.deepEqual(problems, []);
    await page.close();
  });
});

describe("the panels' settings in the link", () => {
  test("a link sets the nets' failure, rate and scope and where to retry; changes go into the address; a bad value is named", T, async () => {
    const { page, problems } = await open("?nets-failure=outage&nets-scope=client&nets-fail-rate=0.35&retry-at=top&nets-failure=rate");
    assert.equal(await page.inputValue("#nets-failure"), "outage");
    assert.equal(await page.inputValue("#nets-scope"), "client");
    assert.equal(await page.inputValue("#nets-fail-rate"), "0.35");
    assert.equal(await page.inputValue("#retry-at"), "top");
    // Back to the page's own scope: the address drops it and keeps the rest.
    await page.selectOption("#nets-scope", "shared");
    await page.waitForFunction(() => !new URLSearchParams(location.search).has("nets-scope"), null, { timeout: 10_000 });
    const q = new URLSearchParams(await page.evaluate(() => location.search));
    assert.equal(q.get("nets-failure"), "outage");
    assert.equal(q.get("nets-fail-rate"), "0.35");
    assert.equal(q.get("retry-at"), "top");
    await page.close();
    // A value a control cannot take: the default stays, and the link's note names it.
    const bad = await open("?nets-fail-rate=2&retry-at=bottom");
    assert.equal(await bad.page.inputValue("#nets-fail-rate"), "0.2");
    assert.equal(await bad.page.inputValue("#retry-at"), "every");
    const note = (await bad.page.textContent("#link-note")) ?? "";
    assert.match(note, /nets-fail-rate=2/);
    assert.match(note, /retry-at=bottom/);
    assert.deepEqual([...problems, ...bad.problems], []);
    await bad.page.close();
  });

  test("a link sets the hedge's delay, the chain's layers and attempts and the log scale; a shared picture keeps them", T, async () => {
    const { page, problems } = await open("?hedge-delay=50&layers=5&layers-attempts=2&load-log=1");
    assert.equal(await page.inputValue("#hedge-delay"), "50");
    assert.equal(await page.inputValue("#layers"), "5");
    assert.equal(await page.inputValue("#layers-attempts"), "2");
    assert.equal(await page.isChecked("#load-log"), true);
    // Changed on the page, they follow into the address; back to the page's own, they leave it.
    await page.fill("#layers", "4");
    await page.uncheck("#load-log");
    await page.waitForFunction(() => new URLSearchParams(location.search).get("layers") === "4" && !new URLSearchParams(location.search).has("load-log"), null, { timeout: 10_000 });
    await page.check("#load-log");
    await page.waitForFunction(() => new URLSearchParams(location.search).get("load-log") === "1", null, { timeout: 10_000 });
    // The address, opened anew, is the same picture's settings.
    const again = await open(await page.evaluate(() => location.search));
    assert.equal(await again.page.inputValue("#hedge-delay"), "50");
    assert.equal(await again.page.inputValue("#layers"), "4");
    assert.equal(await again.page.inputValue("#layers-attempts"), "2");
    assert.equal(await again.page.isChecked("#load-log"), true);
    await page.close();
    await again.page.close();
    // Values the controls cannot take: a fractional layer count, a box neither 0 nor 1.
    const bad = await open("?layers=2.5&load-log=yes&hedge-delay=0");
    assert.equal(await bad.page.inputValue("#layers"), "3");
    assert.equal(await bad.page.isChecked("#load-log"), false);
    assert.equal(await bad.page.inputValue("#hedge-delay"), "20");
    const note = (await bad.page.textContent("#link-note")) ?? "";
    for (const v of ["layers=2.5", "load-log=yes", "hedge-delay=0"]) assert.ok(note.includes(v), `${v} in the note: ${note}`);
    assert.deepEqual([...problems, ...again.problems, ...bad.problems], []);
    await bad.page.close();
  });
});
