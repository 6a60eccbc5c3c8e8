// The page on a phone (Chromium at 390 × 844 with a touch screen), as a teacher found it:
// a typed value that is refused says so where the picture is (the docked figure), not only
// beside its field a screen or more away, and leads back to the field; a control reached by
// Tab is never behind the docked figure; a link's values noted beside fields far down are
// named at the top; a change is said in words to a screen reader; a link that names a story and nothing else opens that story; the
// Russian safety-net table shows its every column.
// Run: node --test tests/e2e/held.test.mjs   (needs `make dist` and target/release/stampede)

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PHONE, usePlayground } from "./harness.mjs";

const T = { timeout: 90_000 };
const { width, height } = PHONE.viewport;

describe("at 390 px wide", () => {
  const pg = usePlayground(PHONE);
  const { open } = pg;

  test("a refused value names itself on the figure, leads to its field, and goes when fixed", T, async () => {
    const { page, problems } = await open("");
    const runs = () => page.evaluate(() => Number(document.documentElement.dataset["runs"] ?? 0));
    await page.locator("#cap").scrollIntoViewIfNeeded();
    await page.fill("#cap", "10");
    await page.press("#cap", "Enter");
    const note = page.locator("#held-note");
    await note.waitFor({ state: "visible" });
    const before = await runs();
    // Scrolled to another control, with the figure docked, the note is still on screen.
    await page.locator("#clients").evaluate((e) => e.scrollIntoView({ block: "center" }));
    await page.waitForFunction(() => document.getElementById("herd-figure")?.classList.contains("docked"));
    const box = await note.boundingBox();
    assert.ok(box && box.y >= 0 && box.y + box.height <= height && box.x + box.width <= width + 0.5, `the note is in view: ${JSON.stringify(box)}`);
    const capLabel = (await page.textContent('label[for="cap"]'))?.trim() ?? "";
    assert.match((await note.textContent()) ?? "", new RegExp(`last valid settings; refused: ${capLabel}$`));
    // Its button takes the reader to the field, focused.
    await note.locator("button").click();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "cap");
    assert.ok(await page.locator("#cap-error").isVisible(), "the field's own message is shown");
    assert.equal(await runs(), before, "no run while the value is refused");
    await page.fill("#cap", "30000");
    await page.press("#cap", "Enter");
    await note.waitFor({ state: "hidden" });
    await page.waitForFunction((n) => Number(document.documentElement.dataset["runs"] ?? 0) > n, before);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("Tab never leaves the focused control behind the docked figure", T, async () => {
    const { page, problems } = await open("");
    const covered = [];
    let checked = 0;
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press("Tab");
      const r = await page.evaluate(() => {
        const a = document.activeElement;
        const fig = document.getElementById("herd-figure");
        if (!a || !fig || !fig.classList.contains("docked") || fig.contains(a) || a.closest("#controls") === null) return null;
        const b = a.getBoundingClientRect();
        return { id: a.id, bottom: b.bottom, dock: fig.getBoundingClientRect().top };
      });
      if (r) checked++;
      if (r && r.bottom > r.dock + 0.5) covered.push(r);
    }
    assert.ok(checked >= 10, `Tab reached ${checked} controls with the figure docked`);
    assert.deepEqual(covered, [], "every focused control ends above the docked figure");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a link's values noted beside their fields are named at the top too", T, async () => {
    const { page, problems } = await open("?base=30000&cap=10&budget-refill=-3");
    // The cap below the base is refused by the package, then repaired: wait for its note.
    await page.waitForFunction(() => document.querySelectorAll(".field-error.is-note:not([hidden])").length >= 2);
    const noted = await page.evaluate(() =>
      [...document.querySelectorAll(".field-error.is-note:not([hidden])")].map((e) => document.querySelector(`label[for="${e.dataset["errorFor"]}"]`)?.textContent?.trim()),
    );
    const top = page.locator("#link-note");
    const text = (await top.textContent()) ?? "";
    for (const label of noted) assert.ok(label && text.includes(label), `${label} named in ${JSON.stringify(text)}`);
    const box = await top.boundingBox();
    assert.ok(box && box.y >= 0 && box.y + box.height <= height, `the note is in the first screen: ${JSON.stringify(box)}`);
    // Edited, a field has no note about the link any more, and the top no longer names it.
    const first = await page.evaluate(() => document.querySelector(".field-error.is-note:not([hidden])")?.dataset["errorFor"]);
    const firstLabel = (await page.textContent(`label[for="${first}"]`))?.trim() ?? "";
    await page.fill(`#${first}`, (await page.inputValue(`#${first}`)) || "1");
    await page.press(`#${first}`, "Enter");
    await page.waitForFunction((l) => !(document.getElementById("link-note")?.textContent ?? "").includes(`${l} (`) && !(document.getElementById("link-note")?.textContent ?? "").includes(`${l},`), firstLabel);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a slider moved by keys is said in words once, when the runs come to rest", T, async () => {
    const { page, problems } = await open("");
    await page.waitForFunction(() => (document.getElementById("sr-summary")?.textContent ?? "") !== "");
    await page.evaluate(() => {
      window.__said = [];
      new MutationObserver(() => window.__said.push(document.getElementById("sr-summary")?.textContent)).observe(document.getElementById("sr-summary"), { childList: true, characterData: true, subtree: true });
    });
    const runs = await page.evaluate(() => Number(document.documentElement.dataset["runs"]));
    await page.focus("#clients-range");
    // Four presses back to back (a loaded machine may take a while over the runs they ask for;
    // the sentence comes once they are done and the results have stood still for a second).
    for (let i = 0; i < 4; i++) await page.keyboard.press("ArrowRight");
    await page.waitForFunction((n) => Number(document.documentElement.dataset["runs"]) > n, runs);
    await page.waitForFunction(() => window.__said.length > 0, null, { timeout: 10_000 });
    await page.waitForTimeout(1500);
    const said = await page.evaluate(() => window.__said);
    assert.equal(said.length, 1, `one announcement for four runs: ${JSON.stringify(said)}`);
    const card = await page.textContent('[data-metric="successes"]');
    assert.match(said[0], new RegExp(`^Result: ${card} of [\\d,]+ succeeded; peak [\\d,]+ attempts a second; [\\d.]+ attempts per request\\.$`));
    assert.equal(await page.getAttribute("#sr-summary", "aria-live"), "polite");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a link's fraction where a whole number goes is said to be one", T, async () => {
    const { page, problems } = await open("?clients=1000.5");
    await page.waitForFunction(() => (document.querySelector("#clients-error")?.textContent ?? "") !== "");
    assert.match((await page.textContent("#clients-error")) ?? "", /“1000\.5” here, not a whole number: the default is shown/);
    assert.equal(await page.inputValue("#clients"), "1000");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the load chart's log-scale box is a 44 px target with its label", T, async () => {
    const { page, problems } = await open("");
    const box = await page.locator('label[for="load-log"]').boundingBox();
    assert.ok(box && box.height >= 44, `the label is ${JSON.stringify(box)}`);
    await page.locator('label[for="load-log"]').tap({ position: { x: 4, y: box.height - 3 } });
    assert.equal(await page.isChecked("#load-log"), true, "a tap near the label's edge ticks it");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a link that names a story alone opens that story", T, async () => {
    const { page, problems } = await open("?story=storm");
    assert.equal(await page.getAttribute('[data-preset="storm"]', "aria-pressed"), "true");
    assert.equal(await page.inputValue("#scenario"), "steady", "the storm's own settings");
    assert.match(page.url(), /story=storm/);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the Russian safety-net table fits the screen, its headings broken where they must be", T, async () => {
    const { page, problems } = await open("?lang=ru");
    const box = page.locator("#nets-table").locator("xpath=..");
    await box.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => (document.querySelectorAll("#nets-table tbody tr").length ?? 0) > 0, null, { timeout: 60_000 });
    const fit = await box.evaluate((b) => ({ scroll: b.scrollWidth, client: b.clientWidth, label: b.getAttribute("aria-label"), role: b.getAttribute("role") }));
    assert.ok(fit.scroll <= fit.client, `no sideways scroll needed: ${JSON.stringify(fit)}`);
    assert.equal(fit.role, "region");
    assert.match(fit.label ?? "", /Страховки/);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
