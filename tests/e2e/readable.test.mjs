// What a teacher reads on a phone, in both languages: the metric cards hold the largest
// numbers a run of a million clients gives, the goodput chart says what its points average,
// the speeds are written in the page's language, and the live panel says plainly what is
// missing (an empty URL; an empty timeout is none).
// Run: node --test tests/e2e/readable.test.mjs   (needs `make dist` and target/release/stampede)

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { PHONE, usePlayground } from "./harness.mjs";

const T = { timeout: 90_000 };

describe("read at 390 px", () => {
  const { open } = usePlayground(PHONE);

  test("a million clients' numbers stay inside their cards, on a phone and a laptop", T, async () => {
    // Every client's 20 attempts at once: a peak of 102282970 requests/s, which ran 12 px past
    // its card's edge at 1280 px (and 1 px at 390).
    const { page, problems } = await open("?clients=1000000&base=0&attempts=20&multiplier=1");
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      const cards = await page.$$eval("[data-metric]", (els) =>
        els
          .filter((el) => el.offsetParent !== null)
          .map((el) => {
            const card = el.closest(".metric").getBoundingClientRect();
            const num = el.getBoundingClientRect();
            return { name: el.dataset.metric, text: el.textContent, inside: num.right <= card.right + 0.5 && num.left >= card.left - 0.5 };
          }),
      );
      assert.ok(cards.some((c) => c.text.length >= 9), JSON.stringify(cards));
      for (const c of cards) assert.ok(c.inside, `${width} px: ${c.name} (${c.text}) spills out of its card`);
    }
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the docked figure keeps a legend in short", T, async () => {
    const { page, problems } = await open();
    const shown = () => page.$$eval(".dock-legend li", (ls) => ls.filter((l) => l.offsetParent !== null).map((l) => l.textContent));
    // Among the controls, the figure is docked at the screen's foot, the full legend far above.
    await page.locator("#multiplier").scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.getElementById("herd-figure")?.classList.contains("docked"));
    assert.deepEqual(await shown(), ["served", "failed", "overload", "timed out", "blocked"]);
    // In its own place, after the controls, the short one goes.
    await page.evaluate(() => document.querySelector(".dock-mark")?.scrollIntoView({ block: "end" }));
    await page.waitForFunction(() => !document.getElementById("herd-figure")?.classList.contains("docked"));
    assert.deepEqual(await shown(), []);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a preset is named by its title and described by its blurb", T, async () => {
    const { page, problems } = await open();
    const button = page.locator('[data-preset="herd"]');
    // Its name was the title and the whole paragraph under it, read out at every stop.
    assert.match(await button.ariaSnapshot(), /^- button "1000 clients retry exactly 2 s later"/);
    const described = await button.evaluate((b) => document.getElementById(b.getAttribute("aria-describedby") ?? "")?.textContent);
    assert.equal(described, "Exponential backoff without jitter: every client comes back at the same instant.");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("two wrong fields say so at once, each in its own words", T, async () => {
    const { page, problems } = await open();
    const said = (id) => page.textContent(`[data-error-for="${id}"]`);
    await page.fill("#clients", "0");
    await page.press("#clients", "Tab");
    await page.fill("#base", "-5");
    await page.press("#base", "Tab");
    // The base said nothing while the clients blocked the run: the package never saw it.
    await page.waitForFunction(() => /Given: -5\./.test(document.querySelector('[data-error-for="base"]')?.textContent ?? ""));
    assert.equal(await said("clients"), "Enter a value from 100 to 1,000,000.");
    assert.equal(await said("base"), "Base delay: enter a value from 0 ms to 86,400,000 ms. Given: -5.");
    for (const id of ["clients", "base"]) assert.equal(await page.getAttribute(`#${id}`, "aria-invalid"), "true", id);
    // No other field says a word: a timeout of 0 (none, never sent) was flagged beside them.
    const others = await page.$$eval("[data-error-for]", (els) => els.filter((e) => !["clients", "base"].includes(e.dataset.errorFor ?? "") && e.textContent !== "").map((e) => `${e.dataset.errorFor}: ${e.textContent}`));
    assert.deepEqual(others, []);
    // The clients mended, the base's word is the package's own, the same.
    await page.fill("#clients", "1000");
    await page.waitForFunction(() => document.querySelector('[data-error-for="clients"]')?.textContent === "");
    assert.equal(await said("base"), "Base delay: enter a value from 0 ms to 86,400,000 ms. Given: -5.");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the speeds follow the language; an empty URL is named as such; an empty timeout reads 'none'", T, async () => {
    const { page, problems } = await open();
    // The goodput chart's bins are coarser than the load chart's: its caption says so.
    assert.match((await page.textContent("#goodput-unit")) ?? "", /^Requests per second, each point the mean of [\d.]+ (ms|s) \(the load chart's of 100 ms: its peaks stand higher\)\.$/);
    const speeds = () => page.$$eval("#speed option", (os) => os.map((o) => o.textContent));
    assert.ok((await speeds()).includes("0.25×"));
    assert.equal(await page.getAttribute("#live-timeout", "placeholder"), "none");
    const flaky = await page.inputValue("#live-url");
    await page.fill("#live-url", "");
    await page.click("#live-send");
    await page.waitForFunction(() => document.getElementById("live-status")?.textContent === "Enter a URL to call.");
    // A call's strip ends where its last answer came, as the status says (its padded edge
    // read 6.28 s beside "in 6.04 s"): the flaky endpoint's two 503s, a second apart, then 200.
    await page.fill("#live-url", flaky);
    // From the keyboard: the focus waits on Cancel while the call runs (a disabled Send threw
    // it to the page's body) and comes back to Send.
    await page.focus("#live-send");
    await page.keyboard.press("Enter");
    await page.waitForFunction(() => document.activeElement?.id === "live-cancel");
    await page.waitForFunction(() => document.getElementById("live-send")?.disabled === false && (document.getElementById("live-status")?.textContent ?? "").startsWith("200"), null, { timeout: 20_000 });
    assert.equal(await page.evaluate(() => document.activeElement?.id), "live-send");
    const seconds = (text) => Number(/([\d.]+) s\b/.exec(text ?? "")?.[1]);
    const said = seconds(await page.textContent("#live-status"));
    const drawn = seconds(await page.textContent(".strip-end"));
    assert.ok(said > 1.5 && Math.abs(drawn - said) <= 0.1, `strip ${drawn} s, status ${said} s`);
    await page.click('[data-lang="ru"]');
    await page.waitForFunction(() => [...document.querySelectorAll("#speed option")].some((o) => o.textContent === "0,25×"));
    assert.equal(await page.getAttribute("#live-timeout", "placeholder"), "без тайм-аута");
    // The browser logs each of the flaky endpoint's 503s: those are the lesson, not a fault.
    assert.deepEqual(problems.filter((p) => !/Failed to load resource: the server responded with a status of 503/.test(p)), []);
    await page.close();
  });
});
