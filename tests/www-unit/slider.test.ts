// The sliders as a keyboard and a screen reader meet them: the value a key gives (a step of
// the field, not 1/SLIDER_STEPS of the track) and the value text that says it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ALL_FIELDS, SLIDER_STEPS, fieldById, fromSlider, keyValue, stepValue, toSlider, valueText } from "../../www/src/logic/fields.js";

function field(id: string) {
  const f = fieldById(id);
  assert.ok(f, id);
  return f;
}

/** Every value the field's slider lands on. */
function sliderValues(id: string): number[] {
  const f = field(id);
  const values = new Set<number>();
  for (let pos = 0; pos <= SLIDER_STEPS; pos++) values.add(fromSlider(f, pos));
  return [...values].sort((a, b) => a - b);
}

test("an arrow key steps a linear field by its own step", () => {
  // It took 45 presses from 6 to 7 attempts, 2 per 100 ms of outage, 25 per 0.1 of multiplier.
  assert.equal(stepValue(field("attempts"), 6, 1), 7);
  assert.equal(stepValue(field("attempts"), 6, -1), 5);
  assert.equal(stepValue(field("outage"), 2000, 1), 2100);
  assert.equal(stepValue(field("outage"), 2000, -1), 1900);
  assert.equal(stepValue(field("multiplier"), 2, 1), 2.1);
  assert.equal(stepValue(field("multiplier"), 2.1, 1), 2.2);
  // Float noise neither sticks nor skips a step.
  assert.equal(stepValue(field("fail-rate"), 0.1 + 0.2, 1), 0.31);
  assert.equal(stepValue(field("fail-rate"), 0.1 + 0.2, -1), 0.29);
  assert.equal(stepValue(field("queue"), 40, 1), 50);
  assert.equal(stepValue(field("seed"), 41, 1), 42);
});

test("a value off the grid steps to the grid's next value", () => {
  assert.equal(stepValue(field("multiplier"), 2.37, 1), 2.4);
  assert.equal(stepValue(field("multiplier"), 2.37, -1), 2.3);
  assert.equal(stepValue(field("outage"), 2050, 1), 2100);
  assert.equal(stepValue(field("outage"), 2050, -1), 2000);
});

test("a log field steps through the friendly values its slider lands on", () => {
  const clients = field("clients");
  assert.equal(stepValue(clients, 1000, 1), 1010);
  assert.equal(stepValue(clients, 1000, -1), 990);
  assert.equal(stepValue(clients, 990, 1), 1000);
  assert.equal(stepValue(clients, 120, 1), 130);
  assert.equal(stepValue(clients, 1005, -1), 1000);
  assert.equal(stepValue(field("base"), 2000, -1), 1990);
  assert.equal(stepValue(field("capacity"), 10, 1), 11);
  assert.equal(stepValue(field("servers"), 1, 1), 2);
  // Never finer than the field's step: a 1 s step on the duration, 0.01 on the rate.
  assert.equal(stepValue(field("duration"), 1000, 1), 2000);
  assert.equal(stepValue(field("duration"), 12_000, -1), 11_000);
  assert.equal(stepValue(field("rate"), 0.01, 1), 0.02);
  assert.equal(stepValue(field("rate"), 0.1, -1), 0.09);
  assert.equal(stepValue(field("slowdown-factor"), 1, 1), 1.1);
  assert.equal(stepValue(field("slowdown-factor"), 10, 1), 11);
});

test("a step stays inside the slider's range, and a value at its end stays put", () => {
  const attempts = field("attempts");
  assert.equal(stepValue(attempts, 12, 1), 12);
  assert.equal(stepValue(attempts, 1, -1), 1);
  // Typed past the slider (the box takes up to 20): a step down lands on the slider.
  assert.equal(stepValue(attempts, 15, 1), 15);
  assert.equal(stepValue(attempts, 15, -1), 12);
  const rate = field("rate");
  assert.equal(stepValue(rate, 0.000001, 1), 0.01);
  assert.equal(stepValue(field("clients"), 1_000_000, 1), 1_000_000);
});

test("every slider value steps to a neighbour and back, on the slider, whole where the field is", () => {
  for (const f of ALL_FIELDS) {
    const values = sliderValues(f.id);
    for (const v of values) {
      for (const dir of [1, -1] as const) {
        const next = stepValue(f, v, dir);
        const msg = `${f.id}: ${v} ${dir > 0 ? "up" : "down"} → ${next}`;
        assert.ok(next >= f.min && next <= f.max, msg);
        if (f.integer) assert.ok(Number.isInteger(next), msg);
        if (v === (dir > 0 ? f.max : f.min)) {
          assert.equal(next, v, msg);
          continue;
        }
        assert.ok(dir > 0 ? next > v : next < v, msg);
        // One step: the way back is the value it left.
        assert.equal(stepValue(f, next, dir > 0 ? -1 : 1), v, msg);
        // No value of the slider's own lies between (a step never skips one).
        assert.ok(!values.some((w) => (dir > 0 ? w > v && w < next : w < v && w > next)), msg);
      }
    }
  }
});

test("a linear slider's thumb shows the stepped value", () => {
  for (const f of ALL_FIELDS.filter((x) => x.scale === "linear")) {
    for (const v of sliderValues(f.id)) {
      const next = stepValue(f, v, 1);
      assert.equal(fromSlider(f, toSlider(f, next)), next, `${f.id}: ${v} → ${next}`);
    }
  }
});

test("the slider's keys: arrows a step, pages a tenth of the track, Home and End its ends", () => {
  const attempts = field("attempts");
  assert.equal(keyValue(attempts, 6, "ArrowRight"), 7);
  assert.equal(keyValue(attempts, 6, "ArrowUp"), 7);
  assert.equal(keyValue(attempts, 6, "ArrowLeft"), 5);
  assert.equal(keyValue(attempts, 6, "ArrowDown"), 5);
  // A tenth of 1..12 is less than a step: a page is still one.
  assert.equal(keyValue(attempts, 6, "PageUp"), 7);
  assert.equal(keyValue(attempts, 6, "PageDown"), 5);
  assert.equal(keyValue(attempts, 6, "Home"), 1);
  assert.equal(keyValue(attempts, 6, "End"), 12);
  assert.equal(keyValue(attempts, 12, "PageUp"), 12);
  assert.equal(keyValue(attempts, 1, "PageDown"), 1);
  assert.equal(keyValue(attempts, 6, "Enter"), null);
  assert.equal(keyValue(attempts, 6, "a"), null);
  const outage = field("outage");
  assert.equal(keyValue(outage, 2000, "PageUp"), 8000);
  assert.equal(keyValue(outage, 8000, "PageDown"), 2000);
  assert.equal(keyValue(outage, 59_000, "PageUp"), 60_000);
  const clients = field("clients");
  // A tenth of a log track: ×2.5.
  const up = keyValue(clients, 1000, "PageUp");
  assert.ok(up !== null && up > 2000 && up < 3000, `${up}`);
  for (const f of ALL_FIELDS) {
    assert.equal(keyValue(f, f.max, "End"), f.max, f.id);
    assert.equal(keyValue(f, f.min, "Home"), f.min, f.id);
    assert.equal(keyValue(f, fromSlider(f, 500), "Home"), fromSlider(f, 0), f.id);
    assert.equal(keyValue(f, fromSlider(f, 500), "End"), fromSlider(f, SLIDER_STEPS), f.id);
  }
});

test("a slider's value text is the field's value with its unit, in English", () => {
  const text = (id: string, v: number) => valueText(field(id), v, "en");
  assert.equal(text("clients", 1000), "1,000 clients");
  assert.equal(text("clients", 1_000_000), "1,000,000 clients");
  assert.equal(text("outage", 2000), "2 seconds");
  assert.equal(text("outage", 1000), "1 second");
  assert.equal(text("outage", 1500), "1.5 seconds");
  assert.equal(text("outage", 2100), "2.1 seconds");
  assert.equal(text("outage", 0), "0 milliseconds");
  assert.equal(text("service", 350), "350 milliseconds");
  assert.equal(text("service", 1), "1 millisecond");
  // Exact: 61 s is not "1 min".
  assert.equal(text("duration", 61_000), "61 seconds");
  assert.equal(text("duration", 90_000), "1.5 minutes");
  assert.equal(text("duration", 60_000), "1 minute");
  assert.equal(text("duration", 120_000), "2 minutes");
  assert.equal(text("base", 1234), "1.234 seconds");
  assert.equal(text("retry-after", 0), "none");
  assert.equal(text("timeout", 0), "none");
  assert.equal(text("retry-after", 5000), "5 seconds");
  assert.equal(text("attempts", 7), "7");
  assert.equal(text("multiplier", 2.5), "×2.5");
  assert.equal(text("multiplier", 0.1 + 0.2), "×0.3");
  assert.equal(text("capacity", 1), "1 request per second");
  assert.equal(text("capacity", 1000), "1,000 requests per second");
  assert.equal(text("rate", 0.5), "0.5 per second");
  assert.equal(text("budget-capacity", 1), "1 token");
  assert.equal(text("budget-capacity", 100), "100 tokens");
  assert.equal(text("fail-rate", 0.05), "0.05");
  assert.equal(text("seed", 42), "42");
});

test("a slider's value text in Russian", () => {
  const text = (id: string, v: number) => valueText(field(id), v, "ru");
  // The group separator is a no-break space.
  assert.match(text("clients", 1000), /^1\s000 клиентов$/u);
  assert.equal(text("clients", 101), "101 клиент");
  assert.equal(text("clients", 102), "102 клиента");
  assert.equal(text("outage", 2000), "2 секунды");
  assert.equal(text("outage", 1000), "1 секунда");
  assert.equal(text("outage", 5000), "5 секунд");
  assert.equal(text("outage", 1500), "1,5 секунды");
  assert.equal(text("service", 350), "350 миллисекунд");
  assert.equal(text("duration", 120_000), "2 минуты");
  assert.equal(text("duration", 300_000), "5 минут");
  assert.equal(text("retry-after", 0), "нет");
  assert.equal(text("multiplier", 2.5), "×2,5");
  assert.equal(text("capacity", 2), "2 запроса в секунду");
  assert.equal(text("rate", 0.5), "0,5 в секунду");
  assert.equal(text("budget-capacity", 21), "21 токен");
});

test("every field's value text holds its value, never the slider's position", () => {
  for (const f of ALL_FIELDS) {
    for (const pos of [0, 250, 500, 750, SLIDER_STEPS]) {
      const v = fromSlider(f, pos);
      for (const lang of ["en", "ru"] as const) {
        const t = valueText(f, v, lang);
        assert.notEqual(t.trim(), "", `${f.id}@${pos} ${lang}`);
        assert.doesNotMatch(t, /[{}|]/, `${f.id}@${pos} ${lang}: ${t}`);
      }
      if (v === f.none || f.unit === "ms") continue;
      // The number as the page writes it, digit for digit (no rounding).
      const digits = valueText(f, v, "en").replace(/[^\d.]/g, "");
      assert.equal(Number(digits), v, `${f.id}@${pos}: ${valueText(f, v, "en")}`);
    }
  }
});
