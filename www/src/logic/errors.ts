// The package names the field in every settings error ("policy.baseMs: expected …",
// "budget.capacity: expected …"). This finds the control that field belongs to, so the
// message can sit next to it.

import { isKey, translate } from "./i18n.js";
import type { Lang, Side } from "./state.js";

/** The package's field names (without prefix) → the page's control id (policy A). */
const FIELD_TO_CONTROL: Record<string, string> = {
  strategy: "strategy",
  baseMs: "base",
  capMs: "cap",
  maxAttempts: "attempts",
  multiplier: "multiplier",
  clients: "clients",
  outageMs: "outage",
  outageStartMs: "outage-start",
  capacityRps: "capacity",
  retryAfterMs: "retry-after",
  ratePerClient: "rate",
  durationMs: "duration",
  seed: "seed",
  scenario: "scenario",
  budgetScope: "budget-scope",
  capacity: "budget-capacity",
  refillPerSec: "budget-refill",
  attemptTimeoutMs: "live-timeout",
};

const POLICY_FIELDS = new Set(["strategy", "baseMs", "capMs", "maxAttempts", "multiplier"]);
const BUDGET_FIELDS = new Set(["capacity", "refillPerSec"]);

export interface FieldError {
  /** The control to show the message next to; null when none fits. */
  control: string | null;
  message: string;
}

/**
 * Where a settings error from the package belongs. `side` is the policy the run used:
 * policy fields of a B run belong to the compare panel's controls.
 */
export function locateError(message: string, side: Side = "a"): FieldError {
  const m = /^([A-Za-z][A-Za-z.]*):\s/.exec(message);
  if (!m || m[1] === undefined) return { control: null, message };
  const path = m[1].split(".");
  const field = path[path.length - 1] ?? "";
  const scope = path.length > 1 ? path[0] : undefined;
  let control: string | undefined;
  if (scope === "budget" || (scope === undefined && BUDGET_FIELDS.has(field))) {
    control = FIELD_TO_CONTROL[field];
  } else if (scope === "policy" || POLICY_FIELDS.has(field)) {
    const id = FIELD_TO_CONTROL[field];
    control = id && side === "b" ? `b-${id}` : id;
  } else {
    control = FIELD_TO_CONTROL[field];
  }
  return { control: control ?? null, message };
}

/** A thrown value's message, whatever was thrown. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === "string") return e;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}

// --- Messages in the reader's language ------------------------------------------------------
// The package words its errors in English ("policy.baseMs: expected a finite duration from
// 0 ms to 86400000 ms, got -5"). The English page shows them as they are (they name the
// option a developer would pass); the Russian page names the field by its label and
// translates the usual phrasings, keeping the package's field name in brackets. A phrasing
// it does not know stays in English rather than being guessed at.

const RU_WHAT: Record<string, string> = {
  "a number": "число",
  "a number of tokens": "число токенов",
  "tokens per second": "токенов в секунду",
  "requests per second": "запросов в секунду",
  "requests per client per second": "запросов на клиента в секунду",
  "a fraction of a served request": "доля обслуженного запроса",
  milliseconds: "миллисекунд",
};

const RU_EXPECTED: [RegExp, (m: RegExpExecArray) => string][] = [
  [/^a finite duration from (\S+) ms to (\S+) ms$/, (m) => `конечная длительность от ${m[1]} до ${m[2]} мс`],
  [/^a duration at least base \((\S+) ms\)$/, (m) => `длительность не меньше базовой задержки (${m[1]} мс)`],
  [/^a whole number of attempts from (\S+) to (\S+)$/, (m) => `целое число попыток от ${m[1]} до ${m[2]}`],
  [/^a whole number of clients from (\S+) to (\S+)$/, (m) => `целое число клиентов от ${m[1]} до ${m[2]}`],
  [/^for aws-occ, a whole number of clients from (\S+) to (\S+)/, (m) => `для aws-occ — целое число клиентов от ${m[1]} до ${m[2]} (работа растёт как квадрат числа клиентов)`],
  [/^a whole number from (\S+) to (\S+)$/, (m) => `целое число от ${m[1]} до ${m[2]}`],
  [/^clients × rate × duration of at most (.+) requests$/, (m) => `клиенты × частота × длительность — не больше ${m[1]} запросов`],
  [/^1 ms to 1 day$/, () => "от 1 мс до 1 суток"],
  [/^a finite number$/, () => "конечное число"],
  [/^a number$/, () => "число"],
  [/^true or false$/, () => "true или false"],
  [/^a string$/, () => "строка"],
  [/^one of (.+)$/, (m) => `одно из: ${m[1]}`],
  [/^(.+) from (\S+) to (\S+)$/, (m) => (m[1] !== undefined && RU_WHAT[m[1]] ? `${RU_WHAT[m[1]]} от ${m[2]} до ${m[3]}` : m[0])],
];

/** The label of the control a package field belongs to, in `lang` (undefined when none). */
function fieldLabel(message: string, lang: Lang): string | undefined {
  const control = locateError(message).control;
  if (!control) return undefined;
  const key = control === "live-timeout" ? "live.timeout" : `field.${control}`;
  return isKey(key) ? translate(lang, key) : undefined;
}

/** A package error message for a reader of `lang` (English: unchanged). */
export function localizeError(message: string, lang: Lang): string {
  if (lang === "en") return message;
  const m = /^([A-Za-z][A-Za-z.]*): expected (.*), got (.*)$/s.exec(message);
  if (!m || m[1] === undefined || m[2] === undefined || m[3] === undefined) return message;
  const label = fieldLabel(message, lang);
  let expected = m[2];
  for (const [re, ru] of RU_EXPECTED) {
    const hit = re.exec(expected);
    if (hit) {
      expected = ru(hit);
      break;
    }
  }
  const got = m[3].replace(/ ms$/, " мс");
  const name = !label ? m[1] : label.includes(`(${m[1]})`) ? label : `${label} (${m[1]})`;
  return `${name}: ожидается ${expected}, получено ${got}`;
}
