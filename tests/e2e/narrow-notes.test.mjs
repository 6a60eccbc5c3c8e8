// The page on a phone (Chromium at 390 × 844 with a touch screen, served by `stampede serve`):
// what the page has to say about a bad link or a simulator that did not load is in the first
// screen, not after every control; the compare panel's small herds line up and their time
// axes stay legible; the Russian page words the live call's reasons in Russian.
// Run: node --test tests/e2e/narrow-notes.test.mjs   (needs `make dist` and target/release/stampede)

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { inViewport, PHONE, usePlayground } from "./harness.mjs";

const T = { timeout: 90_000 };
const VIEWPORT = PHONE.viewport;
const inView = (b) => inViewport(b, VIEWPORT);

describe("at 390 px wide, the page's notes and small figures", () => {
  const pg = usePlayground(PHONE);
  const { open } = pg;

  test("a bad link's note is in the first screen, and back beside the herd's heading on a wide one", T, async () => {
    const { page, problems } = await open("?speed=garbage&nets-scope=zzz");
    assert.match((await page.textContent("#link-note")) ?? "", /speed=garbage/);
    assert.equal(await page.evaluate(() => window.scrollY), 0, "the page opens at its top");
    const box = await page.locator("#link-note").boundingBox();
    assert.ok(inView(box), `the note is in the first screen: ${JSON.stringify(box)}`);
    // Nothing scrolls sideways.
    assert.ok((await page.evaluate(() => document.scrollingElement.scrollWidth)) <= VIEWPORT.width);
    // Wider, the notes go back to their place in the figures' column.
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.waitForFunction(() => document.querySelector("#figures .fig-head #status") !== null);
    const placed = await page.evaluate(() => ({
      note: document.getElementById("link-note")?.previousElementSibling?.classList.contains("fig-head"),
      slot: document.getElementById("page-notes")?.children.length,
    }));
    assert.deepEqual(placed, { note: true, slot: 0 });
    await page.setViewportSize(VIEWPORT);
    await page.waitForFunction(() => document.querySelector("#page-notes #link-note") !== null);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the status says why the controls are grey when the simulator cannot load, in the first screen", T, async () => {
    const page = await pg.browser.context.newPage();
    // No wasm: the simulator cannot load (as without WebAssembly SIMD).
    await page.route("**/*.wasm", (route) => route.abort());
    await page.goto(pg.server.url);
    await page.waitForFunction(() => {
      const text = document.getElementById("status")?.textContent ?? "";
      return text !== "" && !text.includes("Loading");
    });
    assert.match((await page.textContent("#status")) ?? "", /simulator/i);
    assert.equal(await page.evaluate(() => window.scrollY), 0, "the page opens at its top");
    const box = await page.locator("#status").boundingBox();
    assert.ok(inView(box), `the status is in the first screen: ${JSON.stringify(box)}`);
    // The controls it explains are disabled.
    assert.ok(await page.evaluate(() => document.querySelector(".preset")?.disabled === true), "the presets wait for the simulator");
    await page.close();
  });

  test("the compare herds line up, and their axis labels neither overlap nor run past the figure", T, async () => {
    const { page, problems } = await open();
    await page.locator("#compare").scrollIntoViewIfNeeded();
    await page.waitForFunction(() => ["a", "b"].every((s) => document.querySelectorAll(`#compare-${s}-axis .tick`).length > 0));
    const figs = await page.evaluate(() =>
      ["a", "b"].map((side) => {
        const canvas = document.getElementById(`compare-${side}`).getBoundingClientRect();
        const ticks = [...document.querySelectorAll(`#compare-${side}-axis .tick`)].map((t) => {
          const r = t.getBoundingClientRect();
          return { text: t.textContent, left: r.left, right: r.right };
        });
        return { top: canvas.top, left: canvas.left, right: canvas.right, ticks };
      }),
    );
    const [a, b] = figs;
    assert.ok(Math.abs(a.top - b.top) < 1, `the herds start at one height: A ${a.top}, B ${b.top}`);
    for (const [side, fig] of [["A", a], ["B", b]]) {
      assert.ok(fig.ticks.length >= 2, `${side}: ${JSON.stringify(fig.ticks)}`);
      for (let i = 1; i < fig.ticks.length; i++) {
        assert.ok(fig.ticks[i].left >= fig.ticks[i - 1].right + 2, `${side}: "${fig.ticks[i - 1].text}" and "${fig.ticks[i].text}" overlap: ${JSON.stringify(fig.ticks)}`);
      }
      assert.ok(fig.ticks[0].left >= fig.left - 0.5, `${side}: the first label starts inside the figure`);
      assert.ok(fig.ticks.at(-1).right <= fig.right + 0.5, `${side}: the last label ends inside the figure: ${JSON.stringify(fig)}`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the Russian page words the live call's reasons in Russian", T, async () => {
    const { page, problems } = await open("?lang=ru");
    await page.waitForFunction(() => !document.getElementById("live-send")?.disabled, null, { timeout: 15_000 });
    await page.locator("#live-send").scrollIntoViewIfNeeded();
    // The server's flaky endpoint: two 503s with Retry-After: 1, then 200.
    await page.tap("#live-send");
    await page.waitForFunction(() => document.querySelectorAll("#live-log li").length >= 3 && !document.getElementById("live-send")?.disabled, null, { timeout: 30_000 });
    const reasons = await page.$$eval("#live-log .a-reason", (els) => els.map((e) => e.textContent ?? ""));
    assert.equal(reasons.length, 3, reasons.join(" | "));
    for (const r of reasons) {
      assert.match(r, /[а-яё]/i, r);
      assert.doesNotMatch(r, /\b(?:is|not|failure|retry|server|may|pass)\b/, r);
    }
    assert.match(reasons[0], /^503 Service Unavailable/);
    assert.equal(reasons[2], "200 — не сбой");
    const ru = (await page.textContent("#live-status")) ?? "";
    assert.match(ru, /^200 OK/);
    assert.match(ru, /[а-яё]/i, ru);
    // Back in English, the log is the package's own words, and the status line is English too
    // (it stayed in the old language), with the same figures.
    await page.click('[data-lang="en"]');
    await page.waitForFunction(() => (document.querySelector("#live-log li:last-child .a-reason")?.textContent ?? "") === "200 is not a failure");
    const en = (await page.textContent("#live-status")) ?? "";
    assert.match(en, /^200 OK after 3 attempts/, en);
    assert.doesNotMatch(en, /[а-яё]/i, en);
    assert.deepEqual(problems.filter((p) => !/503/.test(p)), []);
    await page.close();
  });
});
