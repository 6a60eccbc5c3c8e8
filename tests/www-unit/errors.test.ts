// Settings errors: where the page places them and how it words them, from the error's
// properties. The first tests use errors thrown by the real package; the last ones pin the
// wording of every code on errors of the contract's shape (some codes, such as too_long,
// no page control can produce).
import { test } from "node:test";
import assert from "node:assert/strict";
import { errorData, errorMessage, labelKey, localizeError, locateError, type SettingsErrorData } from "../../www/src/logic/errors.js";
import { ADVANCED_FIELDS, ALL_FIELDS, BUDGET_FIELDS, POLICY_A_FIELDS, SCENARIO_FIELDS, SERVER_FIELDS } from "../../www/src/logic/fields.js";
import { formatFull, formatNumber } from "../../www/src/logic/format.js";
import type { Key } from "../../www/src/logic/i18n.js";
import { isKey, translate } from "../../www/src/logic/translate.js";
import { controlFor, mappedControls, optionsFor } from "../../www/src/logic/options.js";
import { DEFAULT_STATE, LANGS, cloneState, type Lang, type Scenario, type State } from "../../www/src/logic/state.js";
import { simOptions } from "../../www/src/logic/run.js";
import { limitOf, pkg } from "./package.js";

/** A control's label as the page shows it. */
function label(control: string, lang: Lang): string {
  return translate(lang, labelKey(control) as Key);
}

/** A bound as the page's messages write it, in full (the unit follows it). */
function boundText(v: number, lang: Lang): string {
  return formatFull(v, lang);
}

/**
 * Options of a run that uses every control of the main panel (budget on, the servers sized
 * by their workers, a slowdown, a timeout): steady, or the scenario a control belongs to.
 */
function everyOption(scenario: Scenario = "steady"): Record<string, unknown> {
  const s = cloneState(DEFAULT_STATE);
  s.scenario = scenario;
  s.a.budget = true;
  s.sizing = "workers";
  s.workers = 5;
  s.queue = 50;
  s.timeoutMs = 1000;
  s.queueTimeoutMs = 500;
  s.outageServers = 1;
  s.serviceDist = "lognormal";
  s.slowdownStartMs = 1000;
  s.slowdownLengthMs = 1000;
  return JSON.parse(JSON.stringify(simOptions(s, "a"))) as Record<string, unknown>;
}

/** The scenario in which a control's option is read. */
function scenarioOf(control: string): Scenario {
  if (control.startsWith("spike-")) return "spike";
  return control === "think" ? "closed" : "steady";
}

function setPath(o: Record<string, unknown>, path: string, v: unknown): void {
  const [head, rest] = path.split(".", 2) as [string, string | undefined];
  if (rest === undefined) o[head] = v;
  else setPath((o[head] ??= {}) as Record<string, unknown>, rest, v);
}

/** What the package throws for a simulation whose option `path` is `v` (fails if it throws nothing). */
function refusal(path: string, v: unknown, scenario: Scenario = "steady"): Error {
  const o = everyOption(scenario);
  setPath(o, path, v);
  try {
    new pkg.Simulation(o).free();
  } catch (e) {
    assert.ok(e instanceof Error, `${path}=${String(v)}: threw a non-Error`);
    return e;
  }
  assert.fail(`${path}=${String(v)} was accepted`);
}

test("every control of the main panel: the package's refusal is placed at it and worded from its bounds", () => {
  const limits = pkg.limits();
  for (const f of [...SCENARIO_FIELDS, ...SERVER_FIELDS, ...ADVANCED_FIELDS, ...POLICY_A_FIELDS, ...BUDGET_FIELDS]) {
    const found = limitOf(f.id, limits);
    assert.ok(found, `#${f.id}: none of ${optionsFor(f.id).join(", ")} is in limits()`);
    const { name, limit: lim } = found;
    const tries: [number, "min" | "max"][] = [[lim.min - 1, "min"]];
    if (Number.isFinite(lim.max)) tries.push([lim.max * 2 + 1, "max"]);
    for (const [value, side] of tries) {
      const e = refusal(name, value, scenarioOf(f.id));
      const d = errorData(e);
      assert.equal(e.name, "RangeError", `${name}=${value}`);
      assert.equal(d.field, name, `${name}=${value}: field`);
      assert.equal(d.code, "out_of_range", `${name}=${value}: code`);
      assert.equal(d.got, value, `${name}=${value}: got`);
      assert.equal(locateError(d, "a").control, f.id, `${name} is placed at #${f.id}`);
      for (const lang of LANGS) {
        const text = localizeError(d, lang);
        assert.ok(text.startsWith(`${label(f.id, lang)}: `), `${lang} ${name}: "${text}" names the control`);
        assert.ok(text.includes(boundText(lim[side], lang)), `${lang} ${name}: "${text}" names the ${side}`);
        if (lang === "ru") assert.doesNotMatch(text, /expected|got/, `${name}: "${text}" is Russian`);
      }
    }
  }
});

test("policy B's refusals are placed at the compare panel's controls", () => {
  const e = errorData(refusal("policy.baseMs", -1));
  assert.equal(locateError(e, "a").control, "base");
  assert.equal(locateError(e, "b").control, "b-base");
  const budget = errorData(refusal("budget.capacity", -1));
  // One budget serves both policies.
  assert.equal(locateError(budget, "b").control, "budget-capacity");
});

test("whole numbers: out of range or a fraction; and NaN: each in its own words", () => {
  // Out of range on a whole field: the page's field knows it is whole.
  const zero = errorData(refusal("clients", 0));
  assert.equal(zero.code, "out_of_range");
  assert.equal(localizeError(zero, "en"), `Clients: enter a whole number from 1 to ${formatNumber(zero.max ?? NaN, "en", 20)}. Given: 0.`);
  const whole = errorData(refusal("clients", 10.5));
  assert.equal(whole.code, "not_whole");
  assert.equal(localizeError(whole, "en").startsWith(`${label("clients", "en")}: enter a whole number`), true, localizeError(whole, "en"));
  assert.match(localizeError(whole, "ru"), /^Клиенты: введите целое число/);
  const nan = errorData(refusal("policy.capMs", Number.NaN));
  assert.equal(nan.code, "not_a_number");
  assert.equal(localizeError(nan, "en"), `${label("cap", "en")}: enter a number. Given: NaN.`);
  assert.equal(localizeError(nan, "ru"), `${label("cap", "ru")}: введите число. Получено: NaN.`);
});

/** What the package throws for the default state with `changes`, as data (fails if it throws nothing). */
function stateRefusal(changes: Partial<State>): SettingsErrorData {
  try {
    new pkg.Simulation(simOptions({ ...cloneState(DEFAULT_STATE), ...changes }, "a")).free();
  } catch (e) {
    return errorData(e);
  }
  assert.fail("the state was accepted");
}

test("a steady run past the work bound: the package's computed bound, rounded down to fit", () => {
  const d = stateRefusal({ scenario: "steady", clients: 1_000_000, ratePerClient: 10, durationMs: 600_000 });
  assert.equal(d.code, "too_much_work");
  // The package names the rate (what would have to come down for the run to fit).
  assert.equal(d.field, "ratePerClient");
  assert.equal(locateError(d).control, "rate");
  assert.ok(d.max !== undefined && d.max > 0);
  for (const lang of LANGS) {
    const text = localizeError(d, lang);
    // The bound is a rate: "/s" follows it.
    assert.equal(d.unit, "per_second");
    const shown = Number(/\((?:at most|не больше) ([\d.,\s\u00a0]+)\/[sс]\)/.exec(text)?.[1]?.replace(/[\s\u00a0]/g, "").replace(lang === "ru" ? "," : /,/g, lang === "ru" ? "." : ""));
    assert.ok(shown > 0 && shown <= d.max && shown >= d.max * 0.99, `${lang}: "${text}" shows ${shown} for ${d.max}`);
  }
});

test("an unknown strategy lists the package's own names", () => {
  const d = errorData(refusal("policy.strategy", "fibonacci"));
  assert.equal(d.code, "unknown_value");
  assert.equal(locateError(d).control, "strategy");
  assert.deepEqual(new Set(d.allowed), new Set(pkg.strategies()));
  for (const lang of LANGS) {
    const text = localizeError(d, lang);
    for (const s of d.allowed ?? []) assert.ok(text.includes(s), `${lang}: ${s} in "${text}"`);
  }
});

test("the live panel's timeout: the package's refusal names its field, the page words it", async () => {
  const thrown = await pkg.retryFetch("http://127.0.0.1:59/", {}, { attemptTimeoutMs: -1 }).then(
    () => assert.fail("a negative timeout was accepted"),
    (e: unknown) => e,
  );
  const d = errorData(thrown);
  assert.equal(d.field, "attemptTimeoutMs");
  assert.equal(controlFor(d.field ?? ""), "live-timeout");
  assert.ok(localizeError(d, "ru").startsWith(`${label("live-timeout", "ru")}: `), localizeError(d, "ru"));
  // 0 itself is refused: the words say "above 0", not "from 0".
  assert.equal(d.minExclusive, true);
  assert.equal(localizeError(d, "en"), `${label("live-timeout", "en")}: enter a value above 0 ms, up to ${formatNumber(d.max ?? NaN, "en")} ms. Given: -1.`);
});

test("the live panel's hedging delay: the package's refusal is worded in the reader's language", async () => {
  const thrown = await pkg.retryFetch("http://127.0.0.1:59/", {}, { hedging: { delayMs: -1 } }).then(
    () => assert.fail("a negative hedging delay was accepted"),
    (e: unknown) => e,
  );
  const d = errorData(thrown);
  assert.equal(d.field, "hedging.delayMs");
  assert.equal(controlFor(d.field ?? ""), "live-hedge-delay");
  assert.equal(localizeError(d, "ru"), `Задержка хеджирования: введите значение от 0 мс до ${formatNumber(d.max ?? NaN, "ru")} мс. Получено: -1.`);
});

test("a closed loop past the work bound: the bound is a duration", () => {
  const d = stateRefusal({ scenario: "closed", clients: 1_000_000, thinkMs: 0, durationMs: 86_400_000 });
  assert.equal(d.code, "too_much_work", d.message);
  assert.equal(d.field, "durationMs");
  assert.equal(d.unit, "ms");
  assert.match(localizeError(d, "en"), /\(at most [\d,]+ ms\)/);
  assert.match(localizeError(d, "ru"), /\(не больше [\d\s\u00a0]+ мс\)/);
});

test("a closed loop no duration fits: think is named, with the least that fits", () => {
  const d = stateRefusal({ scenario: "closed", clients: 1_000_000, thinkMs: 0, latencyMs: 0, sizing: "workers", workers: 1, serviceMs: 1e-6 });
  assert.equal(d.code, "too_much_work", d.message);
  assert.equal(d.field, "thinkMs");
  assert.equal(locateError(d).control, "think");
  assert.equal(d.min, 1);
  assert.equal(d.max, undefined);
  assert.match(localizeError(d, "en"), /\(at least 1 ms\)\. Given: 0\.$/);
  assert.match(localizeError(d, "ru"), /\(не меньше 1 мс\)\. Получено: 0\.$/);
});

test("a huge value is written short, so a message never runs wider than a phone", () => {
  for (const lang of LANGS) {
    const text = localizeError({ ...base, field: "clients", code: "out_of_range", min: 1, max: 1_000_000, unit: "count", got: 1e308 }, lang);
    assert.ok(text.endsWith(lang === "en" ? "Given: 1e+308." : "Получено: 1e+308."), text);
    assert.ok(text.length < 100, text);
    assert.ok(formatNumber(1e308, lang).length < 12, formatNumber(1e308, lang));
  }
  // Tiny values too: 1e-300 must not read "0".
  assert.match(localizeError({ ...base, field: "ratePerClient", code: "out_of_range", min: 0.000001, max: 1000, got: 1e-300 }, "en"), /Given: 1e-300\.$/);
});

test("an error survives the worker's postMessage as data, and reads the same after it", () => {
  const e = refusal("policy.baseMs", -5);
  const cloned = structuredClone(errorData(e));
  assert.deepEqual(cloned, errorData(e));
  for (const lang of LANGS) assert.equal(localizeError(cloned, lang), localizeError(errorData(e), lang));
  assert.equal(locateError(cloned, "b").control, "b-base");
  // A value that cannot be cloned is left out rather than making postMessage throw.
  const odd = Object.assign(new RangeError("seed: expected a number"), { field: "seed", code: "wrong_type", got: Symbol("x") });
  const data = errorData(odd);
  assert.equal("got" in data, false);
  assert.doesNotThrow(() => structuredClone(data));
  // Not an Error at all: its text, no properties.
  assert.deepEqual(errorData("boom"), { name: "Error", message: "boom" });
  assert.equal(errorMessage(new RangeError("x")), "x");
});

// --- Every code, on errors of the contract's shape ------------------------------------------

const base = { name: "RangeError", message: "the package's own text" } as const;

function both(e: SettingsErrorData): Record<Lang, string> {
  return { en: localizeError(e, "en"), ru: localizeError(e, "ru") };
}

test("a bound past a quadrillion is written with every digit, and so is the value given", () => {
  // It was 9.0072E15, above the real maximum, and a value one past it read the same.
  const e = { ...base, field: "seed", code: "out_of_range", min: 0, max: 9_007_199_254_740_991, whole: true, got: 9_007_199_254_740_992 } as const;
  const en = localizeError(e, "en");
  assert.match(en, /9,007,199,254,740,991\. Given: 9,007,199,254,740,992\.$/, en);
  const ru = localizeError(e, "ru");
  assert.doesNotMatch(ru, /E\d/, ru);
  assert.match(ru.replace(/\D/g, ""), /9007199254740991.*9007199254740992$/, ru);
});

test("every code has its words in both languages", () => {
  const cases: [SettingsErrorData, Record<Lang, string>][] = [
    [
      { ...base, field: "policy.baseMs", code: "out_of_range", min: 0, max: 86_400_000, unit: "ms", got: -5 },
      {
        en: "Base delay: enter a value from 0 ms to 86,400,000 ms. Given: -5.",
        ru: `Базовая задержка: введите значение от 0 мс до ${formatNumber(86_400_000, "ru")} мс. Получено: -5.`,
      },
    ],
    [
      { ...base, field: "capacityRps", code: "out_of_range", min: 1, unit: "per_second", got: 0 },
      { en: "Server capacity: enter a value of at least 1/s. Given: 0.", ru: "Пропускная способность сервера: введите значение не меньше 1/с. Получено: 0." },
    ],
    [
      { ...base, field: "policy.capMs", code: "out_of_range", max: 10, unit: "ms" },
      { en: "Cap: enter a value of at most 10 ms.", ru: "Потолок: введите значение не больше 10 мс." },
    ],
    [
      { ...base, field: "ratePerClient", code: "out_of_range", min: 0.000001, max: 1000, unit: "per_second", got: 1e-7 },
      {
        en: "Requests per client: enter a value from 0.000001/s to 1,000/s. Given: 0.0000001.",
        ru: `Запросов на клиента: введите значение от 0,000001/с до ${formatNumber(1000, "ru")}/с. Получено: 0,0000001.`,
      },
    ],
    [
      { ...base, field: "policy.maxAttempts", code: "out_of_range", min: 1, max: 100, unit: "count", got: 0 },
      { en: "Max attempts: enter a whole number from 1 to 100. Given: 0.", ru: "Максимум попыток: введите целое число от 1 до 100. Получено: 0." },
    ],
    [{ ...base, field: "clients", code: "out_of_range" }, { en: "Clients: the value is out of range.", ru: "Клиенты: значение вне допустимых пределов." }],
    [{ ...base, field: "outageMs", code: "not_a_number", got: Number.NaN }, { en: "Outage length: enter a number. Given: NaN.", ru: "Длина сбоя: введите число. Получено: NaN." }],
    [
      { ...base, field: "policy.maxAttempts", code: "not_whole", min: 1, max: 100, unit: "count", got: 2.5 },
      { en: "Max attempts: enter a whole number from 1 to 100. Given: 2.5.", ru: "Максимум попыток: введите целое число от 1 до 100. Получено: 2,5." },
    ],
    [{ ...base, field: "seed", code: "not_whole" }, { en: "Seed: enter a whole number.", ru: "Зерно (seed): введите целое число." }],
    [
      { ...base, name: "TypeError", field: "budget.refillPerSec", code: "wrong_type", got: "fast" },
      { en: 'Budget refill: the value has the wrong type. Given: "fast".', ru: 'Пополнение бюджета: значение не того типа. Получено: "fast".' },
    ],
    [
      { ...base, field: "budgetScope", code: "unknown_value", allowed: ["client", "shared"], got: "everyone" },
      { en: 'Budget shared by: choose one of client, shared. Given: "everyone".', ru: 'Бюджет общий для: выберите одно из: client, shared. Получено: "everyone".' },
    ],
    [{ ...base, field: "scenario", code: "unknown_value" }, { en: "Scenario: the value is not one the simulator knows.", ru: "Сценарий: симулятор не знает такого значения." }],
    [{ ...base, field: "policy.strategy", code: "too_long", max: 64, unit: "chars" }, { en: "Strategy: at most 64 characters.", ru: "Стратегия: не больше 64 символов." }],
    [{ ...base, field: "strategy", code: "too_long" }, { en: "Strategy: the text is too long.", ru: "Стратегия: текст слишком длинный." }],
    [{ ...base, field: "policy.strategy", code: "bad_syntax", got: "5xx" }, { en: 'Strategy: the value could not be read. Given: "5xx".', ru: 'Стратегия: не удалось разобрать значение. Получено: "5xx".' }],
    [
      { ...base, field: "clients", code: "too_much_work", max: 2_000_000, unit: "count" },
      { en: "Clients: this run would be too big to simulate (at most 2,000,000).", ru: `Клиенты: такой прогон слишком велик для симуляции (не больше ${formatNumber(2_000_000, "ru")}).` },
    ],
    [
      { ...base, field: "ratePerClient", code: "too_much_work", max: 1 / 30, got: 10 },
      { en: "Requests per client: this run would be too big to simulate (at most 0.0333). Given: 10.", ru: "Запросов на клиента: такой прогон слишком велик для симуляции (не больше 0,0333). Получено: 10." },
    ],
    [{ ...base, field: "durationMs", code: "too_much_work" }, { en: "Traffic lasts: this run would be too big to simulate.", ru: "Поток длится: такой прогон слишком велик для симуляции." }],
    [{ ...base, field: "budget.capacity", code: "not_read", got: 3 }, { en: "Budget capacity: this kind of budget does not read it. Given: 3.", ru: "Ёмкость бюджета: бюджет этого вида его не читает. Получено: 3." }],
    [
      { ...base, field: "serviceMs", code: "out_of_range", min: 0, minExclusive: true, max: 60_000, unit: "ms", got: 0 },
      { en: "Service time (mean): enter a value above 0 ms, up to 60,000 ms. Given: 0.", ru: `Время обслуживания (среднее): введите значение больше 0 мс и не больше ${formatNumber(60_000, "ru")} мс. Получено: 0.` },
    ],
  ];
  const codes = new Set<string>();
  for (const [e, want] of cases) {
    assert.deepEqual(both(e), want, `${e.field} ${e.code}`);
    codes.add(e.code ?? "");
  }
  assert.deepEqual(
    [...codes].sort(),
    ["bad_syntax", "not_a_number", "not_read", "not_whole", "out_of_range", "too_long", "too_much_work", "unknown_value", "wrong_type"],
  );
});

test("what the page has no words for keeps the package's message", () => {
  // A field without a control, a field the page does not know, an error without a code.
  for (const e of [
    { ...base, field: "n", code: "out_of_range", min: 0, max: 1_000_000 },
    { ...base, field: "init.signal", code: "wrong_type" },
    { ...base, field: "policy.retryOn", code: "bad_syntax" },
    { ...base, field: "futureOption", code: "out_of_range", min: 0, max: 1 },
    { ...base, field: "clients" },
    { name: "Error", message: "the simulation worker failed" },
  ] as SettingsErrorData[]) {
    for (const lang of LANGS) assert.equal(localizeError(e, lang), e.message, `${e.field}`);
    assert.equal(locateError(e).control, e.field === "clients" ? "clients" : null);
  }
});

test("every package option the page has a control for maps to a control that exists, has a label, and maps back", () => {
  const selects = ["strategy", "b-strategy", "scenario", "budget-scope", "queue-order", "service-dist", "balance", "latency-dist"];
  const controls = new Set([...ALL_FIELDS.map((f) => f.id), ...selects, "live-timeout", "live-hedge-delay"]);
  assert.deepEqual(new Set(mappedControls()), controls);
  for (const id of controls) {
    const key = labelKey(id);
    assert.ok(isKey(key), `#${id} has no label`);
    const names = optionsFor(id);
    assert.ok(names.length > 0, `#${id} sets no package option`);
    const side = id.startsWith("b-") ? "b" : "a";
    for (const n of names) assert.equal(controlFor(n, side), id, `${n} → #${id}`);
  }
});

test("a field whose none lies below the package's range offers it in the message: the client timeout's 0", () => {
  const e = errorData(refusal("timeoutMs", -5));
  assert.equal(e.code, "out_of_range");
  assert.match(localizeError(e, "en"), new RegExp(`^${label("timeout", "en").replace(/[()]/g, "\\$&")}: enter 0 \\(none\\) or a value from 1 ms to .* Given: -5\\.$`));
  assert.match(localizeError(e, "ru"), /: введите 0 \(без него\) или значение от 1 мс до /);
  // A field without a none keeps the plain range.
  const rate = errorData(refusal("failRate", 2));
  assert.match(localizeError(rate, "en"), /: enter a value from 0 to 1\. Given: 2\.$/);
});
