// The core's reasons in the reader's language (www/src/logic/reasons.ts): every kind has its
// words in every language, and every sentence the real package writes — classify()'s
// verdicts and retryFetch's attempts and stops, through a stand-in fetch — is recognised,
// its English rebuilt to the letter and its Russian free of English.
import { test } from "node:test";
import assert from "node:assert/strict";
import type { AttemptInfo, ClassifyInput, RetryFetchOptions, TransportErrorKind } from "stampede";
import {
  REASON_KINDS,
  REASON_TEXTS,
  TRANSPORT_TEXTS,
  localizeReason,
  parseReason,
  reasonError,
  reasonStatus,
  reasonText,
  type ReasonKind,
} from "../../www/src/logic/reasons.js";
import { placeholders } from "../../www/src/logic/translate.js";
import { LANGS } from "../../www/src/logic/state.js";
import { pkg } from "./package.js";

const CYRILLIC = /[а-яё]/i;
/** Latin words of three letters or more, bar the names a Russian sentence keeps (statuses, methods, headers). */
function englishWords(text: string): string[] {
  const kept = /^(?:Service|Unavailable|Too|Many|Requests|Request|Timeout|Not|Found|Gone|Bad|Gateway|Internal|Server|Error|Implemented|Version|Supported|Content|Large|Unprocessable|Conflict|Forbidden|Unauthorized|Method|Allowed|HTTP|GET|POST|PUT|PATCH|DELETE|HEAD|OTHER|grpc|retry|pushback|gRPC|timeout|connect|reset|dns|abort)$/;
  return (text.match(/[A-Za-z]{3,}/g) ?? []).filter((w) => !kept.test(w));
}

test("every reason kind and transport error has words in every language, with the same placeholders", () => {
  assert.equal(new Set(REASON_KINDS).size, REASON_KINDS.length);
  for (const lang of LANGS) {
    assert.deepEqual(Object.keys(REASON_TEXTS[lang]).sort(), [...REASON_KINDS].sort(), lang);
    for (const kind of REASON_KINDS) {
      const text = REASON_TEXTS[lang][kind];
      assert.ok(text.length > 0, `${lang} ${kind}`);
      assert.deepEqual(placeholders(text), placeholders(REASON_TEXTS.en[kind]), `${lang} ${kind}`);
    }
  }
  for (const kind of REASON_KINDS) {
    assert.match(REASON_TEXTS.ru[kind], CYRILLIC, kind);
    assert.deepEqual(englishWords(REASON_TEXTS.ru[kind].replace(/\{\w+\}/g, "")), [], kind);
  }
  const errors: TransportErrorKind[] = ["timeout", "connect", "reset", "dns", "abort"];
  for (const lang of LANGS) assert.deepEqual(Object.keys(TRANSPORT_TEXTS[lang]).sort(), [...errors].sort(), lang);
  for (const e of errors) assert.match(TRANSPORT_TEXTS.ru[e], CYRILLIC, e);
});

/** Sentences the real package wrote, with the attempt's status or error when known. */
interface Said {
  text: string;
  status?: number | undefined;
  error?: string | undefined;
}

function fromClassify(): Said[] {
  const inputs: ClassifyInput[] = [];
  for (let status = 100; status <= 599; status++) {
    for (const retryOn of [undefined, "", "4xx", "429"]) inputs.push({ status, ...(retryOn === undefined ? {} : { retryOn }) });
  }
  for (const error of ["timeout", "connect", "reset", "dns", "abort"] as const) {
    for (const retryOn of [undefined, ""]) inputs.push({ error, ...(retryOn === undefined ? {} : { retryOn }) });
  }
  for (const method of ["POST", "PATCH", "FOO"]) inputs.push({ status: 503, method }, { error: "timeout", method });
  inputs.push(
    { status: 503, headers: { "retry-after": "120" } },
    { status: 429, headers: { "retry-after": "0.5" }, maxRetryAfterMs: 100 },
    { status: 503, headers: { "grpc-retry-pushback-ms": "-1" } },
    { status: 503, headers: { "grpc-retry-pushback-ms": "soon" } },
  );
  return inputs.map((input) => ({ text: pkg.classify(input).reason, status: input.status, error: input.error }));
}

/** Every attempt retryFetch reports, and the reason of the error it rejects with, answered by `answer`. */
async function fromRetryFetch(answer: (init: RequestInit | undefined) => Promise<Response>, options: RetryFetchOptions): Promise<Said[]> {
  const saved = globalThis.fetch;
  globalThis.fetch = ((_: unknown, init?: RequestInit) => answer(init)) as typeof fetch;
  const said: Said[] = [];
  try {
    await pkg.retryFetch("http://reasons.test/x", {}, { ...options, onAttempt: (a: AttemptInfo) => void said.push({ text: a.reason, status: a.status, error: a.error }) });
  } catch (e) {
    const reason = (e as { reason?: unknown }).reason;
    const site = options.callSite === undefined ? "" : `${options.callSite}: `;
    // A budget's refusal has no `reason`: its message is the call site and the reason.
    said.push({ text: typeof reason === "string" ? reason : (e as Error).message.slice(site.length) });
  } finally {
    globalThis.fetch = saved;
  }
  return said;
}

const status = (code: number) => async () => new Response("x", { status: code });
const fast = { baseMs: 1, capMs: 1 };

test("every sentence the package writes is recognised, rebuilt in English to the letter, and worded in Russian", async () => {
  const said: Said[] = [...fromClassify()];
  said.push(...(await fromRetryFetch(status(503), { policy: { ...fast, maxAttempts: 3 } })));
  said.push(...(await fromRetryFetch(async () => Promise.reject(new TypeError("refused")), { policy: { ...fast, maxAttempts: 2 } })));
  said.push(...(await fromRetryFetch(status(503), { policy: { baseMs: 1000, capMs: 1000, maxElapsedMs: 10, strategy: "constant" } })));
  for (const refillPerSec of [0, 0.001]) {
    const callSite = `reasons-budget-${refillPerSec}`;
    const budget = { capacity: 1, refillPerSec };
    // The first call spends the token on its retry and stops; the second is refused outright.
    said.push(...(await fromRetryFetch(status(503), { policy: { ...fast, maxAttempts: 5 }, callSite, budget })));
    said.push(...(await fromRetryFetch(status(503), { policy: { ...fast, maxAttempts: 5 }, callSite, budget })));
  }
  const breaker = { minThroughput: 1, failureRatio: 0.1, breakMs: 60_000 };
  said.push(...(await fromRetryFetch(status(503), { policy: { ...fast, maxAttempts: 5 }, callSite: "reasons-breaker", breaker })));
  said.push(...(await fromRetryFetch(status(503), { policy: { ...fast, maxAttempts: 5 }, callSite: "reasons-breaker", breaker })));
  // The throttle rejects at random (seeded), more often as failures pile up. A budget that never
  // runs out: the call site's default one (10 tokens) refused every retry after the first
  // call, before the throttle was asked, so in 6% of runs the throttle never spoke.
  const endless = { capacity: 10_000, refillPerSec: 10_000 };
  for (let i = 0; i < 20 && !said.some((s) => s.text.startsWith("throttled")); i++) {
    said.push(...(await fromRetryFetch(status(503), { policy: { ...fast, maxAttempts: 10, seed: i + 1 }, callSite: "reasons-throttle", throttle: { k: 1 }, budget: endless })));
  }
  // Hedging: the first attempt hangs until aborted, the hedge wins, the first is cancelled.
  let n = 0;
  const hedged = (init: RequestInit | undefined) =>
    ++n % 2 === 1
      ? new Promise<Response>((_, reject) => init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))))
      : status(200)();
  said.push(...(await fromRetryFetch(hedged, { hedging: { delayMs: 5, maxAttempts: 2 } })));

  const seen = new Set<ReasonKind>();
  const mark = (r: NonNullable<ReturnType<typeof parseReason>>) => {
    seen.add(r.kind);
    if (r.last) mark(r.last);
  };
  for (const s of said) {
    const r = parseReason(s.text);
    assert.ok(r, `not recognised: ${s.text}`);
    mark(r);
    assert.equal(reasonText(r, "en"), s.text);
    // What the attempt itself reported agrees with what the sentence is read as.
    if (s.status !== undefined && reasonStatus(r) !== undefined) assert.equal(reasonStatus(r), s.status, s.text);
    if (s.error !== undefined && reasonError(r) !== undefined) assert.equal(reasonError(r), s.error, s.text);
    assert.equal(localizeReason(s.text, "en", s), s.text);
    const ru = localizeReason(s.text, "ru", s);
    assert.match(ru, CYRILLIC, s.text);
    assert.deepEqual(englishWords(ru), [], `${s.text} → ${ru}`);
  }
  // Every kind came up: none of the page's sentences is for a reason the core never gives.
  assert.deepEqual([...REASON_KINDS].filter((k) => !seen.has(k)), []);
});

test("the Russian words of a few reasons", () => {
  assert.equal(localizeReason("200 is not a failure", "ru"), "200 — не сбой");
  // A method the core has no name for (FOO, PROPFIND) is "an extension method".
  const foo = pkg.classify({ status: 503, method: "PROPFIND" }).reason;
  assert.equal(foo, "an extension method is not idempotent: a retry could apply it twice (mark the request idempotent to allow it)");
  assert.match(localizeReason(foo, "ru", { status: 503 }), /^метод-расширение не идемпотентен: /);
  assert.match(localizeReason(pkg.classify({ status: 503, method: "PATCH" }).reason, "ru", { status: 503 }), /^PATCH не идемпотентен: /);
  assert.equal(
    localizeReason("429 Too Many Requests: the server is shedding load, retry later", "ru", { status: 429 }),
    "429 Too Many Requests: сервер сбрасывает нагрузку, повторите позже",
  );
  assert.equal(
    localizeReason("6 of 6 attempts made (last: the attempt timed out (timeout), which may pass on a retry)", "ru", { error: "timeout" }),
    "сделаны все попытки, 6 из 6 (последняя: попытка не дождалась ответа (timeout); повтор может пройти)",
  );
  // Numbers as the page writes them in Russian.
  assert.equal(
    localizeReason("retry budget exhausted: failing fast for 1000000 ms instead of calling downstream", "ru"),
    `бюджет повторов исчерпан: ещё 1${"\u00a0"}000${"\u00a0"}000 мс вызовы сразу получают отказ, сервис не вызывается`,
  );
  assert.equal(
    localizeReason("the server asked to wait 120.5 s, more than the 60 s maximum: giving up rather than waiting", "ru"),
    "сервер попросил подождать 120,5 с — дольше предела в 60 с: лучше сдаться, чем ждать",
  );
});

test("a sentence of no known shape, or about another status or error than the attempt's, stays as written", () => {
  for (const text of ["", "something new happened", "503 Service Unavailable is a server-side failure", "the attempt timed out (reset), which may pass on a retry", "2 of 3 attempts made (last: 200 is not a failure)"]) {
    assert.equal(localizeReason(text, "ru"), text);
  }
  assert.equal(localizeReason("503 Service Unavailable is a server-side failure that may pass on a retry", "ru", { status: 502 }), "503 Service Unavailable is a server-side failure that may pass on a retry");
  assert.equal(localizeReason("the connection was reset (reset), which may pass on a retry", "ru", { error: "timeout" }), "the connection was reset (reset), which may pass on a retry");
  assert.equal(localizeReason("410 Gone: the resource is permanently gone", "ru", { status: 404 }), "410 Gone: the resource is permanently gone");
});
