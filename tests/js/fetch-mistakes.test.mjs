// retryFetch against the caller's mistakes that no validation of one call sees: a bytes body
// changed (or detached) after the call, a URL, headers or a form changed after the call, a fetch that calls retryFetch in turn, and more calls
// in flight than a module can hold. Each must settle with a clear error or do what fetch does,
// and leave the module alive. Both entries (fetch-slim.test.mjs runs this file against
// stampede/fetch).
import test from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { stampede } from "./load.mjs";

const { retryFetch, classify } = stampede;
const realFetch = globalThis.fetch;
const fast = { strategy: "constant", baseMs: 20, capMs: 20, maxAttempts: 3 };
const alive = () => assert.equal(classify({ status: 503 }).action, "retry", "the module lives on");

/** A server on 127.0.0.1 that answers 503 to every request but the third (200), recording
 *  the bodies it received, and each request's path and `x-a` header in `seen`. */
async function flaky() {
  const bodies = [];
  const seen = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      bodies.push(body);
      seen.push(`${req.url} ${req.headers["x-a"]}`);
      res.statusCode = bodies.length % 3 === 0 ? 200 : 503;
      res.end("x");
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/`, bodies, seen, close: () => server.close() };
}

test("a bytes body is copied when retryFetch is called, as fetch copies it: every attempt sends the same bytes", async () => {
  const s = await flaky();
  try {
    // Written into after the call: the retries sent the new bytes ("aaaa", "bbbb", "bbbb").
    const bytes = new TextEncoder().encode("aaaa");
    const call = retryFetch(s.url, { method: "PUT", body: bytes }, { policy: fast });
    setTimeout(() => bytes.fill(98), 5);
    assert.equal((await call).status, 200);
    assert.deepEqual(s.bodies.splice(0), ["aaaa", "aaaa", "aaaa"]);
    // A view into a larger buffer sends its own bytes only; a DataView too.
    const big = new TextEncoder().encode("xxhelloxx");
    assert.equal((await retryFetch(s.url, { method: "PUT", body: big.subarray(2, 7) }, { policy: fast })).status, 200);
    assert.deepEqual(s.bodies.splice(0), ["hello", "hello", "hello"]);
    // Detached right after the call (transferred away): the call still sends its bytes.
    const buffer = new TextEncoder().encode("cccc").buffer;
    const detached = retryFetch(s.url, { method: "PUT", body: buffer }, { policy: fast });
    structuredClone(buffer, { transfer: [buffer] });
    assert.equal(buffer.byteLength, 0, "detached");
    assert.equal((await detached).status, 200);
    assert.deepEqual(s.bodies.splice(0), ["cccc", "cccc", "cccc"]);
    // Detached before the call: nothing can be sent, a TypeError naming init.body.
    const gone = new ArrayBuffer(4);
    structuredClone(gone, { transfer: [gone] });
    await assert.rejects(retryFetch(s.url, { method: "PUT", body: gone }, { policy: fast }), (e) => e instanceof TypeError && e.field === "init.body" && e.code === "wrong_type" && /^init\.body: expected bytes that are not detached/.test(e.message));
    assert.deepEqual(s.bodies, [], "nothing sent");
  } finally {
    s.close();
  }
  alive();
});

test("the URL, headers and form a call is given are read when it is made, as fetch reads them: every attempt sends those", async () => {
  const s = await flaky();
  try {
    // A URL changed right after the call (a loop that reuses one): every attempt went to the
    // new path, and the full entry's first one too (it sends after a microtask).
    const url = new URL(`${s.url}orders/1`);
    const sent = retryFetch(url, undefined, { policy: fast });
    url.pathname = "/orders/2";
    assert.equal((await sent).status, 200);
    assert.deepEqual(s.seen.splice(0), Array(3).fill("/orders/1 undefined"));
    // An object that is no URL is read as its text once.
    let reads = 0;
    const named = { toString: () => `${s.url}read/${++reads}` };
    assert.equal((await retryFetch(named, undefined, { policy: fast })).status, 200);
    assert.deepEqual(s.seen.splice(0), Array(3).fill("/read/1 undefined"));
    // Headers of every shape, changed right after the call and again before the retries.
    for (const [shape, headers, change] of [
      ["Headers", new Headers({ "x-a": "1" }), (h) => h.set("x-a", "2")],
      ["a record", { "x-a": "1" }, (h) => (h["x-a"] = "2")],
      ["pairs", [["x-a", "1"]], (h) => (h[0][1] = "2")],
    ]) {
      const call = retryFetch(s.url, { headers }, { policy: fast });
      change(headers);
      assert.equal((await call).status, 200, shape);
      assert.deepEqual(s.seen.splice(0), Array(3).fill("/ 1"), shape);
    }
    // Pairs from a generator, which gives them once: every attempt sends them (a retry read
    // the spent generator, and went without).
    const pairs = function* () {
      yield ["x-a", "1"];
    };
    assert.equal((await retryFetch(s.url, { headers: pairs() }, { policy: fast })).status, 200);
    assert.deepEqual(s.seen.splice(0), Array(3).fill("/ 1"));
    // Something with a `clone` but no `bodyUsed` (a URI library's object) is no Request: read
    // as its text, once.
    let uris = 0;
    const uri = { clone() { return this; }, toString: () => `${s.url}uri/${++uris}` };
    assert.equal((await retryFetch(uri, undefined, { policy: fast })).status, 200);
    assert.deepEqual(s.seen.splice(0), Array(3).fill("/uri/1 undefined"));
    // A wrapper whose `clone` returns a real Request: each attempt clones that copy with its
    // own clone (the wrapper's, called on the copy, found no wrapped Request there).
    const wrapper = { inner: new Request(`${s.url}wrapped`, { headers: { "x-a": "w" } }), bodyUsed: false, clone() { return this.inner.clone(); } };
    assert.equal((await retryFetch(wrapper, undefined, { policy: fast })).status, 200);
    assert.deepEqual(s.seen.splice(0), Array(3).fill("/wrapped w"));
    // A Request's own headers, set after the call: not on the retries.
    const request = new Request(`${s.url}req`, { headers: { "x-a": "1" } });
    const fromRequest = retryFetch(request, undefined, { policy: fast });
    request.headers.set("x-a", "2");
    assert.equal((await fromRequest).status, 200);
    assert.deepEqual(s.seen.splice(0), Array(3).fill("/req 1"));
    assert.equal(request.bodyUsed, false, "the caller's Request stays unread");
    // A form body changed after the call.
    s.bodies.splice(0);
    const form = new URLSearchParams({ v: "1" });
    const posted = retryFetch(s.url, { method: "PUT", body: form }, { policy: fast });
    form.set("v", "2");
    assert.equal((await posted).status, 200);
    assert.deepEqual(s.bodies.splice(0), ["v=1", "v=1", "v=1"]);
    const data = new FormData();
    data.set("v", "1");
    const multipart = retryFetch(s.url, { method: "PUT", body: data }, { policy: fast });
    data.set("v", "2");
    assert.equal((await multipart).status, 200);
    const got = s.bodies.splice(0);
    assert.equal(got.length, 3);
    for (const b of got) assert.match(b, /name="v"\r\n\r\n1\r\n/, b);
    // A file in a form keeps its name and type in the copy.
    const files = new FormData();
    files.set("f", new File(["abc"], "a.txt", { type: "text/plain" }));
    assert.equal((await retryFetch(s.url, { method: "PUT", body: files }, { policy: fast })).status, 200);
    for (const b of s.bodies.splice(0)) assert.match(b, /name="f"; filename="a\.txt"\r\nContent-Type: text\/plain\r\n\r\nabc\r\n/, b);
    s.seen.splice(0);
    // A toString that throws names the input; a header getter that throws names init.headers.
    await assert.rejects(retryFetch({ toString() { throw new Error("boom"); } }), (e) => e instanceof TypeError && /^input: threw/.test(e.message) && /boom/.test(e.message));
    await assert.rejects(retryFetch({ get clone() { throw new Error("boom"); } }), (e) => e instanceof TypeError && e.field === "input.clone" && /^input\.clone: threw/.test(e.message));
    const throwing = { get "x-a"() { throw new Error("late"); } };
    await assert.rejects(retryFetch(s.url, { headers: throwing }), (e) => e instanceof TypeError && /^init\.headers: threw/.test(e.message));
    assert.deepEqual(s.seen, [], "nothing sent");
  } finally {
    s.close();
  }
  alive();
});

test("a fetch that calls retryFetch in turn is refused 16 deep, at once or after an await, not retried, and the module lives on", async () => {
  let calls = 0;
  // The common mistake: globalThis.fetch replaced by a function that calls retryFetch, which
  // calls globalThis.fetch. It recursed without end (the slim entry's stack overflowed inside
  // its wasm and left its memory corrupt; the full entry's calls piled up until the wasm trapped).
  globalThis.fetch = (input, init) => {
    calls++;
    return retryFetch(input, init, { policy: { ...fast, baseMs: 1, capMs: 1 } });
  };
  try {
    const started = Date.now();
    const e = await retryFetch("http://127.0.0.1:59/never-sent", {}, { policy: fast }).then(() => null, (err) => err);
    assert.ok(e instanceof RangeError, String(e));
    assert.equal(e.field, "fetch");
    assert.equal(e.code, "too_much_work");
    assert.equal(e.max, 16);
    assert.match(e.message, /^fetch: expected at most 16 calls of retryFetch one inside the fetch of another/);
    // One attempt a level: the refusal climbed back without a retry at any level.
    assert.equal(calls, 16);
    assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
  } finally {
    globalThis.fetch = realFetch;
  }
  alive();
  // The same wrapper awaiting something first (a token, a log): its retryFetch runs in a later
  // task, when no fetch of ours is running, but it is made with our attempt's signal, which
  // carries the depth (it started at 0 at every level, and piled up 100,000 calls).
  calls = 0;
  globalThis.fetch = async (input, init) => {
    calls++;
    await new Promise((r) => setTimeout(r, 1));
    return retryFetch(input, init, { policy: { ...fast, baseMs: 1, capMs: 1 } });
  };
  try {
    const e = await retryFetch("http://127.0.0.1:59/never-sent", {}, { policy: fast }).then(() => null, (err) => err);
    assert.ok(e instanceof RangeError && e.field === "fetch" && e.code === "too_much_work", String(e));
    assert.equal(calls, 16);
  } finally {
    globalThis.fetch = realFetch;
  }
  alive();
  // A fetch that calls retryFetch once (a wrapper over another URL) is fine.
  let inner = 0;
  globalThis.fetch = async (input, init) => {
    if (String(input).endsWith("/outer")) {
      inner++;
      return retryFetch("http://127.0.0.1:59/inner", init, { policy: fast });
    }
    return new Response("ok");
  };
  try {
    assert.equal((await retryFetch("http://127.0.0.1:59/outer", {}, { policy: fast })).status, 200);
    assert.equal(inner, 1);
  } finally {
    globalThis.fetch = realFetch;
  }
});

test("at most 100,000 calls in flight: the next is refused naming input, and the module lives on", { timeout: 60_000 }, async () => {
  const hangs = [];
  globalThis.fetch = (_input, init) =>
    new Promise((_resolve, reject) => {
      hangs.push(() => reject(new TypeError("fetch failed")));
      init?.signal?.addEventListener("abort", () => reject(init.signal.reason));
    });
  const ctrl = new AbortController();
  const calls = [];
  try {
    for (let i = 0; i < 100_000; i++) calls.push(retryFetch("http://127.0.0.1:59/hang", {}, { policy: fast, signal: ctrl.signal }).catch((e) => e));
    const e = await retryFetch("http://127.0.0.1:59/hang", {}, { policy: fast }).then(() => null, (err) => err);
    assert.ok(e instanceof RangeError, String(e));
    assert.equal(e.field, "input");
    assert.equal(e.code, "too_much_work");
    assert.equal(e.max, 100_000);
    assert.match(e.message, /^input: expected at most 100000 calls of retryFetch in flight at once/);
  } finally {
    ctrl.abort(new Error("done"));
    await Promise.all(calls);
    globalThis.fetch = realFetch;
  }
  alive();
  // Settled, they are counted no more: a call goes out again.
  globalThis.fetch = async () => new Response("ok");
  try {
    assert.equal((await retryFetch("http://127.0.0.1:59/after", {}, { policy: fast })).status, 200);
  } finally {
    globalThis.fetch = realFetch;
  }
});

test("classify reads a Map of headers as its [name, value] pairs, names matched without regard to case", () => {
  assert.equal(classify({ status: 503, headers: new Map([["Retry-After", "3"]]) }).retryAfterMs, 3000);
  assert.equal(classify({ status: 503, headers: new Map([["retry-after", 3]]) }).retryAfterMs, 3000);
  assert.equal(classify({ status: 503, headers: new Headers([["Retry-After", "4"]]) }).retryAfterMs, 4000);
});
