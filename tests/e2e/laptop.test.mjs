// The page on a laptop: Chromium at 1366 × 768 CSS pixels, served by `stampede serve`.
// The controls scroll in a column of their own that stays on screen, so a control far down
// the list (the policy's strategy, the budget) is reached and moved with the herd in view.
// Run: node --test tests/e2e/laptop.test.mjs   (needs `make dist` and target/release/stampede)

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { inViewport, usePlayground } from "./harness.mjs";

const T = { timeout: 90_000 };
const VIEWPORT = { width: 1366, height: 768 };
const inView = (b) => inViewport(b, VIEWPORT);
/** Whether the box stayed where it was, to a pixel (a new run's texts may move it by less). */
const still = (a, b) => Math.abs(a.y - b.y) <= 1 && Math.abs(a.x - b.x) <= 1;

describe("at 1366 × 768", () => {
  const { open } = usePlayground({ viewport: VIEWPORT });

  test("the controls scroll on their own: the last slider is reached and dragged with the herd in view", T, async () => {
    const { page, problems } = await open();
    const figure = page.locator("#timeline");
    // The herd's rows at the top of the screen, as someone watching it would put them.
    await page.evaluate(() => window.scrollBy(0, document.querySelector("#timeline").getBoundingClientRect().top - 8));
    const before = await figure.boundingBox();
    assert.ok(inView(before), `the herd is on screen: ${JSON.stringify(before)}`);
    // The controls are taller than the screen: their last slider is below it.
    const id = await page.$$eval("#controls input[type=range]", (rs) => rs.filter((r) => r.offsetParent !== null).at(-1)?.id);
    assert.ok(id, "a slider in the controls");
    const slider = page.locator(`#${id}`);
    const range = await page.evaluate(() => {
      const c = document.querySelector("#controls");
      return c.scrollHeight - c.clientHeight;
    });
    assert.ok(range > 200, `the controls scroll (by ${range} px)`);
    // The wheel over the controls scrolls them, not the page, until their end.
    const controls = await page.locator("#controls").boundingBox();
    await page.mouse.move(controls.x + controls.width / 2, Math.max(controls.y, 0) + 200);
    for (let left = range; left > 0; left -= 100) await page.mouse.wheel(0, Math.min(100, left));
    await page.waitForFunction((r) => document.querySelector("#controls").scrollTop >= r - 1, range);
    const box = await slider.boundingBox();
    assert.ok(inView(box), `the last slider is on screen: ${JSON.stringify(box)}`);
    const after = await figure.boundingBox();
    assert.ok(still(after, before), `the page did not move: the herd is where it was (${JSON.stringify([before, after])})`);
    // Drag it across its track: a new run, and the herd never moved.
    const runs = await page.evaluate(() => Number(document.documentElement.dataset.runs));
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + 4, y);
    await page.mouse.down();
    for (let i = 1; i <= 4; i++) await page.mouse.move(box.x + 4 + ((box.width - 8) * i) / 8, y, { steps: 3 });
    await page.mouse.up();
    await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, runs, { timeout: 20_000 });
    const dragged = await figure.boundingBox();
    assert.ok(still(dragged, before), `the herd stayed in view (${JSON.stringify([before, dragged])})`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the controls' column stays on screen while the page scrolls past the figures", T, async () => {
    const { page, problems } = await open();
    await page.evaluate(() => document.querySelector("#figures .metrics").scrollIntoView({ block: "end" }));
    const c = await page.locator("#controls").boundingBox();
    assert.ok(c.y >= -1 && c.y <= 1, `the controls stick to the top: ${JSON.stringify(c)}`);
    assert.ok(c.height <= VIEWPORT.height + 1, `and fit the screen: ${c.height} px`);
    // Tabbing to a control deep in the column scrolls it into view within the column.
    await page.focus("#strategy");
    const s = await page.locator("#strategy").boundingBox();
    assert.ok(inView(s), `the focused strategy is on screen: ${JSON.stringify(s)}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("in Russian, every control's unit fits its column, none cut off", T, async () => {
    const { page, problems } = await open();
    await page.click('[data-lang="ru"]');
    await page.waitForFunction(() => document.documentElement.lang === "ru");
    const cut = await page.evaluate(() => {
      const column = document.querySelector("#controls").getBoundingClientRect();
      return [...document.querySelectorAll("#controls .field-row > *")]
        .filter((e) => e.getClientRects().length > 0)
        .filter((e) => e.scrollWidth > e.clientWidth + 1 || e.getBoundingClientRect().right > column.right - 0.5)
        .map((e) => `${e.closest("[data-field]")?.dataset.field}: ${e.textContent || e.tagName}`);
    });
    assert.deepEqual(cut, []);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the herd's timeline starts on the first screen, in both languages", T, async () => {
    // The figure's explanation sits under it (above it, it pushed the timeline to 701 px in
    // English and 826 px in Russian: off a projector's 768).
    for (const lang of ["en", "ru"]) {
      const { page, problems } = await open(`?lang=${lang}`);
      const top = await page.evaluate(() => document.getElementById("timeline").getBoundingClientRect().top);
      assert.ok(top <= 0.9 * VIEWPORT.height, `${lang}: the timeline starts at ${top} px`);
      assert.deepEqual(problems, []);
      await page.close();
    }
  });

  test("in Russian, the live panel's URL and headers keep their width from tablet to laptop", T, async () => {
    const { page, problems } = await open("?lang=ru");
    // Between 701 and 1000 px its long check-box labels once widened the form's side columns
    // until the URL box was 16 px wide.
    for (const width of [720, 768, 900, 1000, 1366]) {
      await page.setViewportSize({ width, height: 768 });
      const [form, url, headers] = await page.evaluate(() =>
        ["live-form", "live-url", "live-headers"].map((id) => document.getElementById(id).getBoundingClientRect().width),
      );
      assert.ok(url >= 0.45 * form, `${width} px: the URL box ${url} px of a ${form} px form`);
      assert.ok(headers >= 0.9 * form, `${width} px: the headers box ${headers} px of a ${form} px form`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });
});
