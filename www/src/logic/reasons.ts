// The core's reasons for a verdict or a stop (retryFetch's AttemptInfo.reason and
// RetryError.reason, the nets' refusals), in the reader's language.
//
// The package gives a reason only as the core's English sentence (Rust's Display of
// `Reason`, `StopReason` and the nets' refusals): no kind or code goes with it. Each kind
// has one fixed sentence, written below exactly as the core writes it, with its values as
// placeholders; the page reads the kind and values (a status, a transport error, a method,
// numbers, a nested reason) back from that shape and words them in the reader's language.
// A sentence of no known shape, or one that contradicts the attempt's own status or error,
// is shown as the package wrote it. In English the package's sentence is shown as it is.

import type { TransportErrorKind } from "stampede";
import { formatNumber } from "./format.js";
import type { Lang } from "./state.js";

/** Every kind of reason the core gives, one sentence each. */
export const REASON_KINDS = [
  "notAFailure",
  "requestTimeout",
  "shedding",
  "retriedStatus",
  "serverFailure",
  "clientError",
  "gone",
  "statusNotRetried",
  "transportRetried",
  "transportNotRetried",
  "aborted",
  "notIdempotent",
  "hintTooLong",
  "pushbackStop",
  "pushbackMalformed",
  "attemptsExhausted",
  "deadline",
  "budget",
  "budgetNoRefill",
  "circuitOpen",
  "throttled",
  "cancelled",
] as const;
export type ReasonKind = (typeof REASON_KINDS)[number];

/** Each kind's sentence in each language. English is the core's sentence to the letter
 *  (it is what the page recognises); {status} and {method} are kept as the core writes
 *  them (an HTTP status line's code and phrase, a method's name). */
export const REASON_TEXTS: Record<Lang, Record<ReasonKind, string>> = {
  en: {
    notAFailure: "{status} is not a failure",
    requestTimeout: "{status}: the server timed out waiting for the request, which may pass on a retry",
    shedding: "{status}: the server is shedding load, retry later",
    retriedStatus: "{status} is one of the statuses these rules retry",
    serverFailure: "{status} is a server-side failure that may pass on a retry",
    clientError: "{status} is a client error: the same request would get the same answer",
    gone: "410 Gone: the resource is permanently gone",
    statusNotRetried: "{status} is not in the statuses these rules retry",
    transportRetried: "{what} ({error}), which may pass on a retry",
    transportNotRetried: "{what} ({error}), which these rules do not retry",
    aborted: "the caller aborted the request: never retried",
    notIdempotent: "{method} is not idempotent: a retry could apply it twice (mark the request idempotent to allow it)",
    hintTooLong: "the server asked to wait {asked} s, more than the {max} s maximum: giving up rather than waiting",
    pushbackStop: "the server's grpc-retry-pushback-ms is negative: it asks not to retry",
    pushbackMalformed: "grpc-retry-pushback-ms is malformed, which gRPC treats as do-not-retry",
    attemptsExhausted: "{made} of {made} attempts made (last: {last})",
    deadline: "the next retry would start {at} ms after the first attempt, past the {max} ms deadline",
    budget: "retry budget exhausted: failing fast for {ms} ms instead of calling downstream",
    budgetNoRefill: "retry budget exhausted and it does not refill: failing fast",
    circuitOpen: "circuit open: failing fast for {ms} ms instead of calling downstream",
    throttled: "throttled: rejected locally (probability {p}) because the backend has been refusing requests",
    cancelled: "cancelled: another attempt ended the request",
  },
  ru: {
    notAFailure: "{status} — не сбой",
    requestTimeout: "{status}: сервер не дождался запроса; повтор может пройти",
    shedding: "{status}: сервер сбрасывает нагрузку, повторите позже",
    retriedStatus: "{status} — один из статусов, которые эти правила повторяют",
    serverFailure: "{status} — сбой на стороне сервера; повтор может пройти",
    clientError: "{status} — ошибка клиента: на тот же запрос придёт тот же ответ",
    gone: "410 Gone: ресурса больше нет и не будет",
    statusNotRetried: "{status} нет среди статусов, которые эти правила повторяют",
    transportRetried: "{what} ({error}); повтор может пройти",
    transportNotRetried: "{what} ({error}); такое эти правила не повторяют",
    aborted: "вызывающий код прервал запрос: такое не повторяют",
    notIdempotent: "{method} не идемпотентен: повтор мог бы выполнить его дважды (отметьте запрос как идемпотентный, чтобы разрешить повторы)",
    hintTooLong: "сервер попросил подождать {asked} с — дольше предела в {max} с: лучше сдаться, чем ждать",
    pushbackStop: "grpc-retry-pushback-ms от сервера отрицательный: сервер просит не повторять",
    pushbackMalformed: "grpc-retry-pushback-ms искажён, а gRPC считает это запретом повторов",
    attemptsExhausted: "сделаны все попытки, {made} из {made} (последняя: {last})",
    deadline: "следующий повтор начался бы через {at} мс после первой попытки, позже предела в {max} мс",
    budget: "бюджет повторов исчерпан: ещё {ms} мс вызовы сразу получают отказ, сервис не вызывается",
    budgetNoRefill: "бюджет повторов исчерпан и не пополняется: вызовы сразу получают отказ",
    circuitOpen: "предохранитель разомкнут: ещё {ms} мс вызовы сразу получают отказ, сервис не вызывается",
    throttled: "ограничено на месте: запрос отклонён (вероятность {p}), потому что сервис отказывает в запросах",
    cancelled: "отменена: запрос завершила другая попытка",
  },
};

/** A transport error in words, keyed by the package's own names for them. */
export const TRANSPORT_TEXTS: Record<Lang, Record<TransportErrorKind, string>> = {
  en: {
    timeout: "the attempt timed out",
    connect: "the connection was refused",
    reset: "the connection was reset",
    dns: "the host name did not resolve",
    abort: "the caller aborted the request",
  },
  ru: {
    timeout: "попытка не дождалась ответа",
    connect: "в соединении отказано",
    reset: "соединение сброшено",
    dns: "имя хоста не нашлось",
    abort: "вызывающий код прервал запрос",
  },
};

/** A reason read back from the core's sentence: its kind and its values as the core wrote them. */
export interface Reason {
  kind: ReasonKind;
  /** Each placeholder's text in the core's sentence ("503 Service Unavailable", "timeout", "1.5"). */
  vars: Record<string, string>;
  /** attemptsExhausted: the last failure's reason. */
  last?: Reason;
}

/** How the core writes a method it has no name for (PROPFIND, say), and that in each language. */
const EXTENSION_METHOD = "an extension method";
const EXTENSION_METHOD_TEXTS: Record<Lang, string> = { en: EXTENSION_METHOD, ru: "метод-расширение" };

/** What each placeholder matches in the core's sentence. */
const NUMBER = String.raw`-?(?:\d+(?:\.\d+)?(?:e-?\d+)?|infinity|NaN)`;
const PATTERNS: Record<string, string> = {
  // The code, and the phrase when the core has one ("418" alone, "503 Service Unavailable").
  status: String.raw`\d{3}(?: [A-Z][\w'-]*)*`,
  what: "[a-z][a-z ]*",
  error: "[a-z]+",
  // A method's name, or what the core calls one it has no name for.
  method: "[A-Z]+|an extension method",
  last: ".+",
  asked: NUMBER,
  max: NUMBER,
  made: NUMBER,
  at: NUMBER,
  ms: NUMBER,
  p: NUMBER,
};
/** Placeholders that hold numbers: the page writes them its own way in other languages. */
const NUMBERS = new Set(["asked", "max", "made", "at", "ms", "p"]);

const PLACEHOLDER = /\{(\w+)\}/g;

/** Each kind's English sentence as an anchored pattern; a placeholder used twice must match the same text. */
const MATCHERS: [ReasonKind, RegExp][] = REASON_KINDS.map((kind) => {
  const seen = new Set<string>();
  let source = "";
  let at = 0;
  const text = REASON_TEXTS.en[kind];
  for (const m of text.matchAll(PLACEHOLDER)) {
    const name = m[1] ?? "";
    source += escape(text.slice(at, m.index)) + (seen.has(name) ? `\\k<${name}>` : `(?<${name}>${PATTERNS[name] ?? ".+?"})`);
    seen.add(name);
    at = m.index + m[0].length;
  }
  return [kind, new RegExp(`^${source}${escape(text.slice(at))}$`)];
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function isTransport(s: string): s is TransportErrorKind {
  return Object.hasOwn(TRANSPORT_TEXTS.en, s);
}

/** The kind and values of the core's sentence `text`; null when it has no known shape. */
export function parseReason(text: string): Reason | null {
  for (const [kind, re] of MATCHERS) {
    const m = re.exec(text);
    if (!m) continue;
    // A sentence without placeholders has no groups at all.
    const vars = m.groups ?? {};
    const r: Reason = { kind, vars: { ...vars } };
    // A transport error's description must be the one the core gives that error.
    if (vars["error"] !== undefined && !(isTransport(vars["error"]) && TRANSPORT_TEXTS.en[vars["error"]] === vars["what"])) continue;
    if (vars["last"] !== undefined) {
      const last = parseReason(vars["last"]);
      if (!last) continue;
      r.last = last;
    }
    return r;
  }
  return null;
}

/** The status code a reason is about (its last failure's, when it stopped after several); undefined when none. */
export function reasonStatus(r: Reason): number | undefined {
  if (r.kind === "gone") return 410;
  const s = r.vars["status"];
  if (s !== undefined) return Number(s.slice(0, 3));
  return r.last ? reasonStatus(r.last) : undefined;
}

/** The transport error a reason is about, likewise. */
export function reasonError(r: Reason): string | undefined {
  return r.vars["error"] ?? (r.last ? reasonError(r.last) : undefined);
}

/** One placeholder's value in `lang`. */
function value(r: Reason, name: string, lang: Lang): string {
  const raw = r.vars[name] ?? "";
  if (name === "last") return r.last ? reasonText(r.last, lang) : raw;
  if (name === "method" && raw === EXTENSION_METHOD) return EXTENSION_METHOD_TEXTS[lang];
  if (name === "what") {
    const error = r.vars["error"] ?? "";
    return isTransport(error) ? TRANSPORT_TEXTS[lang][error] : raw;
  }
  if (NUMBERS.has(name) && lang !== "en") {
    // The core writes up to three decimals.
    const v = Number(raw.replace("infinity", "Infinity"));
    return Number.isFinite(v) ? formatNumber(v, lang, 3) : raw;
  }
  return raw;
}

/** A reason in `lang`'s words. */
export function reasonText(r: Reason, lang: Lang): string {
  return REASON_TEXTS[lang][r.kind].replace(PLACEHOLDER, (_, name: string) => value(r, name, lang));
}

/** What an attempt itself reports (AttemptInfo's fields): a reason must agree with them. */
export interface AttemptFacts {
  status?: number | undefined;
  error?: string | undefined;
}

/**
 * The core's reason sentence `text` in `lang`: worded from its kind and values when it has a
 * known shape and agrees with the attempt's own status or error; else `text` as it is. In
 * English, always `text`.
 */
export function localizeReason(text: string, lang: Lang, attempt: AttemptFacts = {}): string {
  if (lang === "en") return text;
  const r = parseReason(text);
  if (!r) return text;
  const status = reasonStatus(r);
  if (attempt.status !== undefined && status !== undefined && status !== attempt.status) return text;
  const error = reasonError(r);
  if (attempt.error !== undefined && error !== undefined && error !== attempt.error) return text;
  return reasonText(r, lang);
}
