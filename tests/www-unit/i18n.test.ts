import { test } from "node:test";
import assert from "node:assert/strict";
import { en, ru, type Key } from "../../www/src/logic/i18n.js";
import { isKey, placeholders, translate } from "../../www/src/logic/translate.js";
import { ALL_FIELDS } from "../../www/src/logic/fields.js";
import { PRESETS } from "../../www/src/logic/presets.js";
import { BALANCES, BUDGET_SCOPES, LATENCY_DISTS, QUEUE_ORDERS, SCENARIOS, SERVICE_DISTS, STRATEGIES } from "../../www/src/logic/state.js";

const keys = Object.keys(en) as Key[];

test("every English key has a Russian text, and no extra ones", () => {
  assert.deepEqual(Object.keys(ru).sort(), [...keys].sort());
});

test("Russian texts are translated, not copied", () => {
  // Labels that are the same in both languages (units, names, empty units).
  const same = new Set(["page.heading", "live.url", "unit.factor", "compare.a", "compare.b"]);
  for (const k of keys) {
    if (en[k] === "") {
      assert.equal(ru[k], "", k);
      continue;
    }
    assert.notEqual(ru[k].trim(), "", k);
    if (!same.has(k)) assert.notEqual(ru[k], en[k], `${k} is not translated`);
  }
});

test("both languages use the same placeholders", () => {
  for (const k of keys) assert.deepEqual(placeholders(ru[k]), placeholders(en[k]), k);
});

test("counts take the form their number needs, in both languages", () => {
  // It said "200 OK after 1 attempts" and "после 1 попыток".
  const done = (lang: "en" | "ru", n: number) => translate(lang, "live.done", { status: "200 OK", n, t: "1 s" });
  assert.equal(done("en", 1), "200 OK after 1 attempt in 1 s.");
  assert.equal(done("en", 3), "200 OK after 3 attempts in 1 s.");
  assert.equal(done("ru", 1), "200 OK после 1 попытки за 1 s.");
  assert.equal(done("ru", 3), "200 OK после 3 попыток за 1 s.");
  assert.equal(done("ru", 21), "200 OK после 21 попытки за 1 s.");
  const tokens = (lang: "en" | "ru", count: number) => translate(lang, "live.tokens", { n: String(count), count });
  assert.equal(tokens("en", 1), "budget: 1 token left");
  assert.equal(tokens("en", 2.5), "budget: 2.5 tokens left");
  assert.equal(tokens("ru", 1), "бюджет: остался 1 токен");
  assert.equal(tokens("ru", 3), "бюджет: осталось 3 токена");
  assert.equal(tokens("ru", 5), "бюджет: осталось 5 токенов");
  assert.equal(tokens("ru", 2.5), "бюджет: осталось 2.5 токена");
  assert.equal(translate("ru", "play.soFar", { n: "2", count: 2 }), "2 попытки к этому моменту");
  // No plural form is left unfilled, in any text of either language.
  for (const dict of [en, ru]) {
    for (const k of keys) {
      const vars = Object.fromEntries(placeholders(dict[k]).map((p) => [p, 7]));
      assert.doesNotMatch(translate(dict === en ? "en" : "ru", k, vars), /\{\w+\|/, k);
    }
  }
});

test("rich markup is balanced in both languages", () => {
  for (const dict of [en, ru]) {
    for (const k of keys) {
      const text = dict[k];
      assert.equal((text.match(/\*\*/g) ?? []).length % 2, 0, `${k}: **`);
      assert.equal((text.match(/`/g) ?? []).length % 2, 0, `${k}: backticks`);
    }
  }
});

test("every control, option and preset has its label", () => {
  for (const f of ALL_FIELDS) assert.ok(isKey(`field.${f.id}`), f.id);
  for (const id of ["scenario", "strategy", "budget", "budget-scope", "b-strategy", "b-budget"]) assert.ok(isKey(`field.${id}`), id);
  for (const s of SCENARIOS) assert.ok(isKey(`scenario.${s}`), s);
  for (const s of STRATEGIES) assert.ok(isKey(`strategy.${s}`), s);
  for (const s of BUDGET_SCOPES) assert.ok(isKey(`scope.${s}`), s);
  for (const f of ALL_FIELDS) assert.ok(isKey(`unit.${f.unit}`), f.unit);
  for (const id of ["queue-order", "service-dist", "balance", "latency-dist"]) assert.ok(isKey(`field.${id}`), id);
  for (const v of QUEUE_ORDERS) assert.ok(isKey(`order.${v}`), v);
  for (const v of SERVICE_DISTS) assert.ok(isKey(`dist.${v}`), v);
  for (const v of BALANCES) assert.ok(isKey(`balance.${v}`), v);
  for (const v of LATENCY_DISTS) assert.ok(isKey(`latencyDist.${v}`), v);
  for (const p of PRESETS) {
    assert.ok(isKey(p.title), p.title);
    assert.ok(isKey(p.blurb), p.blurb);
    for (const v of p.variants ?? []) assert.ok(isKey(v.label), v.label);
  }
});

test("translate fills placeholders and leaves unknown ones", () => {
  assert.equal(translate("en", "err.range", { min: 1, max: 5 }), "Enter a value from 1 to 5.");
  assert.equal(translate("ru", "err.range", { min: 1, max: 5 }), "Введите значение от 1 до 5.");
  assert.equal(translate("en", "err.range", { min: 1 }), "Enter a value from 1 to {max}.");
});
