// The page on a phone: Chromium at 390 × 844 CSS pixels with a touch screen, served by
// `stampede serve`.
// The herd figure stays in view while a slider near the bottom of the controls is dragged,
// every control is big enough for a finger, nothing scrolls sideways, a swipe on the
// docked figure scrolls the page, not the figure's rows, and a swipe that starts on a slider
// scrolls the page without setting the slider.
// Run: node --test tests/e2e/narrow.test.mjs   (needs `make dist` and target/release/stampede)

import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { afterRun, drawEverything, inViewport, PHONE, usePlayground } from "./harness.mjs";

const T = { timeout: 90_000 };
const VIEWPORT = PHONE.viewport;
const inView = (b) => inViewport(b, VIEWPORT);

describe("at 390 px wide", () => {
  const { open } = usePlayground(PHONE);

  test("the herd stays in view while a slider near the bottom of the controls is dragged", T, async () => {
    const { page, problems } = await open();
    // The third-last visible slider of the controls: near their bottom, with the figure's own
    // place (after the controls) below the screen, so that only the dock keeps it in view.
    const id = await page.$$eval("#controls input[type=range]", (rs) => rs.filter((r) => r.offsetParent !== null).at(-3)?.id);
    assert.ok(id, "a slider in the controls");
    const slider = page.locator(`#${id}`);
    await slider.scrollIntoViewIfNeeded();
    const figure = page.locator("#timeline");
    const box = await slider.boundingBox();
    assert.ok(inView(box), `the slider is on screen: ${JSON.stringify(box)}`);
    // Where the figure would be if it did not stick: its own place, after all the controls,
    // is (at least partly) below the screen.
    const unstuck = await page.evaluate(() => {
      const fig = document.querySelector("#herd-figure");
      fig.style.position = "static";
      const r = fig.getBoundingClientRect();
      fig.style.position = "";
      return { top: r.top, bottom: r.bottom };
    });
    assert.ok(unstuck.bottom > VIEWPORT.height, `unstuck, the figure would end at ${unstuck.bottom} px, on screen`);
    // Drag the thumb across the track as a finger would, checking the figure at every step.
    const y = box.y + box.height / 2;
    const runs = await page.evaluate(() => Number(document.documentElement.dataset.runs));
    await page.mouse.move(box.x + 4, y);
    await page.mouse.down();
    for (let i = 1; i <= 8; i++) {
      await page.mouse.move(box.x + 4 + ((box.width - 8) * i) / 8, y, { steps: 3 });
      await page.waitForTimeout(60);
      const fig = await figure.boundingBox();
      assert.ok(inView(fig), `step ${i}: the figure is in view (${JSON.stringify(fig)})`);
      const now = await slider.boundingBox();
      assert.ok(now.y + now.height <= fig.y, `step ${i}: the slider is above the figure, not under it`);
    }
    await page.mouse.up();
    // The drag moved the setting, and the figure shows the new run.
    await page.waitForFunction((n) => Number(document.documentElement.dataset.runs) > n, runs, { timeout: 20_000 });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("docked, the herd leaves a swipe on it to the page; in its own place, its rows scroll", T, async () => {
    const { page, problems } = await open();
    const cdp = await page.context().newCDPSession(page);
    // A finger's swipe upwards from the figure's middle, as touch events (Chromium turns
    // them into its scrolling gestures), so the content under it moves down.
    const swipe = async () => {
      const b = await page.locator("#timeline").boundingBox();
      const [x, y] = [Math.round(b.x + b.width / 2), Math.round(b.y + b.height / 2)];
      await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x, y }] });
      for (let i = 1; i <= 10; i++) {
        await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [{ x, y: y - 20 * i }] });
        await page.waitForTimeout(16);
      }
      await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
      await page.waitForTimeout(150);
    };
    const where = () =>
      page.evaluate(() => ({ page: Math.round(scrollY), rows: document.querySelector("#timeline-scroll").scrollTop }));
    const docked = () => page.evaluate(() => document.querySelector("#herd-figure").classList.contains("docked"));
    // The rows are taller than the figure: they have somewhere to scroll.
    const tall = await page.evaluate(() => {
      const s = document.querySelector("#timeline-scroll");
      return s.scrollHeight > s.clientHeight + 100;
    });
    assert.ok(tall, "the herd's rows overflow the docked figure");
    await page.locator("#base-range").scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector("#herd-figure").classList.contains("docked"));
    const before = await where();
    await swipe();
    const after = await where();
    assert.ok(after.page >= before.page + 100, `the page scrolled: ${JSON.stringify({ before, after })}`);
    assert.equal(after.rows, before.rows, "the rows did not");
    // A tap on the figure focuses its scroller; the next swipe still moves the page.
    const fig = await page.locator("#timeline").boundingBox();
    await page.touchscreen.tap(fig.x + fig.width / 2, fig.y + fig.height / 2);
    const tapped = await where();
    await swipe();
    const again = await where();
    assert.ok(again.page >= tapped.page + 100, `after a tap, the page scrolled: ${JSON.stringify({ tapped, again })}`);
    assert.equal(again.rows, tapped.rows, "after a tap, the rows did not");
    // Once the controls are passed the figure is in its own place, and a swipe on it
    // scrolls its rows.
    await page.evaluate(() => document.querySelector(".dock-mark").scrollIntoView({ block: "center" }));
    await page.waitForFunction(() => !document.querySelector("#herd-figure").classList.contains("docked"));
    const placed = await where();
    await swipe();
    const moved = await where();
    assert.ok(moved.rows >= placed.rows + 100, `the rows scrolled: ${JSON.stringify({ placed, moved })}`);
    assert.equal(await docked(), false);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a vertical swipe that starts on a slider scrolls the page and leaves the setting; a sideways drag moves it", T, async () => {
    const { page, problems } = await open();
    const cdp = await page.context().newCDPSession(page);
    const touch = async (points) => {
      const [x0, y0] = points[0];
      await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x: x0, y: y0 }] });
      for (const [x, y] of points.slice(1)) {
        await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [{ x, y }] });
        await page.waitForTimeout(16);
      }
      await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
      await page.waitForTimeout(300);
    };
    for (const id of ["clients-range", "base-range"]) {
      await page.evaluate((id) => document.getElementById(id).scrollIntoView({ block: "center" }), id);
      const box = await page.locator(`#${id}`).boundingBox();
      const before = await page.evaluate((id) => ({ value: document.getElementById(id).value, y: scrollY, runs: document.documentElement.dataset.runs }), id);
      // From the middle of the track (far from the thumb), straight up.
      const [x, y] = [Math.round(box.x + box.width * 0.5), Math.round(box.y + box.height / 2)];
      await touch(Array.from({ length: 11 }, (_, i) => [x, y - 18 * i]));
      const after = await page.evaluate((id) => ({ value: document.getElementById(id).value, y: scrollY, runs: document.documentElement.dataset.runs }), id);
      assert.ok(after.y >= before.y + 80, `${id}: the page scrolled: ${JSON.stringify({ before, after })}`);
      assert.equal(after.value, before.value, `${id}: the setting is unchanged`);
      assert.equal(after.runs, before.runs, `${id}: nothing re-ran`);
    }
    // A sideways drag still moves the slider, and the run follows.
    await page.evaluate(() => document.getElementById("base-range").scrollIntoView({ block: "center" }));
    const box = await page.locator("#base-range").boundingBox();
    const before = await page.inputValue("#base");
    const y = Math.round(box.y + box.height / 2);
    await afterRun(page, () => touch(Array.from({ length: 9 }, (_, i) => [Math.round(box.x + box.width * (0.2 + 0.06 * i)), y])));
    assert.notEqual(await page.inputValue("#base"), before);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a touch on a slider that the page writes meanwhile (the playing scrubber) still sets it where the finger lifts", T, async () => {
    const { page, problems } = await open();
    const cdp = await page.context().newCDPSession(page);
    const scrub = page.locator("#scrub");
    await scrub.scrollIntoViewIfNeeded();
    // Play from the start, so the playhead writes the scrubber every frame.
    if ((await page.getAttribute("#play", "aria-pressed")) !== "true") await page.click("#play");
    await page.waitForFunction(() => document.getElementById("play").getAttribute("aria-pressed") === "true");
    const box = await scrub.boundingBox();
    const [x, y] = [Math.round(box.x + box.width * 0.5), Math.round(box.y + box.height / 2)];
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x, y, id: 1 }] });
    await page.waitForTimeout(120);
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
    await page.waitForTimeout(200);
    const value = Number(await scrub.inputValue());
    assert.ok(Math.abs(value - 500) <= 60, `the scrubber is where the finger was (about 500 of 1000), not where the playhead had it: ${value}`);
    // Two fingers: one taps Base's track while another rests on Cap's; each slider ends where
    // its finger left it, and its number box says the same.
    await page.evaluate(() => document.getElementById("base-range").scrollIntoView({ block: "center" }));
    const [b, c] = [await page.locator("#base-range").boundingBox(), await page.locator("#cap-range").boundingBox()];
    const a = { x: Math.round(b.x + b.width * 0.25), y: Math.round(b.y + b.height / 2), id: 2 };
    const capValue = await page.inputValue("#cap-range");
    const capThumbX = Math.round(c.x + (c.width * Number(capValue)) / Number(await page.getAttribute("#cap-range", "max")));
    const d = { x: capThumbX, y: Math.round(c.y + c.height / 2), id: 3 };
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [a] });
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [a, d] });
    await page.waitForTimeout(100);
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [d] });
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
    await page.waitForTimeout(400);
    const shown = await page.evaluate(() => ({ slider: document.getElementById("base-range").value, box: document.getElementById("base").value }));
    assert.ok(Math.abs(Number(shown.slider) - 250) <= 40, `Base's slider is where its finger tapped: ${JSON.stringify(shown)}`);
    assert.notEqual(shown.box, "2000", `Base's number box followed the tap: ${JSON.stringify(shown)}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("on its side (844 x 390), the docked figure leaves most of the screen to the controls", T, async () => {
    const { page, problems } = await open();
    await page.setViewportSize({ width: 844, height: 390 });
    const slider = page.locator("#base-range");
    await slider.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelector("#herd-figure").classList.contains("docked"));
    const fig = await page.locator("#herd-figure").boundingBox();
    assert.ok(fig.height <= 390 * 0.45, `the docked figure is ${fig.height} px of 390`);
    const box = await slider.boundingBox();
    assert.ok(box.y >= 0 && box.y + box.height <= fig.y, `the slider (${JSON.stringify(box)}) is above the figure (top ${fig.y})`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  for (const lang of ["en", "ru"]) {
    test(`every control is at least 44 px tall for a finger, and nothing scrolls sideways (${lang})`, T, async () => {
      const { page, problems } = await open(`?lang=${lang}`);
      assert.equal(await page.getAttribute("html", "lang"), lang);
      // The parts drawn later (policy B, the histograms, the sweeping panels) count too.
      await drawEverything(page);
      const small = await page.evaluate(() => {
        const controls = [...document.querySelectorAll("main input, main select, main button, main textarea, main summary, header button")];
        return controls
          .filter((el) => el.offsetParent !== null && el.getAttribute("type") !== "hidden")
          .map((el) => {
            // A checkbox is hit through its row (the label is part of it).
            const target = el.getAttribute("type") === "checkbox" ? el.closest(".field, .chart-tools, label") ?? el : el;
            const r = target.getBoundingClientRect();
            return { id: el.id || el.textContent?.trim().slice(0, 20), h: Math.round(r.height) };
          })
          .filter((c) => c.h < 44);
      });
      assert.deepEqual(small, []);
      const width = await page.evaluate(() => document.scrollingElement.scrollWidth);
      assert.ok(width <= VIEWPORT.width, `page width ${width}`);
      assert.deepEqual(problems, []);
      await page.close();
    });
  }

  test("a link's huge values are noted in a few characters: the page never scrolls sideways", T, async () => {
    // A number past every field's range, a value thousands of digits long, and a key the
    // page puts in its general note: each note quotes the value short, and long words wrap.
    const { page, problems } = await open(`?clients=1e308&base=${"9".repeat(3000)}&speed=${"7".repeat(3000)}`);
    await page.waitForFunction(() => (document.querySelector("#clients-error")?.textContent ?? "") !== "");
    const notes = await page.evaluate(() =>
      ["#clients-error", "#base-error", "#link-note"].map((s) => document.querySelector(s)?.textContent ?? ""));
    // (The link's note holds two sentences: the fields noted below, named, and the key
    // with no field, its value quoted short.)
    for (const n of notes) assert.ok(n.length > 0 && n.length < 200, n);
    const width = await page.evaluate(() => document.scrollingElement.scrollWidth);
    assert.ok(width <= VIEWPORT.width, `page width ${width}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the live panel's message about a long URL wraps: the page never scrolls sideways", T, async () => {
    // A URL refused at once, quoted in the status (it widened the page to 783 px as one
    // unbreakable word).
    const { page, problems } = await open();
    await page.fill("#live-url", `javascript:${"A".repeat(200)}`);
    await page.locator("#live-send").scrollIntoViewIfNeeded();
    await page.tap("#live-send");
    await page.waitForFunction(() => (document.querySelector("#live-status")?.textContent ?? "").includes("AAAA"));
    const width = await page.evaluate(() => document.scrollingElement.scrollWidth);
    assert.ok(width <= VIEWPORT.width, `page width ${width}`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a tap on a slider's track moves it and re-simulates", T, async () => {
    const { page, problems } = await open();
    assert.ok(await page.evaluate(() => matchMedia("(pointer: coarse)").matches), "a touch screen");
    const slider = page.locator("#base-range");
    await slider.scrollIntoViewIfNeeded();
    const before = await page.inputValue("#base");
    const box = await slider.boundingBox();
    assert.ok(box.height >= 44, `the slider's hit area is ${box.height} px tall`);
    // A tap near the top edge of the 44 px row still lands on the slider.
    await afterRun(page, () => page.touchscreen.tap(box.x + box.width * 0.2, box.y + 3));
    assert.notEqual(await page.inputValue("#base"), before);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("a tap on a story keeps its lesson on screen, the docked figure under it", T, async () => {
    const { page, problems } = await open();
    await afterRun(page, () => page.tap('[data-preset="crash"]'));
    // The smooth scroll settles.
    let last = null;
    for (let i = 0; i < 40; i++) {
      const y = await page.evaluate(() => scrollY);
      if (y === last) break;
      last = y;
      await page.waitForTimeout(100);
    }
    const lesson = await page.locator("#preset-lesson").boundingBox();
    assert.ok(lesson && (await page.locator("#preset-lesson").textContent()).length > 20, "the lesson is shown");
    assert.ok(inView(lesson), `the lesson is on screen: ${JSON.stringify(lesson)}`);
    assert.ok(inView(await page.locator("#timeline").boundingBox()), "the figure is in view");
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("in Russian, no check box is squeezed by its label, and the hedging delay keeps its unit beside it", T, async () => {
    const { page, problems } = await open("?lang=ru");
    const squeezed = await page.evaluate(() =>
      [...document.querySelectorAll('input[type="checkbox"]')]
        .filter((c) => c.getClientRects().length > 0)
        .map((c) => [c.id, c.getBoundingClientRect()])
        .filter(([, r]) => r.width < 21 || r.height < 21)
        .map(([id, r]) => `${id} ${r.width}x${r.height}`),
    );
    assert.deepEqual(squeezed, []);
    const [box, unit] = await page.evaluate(() => ["#live-hedge-delay", ".live-hedging .unit"].map((q) => document.querySelector(q).getBoundingClientRect().top));
    assert.ok(Math.abs(unit - box) < 20, `the unit at ${unit} px, its box at ${box} px`);
    assert.deepEqual(problems, []);
    await page.close();
  });
});
