// The API against what callers hand it beyond plain options: headers in each form fetch takes
// (a Headers, [name, value] pairs from any iterable, a record), arrays where an options object
// goes, revoked Proxies, throwing getters and traps, objects without a prototype or from
// another realm, text with unpaired surrogates. Each is a RangeError or TypeError naming its
// place, and the module lives on. Both entries (fetch-slim.test.mjs runs this suite against
// stampede/fetch).
import test from "node:test";
import assert from "node:assert/strict";
import { stampede, slim } from "./load.mjs";

const { RetryPolicy, Budget, Simulation, classify, retryFetch } = stampede;

test("classify: headers as fetch's HeadersInit reads them: [name, value] pairs from any iterable, else a record", () => {
  // Names without regard to case, the first of a name counts, other names are skipped.
  const pairs = [["Content-Type", "text/plain"], ["Retry-After", "3"], ["retry-after", "9"]];
  assert.equal(classify({ status: 503, headers: pairs }).retryAfterMs, 3000);
  assert.equal(classify({ status: 503, headers: [["grpc-retry-pushback-ms", 250]] }).retryAfterMs, 250);
  assert.equal(classify({ status: 503, headers: [] }).retryAfterMs, undefined);
  // Any iterable of pairs, and pairs that are any iterable of two, as Headers takes them.
  assert.equal(classify({ status: 503, headers: new Set([["retry-after", "4"]]) }).retryAfterMs, 4000);
  assert.equal(classify({ status: 503, headers: (function* () { yield new Set(["retry-after", "5"]); })() }).retryAfterMs, 5000);
  // The same verdict as the object and the Headers with the same hint.
  const hint = "Wed, 21 Oct 2015 07:28:00 GMT";
  const at = Date.UTC(2015, 9, 21, 7, 27, 50);
  for (const headers of [[["retry-after", hint]], { "retry-after": hint }, new Headers([["retry-after", hint]])]) {
    assert.equal(classify({ status: 429, headers, nowMs: at }).retryAfterMs, 10000);
  }
  // A malformed pair (what Headers refuses too) names headers and describes the pair given.
  const malformed = (got) => (e) => e instanceof TypeError && e.field === "headers" && e.code === "wrong_type"
    && e.message === `headers: expected an object, a Headers or [name, value] pairs, got ${got}`;
  const cases = [
    [[["retry-after"]], "an array"],
    [[["retry-after", "1", "2"]], "an array"],
    [["retry-after"], '"retry-after"'],
    [[[5, "1"]], "an array"],
    [[null], "null"],
    [[{}], "object"],
    [[{ length: 2, 0: "retry-after", 1: "7" }], "object"], // array-like, not iterable
    [new Array(2 ** 32 - 1), "undefined"], // a hole: refused at the first, not copied whole
  ];
  for (const [headers, got] of cases) assert.throws(() => classify({ status: 503, headers }), malformed(got), got);
  // At most 10,000 pairs: a RangeError past them (an endless iterable ends there).
  const many = (n) => Array.from({ length: n }, (_, i) => [`x-${i}`, "1"]);
  assert.equal(classify({ status: 503, headers: [...many(9_999), ["retry-after", "6"]] }).retryAfterMs, 6000);
  const tooMany = (e) => e instanceof RangeError && e.field === "headers" && /^headers: expected at most 10000 \[name, value\] pairs, got /.test(e.message);
  assert.throws(() => classify({ status: 503, headers: many(10_001) }), tooMany);
  assert.throws(() => classify({ status: 503, headers: (function* () { for (;;) yield ["x-a", "1"]; })() }), tooMany);
  // What the caller's iterators and traps throw names headers, with the thrown error as its cause.
  const boom = new Error("boom");
  const threw = (e) => e instanceof TypeError && /^headers: threw an exception: boom$/.test(e.message) && e.cause === boom;
  assert.throws(() => classify({ status: 503, headers: [{ [Symbol.iterator]() { throw boom; } }] }), threw);
  assert.throws(() => classify({ status: 503, headers: { [Symbol.iterator]() { throw boom; } } }), threw);
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  assert.throws(() => classify({ status: 503, headers: proxy }), (e) => e instanceof TypeError && /^headers\.get: threw an exception/.test(e.message));
  assert.equal(classify({ status: 503, headers: [["retry-after", "2"]] }).retryAfterMs, 2000, "the module lives on");
});

test("an array where an options object goes is a TypeError naming it, not an object of defaults", () => {
  const isArrayError = (field) => (e) => e instanceof TypeError && e.field === field && e.code === "wrong_type"
    && e.message === `${field}: expected an object, got an array`;
  assert.throws(() => new RetryPolicy([]), isArrayError("RetryPolicy options"));
  assert.throws(() => classify([503]), isArrayError("classify input"));
  assert.throws(() => Budget.forCallSite("array options", [10, 1]), isArrayError("Budget options"));
});

test("a revoked Proxy as options, or as a value, is a TypeError naming its place, however often; the module lives on", async () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  const threw = (what) => (e) => e instanceof TypeError && e.message.startsWith(`${what}: threw an exception`) && e.cause instanceof TypeError;
  // Many times over: each exception once went through the wasm's frames and leaked its stack,
  // and after about a thousand every call failed with "memory access out of bounds".
  for (let i = 0; i < 2_000; i++) {
    assert.throws(() => classify(proxy), threw("classify input"));
    assert.throws(() => new RetryPolicy(proxy), threw("RetryPolicy options"));
  }
  assert.throws(() => Budget.forCallSite("revoked", proxy), threw("Budget options"));
  assert.throws(() => classify({ status: proxy }), (e) => e instanceof TypeError && e.message === "status: expected a number, got object");
  await assert.rejects(retryFetch("http://127.0.0.1:59/never-sent", undefined, proxy), threw("retryFetch options"));
  await assert.rejects(retryFetch("http://127.0.0.1:59/never-sent", undefined, { policy: proxy }), threw("policy"));
  assert.equal(classify({ status: 503, headers: { "retry-after": "2" } }).retryAfterMs, 2000);
  assert.equal(new RetryPolicy({ maxAttempts: 3 }).maxAttempts, 3);
});

test("classify: headers whose getters or Proxy traps throw make classify throw a TypeError naming them, and the module lives on", () => {
  const boom = new Error("boom");
  const named = (e) => e instanceof TypeError && /^headers: threw an exception: boom$/.test(e.message) && e.cause === boom;
  const trapped = new Proxy({}, { ownKeys() { throw boom; } });
  assert.throws(() => classify({ status: 503, headers: trapped }), named);
  const getter = { get "retry-after"() { throw boom; } };
  assert.throws(() => classify({ status: 503, headers: getter }), named);
  // The module is intact: the next call answers as always.
  assert.equal(classify({ status: 503, method: "GET", headers: { "retry-after": "2" }, nowMs: Date.now() }).retryAfterMs, 2000);
});

test("settings objects without a prototype or from another realm are read; a throwing getter names its field", async () => {
  const { runInNewContext } = await import("node:vm");
  assert.equal(new RetryPolicy(Object.assign(Object.create(null), { maxAttempts: 3 })).maxAttempts, 3);
  assert.equal(new RetryPolicy(runInNewContext("({ maxAttempts: 4 })")).maxAttempts, 4);
  assert.equal(new RetryPolicy({ strategy: "full" }).strategy, "full");
  const boom = new Error("boom");
  const named = (field) => (e) => e instanceof TypeError && e.message === `${field}: threw an exception: boom` && e.cause === boom && e.field === field && e.code === undefined;
  assert.throws(() => new RetryPolicy({ get baseMs() { throw boom; } }), named("baseMs"));
  assert.throws(() => classify({ get status() { throw boom; } }), named("status"));
  assert.throws(() => Budget.forCallSite(`getter ${process.pid}`, { get capacity() { throw boom; } }), named("capacity"));
  await assert.rejects(retryFetch("http://127.0.0.1:59/x", undefined, { get policy() { throw boom; } }), named("policy"));
  if (!slim) {
    assert.throws(() => new Simulation({ get clients() { throw boom; } }), named("clients"));
    assert.throws(() => new Simulation({ policy: { get capMs() { throw boom; } } }), named("policy.capMs"));
    assert.throws(() => new Simulation({ budget: { get capacity() { throw boom; } } }), named("budget.capacity"));
    const sim = new Simulation(Object.assign(Object.create(null), { clients: 10 }));
    sim.run();
    assert.equal(sim.metrics().requests, 10);
    sim.free();
  }
});

test("a name or setting with an unpaired surrogate is refused (it would name another's call site)", async () => {
  // Copied into wasm, "\ud800" became U+FFFD: "sur\ud800" and "sur\ufffd" were one call site,
  // and a retry charged to either drained the other's budget.
  for (const [make, field] of [
    [() => stampede.Budget.forCallSite("sur\ud800"), "name"],
    [() => stampede.Budget.forCallSite("\udc00sur"), "name"],
    [() => stampede.retryFetch("http://127.0.0.1:59/", undefined, { callSite: "a\ud800" }), "callSite"],
    [() => new stampede.RetryPolicy({ retryOn: "5\ud800xx" }), "retryOn"],
  ]) {
    let error;
    try {
      await make();
    } catch (e) {
      error = e;
    }
    if (error === undefined) assert.fail(`${field}: accepted`);
    assert.ok(error instanceof RangeError, `${field}: ${error}`);
    assert.equal(error.field, field);
    assert.equal(error.code, "bad_syntax");
    assert.match(error.message, /no unpaired surrogate/);
  }
  // Text that is Unicode, surrogate pairs included, is taken as it is.
  const a = stampede.Budget.forCallSite(`pair 😀 ${process.pid}`);
  const b = stampede.Budget.forCallSite(`pair \ufffd ${process.pid}`);
  assert.equal(a.callSite, `pair 😀 ${process.pid}`);
  a.tryRetry();
  assert.notEqual(a.tokens(), b.tokens(), "two call sites");
  a.free();
  b.free();
});
