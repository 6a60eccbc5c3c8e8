// retryFetch against a hostile caller: getters and Proxy traps that throw, broken signals, a
// `fetch` that breaks its contract, callbacks that throw. Every call must settle (reject with
// a clear error naming the culprit) within a bounded time, and nothing may escape as an
// uncaught exception or an unhandled rejection: either one used to end the Node process and
// leave the promise, and others polled with it, pending for good.
//
// `fetch` here is a stub installed on globalThis (retryFetch looks it up at every attempt), so
// this file needs no server.
import test from "node:test";
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { Readable } from "node:stream";
import { stampede } from "./load.mjs";
import { collectUntil } from "./gc.mjs";

const { retryFetch, RetryError } = stampede;

const escaped = [];
process.on("uncaughtException", (e) => escaped.push(`uncaughtException: ${e?.stack ?? e}`));
process.on("unhandledRejection", (e) => escaped.push(`unhandledRejection: ${e?.stack ?? e}`));

const realFetch = globalThis.fetch;
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
const fast = { strategy: "full", baseMs: 1, capMs: 5, maxAttempts: 3, seed: 7 };
const URL_ = "http://127.0.0.1:59/hostile";
const ok = (status = 200, headers = {}) => new Response("ok", { status, headers });
const ok200 = async () => ok();

/** Runs `body` with `fetchImpl` as globalThis.fetch (counting calls), then checks that nothing
 *  escaped: no uncaught exception, no unhandled rejection (given a moment to surface). */
function hostile(name, fetchImpl, body) {
  test(name, async () => {
    const calls = { n: 0 };
    globalThis.fetch = (...args) => {
      calls.n++;
      return fetchImpl(...args);
    };
    try {
      await body(calls);
    } finally {
      globalThis.fetch = realFetch;
    }
    await pause(30);
    assert.deepEqual(escaped.splice(0), [], "nothing escaped");
  });
}

/** How `p` settled, failing if it has not within `ms`. */
async function settle(p, ms = 2000) {
  let timer;
  const pending = new Promise((r) => (timer = setTimeout(() => r({ pending: true }), ms)));
  const outcome = await Promise.race([p.then((value) => ({ value }), (error) => ({ error })), pending]);
  clearTimeout(timer);
  assert.ok(!outcome.pending, `still pending after ${ms} ms`);
  return outcome;
}

/** `p` rejects, within the bound, with an instance of `cls` whose message matches `pattern`. */
async function rejects(p, cls, pattern) {
  const o = await settle(p);
  assert.ok("error" in o, `resolved with ${o.value}`);
  assert.ok(o.error instanceof cls, `expected a ${cls.name}, got ${o.error?.name}: ${o.error?.message}`);
  assert.match(o.error.message, pattern);
  return o.error;
}

const boom = new Error("boom");
const throwing = () => {
  throw boom;
};

// ---- init, options, input ----

// A server's hint longer than 4096 characters is malformed: a pushback so long stops, as a
// short malformed one does (it was read as no hint, and the call retried); a Retry-After so
// long is ignored, the backoff used.
hostile("a server's hint longer than 4096 characters is malformed: a pushback stops, a Retry-After is ignored", (() => {
  let n = 0;
  return async () => (n++ % 2 === 0 ? ok(503, { "grpc-retry-pushback-ms": "1".repeat(5000) }) : ok(200));
})(), async (calls) => {
  const seen = [];
  const { value } = await settle(retryFetch(URL_, undefined, { policy: fast, onAttempt: (a) => seen.push(a) }));
  assert.equal(value.status, 503);
  assert.equal(calls.n, 1);
  assert.deepEqual(seen.map((a) => a.decision), ["stop"]);
  assert.match(seen[0].reason, /grpc-retry-pushback-ms/);
  globalThis.fetch = async () => (calls.n++ === 1 ? ok(503, { "retry-after": "9".repeat(5000) }) : ok(200));
  const seen2 = [];
  const r = await settle(retryFetch(URL_, undefined, { policy: fast, onAttempt: (a) => seen2.push(a) }));
  assert.equal(r.value.status, 200);
  assert.deepEqual(seen2.map((a) => [a.decision, a.fromServer ?? false]), [["retry", false], ["success", false]]);
  assert.ok(seen2[0].delayMs <= fast.capMs, `${seen2[0].delayMs} ms: the backoff's, not the hint's`);
});

hostile("a Proxy init whose ownKeys throws: TypeError naming init, the thrown error as cause, nothing sent", ok200, async (calls) => {
  const init = new Proxy({}, { ownKeys: throwing });
  const e = await rejects(retryFetch(URL_, init, { policy: fast }), TypeError, /^init: threw an exception: boom$/);
  assert.equal(e.cause, boom);
  assert.equal(calls.n, 0);
});

hostile("a Proxy init whose get trap throws", ok200, async (calls) => {
  const init = new Proxy({ method: "GET" }, { get: throwing });
  const e = await rejects(retryFetch(URL_, init, { policy: fast }), TypeError, /^init: threw an exception: boom$/);
  assert.equal(e.cause, boom);
  assert.equal(calls.n, 0);
});

hostile("init getters run once: one that throws names init, one that counts is read once", ok200, async (calls) => {
  await rejects(retryFetch(URL_, { get method() { throw new RangeError("no method"); } }, { policy: fast }), TypeError, /^init: threw an exception: no method$/);
  assert.equal(calls.n, 0);
  let reads = 0;
  const r = await settle(retryFetch(URL_, { get method() { reads++; return "GET"; } }, { policy: fast }));
  assert.equal(r.value.status, 200);
  assert.equal(reads, 1, "the getter ran once, for the copy every attempt sends");
});

hostile("an options, policy or budget getter that throws names its field", ok200, async (calls) => {
  const e = await rejects(retryFetch(URL_, undefined, { get policy() { throw boom; } }), TypeError, /^policy: threw an exception: boom$/);
  assert.equal(e.cause, boom);
  await rejects(retryFetch(URL_, undefined, { policy: fast, get onAttempt() { throw boom; } }), TypeError, /^onAttempt: threw an exception: boom$/);
  await rejects(retryFetch(URL_, undefined, new Proxy({}, { get: throwing })), TypeError, /^policy: threw an exception: boom$/);
  // Nested settings objects too, under their prefixed names.
  const n = await rejects(retryFetch(URL_, undefined, { policy: { get baseMs() { throw boom; } } }), TypeError, /^policy\.baseMs: threw an exception: boom$/);
  assert.equal(n.cause, boom);
  await rejects(retryFetch(URL_, undefined, { policy: new Proxy({}, { get: throwing }) }), TypeError, /^policy\.strategy: threw an exception: boom$/);
  await rejects(retryFetch(URL_, undefined, { callSite: "hostile", budget: { get capacity() { throw boom; } } }), TypeError, /^budget\.capacity: threw an exception: boom$/);
  assert.equal(calls.n, 0);
});

hostile("settings objects read through getters still work: a class with private fields, an inherited option", async () => ok(503), async (calls) => {
  class Settings {
    #attempts = 2;
    get maxAttempts() { return this.#attempts; }
  }
  const policy = Object.assign(new Settings(), { strategy: "full", baseMs: 1, seed: 3 });
  const options = Object.create({ policy });
  const seen = [];
  options.onAttempt = (a) => seen.push(a.number);
  const o = await settle(retryFetch(URL_, undefined, options));
  assert.equal(o.value.status, 503);
  assert.deepEqual(seen, [1, 2], "maxAttempts came from the private field, policy from the prototype");
  assert.equal(calls.n, 2);
});

hostile("whatever is thrown, the message stays readable and the cause is what was thrown", ok200, async () => {
  const hostileError = new Proxy({}, { get: throwing });
  for (const [thrown, pattern] of [
    ["a plain string", /^init: threw an exception: a plain string$/],
    [undefined, /^init: threw an exception$/],
    [42, /^init: threw an exception$/],
    [hostileError, /^init: threw an exception$/],
    [new Error("x".repeat(5000)), /^init: threw an exception: x{200}…$/],
  ]) {
    const init = { get body() { throw thrown; } };
    const e = await rejects(retryFetch(URL_, init, { policy: fast }), TypeError, pattern);
    assert.equal(e.cause, thrown);
  }
});

hostile("a Request-like input whose bodyUsed or clone throws", ok200, async (calls) => {
  const base = { url: URL_, method: "GET", signal: null };
  await rejects(retryFetch({ ...base, get bodyUsed() { throw boom; }, clone() { return this; } }, undefined, { policy: fast }), TypeError, /^input\.bodyUsed: threw an exception: boom$/);
  await rejects(retryFetch({ ...base, bodyUsed: false, clone: throwing }, undefined, { policy: fast }), TypeError, /^input\.clone: threw an exception: boom$/);
  assert.equal(calls.n, 0);
});

// ---- signals ----

/** A signal-like object: `aborted`, `reason` and `addEventListener` as given (getters kept). */
const signalLike = (props) =>
  Object.defineProperties({ aborted: false, reason: undefined, addEventListener() {}, removeEventListener() {} }, Object.getOwnPropertyDescriptors(props));

hostile("a signal whose aborted getter throws, as the option or as init.signal", ok200, async (calls) => {
  const s = signalLike({ get aborted() { throw boom; } });
  const e = await rejects(retryFetch(URL_, undefined, { policy: fast, signal: s }), TypeError, /^signal\.aborted: threw an exception: boom$/);
  assert.equal(e.cause, boom);
  await rejects(retryFetch(URL_, { signal: s }, { policy: fast }), TypeError, /^init\.signal\.aborted: threw an exception: boom$/);
  assert.equal(calls.n, 0);
});

hostile("a signal whose aborted is not true or false: TypeError naming it", ok200, async (calls) => {
  for (const odd of ["yes", 1, 0, undefined, null, {}]) {
    await rejects(retryFetch(URL_, undefined, { policy: fast, signal: signalLike({ aborted: odd }) }), TypeError, /^signal\.aborted: expected true or false, got /);
  }
  await rejects(retryFetch(URL_, undefined, { policy: fast, signal: new Proxy({}, { has: throwing }) }), TypeError, /^signal\.aborted: threw an exception: boom$/);
  assert.equal(calls.n, 0);
});

hostile("a signal whose addEventListener throws", ok200, async (calls) => {
  await rejects(retryFetch(URL_, undefined, { policy: fast, signal: signalLike({ addEventListener: throwing }) }), TypeError, /^signal\.addEventListener: threw an exception: boom$/);
  assert.equal(calls.n, 0);
});

hostile("an already aborted signal whose reason getter throws: rejects with a TypeError naming signal.reason", ok200, async (calls) => {
  const e = await rejects(retryFetch(URL_, undefined, { policy: fast, signal: signalLike({ aborted: true, get reason() { throw boom; } }) }), TypeError, /^signal\.reason: threw an exception: boom$/);
  assert.equal(e.cause, boom);
  assert.equal(calls.n, 0);
});

hostile("a signal-like that fires later, with a throwing reason, stops a fetch that never settles", () => new Promise(() => {}), async (calls) => {
  let fire;
  const s = signalLike({ addEventListener: (_type, f) => (fire = f), get reason() { throw boom; } });
  const p = retryFetch(URL_, undefined, { policy: fast, signal: s });
  await pause(20);
  assert.equal(calls.n, 1);
  fire();
  await rejects(p, TypeError, /^signal\.reason: threw an exception: boom$/);
});

hostile("a signal-like that calls its listener inside addEventListener: nothing is sent", ok200, async (calls) => {
  const s = signalLike({ reason: "stop", addEventListener: (_type, f) => f() });
  const o = await settle(retryFetch(URL_, undefined, { policy: fast, signal: s }));
  assert.equal(o.error, "stop");
  assert.equal(calls.n, 0);
});

// ---- fetch breaking its contract ----

for (const [label, returned, pattern] of [
  ["null", null, /^fetch: expected a Promise, got null$/],
  ["42", 42, /^fetch: expected a Promise, got 42$/],
  ["undefined", undefined, /^fetch: expected a Promise, got undefined$/],
  ["a plain object", {}, /^fetch: expected a Promise, got object$/],
  ["a Response (not a promise of one)", ok(), /^fetch: expected a Promise, got object$/],
]) {
  hostile(`fetch returning ${label}: TypeError naming fetch, no retry`, () => returned, async (calls) => {
    await rejects(retryFetch(URL_, undefined, { policy: fast }), TypeError, pattern);
    assert.equal(calls.n, 1);
  });
}

for (const [label, resolved] of [
  ["null", null],
  ["42", 42],
  ["an object without status", { headers: new Headers() }],
  ["a string status", { status: "200", headers: new Headers() }],
  ["a fractional status", { status: 200.5, headers: new Headers() }],
  ["a status past 999", { status: 1000, headers: new Headers() }],
  ["a status below 100 (not 0)", { status: 42, headers: new Headers() }],
  ["a status past 599", { status: 700, headers: new Headers() }],
  ["no headers", { status: 200 }],
  ["headers without get", { status: 200, headers: {} }],
]) {
  hostile(`fetch resolving to ${label}: TypeError naming fetch`, async () => resolved, async (calls) => {
    await rejects(retryFetch(URL_, undefined, { policy: fast }), TypeError, /^fetch: expected a Promise of a Response/);
    assert.equal(calls.n, 1);
  });
}

hostile("fetch throwing synchronously: TypeError naming fetch, no retry", throwing, async (calls) => {
  const e = await rejects(retryFetch(URL_, undefined, { policy: fast }), TypeError, /^fetch: threw an exception: boom$/);
  assert.equal(e.cause, boom);
  assert.equal(calls.n, 1);
});

hostile("a thenable whose then throws, or whose then getter throws", () => ({ then: throwing }), async () => {
  await rejects(retryFetch(URL_, undefined, { policy: fast }), TypeError, /^fetch\(…\)\.then: threw an exception: boom$/);
  globalThis.fetch = () => ({ get then() { throw boom; } });
  await rejects(retryFetch(URL_, undefined, { policy: fast }), TypeError, /^fetch\(…\)\.then: threw an exception: boom$/);
});

hostile("a thenable that rejects is a transport failure, retried, then a RetryError", () => ({ then: (_ok, fail) => fail(boom) }), async (calls) => {
  const e = await rejects(retryFetch(URL_, undefined, { policy: fast }), RetryError, /^retryFetch gave up: /);
  assert.equal(e.cause, boom);
  assert.deepEqual(e.attempts.map((a) => a.error), ["connect", "connect", "connect"]);
  assert.equal(calls.n, 3);
});

hostile("a thenable that never calls back is cut off by attemptTimeoutMs, deadlineMs or the caller's abort", () => ({ then() {} }), async (calls) => {
  // Each call must settle within rejects()' bound (2 s), far below "never".
  const e = await rejects(retryFetch(URL_, undefined, { policy: { ...fast, maxAttempts: 2 }, attemptTimeoutMs: 50 }), RetryError, /attempts made/);
  assert.deepEqual(e.attempts.map((a) => a.error), ["timeout", "timeout"]);
  assert.equal(calls.n, 2);
  const d = await rejects(retryFetch(URL_, undefined, { policy: fast, deadlineMs: 80 }), RetryError, /^retryFetch gave up: /);
  assert.deepEqual(d.attempts.map((a) => a.error), ["timeout"]);
  const ctrl = new AbortController();
  setTimeout(() => ctrl.abort(new Error("user left")), 50);
  await rejects(retryFetch(URL_, undefined, { policy: fast, signal: ctrl.signal }), Error, /^user left$/);
});

hostile("with no timeout, deadline or signal, a fetch that never settles leaves retryFetch pending, as fetch would be", () => new Promise(() => {}), async () => {
  // Documented: retryFetch waits for fetch as long as fetch waits; the options above bound it.
  const o = await Promise.race([retryFetch(URL_, undefined, { policy: fast }).then(() => "settled", () => "settled"), pause(150).then(() => "pending")]);
  assert.equal(o, "pending");
});

// ---- what fetch resolved to, and the callback ----

hostile("a Response whose headers.get throws: TypeError naming response.headers.get", async () => ({ status: 503, headers: { get: throwing } }), async (calls) => {
  const e = await rejects(retryFetch(URL_, undefined, { policy: fast }), TypeError, /^response\.headers\.get: threw an exception: boom$/);
  assert.equal(e.cause, boom);
  assert.equal(calls.n, 1);
});

hostile("a Response whose status or headers getter throws", async () => ({ get status() { throw boom; }, headers: new Headers() }), async () => {
  await rejects(retryFetch(URL_, undefined, { policy: fast }), TypeError, /^response\.status: threw an exception: boom$/);
  globalThis.fetch = async () => ({ status: 200, get headers() { throw boom; } });
  await rejects(retryFetch(URL_, undefined, { policy: fast }), TypeError, /^response\.headers: threw an exception: boom$/);
});

hostile("a Response-like object with odd hints is read, the hints ignored", async () => ({ status: 503, headers: { get: () => 5 } }), async (calls) => {
  const seen = [];
  const o = await settle(retryFetch(URL_, undefined, { policy: fast, onAttempt: (a) => seen.push(a) }));
  assert.equal(o.value.status, 503, "gives up on the status and hands the last response back");
  assert.equal(calls.n, 3);
  assert.ok(seen.every((a) => a.fromServer !== true), "a non-string Retry-After is no hint");
});

hostile("onAttempt throwing ends the call with a TypeError naming onAttempt: nothing more is sent", async () => ok(503), async (calls) => {
  const e = await rejects(retryFetch(URL_, undefined, { policy: fast, onAttempt: throwing }), TypeError, /^onAttempt: threw an exception: boom$/);
  assert.equal(e.cause, boom);
  await pause(50);
  assert.equal(calls.n, 1, "the policy wanted a retry; the broken callback ended the call");
});

// ---- the module survives ----

hostile("a hostile call does not strand an innocent call started in the same tick", ok200, async () => {
  const bad = retryFetch(URL_, new Proxy({}, { ownKeys: throwing }), { policy: fast });
  const good = retryFetch(URL_, undefined, { policy: fast });
  await rejects(bad, TypeError, /^init: /);
  assert.equal((await settle(good)).value.status, 200);
});

// ---- randomized: throw at a random point, seeded ----

/** mulberry32: a small seeded generator, so a failure replays exactly. */
function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

hostile("an attempt that fails while it is sent, after an abort rejected it, leaves no unhandled rejection", ok200, async () => {
  // The attempt's own promise is rejected (by the abort, or by `then`'s reject) before
  // send() throws: the call rejects with the culprit, and that promise must not surface.
  globalThis.fetch = () => ({ then(_, reject) { reject(new Error("rejected first")); throw new Error("then threw"); } });
  await rejects(retryFetch(URL_, undefined, { policy: fast }), TypeError, /^fetch\(…\)\.then: threw an exception: then threw$/);
  const c = new AbortController();
  globalThis.fetch = () => { c.abort(new Error("aborted inside fetch")); throw new Error("fetch threw"); };
  await rejects(retryFetch(URL_, undefined, { policy: fast, signal: c.signal }), TypeError, /^fetch: threw an exception: fetch threw$/);
  const c2 = new AbortController();
  const input = { bodyUsed: false, clone() { c2.abort(new Error("aborted in clone")); throw new Error("clone threw"); } };
  await rejects(retryFetch(input, undefined, { policy: fast, signal: c2.signal }), TypeError, /^input\.clone: threw an exception: clone threw$/);
});

hostile("a signal that throws after another was linked leaves no listener on the first", ok200, async (calls) => {
  const c = new AbortController();
  const broken = signalLike({ aborted: "no" });
  await rejects(retryFetch(URL_, { signal: broken }, { policy: fast, signal: c.signal }), TypeError, /^init\.signal\.aborted: expected true or false/);
  assert.equal(getEventListeners(c.signal, "abort").length, 0, "options.signal's listener was removed");
  assert.equal(calls.n, 0);
});

hostile("a body that can be sent only once (an async generator, a Node Readable) is refused before anything is sent", ok200, async (calls) => {
  async function* chunks() {
    yield "hello";
  }
  for (const body of [chunks(), Readable.from(["hello"])]) {
    await rejects(retryFetch(URL_, { method: "PUT", body, duplex: "half" }, { policy: fast }), TypeError, /^init\.body: an async iterable \(a generator or a Node stream\) can be sent only once/);
  }
  // A body whose Symbol.asyncIterator getter throws is named too.
  const sly = { get [Symbol.asyncIterator]() { throw boom; } };
  await rejects(retryFetch(URL_, { method: "PUT", body: sly }, { policy: fast }), TypeError, /^init\.body\.\[Symbol\.asyncIterator\]: threw an exception: boom$/);
  assert.equal(calls.n, 0);
});

hostile("a getter that calls back into the package does not change the call's own options", async () => ok(503), async (calls) => {
  const options = { policy: { maxAttempts: 1 }, get attemptTimeoutMs() { stampede.classify({ status: 200 }); return undefined; } };
  const o = await settle(retryFetch(URL_, undefined, options));
  assert.equal(o.value?.status, 503);
  assert.equal(calls.n, 1, "maxAttempts 1: one attempt");
  const p = new stampede.RetryPolicy({ maxAttempts: 2, get seed() { new stampede.RetryPolicy({ maxAttempts: 7 }).free(); return 1; } });
  assert.equal(p.maxAttempts, 2);
  p.free();
});

/** Each point: the culprit its error names, and the call that throws there `thrown`. */
const points = [
  ["init", (thrown) => ({ init: new Proxy({}, { ownKeys: () => { throw thrown; } }) })],
  ["init", (thrown) => ({ init: { get headers() { throw thrown; } } })],
  ["policy", (thrown) => ({ options: { get policy() { throw thrown; } } })],
  ["policy.capMs", (thrown) => ({ options: { policy: { ...fast, get capMs() { throw thrown; } } } })],
  ["signal", (thrown) => ({ options: { policy: fast, get signal() { throw thrown; } } })],
  ["signal.aborted", (thrown) => ({ options: { policy: fast, signal: signalLike({ get aborted() { throw thrown; } }) } })],
  ["init.signal.addEventListener", (thrown) => ({ init: { signal: signalLike({ addEventListener: () => { throw thrown; } }) } })],
  ["input.clone", (thrown) => ({ input: { bodyUsed: false, clone: () => { throw thrown; } } })],
  ["fetch", (thrown) => ({ fetch: () => { throw thrown; } })],
  ["fetch(…).then", (thrown) => ({ fetch: () => ({ then: () => { throw thrown; } }) })],
  ["response.status", (thrown) => ({ fetch: async () => ({ get status() { throw thrown; } }) })],
  ["response.headers.get", (thrown) => ({ fetch: async () => ({ status: 503, headers: { get: () => { throw thrown; } } }) })],
  ["onAttempt", (thrown) => ({ options: { policy: fast, onAttempt: () => { throw thrown; } } })],
];
const throwables = [() => new Error("random"), () => "a string", () => undefined, () => 0, () => new Proxy({}, { get: throwing }), () => Symbol("s")];

hostile("seeded: 300 calls, each throwing at a random point (or nowhere), all settle as they should", ok200, async () => {
  const random = mulberry32(20261203);
  const pick = (xs) => xs[Math.floor(random() * xs.length)];
  for (let i = 0; i < 300; i++) {
    if (random() < 0.15) {
      globalThis.fetch = async () => ok();
      const o = await settle(retryFetch(URL_, undefined, { policy: fast }));
      assert.equal(o.value?.status, 200, `call ${i}: nothing thrown, resolves`);
      continue;
    }
    const [culprit, make] = pick(points);
    const thrown = pick(throwables)();
    const at = make(thrown);
    globalThis.fetch = at.fetch ?? (async () => ok(503));
    const o = await settle(retryFetch(at.input ?? URL_, at.init, at.options ?? { policy: fast }));
    assert.ok("error" in o, `call ${i} (${culprit}) resolved`);
    assert.ok(o.error instanceof TypeError, `call ${i} (${culprit}): ${o.error}`);
    assert.ok(o.error.message.startsWith(`${culprit}: threw an exception`), `call ${i}: "${o.error.message}" should name ${culprit}`);
    assert.equal(o.error.cause, thrown, `call ${i} (${culprit}): the cause is what was thrown`);
  }
});

hostile("a URL no parser reads is refused at once, naming input: not retried like a refused connection", ok200, async (calls) => {
  // Node has no page to resolve a relative URL against, so "/api" is refused here too.
  // One with a scheme is broken, not relative: its message says so.
  for (const [bad, pattern] of [
    ["http://[::1", /^input: expected a valid URL, got "http:\/\/\[::1"$/],
    ["http://exa mple.org/", /^input: expected a valid URL/],
    ["http://127.0.0.1:65536/", /^input: expected a valid URL/],
    ["http://", /^input: expected a valid URL/],
    ["/api/flaky", /^input: expected an absolute URL \(there is no page/],
    ["", /^input: expected an absolute URL/],
  ]) {
    const o = await settle(retryFetch(bad, undefined, { policy: fast }), 500);
    assert.ok(o.error instanceof RangeError, `${JSON.stringify(bad)}: ${o.error ?? o.value}`);
    assert.equal(o.error.field, "input");
    assert.equal(o.error.code, "bad_syntax");
    assert.equal(o.error.got, bad);
    assert.match(o.error.message, pattern);
  }
  assert.equal(calls.n, 0, "fetch was never called");
  // Options are read first: a bad option is named before a bad URL.
  const o = await settle(retryFetch("http://[::1", undefined, { policy: { maxAttempts: 0 } }), 500);
  assert.equal(o.error.field, "policy.maxAttempts");
  const cb = await settle(retryFetch("http://[::1", undefined, { onAttempt: 5 }), 500);
  assert.equal(cb.error.field, "onAttempt");
  // What parses, with a scheme fetch fetches, goes to fetch.
  assert.equal((await settle(retryFetch("data:text/plain,hi", undefined, { policy: fast }))).value.status, 200);
  assert.equal((await settle(retryFetch(new URL(URL_), undefined, { policy: fast }))).value.status, 200);
  assert.equal((await settle(retryFetch({ toString: () => URL_ }, undefined, { policy: fast }))).value.status, 200);
});

hostile("a port fetch refuses (the Fetch standard's bad ports) is refused at once, naming input: not retried", ok200, async (calls) => {
  for (const bad of ["http://127.0.0.1:6000/", "https://example.org:25/x", "http://[::1]:10080/", "http://localhost:0/"]) {
    const o = await settle(retryFetch(bad, undefined, { policy: fast }), 500);
    assert.ok(o.error instanceof RangeError, `${bad}: ${o.error ?? o.value}`);
    assert.equal(o.error.field, "input");
    assert.equal(o.error.code, "bad_syntax");
    assert.match(o.error.message, /^input: fetch refuses port \d+ \(one of the Fetch standard's bad ports\)/);
  }
  assert.equal(calls.n, 0, "fetch was never called");
  // The ports beside them, and the scheme's own, go to fetch.
  for (const good of ["http://127.0.0.1:6001/", "http://127.0.0.1:59/", "http://127.0.0.1/", "https://example.org:443/"]) {
    assert.equal((await settle(retryFetch(good, undefined, { policy: fast }))).value?.status, 200, good);
  }
});

hostile("a RetryPolicy or Budget where its options go is a TypeError naming the field: its getters show a few settings, the rest would be defaults", ok200, async (calls) => {
  const rp = new stampede.RetryPolicy({ strategy: "constant", maxAttempts: 2, baseMs: 5, capMs: 5 });
  const o = await settle(retryFetch(URL_, undefined, { policy: rp }), 500);
  assert.ok(o.error instanceof TypeError, String(o.error ?? o.value));
  assert.equal(o.error.field, "policy");
  assert.equal(o.error.code, "wrong_type");
  assert.equal(o.error.message, "policy: expected a plain options object, got a RetryPolicy");
  assert.throws(() => new stampede.RetryPolicy(rp), (e) => e instanceof TypeError && /got a RetryPolicy$/.test(e.message));
  const budget = stampede.Budget.forCallSite("hostile-budget-instance", { capacity: 5 });
  const b = await settle(retryFetch(URL_, undefined, { budget }), 500);
  assert.ok(b.error instanceof TypeError, String(b.error ?? b.value));
  assert.equal(b.error.field, "budget");
  assert.equal(calls.n, 0, "nothing was sent");
  assert.equal(b.error.message, "budget: expected a plain options object, got a Budget");
  // The wrong one of the package's objects is named as what it is.
  const wrong = await settle(retryFetch(URL_, undefined, { policy: budget }), 500);
  assert.equal(wrong.error?.message, "policy: expected a plain options object, got a Budget");
  // A class of the caller's own, with getters, is still an options object, whatever its name.
  class Settings {
    get maxAttempts() { return 2; }
  }
  class RetryPolicy {
    get maxAttempts() { return 2; }
  }
  for (const C of [Settings, RetryPolicy]) {
    assert.equal((await settle(retryFetch(URL_, undefined, { policy: new C() }))).value?.status, 200, C.name);
  }
  rp.free();
});

hostile("asking whether fetch takes init leaves no listener on the caller's signal", ok200, async (calls) => {
  const ctrl = new AbortController();
  for (let i = 0; i < 20; i++) {
    const o = await settle(retryFetch(URL_, { signal: ctrl.signal, headers: { x: "1" } }, { policy: fast }), 2000);
    assert.equal(o.value?.status, 200, String(o.error));
  }
  assert.equal(calls.n, 20);
  // A resolved call keeps one listener while its Response may be read (its body follows
  // the signal, as fetch's does), none once the Response is collected.
  const left = () => getEventListeners(ctrl.signal, "abort").length;
  // (The last Response may still be held by this function's frame: at most one.)
  assert.ok(await collectUntil(() => left() <= 1), `${left()} listeners left`);
});

hostile("an input or init fetch refuses whatever the network does is refused at once, naming it", ok200, async (calls) => {
  // Not a URL at all: a TypeError (before, `undefined` was retried as "connect" 4 times).
  for (const bad of [undefined, null, 42, true, Symbol("s"), 10n]) {
    const o = await settle(retryFetch(bad, undefined, { policy: fast }), 500);
    assert.ok(o.error instanceof TypeError, `${String(bad)}: ${o.error ?? o.value}`);
    assert.equal(o.error.field, "input");
    assert.equal(o.error.code, "wrong_type");
    assert.match(o.error.message, /^input: expected a URL \(a string or a URL\) or a Request, got /);
  }
  // A scheme fetch does not fetch, credentials, an object whose string is no URL: RangeErrors.
  for (const [bad, pattern] of [
    ["ftp://127.0.0.1:59/x", /^input: expected an http or https URL/],
    ["javascript:1", /^input: expected an http or https URL/],
    ["http://user:pass@127.0.0.1:59/", /^input: a URL with credentials/],
    ["https://user@127.0.0.1:8080/", /^input: a URL with credentials/],
    [{}, /^input: expected an absolute URL.*"\[object Object\]"/],
    [{ url: "ftp://127.0.0.1:59/x", bodyUsed: false, clone() { return this; } }, /^input: expected an http or https URL/],
  ]) {
    const o = await settle(retryFetch(bad, undefined, { policy: fast }), 500);
    assert.ok(o.error instanceof RangeError, `${String(bad)}: ${o.error ?? o.value}`);
    assert.equal(o.error.field, "input");
    assert.equal(o.error.code, "bad_syntax");
    assert.match(o.error.message, pattern);
  }
  // A method fetch refuses (TRACE, CONNECT, TRACK: a TypeError from fetch, every time, that
  // looked like a refused connection and was retried): refused at once, naming the method.
  for (const [method, input, field] of [
    ["TRACE", URL_, "init.method"],
    ["connect", URL_, "init.method"],
    ["Track", URL_, "init.method"],
    [undefined, { url: URL_, method: "TRACE", bodyUsed: false, clone() { return this; } }, "input.method"],
  ]) {
    const o = await settle(retryFetch(input, method === undefined ? undefined : { method }, { policy: fast }), 500);
    assert.ok(o.error instanceof RangeError, `${method}: ${o.error ?? o.value}`);
    assert.equal(o.error.field, field);
    assert.equal(o.error.code, "bad_syntax");
    assert.match(o.error.message, /: expected a method fetch sends \(not CONNECT, TRACE or TRACK\), got "/);
  }
  // An init fetch refuses whatever the network does (a TypeError from fetch, every time, that
  // looked like a refused connection and was retried): refused at once, naming init, with
  // the environment's own refusal as the cause. POST with a body is fine. With a Request
  // input too (it was sent 6 times and reported as refused connections), asked of a copy:
  // the Request's body is still there to send.
  for (const init of [
    { headers: { "bad name": "v" } },
    { headers: { x: "a\nb" } },
    { body: "on a GET" },
    { method: "HEAD", body: "x" },
    { mode: "navigate" },
    { redirect: "nope" },
  ]) {
    for (const input of [URL_, new Request(URL_), new Request(URL_, { method: "PUT", body: "kept" })]) {
      if (input.method === "PUT" && init.body !== undefined) continue;
      const o = await settle(retryFetch(input, init, { policy: fast }), 500);
      assert.ok(o.error instanceof RangeError, `${JSON.stringify(init)}: ${o.error ?? o.value}`);
      assert.equal(o.error.field, "init");
      assert.equal(o.error.code, "bad_syntax");
      assert.match(o.error.message, /^init: fetch refuses this request: /);
      assert.ok(o.error.cause instanceof TypeError);
      if (input instanceof Request) assert.equal(input.bodyUsed, false);
    }
  }
  const kept = new Request(URL_, { method: "PUT", body: "kept" });
  await settle(retryFetch(kept, { headers: { "bad name": "v" } }, { policy: fast }), 500);
  assert.equal(await kept.text(), "kept", "the Request's body, untouched by the check");
  // Something with a `clone` but no `bodyUsed` is no Request: read as fetch reads it, as the
  // text "[object Object]", which has no page here to resolve against: the input's fault,
  // not the init's.
  for (const input of [{ clone() { return this; }, url: 5 }, { clone() { return this; }, url: URL_ }]) {
    const o = await settle(retryFetch(input, undefined, { policy: fast }), 500);
    assert.ok(o.error instanceof RangeError, String(o.error ?? o.value));
    assert.equal(o.error.field, "input");
    assert.match(o.error.message, /^input: expected an absolute URL \(there is no page to resolve a relative one against\), got "\[object Object\]"$/);
  }
  // Headers whose Proxy throws while they are read (copied when the call is made, as fetch
  // reads them): the caller's code, named as such.
  const trap = await settle(retryFetch(URL_, { headers: new Proxy({}, { ownKeys() { throw boom; } }) }, { policy: fast }), 500);
  assert.ok(trap.error instanceof TypeError, String(trap.error));
  assert.match(trap.error.message, /^init\.headers: threw an exception: boom$/);
  assert.equal(trap.error.cause, boom);
  // An input whose string or URL throws names it, with what was thrown as the cause.
  const toString = await settle(retryFetch({ toString() { throw boom; } }, undefined, { policy: fast }), 500);
  assert.match(toString.error.message, /^input: threw an exception: boom$/);
  assert.equal(toString.error.cause, boom);
  const url = await settle(retryFetch({ get url() { throw boom; }, bodyUsed: false, clone() { return this; } }, undefined, { policy: fast }), 500);
  assert.match(url.error.message, /^input\.url: threw an exception: boom$/);
  assert.equal(calls.n, 0, "fetch was never called");
});
