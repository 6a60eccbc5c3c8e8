import { test } from "node:test";
import assert from "node:assert/strict";
import { axisEnd, delayHistograms } from "../../www/src/logic/histogram.js";
import { callSiteFor, defaultLiveUrl, outOfLimit, parseHeaders, parseTimeout, randomKey } from "../../www/src/logic/live.js";
import { pkg } from "./package.js";
import { displayBinMs, ensureCapacity, rebinRate } from "../../www/src/logic/series.js";
import { hasWasmSimd } from "../../www/src/logic/simd.js";
import { embedSnippet } from "../../www/src/logic/snippet.js";
import { DEFAULT_STATE } from "../../www/src/logic/state.js";
import { policyOptions } from "../../www/src/logic/run.js";

test("histograms: shares sum to one, medians per retry, a shared range", () => {
  // 4 rows × 2 retries.
  const samples = new Float64Array([10, 100, 20, 200, 30, 300, 40, 400]);
  const h = delayHistograms(samples, 2, 10);
  assert.equal(h.shares.length, 2);
  for (const s of h.shares) assert.ok(Math.abs(s.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  assert.deepEqual(h.medians, [25, 250]);
  assert.equal(h.maxMs, 400);
  assert.ok(h.centers.length === 10 && (h.centers[9] ?? 0) < 400 + 1e-6);
  // The largest value lands in the top bin.
  assert.ok((h.shares[1]?.[9] ?? 0) > 0);
  // All-zero delays (strategy none) still give a range.
  const z = delayHistograms(new Float64Array(6), 3, 4);
  assert.equal(z.shares[0]?.[0], 1);
});

test("rates: rebinning to 100 ms and scaling to per second", () => {
  const counts = new Uint32Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 50, 0]); // 10 ms slots
  const out = new Float64Array(8);
  const n = rebinRate(counts, 10, 100, out);
  assert.equal(n, 2);
  assert.equal(out[0], 550); // 55 attempts in 100 ms
  assert.equal(out[1], 500); // 50 in the next
  assert.equal(displayBinMs(10, 6000), 100);
  assert.ok(displayBinMs(10, 100_000) >= 400);
  const buf = new Float64Array(10);
  assert.equal(ensureCapacity(buf, 5), buf);
  assert.ok(ensureCapacity(buf, 11).length >= 11);
});

test("headers box", () => {
  const h = parseHeaders("Accept: application/json\n\n# a comment\nX-Trace:  abc:def \nbad line\n: nothing");
  assert.deepEqual(h.headers, { Accept: "application/json", "X-Trace": "abc:def" });
  assert.deepEqual(h.bad, [5, 6]);
  // A value fetch cannot send (a char past ISO-8859-1, a control char) is refused by line.
  const v = parseHeaders("X-Test: привет\nX-Ok: café\nX-Bell: a\u0007b");
  assert.deepEqual(v.headers, { "X-Ok": "café" });
  assert.deepEqual(v.bad, [1, 3]);
});

test("live defaults and call sites", () => {
  const k = randomKey(() => 0.5);
  assert.match(k, /^[a-z0-9]{8}$/);
  assert.equal(defaultLiveUrl("k1"), "/api/flaky?key=k1&fail=2&status=503&retry_after=1");
  assert.equal(callSiteFor("get", "/api/flaky?key=1", "http://127.0.0.1:8080/"), "GET http://127.0.0.1:8080/api/flaky");
});

test("the embed snippet reproduces the policy", () => {
  const code = embedSnippet({
    policy: policyOptions({ ...DEFAULT_STATE.a, strategy: "full", baseMs: 200 }),
    budget: { capacity: 10, refillPerSec: 1 },
    url: "https://api.example.com/orders?id=1",
    method: "post",
    callSite: callSiteFor("post", "https://api.example.com/orders?id=1", "http://127.0.0.1:8080/"),
    comments: { init: "i", seed: "s", budget: "b" },
  });
  assert.match(code, /import init, \{ retryFetch \} from "stampede";/);
  assert.match(code, /policy: \{ strategy: "full", baseMs: 200, capMs: 30000, maxAttempts: 6, multiplier: 2 \}/);
  // The very call site the live panel passes.
  assert.match(code, /callSite: "POST https:\/\/api\.example\.com\/orders"/);
  assert.match(code, /budget: \{ capacity: 10, refillPerSec: 1 \}/);
  assert.match(code, /\{ method: "POST" \}/);
  assert.doesNotMatch(code, /seed:/);
  assert.doesNotMatch(code, /idempotent|attemptTimeoutMs|headers/);
  const plain = embedSnippet({ policy: policyOptions(DEFAULT_STATE.a), budget: null, url: "/x", method: "GET", comments: { init: "", seed: "", budget: "" } });
  assert.doesNotMatch(plain, /budget|callSite/);
  assert.match(plain, /retryFetch\("\/x", \{\}, \{/);
  // The in-page demo's address works only inside the page: the snippet says so, just above it.
  const comments = { init: "", seed: "", budget: "", demo: "DEMO NOTE" };
  const demo = embedSnippet({ policy: policyOptions(DEFAULT_STATE.a), budget: null, url: "/demo-api/flaky", method: "GET", demo: true, comments });
  assert.match(demo, /\/\/ DEMO NOTE\nconst response = await retryFetch\("\/demo-api\/flaky"/);
  const real = embedSnippet({ policy: policyOptions(DEFAULT_STATE.a), budget: null, url: "/api/flaky", method: "GET", demo: false, comments });
  assert.doesNotMatch(real, /DEMO NOTE/);
});

test("the embed snippet carries the live call's headers, timeout and idempotency", () => {
  const code = embedSnippet({
    policy: policyOptions(DEFAULT_STATE.a),
    budget: null,
    url: "http://127.0.0.1:8080/api/flaky?fail=2",
    method: "PUT",
    headers: { Accept: "application/json", "Idempotency-Key": "k-1" },
    idempotent: true,
    attemptTimeoutMs: 2500,
    comments: { init: "", seed: "", budget: "" },
  });
  assert.match(code, /\{ method: "PUT", headers: \{ Accept: "application\/json", "Idempotency-Key": "k-1" \} \}/);
  assert.match(code, /^ {2}idempotent: true,$/m);
  assert.match(code, /^ {2}attemptTimeoutMs: 2500,$/m);
  const get = embedSnippet({ policy: policyOptions(DEFAULT_STATE.a), budget: null, url: "/x", method: "get", headers: { "X-A": "1" }, attemptTimeoutMs: null, comments: { init: "", seed: "", budget: "" } });
  assert.match(get, /retryFetch\("\/x", \{ headers: \{ "X-A": "1" \} \}, \{/);
  assert.doesNotMatch(get, /attemptTimeoutMs|idempotent/);
});

test("the timeout box: empty is none, a number is passed on, text is refused", () => {
  assert.deepEqual(parseTimeout(""), { ok: true, ms: null });
  assert.deepEqual(parseTimeout(" 2500 "), { ok: true, ms: 2500 });
  assert.deepEqual(parseTimeout("-5"), { ok: true, ms: -5 }); // the package judges the range
  assert.deepEqual(parseTimeout("abc"), { ok: false, problem: "nan" });
  assert.deepEqual(parseTimeout("", true), { ok: false, problem: "nan" });
});

test("a panel's typed number: empty, not a number, not whole and out of range are told apart", async () => {
  const { parseTyped, problemWords } = await import("../../www/src/logic/typed.js");
  const env = { min: 1, max: 6, integer: true };
  assert.deepEqual(parseTyped(" 3 ", env), { ok: true, value: 3 });
  assert.deepEqual(parseTyped("", env), { ok: false, problem: { kind: "empty" } });
  assert.deepEqual(parseTyped("abc", env), { ok: false, problem: { kind: "nan" } });
  assert.deepEqual(parseTyped("3", env, true), { ok: false, problem: { kind: "nan" } }, "the browser's badInput wins");
  assert.deepEqual(parseTyped("2.5", env), { ok: false, problem: { kind: "integer" } });
  assert.deepEqual(parseTyped("7", env), { ok: false, problem: { kind: "range", min: 1, max: 6 } });
  assert.deepEqual(parseTyped("Infinity", env), { ok: false, problem: { kind: "nan" } });
  assert.deepEqual(problemWords({ kind: "range", min: 1, max: 6 }), { key: "err.range", vars: { min: 1, max: 6 } });
});

test("the live strip: attempts one after another share a row, parallel hedges stack", async () => {
  const { stripRows } = await import("../../www/src/logic/strip.js");
  assert.deepEqual(stripRows([]), []);
  // Retries: each sent after the last answer.
  assert.deepEqual(
    stripRows([
      { sent: 0, answered: 10 },
      { sent: 20, answered: 30 },
      { sent: 40, answered: 50 },
    ]),
    [0, 0, 0],
  );
  // A first attempt still out at 15 and 25: two hedges below it; the next one after they end goes back up.
  assert.deepEqual(
    stripRows([
      { sent: 0, answered: 100 },
      { sent: 15, answered: 40 },
      { sent: 25, answered: 35 },
      { sent: 45, answered: 60 },
      { sent: 110, answered: 120 },
    ]),
    [0, 1, 2, 1, 0],
  );
});

test("the embed snippet repeats the live panel's breaker and hedging", () => {
  const base = {
    policy: policyOptions(DEFAULT_STATE.a),
    budget: null,
    url: "https://example.test/api/x",
    method: "GET",
    callSite: "GET https://example.test/api/x",
    comments: { init: "i", seed: "s", budget: "b" },
  };
  const plain = embedSnippet(base);
  assert.ok(!plain.includes("breaker") && !plain.includes("hedging") && !plain.includes("callSite"), plain);
  const both = embedSnippet({ ...base, breaker: true, hedging: { delayMs: 250, maxAttempts: 3 } });
  assert.match(both, /callSite: "GET https:\/\/example\.test\/api\/x",\n  breaker: \{\},\n  hedging: \{ delayMs: 250, maxAttempts: 3 \},/);
});

test("simd probe: validates in Node 20 (V8 has simd128), so the page's message is right there", () => {
  // A malformed probe would validate nowhere and send every browser the "no SIMD" message.
  assert.equal(hasWasmSimd(), true);
});

test("live boxes: a value out of the package's range is flagged as typed, and the package agrees", async () => {
  // What retryFetch does with each value: refuse it with a RangeError naming the option, or
  // take it (the call then goes out, here to a fetch that answers 200 at once).
  const saved = globalThis.fetch;
  globalThis.fetch = (async () => new Response("ok")) as typeof fetch;
  const refuses = async (option: "attemptTimeoutMs" | "hedging.delayMs", ms: number) => {
    const options = option === "attemptTimeoutMs" ? { attemptTimeoutMs: ms } : { hedging: { delayMs: ms } };
    try {
      await pkg.retryFetch("http://live.test/", {}, options);
      return false;
    } catch (e) {
      assert.ok(e instanceof RangeError, `${option} ${ms}: ${String(e)}`);
      assert.equal((e as { field?: string }).field, option);
      return true;
    }
  };
  try {
    for (const ms of [-5, 0, 1e-9, 1, 2500, 86_400_000, 86_400_001, 1e12]) {
      assert.equal(outOfLimit("attemptTimeoutMs", ms) !== null, await refuses("attemptTimeoutMs", ms), `attemptTimeoutMs ${ms}`);
    }
    for (const ms of [-1, 0, 20, 86_400_000, 86_400_001]) {
      assert.equal(outOfLimit("hedging.delayMs", ms) !== null, await refuses("hedging.delayMs", ms), `hedging.delayMs ${ms}`);
    }
  } finally {
    globalThis.fetch = saved;
  }
  // The error carries what the page words it from: the option, the code, the bounds, the value.
  assert.deepEqual(outOfLimit("attemptTimeoutMs", 0), {
    name: "RangeError",
    message: "attemptTimeoutMs: out of range",
    field: "attemptTimeoutMs",
    code: "out_of_range",
    min: 0,
    minExclusive: true,
    max: 86_400_000,
    unit: "ms",
    got: 0,
  });
});

test("the texts under the figures follow the run: jitter or not, a capacity line or not, contention", async () => {
  const { whyKeys } = await import("../../www/src/logic/why.js");
  assert.deepEqual(whyKeys("burst", "exponential", false, true), { herd: "herd.why", load: "load.why", goodput: "goodput.why" });
  // Ongoing traffic fails over a stretch of time: no stripes without jitter, retries on top.
  for (const strategy of ["none", "constant", "exponential"] as const) {
    for (const scenario of ["steady", "spike", "closed"] as const) assert.equal(whyKeys(scenario, strategy, false, true).herd, "herd.whyOngoing");
  }
  for (const strategy of ["full", "equal", "decorrelated", "decorrelated-v2"] as const) {
    // Only a burst's first attempts leave together (its text says the first stripe is theirs).
    assert.equal(whyKeys("burst", strategy, false, true).herd, "herd.whyJitterBurst");
    for (const scenario of ["steady", "spike", "closed"] as const) assert.equal(whyKeys(scenario, strategy, false, true).herd, "herd.whyJitter");
  }
  // Unlimited workers: no capacity line, no queue.
  assert.deepEqual(whyKeys("spike", "none", true, true), { herd: "herd.whyOngoing", load: "load.whyUnlimited", goodput: "goodput.whyUnlimited" });
  // The contention experiment has its own herd and load texts, whatever the strategy.
  for (const strategy of ["exponential", "full"] as const) {
    const w = whyKeys("aws-occ", strategy, true, true);
    assert.deepEqual([w.herd, w.load], ["herd.whyOcc", "load.whyOcc"]);
  }
  // Clients that never give up waste no answer: the text says so rather than speak of
  // timeouts the run does not have, queue or not.
  assert.equal(whyKeys("burst", "exponential", false, false).goodput, "goodput.whyNoTimeout");
  assert.equal(whyKeys("burst", "exponential", true, false).goodput, "goodput.whyUnlimitedNoTimeout");
});

test("histograms: the time axis ends at the tick after the longest wait", () => {
  // Full jitter capped at 30 s: its waits end just under 30 s, and "30 s" is the last label.
  assert.equal(axisEnd(29_990), 30_000);
  assert.equal(axisEnd(30_000), 30_000);
  assert.equal(axisEnd(7_900), 10_000);
  assert.equal(axisEnd(1_000), 1_000);
  assert.equal(axisEnd(1_234), 1_500);
  assert.equal(axisEnd(0), 0, "all waits zero (strategy none)");
  for (const top of [1, 17, 333, 4_321, 59_999, 86_400_000]) {
    const end = axisEnd(top);
    assert.ok(end >= top && end <= 2 * top, `${top} → ${end}`);
  }
});

test("snippet: the policy as the call sends it, only the settings its strategy reads, always valid", () => {
  const snippet = (a: typeof DEFAULT_STATE.a) => embedSnippet({ policy: policyOptions(a), budget: null, url: "/x", method: "GET", comments: { init: "", seed: "", budget: "" } });
  // A state whose hidden cap is below the base (aws's 2 s cap, then "constant" at 3 s).
  const constant = { ...DEFAULT_STATE.a, strategy: "constant" as const, baseMs: 3000, capMs: 2000 };
  assert.match(snippet(constant), /policy: \{ strategy: "constant", baseMs: 3000, maxAttempts: 6 \}/);
  assert.match(snippet({ ...DEFAULT_STATE.a, strategy: "none", capMs: 10 }), /policy: \{ strategy: "none", maxAttempts: 6 \}/);
  // The package takes what the snippet says: a base past the core's default cap too.
  for (const a of [constant, { ...constant, baseMs: 45_000 }, { ...DEFAULT_STATE.a, strategy: "none" as const, baseMs: 9000, capMs: 10 }]) {
    const policy = new pkg.RetryPolicy(policyOptions(a));
    policy.free();
  }
});

test("a link names a story only with that story's settings", async () => {
  const { PRESETS, linkedStory } = await import("../../www/src/logic/presets.js");
  const { cloneState } = await import("../../www/src/logic/state.js");
  const { encodeState } = await import("../../www/src/logic/url.js");
  for (const p of PRESETS) {
    const s = cloneState(p.state);
    assert.equal(linkedStory(`?${encodeState(s, "ru")}&story=${p.id}`, s), p.id, p.id);
    // The rows are the reader's, not the story's.
    const rows = { ...cloneState(p.state), rows: p.state.rows === "client" ? "fit" : "client" } as typeof s;
    assert.equal(linkedStory(`?story=${p.id}`, rows), p.id, `${p.id}, other rows`);
    // What the core sized after a run (the link carries it) follows from the rest.
    const sized = cloneState(p.state);
    if (sized.sizing === "capacity") [sized.workers, sized.queue] = [sized.workers + 7, sized.queue + 9];
    else sized.capacityRps += 123;
    assert.equal(linkedStory(`?story=${p.id}`, sized), p.id, `${p.id}, sized`);
    // The playback speed is the reader's too.
    assert.equal(linkedStory(`?story=${p.id}`, { ...cloneState(p.state), speed: p.state.speed === 1 ? 2 : 1 }), p.id, `${p.id}, other speed`);
    const edited = { ...cloneState(p.state), seed: p.state.seed + 1 };
    assert.equal(linkedStory(`?story=${p.id}`, edited), null, `${p.id}, edited`);
  }
  assert.equal(linkedStory("?story=nope", cloneState(PRESETS[0]!.state)), null);
  assert.equal(linkedStory("?clients=5", cloneState(PRESETS[0]!.state)), null);
});
