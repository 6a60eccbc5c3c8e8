// The in-browser demo API (www/src/demo/): the request → answer logic the page's Service
// Worker runs, checked on its own and against `stampede serve` itself, query by query.

import { test } from "node:test";
import assert from "node:assert/strict";
import { DEMO_DIR, DemoStore, MAX_BODY_BYTES, MAX_HEAD_BYTES, answer, reasonPhrase, type DemoAnswer } from "../../www/src/demo/api.js";
import { isHttpDate, shown } from "../../www/src/demo/params.js";
import { DEMO_PATH, demoLiveUrl, endpointOf, fetchable, isServerHealth, mayBeServed } from "../../www/src/logic/live.js";
import { serve } from "./serve.js";

/** One request to a fresh or given store, at time `now`. */
function ask(path: string, query = "", { store = new DemoStore(), now = 0, method = "GET" } = {}): DemoAnswer {
  return answer(store, { method, path, query, now });
}

function body(a: DemoAnswer): unknown {
  return a.body === null ? null : JSON.parse(a.body);
}

test("flaky fails `fail` times with `status`, then answers 200; hints go with the failures only", () => {
  const store = new DemoStore();
  const q = "?key=k1&fail=2&status=429&retry_after=3&pushback_ms=-1";
  const answers = [1, 2, 3, 4].map(() => ask("flaky", q, { store }));
  assert.deepEqual(
    answers.map((a) => a.status),
    [429, 429, 200, 200],
  );
  assert.deepEqual(body(answers[0]!), { key: "k1", attempt: 1, status: 429 });
  assert.deepEqual(body(answers[2]!), { key: "k1", attempt: 3 });
  assert.equal(answers[1]!.headers["retry-after"], "3");
  assert.equal(answers[1]!.headers["grpc-retry-pushback-ms"], "-1");
  assert.equal(answers[2]!.headers["retry-after"], undefined);
  assert.equal(answers[2]!.headers["grpc-retry-pushback-ms"], undefined);
  for (const a of answers) assert.equal(a.headers["cache-control"], "no-store");
  // The default failing status is 503; each key counts on its own.
  assert.equal(ask("flaky", "key=k2&fail=1", { store }).status, 503);
  assert.equal(ask("flaky", "key=k2&fail=1", { store }).status, 200);
  assert.equal(ask("flaky", "key=k1&fail=2", { store }).status, 200);
});

test("outage answers 503 for down_ms after the key's first request, then 200", () => {
  const store = new DemoStore();
  const at = (now: number) => ask("outage", "key=o&down_ms=1000", { store, now });
  const first = at(5_000);
  assert.equal(first.status, 503);
  assert.deepEqual(body(first), { key: "o", attempt: 1, status: 503, up: false });
  assert.equal(at(5_999).status, 503);
  const up = at(6_000);
  assert.equal(up.status, 200);
  assert.deepEqual(body(up), { key: "o", attempt: 3, up: true });
  assert.equal(ask("outage", "key=z&down_ms=0").status, 200);
});

test("status/{code} always answers code, with no body for 204, 205 and 304", () => {
  assert.deepEqual(body(ask("status/418")), { status: 418 });
  assert.equal(ask("status/500", "retry_after=2").headers["retry-after"], "2");
  assert.equal(ask("status/200", "retry_after=2").headers["retry-after"], undefined);
  for (const code of [204, 205, 304]) assert.equal(ask(`status/${code}`).body, null, String(code));
  assert.equal(ask("status/199").status, 400);
  assert.deepEqual(body(ask("status/%FF")), { error: 'code: expected UTF-8 text once percent-decoded, got "%FF"' });
  assert.equal(ask("status/600").status, 400);
  assert.deepEqual(body(ask("status/abc")), {
    error: 'code: expected an HTTP status from 200 to 599 (1xx is not a final status), got "abc"',
  });
  // With a key, the request counts for it.
  const store = new DemoStore();
  ask("status/503", "key=s", { store });
  assert.deepEqual(body(ask("flaky", "key=s&fail=1", { store })), { key: "s", attempt: 2 });
});

test("slow answers 200 after ms (at most 10 s); the Service Worker does the waiting", () => {
  const a = ask("slow", "ms=250");
  assert.equal(a.status, 200);
  assert.equal(a.delayMs, 250);
  assert.deepEqual(body(a), { slept_ms: 250 });
  assert.deepEqual(body(ask("slow", "ms=10001")), { error: 'ms: expected a whole number from 0 to 10000, got "10001"' });
  assert.equal(ask("flaky", "key=k&fail=1").delayMs, undefined);
});

test("reset forgets a key; health is ok; anything else is a 404", () => {
  const store = new DemoStore();
  ask("flaky", "key=r&fail=1", { store });
  assert.deepEqual(body(ask("reset", "key=r", { store })), { key: "r", reset: true });
  assert.equal(ask("flaky", "key=r&fail=1", { store }).status, 503);
  assert.deepEqual(body(ask("health")), { ok: true });
  const missing = ask("nope");
  assert.equal(missing.status, 404);
  assert.deepEqual(body(missing), { error: `no such endpoint: ${DEMO_DIR}nope` });
  assert.equal(ask("status/").status, 404);
  assert.equal(ask("status/503/x").status, 404);
});

test("OPTIONS is answered empty and never counted, as stampede serve answers a preflight", () => {
  const store = new DemoStore();
  for (const path of ["flaky", "outage", "status/503", "nope"]) {
    const a = ask(path, "key=o&fail=1", { store, method: "OPTIONS" });
    assert.deepEqual([a.status, a.body], [200, null], path);
  }
  // The key was never seen: its first real attempt still fails.
  assert.equal(ask("flaky", "key=o&fail=1", { store }).status, 503);
});

test("a body past 64 KiB is a 413 and a head past 32 KiB a 431, as stampede serve's, neither counted", () => {
  const store = new DemoStore();
  const big = answer(store, { method: "POST", path: "flaky", query: "key=b&fail=1", now: 0, bodyBytes: MAX_BODY_BYTES + 1 });
  assert.equal(big.status, 413);
  assert.deepEqual(body(big), { error: `body: larger than the limit of ${MAX_BODY_BYTES} bytes` });
  assert.equal(reasonPhrase(413), "Payload Too Large");
  const fits = answer(store, { method: "POST", path: "flaky", query: "key=b&fail=1", now: 0, bodyBytes: MAX_BODY_BYTES });
  assert.equal(fits.status, 503, "the first counted attempt: the 413 was not one");
  // A 2 MB query is refused before any of it is decoded (it held the worker for seconds).
  const t0 = performance.now();
  const long = ask("flaky", `key=l&fail=0&pad=${"%41".repeat(700_000)}`, { store });
  assert.equal(long.status, 431);
  assert.ok(performance.now() - t0 < 50, `${performance.now() - t0} ms`);
  assert.equal(reasonPhrase(431), "Request Header Fields Too Large");
  assert.equal(ask("flaky", `key=l&fail=0&pad=${"a".repeat(MAX_HEAD_BYTES - 100)}`, { store }).status, 200);
});

test("bad parameters are 400s naming the parameter, in stampede serve's words", () => {
  const cases: [string, string, string][] = [
    ["flaky", "fail=1", "key: missing; expected 1 to 200 bytes"],
    ["flaky", "key=&fail=1", "key: expected 1 to 200 bytes, got an empty key"],
    ["flaky", `key=${"%C3%A9".repeat(101)}&fail=1`, "key: expected 1 to 200 bytes, got 202 bytes"],
    ["flaky", "key=k", "fail: missing; expected a whole number from 0 to 1000"],
    ["flaky", "key=k&fail=x", 'fail: expected a whole number from 0 to 1000, got "x"'],
    ["flaky", "key=k&fail=1001", 'fail: expected a whole number from 0 to 1000, got "1001"'],
    ["flaky", "key=k&fail=-1", 'fail: expected a whole number from 0 to 1000, got "-1"'],
    ["flaky", "key=k&fail=1&status=200", 'status: expected a failing HTTP status from 400 to 599, got "200"'],
    ["flaky", "key=%FF&fail=1", 'key: expected UTF-8 text once percent-decoded, got "%FF"'],
    ["outage", "key=k&down_ms=600001", 'down_ms: expected a whole number from 0 to 600000, got "600001"'],
    ["flaky", "key=k&fail=1&pushback_ms=2147483648", 'pushback_ms: expected a signed 32-bit integer, got "2147483648"'],
    ["flaky", "key=k&fail=1&retry_after=soon", 'retry_after: expected delta-seconds (digits, at most 18446744073709551615) or an HTTP-date such as "Wed, 21 Oct 2015 07:28:00 GMT", got "soon"'],
    ["flaky", "key=k&fail=1&retry_after=18446744073709551616", 'retry_after: expected delta-seconds (digits, at most 18446744073709551615) or an HTTP-date such as "Wed, 21 Oct 2015 07:28:00 GMT", got "18446744073709551616"'],
  ];
  for (const [path, query, message] of cases) {
    const a = ask(path, query);
    assert.equal(a.status, 400, `${path}?${query}`);
    assert.deepEqual(body(a), { error: message }, `${path}?${query}`);
  }
  const method = ask("flaky", "key=k&fail=1", { method: "UPDATEREDIRECTREF" });
  assert.deepEqual(body(method), { error: 'method: expected at most 16 bytes, got 17 bytes ("UPDATEREDIRECTREF")' });
  // Only the endpoints that record a request look at its method.
  assert.equal(ask("health", "", { method: "UPDATEREDIRECTREF" }).status, 200);
});

test("queries are form-decoded, and the first occurrence of a name wins", () => {
  assert.deepEqual(body(ask("flaky", "key=a+b%2Bc%C3%A9&fail=0&fail=x")), { key: "a b+cé", attempt: 1 });
  assert.deepEqual(body(ask("flaky", "k%65y=v&fail=%31")), { key: "v", attempt: 1, status: 503 });
  assert.deepEqual(body(ask("flaky", "key=100%&fail=0")), { key: "100%", attempt: 1 });
});

test("HTTP-dates are the httpdate crate's: three formats, real dates, right weekdays", () => {
  for (const ok of ["Wed, 21 Oct 2015 07:28:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", " Thu, 01 Jan 1970 00:00:00 GMT "]) {
    assert.ok(isHttpDate(ok), ok);
  }
  for (const bad of ["Thu, 21 Oct 2015 07:28:00 GMT", "Wed, 32 Oct 2015 07:28:00 GMT", "Mon, 29 Feb 2021 00:00:00 GMT", "Wed, 21 Oct 2015 24:00:00 GMT", "Wed, 31 Dec 1969 23:59:59 GMT", "21 Oct 2015", ""]) {
    assert.ok(!isHttpDate(bad), bad);
  }
});

test("the demo remembers at most maxKeys keys, forgetting the oldest first", () => {
  const store = new DemoStore(3);
  for (const k of ["a", "b", "c", "d"]) ask("flaky", `key=${k}&fail=1`, { store });
  assert.equal(store.size, 3);
  // "a" was forgotten: it fails afresh; "d" remembers its first request.
  assert.equal(ask("flaky", "key=a&fail=1", { store }).status, 503);
  assert.equal(ask("flaky", "key=d&fail=1", { store }).status, 200);
  assert.equal(store.size, 3);
});

test("messages quote values as Rust's {:?} does, cut after 40 characters", () => {
  assert.equal(shown('a"b\\c\n'), '"a\\"b\\\\c\\n"');
  assert.equal(shown("é".repeat(45)), `"${"é".repeat(40)}"…`);
  // What Rust escapes as \u{…}, as printed by a Rust program (rustc 1.95) for these inputs:
  // format and control characters, separators but the space, private use, unassigned,
  // grapheme extenders; letters with accents stay.
  const rust: [string, string][] = [
    ["\u{feff}a", '"\\u{feff}a"'],
    ["a\u{200b}b", '"a\\u{200b}b"'],
    ["\u{80}", '"\\u{80}"'],
    ["e\u{301}", '"e\\u{301}"'],
    ["a\u{a0}b", '"a\\u{a0}b"'],
    ["é ü", '"é ü"'],
    ["\u{2028}", '"\\u{2028}"'],
    ["\u{e000}", '"\\u{e000}"'],
    ["\u{10ffff}", '"\\u{10ffff}"'],
  ];
  for (const [input, want] of rust) assert.equal(shown(input), want, JSON.stringify(input));
  assert.equal(reasonPhrase(503), "Service Unavailable");
  assert.equal(reasonPhrase(299), "");
});

test("the page and its worker agree on the demo's folder; the panel tells endpoints apart", () => {
  assert.equal(DEMO_PATH, DEMO_DIR);
  const page = "https://example.org/some/deep/path/";
  assert.equal(endpointOf(demoLiveUrl("k"), page), "demo");
  assert.equal(new URL(demoLiveUrl("k"), page).pathname, "/some/deep/path/demo-api/flaky");
  assert.equal(endpointOf("/api/flaky?key=k", page), "server");
  assert.equal(endpointOf("https://other.example/api/flaky", page), "custom");
  assert.equal(endpointOf("/demo-api/flaky", page), "custom");
  assert.ok(mayBeServed("/") && mayBeServed("/index.html"));
  assert.ok(!mayBeServed("/some/deep/path/"));
  assert.ok(isServerHealth(200, { ok: true }));
  assert.ok(!isServerHealth(404, { ok: true }) && !isServerHealth(200, null) && !isServerHealth(200, { ok: "yes" }));
});

/**
 * The same requests, in the same order, to `stampede serve` and to the demo: the same
 * statuses, bodies and hint headers. Needs target/release/stampede (`make build`).
 */
test("the demo answers as stampede serve does, query by query", async (t) => {
  // Only the API is compared: an empty folder stands in for the page, which this suite
  // runs before `make dist` has built it.
  const origin = await serve(t);
  if (origin === undefined) return;
  const requests: [string, string, string?][] = [
    ["flaky", "key=d1&fail=2&retry_after=1"],
    ["flaky", "key=d1&fail=2&retry_after=1"],
    ["flaky", "key=d1&fail=2&retry_after=1"],
    ["flaky", "key=d2&fail=1&status=429&pushback_ms=+250"],
    ["flaky", "key=d2&fail=1&status=429&pushback_ms=+250"],
    ["flaky", "key=d3&fail=1&retry_after=Wed,%2021%20Oct%202015%2007:28:00%20GMT"],
    ["flaky", "key=d3&fail=1&retry_after=Wed,%2032%20Oct%202015%2007:28:00%20GMT"],
    ["flaky", "key=d3b&fail=1&retry_after=18446744073709551616"],
    ["flaky", "key=a+b%2Bc%C3%A9&fail=0&fail=x"],
    ["flaky", "key=%FF&fail=1"],
    ["flaky", "fail=1"],
    ["flaky", "key=&fail=1"],
    ["flaky", `key=${"k".repeat(201)}&fail=1`],
    ["flaky", "key=k&fail=1001"],
    ["flaky", "key=k&fail=007"],
    ["flaky", "key=k&fail=1&status=600"],
    ["flaky", "key=k&fail=1&pushback_ms=1.5"],
    ["flaky", "key=k&fail=1&retry_after=-1"],
    ["outage", "key=o1&down_ms=600000"],
    ["outage", "key=o2&down_ms=0"],
    ["outage", "key=o3&down_ms=x"],
    ["status/503", "retry_after=5&key=s1"],
    ["status/200", "retry_after=5"],
    ["status/204", ""],
    ["status/199", ""],
    ["status/abc", ""],
    // A code that is not UTF-8 once decoded, and one with a stray `%`: the same words.
    ["status/%FF", ""],
    ["status/50%33%", ""],
    ["reset", "key=d1"],
    ["flaky", "key=d1&fail=2"],
    ["health", ""],
    ["slow", "ms=5&key=d1"],
    ["slow", "ms=x"],
    ["flaky", "key=d1&fail=2"],
    ["nope", ""],
    ["flaky", "key=m&fail=1", "PUT"],
    ["flaky", "key=m&fail=1", "UPDATEREDIRECTREF"],
    ["health", "", "UPDATEREDIRECTREF"],
    // A leading byte-order mark is part of a name or value, as in Rust (not dropped).
    ["flaky", "key=%EF%BB%BFbom&fail=1"],
    ["flaky", "key=bom&fail=1"],
    ["flaky", "key=b2&fail=%EF%BB%BF1"],
    ["flaky", "%EF%BB%BFkey=zz&fail=1"],
    ["flaky", "key=%EF%BB%BF&fail=1"],
    // Whole numbers past u64 are not numbers to Rust.
    ["flaky", "key=big&fail=1&retry_after=18446744073709551616"],
    ["flaky", "key=big2&fail=1&retry_after=18446744073709551615"],
    ["flaky", "key=k&fail=99999999999999999999999"],
    ["status/", "", "UPDATEREDIRECTREF"],
    ["status/a/b", "", "UPDATEREDIRECTREF"],
  ];
  const store = new DemoStore();
  for (const [path, query, method = "GET"] of requests) {
    const real = await fetch(`${origin}/api/${path}?${query}`, { method });
    const realBody = await real.text();
    const demo = answer(store, { method, path, query, now: 0 });
    const what = `${method} ${path}?${query}`;
    assert.equal(demo.status, real.status, what);
    const demoBody = demo.body ?? "";
    // The 404's message names the path, which differs (/api/ against demo-api/).
    assert.equal(demoBody.replace(DEMO_DIR, "/api/"), realBody, what);
    for (const h of ["retry-after", "grpc-retry-pushback-ms", "cache-control"]) {
      assert.equal(demo.headers[h] ?? null, real.headers.get(h), `${what}: ${h}`);
    }
    assert.equal(reasonPhrase(demo.status), real.statusText, `${what}: reason`);
  }
});

test("the live panel calls only what fetch can call: http or https addresses that parse", () => {
  const page = "https://teach.example/jitter/";
  for (const ok of ["/api/flaky?key=k", "demo-api/flaky", "http://127.0.0.1:8080/x", "https://[::1]:443/", "HTTPS://EXAMPLE.ORG", "http://127.0.0.1:6001/", "http://127.0.0.1:80/"]) {
    assert.equal(fetchable(ok, page), true, ok);
  }
  // A port fetch blocks (Chromium's ERR_UNSAFE_PORT) fails at once on every attempt, as a
  // refused connection would look: the panel once retried it for 14 s.
  const blocked = ["http://127.0.0.1:1/", "http://127.0.0.1:9/", "http://localhost:6000/x", "https://example.org:22/", "http://[::1]:10080/"];
  for (const bad of ["", "http://[::1", "javascript:alert(1)", "data:text/plain,hi", "ftp://example.org/", "http://exa mple.org/", ...blocked]) {
    assert.equal(fetchable(bad, page), false, bad);
  }
});
