// End-to-end tests of the sliders as a keyboard and a screen reader meet them: each says its
// field's value (aria-valuetext, in the page's language), an arrow key steps the field by its
// own step (it moved 1/1000 of the track: 45 presses from 6 to 7 attempts), and a key or a
// drag that leaves the value as it was runs nothing. The copy statuses go with a language
// switch. Run: node --test tests/e2e/slider-keys.test.mjs (needs `make dist` and
// target/release/stampede)

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { afterRun, usePlayground, waitIdle } from "./harness.mjs";

const { open } = usePlayground();
const T = { timeout: 90_000 };

const runs = (page) => page.evaluate(() => Number(document.documentElement.dataset.runs));
const valueText = (page, id) => page.getAttribute(`#${id}-range`, "aria-valuetext");

/** Long enough for a run to have started and shown (an input runs in its next frame). */
async function settle(page) {
  await page.waitForTimeout(700);
  await waitIdle(page);
}

/** Tabs forward until `id` has the focus (at most `max` presses). */
async function tabTo(page, id, max = 20) {
  for (let i = 0; i < max; i++) {
    if ((await page.evaluate(() => document.activeElement?.id)) === id) return;
    await page.keyboard.press("Tab");
  }
  assert.fail(`${max} tabs did not reach #${id}`);
}

describe("the sliders by keyboard and screen reader", () => {
  test("a slider reached by Tab reads its field's value with its unit, not its track position", T, async () => {
    const { page, problems } = await open();
    await page.focus("#strategy");
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "base-range");
    assert.equal(await page.inputValue("#base"), "2000");
    assert.equal(await valueText(page, "base"), "2 seconds");
    // "1,000 clients" read as 250, 2,000 ms of outage as 33.
    assert.equal(await page.inputValue("#clients"), "1000");
    assert.equal(await valueText(page, "clients"), "1,000 clients");
    assert.equal(await page.inputValue("#outage"), "2000");
    assert.equal(await valueText(page, "outage"), "2 seconds");
    assert.equal(await valueText(page, "attempts"), "6");
    // Every slider of the form has one (hidden ones too: a scenario switch shows them).
    const bare = await page.$$eval("#controls input[type=range]", (rs) => rs.filter((r) => !r.getAttribute("aria-valuetext")).map((r) => r.id));
    assert.deepEqual(bare, []);
    // The playhead reads the time the clock shows, not its track position.
    await page.waitForFunction(() => {
      const scrub = document.getElementById("scrub");
      return scrub?.getAttribute("aria-valuetext") === document.getElementById("clock")?.textContent && scrub?.getAttribute("aria-valuetext") !== "";
    });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("ArrowRight on max attempts adds exactly one, and the thumb and the text follow", T, async () => {
    const { page, problems } = await open();
    await page.focus("#strategy");
    await tabTo(page, "attempts-range");
    assert.equal(await page.inputValue("#attempts"), "6");
    const before = await runs(page);
    await afterRun(page, () => page.keyboard.press("ArrowRight"));
    assert.equal(await page.inputValue("#attempts"), "7");
    assert.equal(await valueText(page, "attempts"), "7");
    // The thumb stands where a drag to 7 would put it: 6/11 of the 1..12 track.
    assert.equal(await page.inputValue("#attempts-range"), "545");
    await settle(page);
    assert.equal(await runs(page), before + 1, "one press, one run");
    await page.waitForFunction(() => new URLSearchParams(location.search).get("attempts") === "7", null, { timeout: 10_000 });
    // And back down, by one.
    await afterRun(page, () => page.keyboard.press("ArrowLeft"));
    assert.equal(await page.inputValue("#attempts"), "6");
    assert.equal(await valueText(page, "attempts"), "6");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("other sliders step by their own step: the outage by 100 ms, the clients to the next friendly value", T, async () => {
    const { page, problems } = await open();
    await page.focus("#outage-range");
    await afterRun(page, () => page.keyboard.press("ArrowRight"));
    assert.equal(await page.inputValue("#outage"), "2100");
    assert.equal(await valueText(page, "outage"), "2.1 seconds");
    await page.focus("#multiplier-range");
    const m = Number(await page.inputValue("#multiplier"));
    await afterRun(page, () => page.keyboard.press("ArrowUp"));
    assert.equal(Number(await page.inputValue("#multiplier")), Math.round((m + 0.1) * 10) / 10);
    await page.focus("#clients-range");
    await afterRun(page, () => page.keyboard.press("ArrowRight"));
    assert.equal(await page.inputValue("#clients"), "1010");
    assert.equal(await valueText(page, "clients"), "1,010 clients");
    // Home and End: the slider's ends.
    await afterRun(page, () => page.keyboard.press("Home"));
    assert.equal(await page.inputValue("#clients"), "100");
    assert.equal(await valueText(page, "clients"), "100 clients");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a key or a drag that leaves the value as it was runs nothing", T, async () => {
    // 200 clients: on the log track (100 … 1,000,000) positions 74 to 76 all stand for 200.
    const { page, problems } = await open("?clients=200");
    await page.focus("#attempts-range");
    await afterRun(page, () => page.keyboard.press("End"));
    assert.equal(await page.inputValue("#attempts"), "12");
    await settle(page);
    const before = await runs(page);
    // At the end of the track: ArrowRight, End and PageUp change nothing.
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("End");
    await page.keyboard.press("PageUp");
    await settle(page);
    assert.equal(await page.inputValue("#attempts"), "12");
    assert.equal(await valueText(page, "attempts"), "12");
    assert.equal(await runs(page), before, "a key that changed nothing ran the simulation");
    // A drag over positions that stand for the same value: 12 attempts from 955 up.
    await page.evaluate(() => {
      const r = document.getElementById("attempts-range");
      for (const pos of [990, 970, 960]) {
        r.value = String(pos);
        r.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
    await settle(page);
    assert.equal(await runs(page), before, "a drag that changed nothing ran the simulation");
    // A log track's friendly values are a few positions wide: moving within one runs nothing.
    assert.equal(await page.inputValue("#clients-range"), "75");
    await page.evaluate(() => {
      const r = document.getElementById("clients-range");
      for (const pos of [76, 74, 75]) {
        r.value = String(pos);
        r.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
    await settle(page);
    assert.equal(await page.inputValue("#clients"), "200");
    assert.equal(await runs(page), before, "positions of one value ran the simulation");
    // A real change still runs.
    await page.focus("#attempts-range");
    await afterRun(page, () => page.keyboard.press("ArrowLeft"));
    assert.equal(await page.inputValue("#attempts"), "11");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the value texts follow a typed value, a preset, a link and the language", T, async () => {
    const { page, problems } = await open("?outage=45500&clients=2000");
    assert.equal(await valueText(page, "outage"), "45.5 seconds");
    assert.equal(await valueText(page, "clients"), "2,000 clients");
    await afterRun(page, () => page.fill("#outage", "1500"));
    assert.equal(await valueText(page, "outage"), "1.5 seconds");
    await afterRun(page, () => page.click('[data-preset="herd"]'));
    assert.equal(await valueText(page, "clients"), `${Number(await page.inputValue("#clients")).toLocaleString("en-US")} clients`);
    await page.click('[data-lang="ru"]');
    await page.waitForFunction(() => document.documentElement.lang === "ru");
    // Russian groups digits with a no-break space.
    const clients = Number(await page.inputValue("#clients")).toLocaleString("ru-RU");
    assert.equal(await valueText(page, "clients"), `${clients} клиентов`);
    assert.equal(await valueText(page, "base"), "2 секунды");
    assert.equal(await valueText(page, "retry-after"), "нет");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the Share and embed Copy statuses do not stay in the old language after a switch", T, async () => {
    const { page, problems } = await open();
    await page.click("#share");
    await page.waitForFunction(() => document.getElementById("share-status")?.textContent !== "");
    await page.click("#embed-copy");
    await page.waitForFunction(() => document.getElementById("embed-status")?.textContent !== "");
    await page.click('[data-lang="ru"]');
    await page.waitForFunction(() => document.documentElement.lang === "ru");
    assert.equal(await page.textContent("#share-status"), "");
    assert.equal(await page.textContent("#embed-status"), "");
    // Copied again, the status speaks the new language.
    await page.click("#share");
    await page.waitForFunction(() => document.getElementById("share-status")?.textContent !== "");
    assert.match((await page.textContent("#share-status")) ?? "", /[а-яё]/i);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
