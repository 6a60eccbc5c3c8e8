// retryFetch against a real HTTP server on 127.0.0.1 (the project's `stampede serve`).
// The server's /api/log is the truth about what was sent.
import test from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer } from "node:net";
import { stampede } from "./load.mjs";
import { startServer } from "./server.mjs";

const { retryFetch, Budget, RetryError, BudgetExhaustedError } = stampede;
const server = await startServer();
test.after(() => server.stop());

const fast = { strategy: "full", baseMs: 20, capMs: 100, maxAttempts: 4, seed: 1 };
let n = 0;
const key = (name) => `${name}-${process.pid}-${++n}`;
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

test("503 twice then 200: three attempts, resolves 200", async () => {
  const k = key("flaky");
  const seen = [];
  const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=2&status=503`, undefined, { policy: fast, onAttempt: (a) => seen.push(a) });
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { key: k, attempt: 3 });
  assert.deepEqual(seen.map((a) => [a.number, a.status, a.decision]), [[1, 503, "retry"], [2, 503, "retry"], [3, 200, "success"]]);
  assert.ok(seen[0].delayMs >= 0 && seen[0].delayMs <= 20 && typeof seen[0].reason === "string");
  assert.equal((await server.log(k)).length, 3);
});

test("a 404 is one attempt", async () => {
  const k = key("gone");
  const seen = [];
  const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=5&status=404`, undefined, { policy: fast, onAttempt: (a) => seen.push(a) });
  assert.equal(r.status, 404);
  assert.equal(seen.length, 1);
  assert.equal(seen[0].decision, "stop");
  assert.match(seen[0].reason, /client error/);
  assert.equal((await server.log(k)).length, 1);
});

test("a POST that gets a 503 is one attempt, unless marked idempotent", async () => {
  const k = key("post");
  const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=1&status=503`, { method: "POST", body: "{}" }, { policy: fast });
  assert.equal(r.status, 503, "gives up and hands back the last response, like fetch");
  assert.deepEqual((await server.log(k)).map((e) => [e.method, e.status]), [["POST", 503]]);
  const k2 = key("post-idem");
  const r2 = await retryFetch(`${server.base}/api/flaky?key=${k2}&fail=1&status=503`, { method: "POST", body: "{}" }, { policy: fast, idempotent: true });
  assert.equal(r2.status, 200);
  assert.equal((await server.log(k2)).length, 2);
});

test("Retry-After: 1 waits at least a second", async () => {
  const k = key("ra");
  const seen = [];
  const t0 = Date.now();
  const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=1&status=503&retry_after=1`, undefined, { policy: fast, onAttempt: (a) => seen.push(a) });
  assert.equal(r.status, 200);
  const log = await server.log(k);
  assert.ok(log[1].t_ms - log[0].t_ms >= 1000, `${log[1].t_ms - log[0].t_ms} ms between attempts`);
  assert.ok(Date.now() - t0 >= 1000);
  assert.equal(seen[0].fromServer, true);
  assert.equal(seen[0].delayMs, 1000);
});

test("an exhausted budget makes no request at all", async () => {
  const site = `GET /api/flaky ${key("site")}`;
  const b = Budget.forCallSite(site, { capacity: 1, refillPerSec: 0 });
  assert.equal(b.tryRetry(), true);
  const k = key("budget");
  await assert.rejects(
    retryFetch(`${server.base}/api/flaky?key=${k}&fail=0`, undefined, { policy: fast, callSite: site }),
    (e) => e instanceof BudgetExhaustedError && e instanceof Error && e.name === "BudgetExhaustedError" && e.callSite === site && e.retryInMs === Infinity,
  );
  assert.equal((await server.log(k)).length, 0, "the server saw nothing");
});

test("the budget is charged per retry and stops a storm", async () => {
  const site = `GET /api/status ${key("site")}`;
  const k = key("storm");
  const seen = [];
  const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=100&status=503`, undefined, {
    policy: { ...fast, maxAttempts: 10 }, callSite: site, budget: { capacity: 2, refillPerSec: 0 }, onAttempt: (a) => seen.push(a),
  });
  assert.equal(r.status, 503);
  assert.equal(seen.length, 3, "two retries paid for, the third refused");
  assert.match(seen[2].reason, /budget/);
  assert.deepEqual(seen.map((a) => a.budgetTokens), [1, 0, 0]);
  assert.equal((await server.log(k)).length, 3);
});

test("abort stops at once, with no further attempt", async () => {
  const k = key("abort");
  const ctrl = new AbortController();
  const t0 = Date.now();
  setTimeout(() => ctrl.abort(), 100);
  await assert.rejects(
    retryFetch(`${server.base}/api/slow?ms=5000&key=${k}`, undefined, { policy: fast, signal: ctrl.signal }),
    (e) => e.name === "AbortError",
  );
  assert.ok(Date.now() - t0 < 1000, `took ${Date.now() - t0} ms`);
  // Aborting during the backoff wait stops too.
  const ctrl2 = new AbortController();
  const k2 = key("abort-wait");
  const p = retryFetch(`${server.base}/api/flaky?key=${k2}&fail=5&status=503&retry_after=5`, undefined, { policy: fast, signal: ctrl2.signal });
  setTimeout(() => ctrl2.abort(), 300);
  await assert.rejects(p, (e) => e.name === "AbortError");
  await new Promise((r) => setTimeout(r, 200));
  assert.equal((await server.log(k2)).length, 1);
});

test("per-attempt timeouts are retried, then a RetryError carries the attempts", async () => {
  const k = key("timeout");
  await assert.rejects(
    retryFetch(`${server.base}/api/slow?ms=2000&key=${k}`, undefined, { policy: { ...fast, maxAttempts: 2 }, attemptTimeoutMs: 100 }),
    (e) => e instanceof RetryError && e.name === "RetryError" && e.attempts.length === 2 && e.attempts.every((a) => a.error === "timeout") && /attempts made/.test(e.reason) && e.message === `retryFetch gave up: ${e.reason}` && e.cause !== undefined,
  );
  // The last attempt's error is what fetch rejected with: a TimeoutError, as with
  // AbortSignal.timeout, not a bare AbortError.
  const e = await retryFetch(`${server.base}/api/slow?ms=2000&key=${k}`, undefined, { policy: { ...fast, maxAttempts: 1 }, attemptTimeoutMs: 50 }).catch((x) => x);
  assert.equal(e.cause?.name, "TimeoutError", String(e.cause));
});

test("a refused connection is retried up to maxAttempts", async () => {
  // A port the system just gave and took back: nothing listens there. (It was 9, the discard
  // port, which fetch blocks: a bad port, not a refused connection.)
  const probe = createServer().listen(0, "127.0.0.1");
  await once(probe, "listening");
  const port = probe.address().port;
  await new Promise((r) => probe.close(r));
  const closed = `http://127.0.0.1:${port}/`;
  await assert.rejects(
    retryFetch(closed, undefined, { policy: { ...fast, maxAttempts: 3 } }),
    (e) => e.name === "RetryError" && e.attempts.length === 3 && e.attempts[0].error === "connect",
  );
});

test("bad options reject with RangeError/TypeError naming the field", async () => {
  await assert.rejects(retryFetch(`${server.base}/api/health`, undefined, { policy: { baseMs: NaN } }), (e) => e instanceof RangeError && /policy\.baseMs/.test(e.message));
  await assert.rejects(retryFetch(`${server.base}/api/health`, undefined, { attemptTimeoutMs: -1 }), RangeError);
  await assert.rejects(retryFetch(`${server.base}/api/health`, undefined, { onAttempt: 5 }), TypeError);
  await assert.rejects(retryFetch(`${server.base}/api/health`, undefined, { signal: {} }), TypeError);
});

test("deadlineMs: a RangeError or TypeError naming deadlineMs", async () => {
  const url = `${server.base}/api/health`;
  await assert.rejects(retryFetch(url, undefined, { deadlineMs: NaN }), (e) => e instanceof RangeError && /^deadlineMs: /.test(e.message));
  await assert.rejects(retryFetch(url, undefined, { deadlineMs: -1 }), (e) => e instanceof RangeError && /^deadlineMs: expected .*got -1$/.test(e.message));
  await assert.rejects(retryFetch(url, undefined, { deadlineMs: 2 * 86_400_000 }), (e) => e instanceof RangeError && /^deadlineMs: /.test(e.message));
  await assert.rejects(retryFetch(url, undefined, { deadlineMs: "30s" }), (e) => e instanceof TypeError && /^deadlineMs: expected a number/.test(e.message));
});

test("deadlineMs: no retry starts after it, and it combines with maxElapsedMs as the smaller", async () => {
  // The server asks for 1 s; a 500 ms deadline means no second attempt.
  for (const [opts, label] of [
    [{ policy: fast, deadlineMs: 500 }, "deadlineMs alone"],
    [{ policy: { ...fast, maxElapsedMs: 500 }, deadlineMs: 30_000 }, "maxElapsedMs smaller than deadlineMs"],
    [{ policy: { ...fast, maxElapsedMs: 30_000 }, deadlineMs: 500 }, "deadlineMs smaller than maxElapsedMs"],
  ]) {
    const k = key("deadline");
    const seen = [];
    const t0 = Date.now();
    const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=5&status=503&retry_after=1`, undefined, { ...opts, onAttempt: (a) => seen.push(a) });
    assert.equal(r.status, 503, label);
    assert.equal(seen.length, 1, label);
    assert.equal(seen[0].decision, "stop", label);
    assert.match(seen[0].reason, /past the 500 ms deadline/, label);
    assert.ok(Date.now() - t0 < 900, `${label}: gave up at once, not after the 1 s wait`);
    assert.equal((await server.log(k)).length, 1, label);
  }
});

test("deadlineMs: an attempt still running at the deadline is cut off", async () => {
  const k = key("deadline-slow");
  const t0 = Date.now();
  await assert.rejects(
    retryFetch(`${server.base}/api/slow?ms=3000&key=${k}`, undefined, { policy: fast, deadlineMs: 300 }),
    (e) => e instanceof RetryError && e.attempts.length === 1 && e.attempts[0].error === "timeout",
  );
  const took = Date.now() - t0;
  assert.ok(took >= 250 && took < 1500, `took ${took} ms`);
});

test("an HTTP-date Retry-After is honoured", async () => {
  const k = key("ra-date");
  const seen = [];
  // A whole second 1.5 to 2.5 s ahead, so the date (which has whole seconds) is exact.
  const at = Math.ceil((Date.now() + 1500) / 1000) * 1000;
  const date = new Date(at).toUTCString();
  const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=1&status=503&retry_after=${encodeURIComponent(date)}`, undefined, {
    policy: fast, onAttempt: (a) => seen.push(a),
  });
  assert.equal(r.status, 200);
  assert.equal(seen[0].fromServer, true);
  assert.ok(seen[0].delayMs >= 1000 && seen[0].delayMs <= 2500, `delay ${seen[0].delayMs}`);
  const log = await server.log(k);
  assert.equal(log.length, 2);
  assert.ok(log[1].unix_ms >= at - 5, `second attempt at ${log[1].unix_ms}, the server said ${at}`);
});

test("grpc-retry-pushback-ms is honoured, and a negative one stops", async () => {
  const k = key("pushback");
  const seen = [];
  const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=1&status=503&pushback_ms=300`, undefined, { policy: fast, onAttempt: (a) => seen.push(a) });
  assert.equal(r.status, 200);
  assert.deepEqual([seen[0].delayMs, seen[0].fromServer], [300, true]);
  const log = await server.log(k);
  assert.ok(log[1].t_ms - log[0].t_ms >= 295, `${log[1].t_ms - log[0].t_ms} ms between attempts`);
  const k2 = key("pushback-neg");
  const r2 = await retryFetch(`${server.base}/api/flaky?key=${k2}&fail=5&status=503&pushback_ms=-1`, undefined, { policy: fast });
  assert.equal(r2.status, 503);
  assert.equal((await server.log(k2)).length, 1);
});

test("PATCH is not retried, unless idempotent: true (POST too)", async () => {
  const k = key("patch");
  const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=1&status=503`, { method: "PATCH", body: "{}" }, { policy: fast });
  assert.equal(r.status, 503);
  assert.deepEqual((await server.log(k)).map((e) => [e.method, e.status]), [["PATCH", 503]]);
  for (const method of ["PATCH", "POST"]) {
    const k2 = key(`${method}-idem`);
    const r2 = await retryFetch(`${server.base}/api/flaky?key=${k2}&fail=2&status=503`, { method, body: "{}" }, { policy: fast, idempotent: true });
    assert.equal(r2.status, 200, method);
    assert.deepEqual((await server.log(k2)).map((e) => [e.method, e.status]), [[method, 503], [method, 503], [method, 200]]);
  }
});

test("a signal already aborted before the call: rejects with its reason, nothing is sent", async () => {
  const k = key("pre-abort");
  const ctrl = new AbortController();
  const reason = new Error("user left the page");
  ctrl.abort(reason);
  let calls = 0;
  await assert.rejects(
    retryFetch(`${server.base}/api/flaky?key=${k}&fail=0`, undefined, { policy: fast, signal: ctrl.signal, onAttempt: () => calls++ }),
    (e) => e === reason,
  );
  const ctrl2 = new AbortController();
  ctrl2.abort();
  await assert.rejects(
    retryFetch(`${server.base}/api/flaky?key=${k}&fail=0`, { signal: ctrl2.signal }, { policy: fast }),
    (e) => e.name === "AbortError",
    "init.signal already aborted",
  );
  await pause(100);
  assert.equal(calls, 0);
  assert.equal((await server.log(k)).length, 0, "the server saw nothing");
});

test("an abort from inside onAttempt stops at once: no further request", async () => {
  const k = key("abort-in-callback");
  const ctrl = new AbortController();
  const seen = [];
  const t0 = Date.now();
  await assert.rejects(
    retryFetch(`${server.base}/api/flaky?key=${k}&fail=5&status=503`, undefined, {
      policy: fast, signal: ctrl.signal,
      onAttempt: (a) => { seen.push(a); if (a.number === 1) ctrl.abort(); },
    }),
    (e) => e.name === "AbortError",
  );
  assert.ok(Date.now() - t0 < 1000);
  await pause(300); // longer than any of the policy's waits (≤ 100 ms)
  assert.equal(seen.length, 1);
  assert.equal(seen[0].decision, "retry", "the policy wanted to retry; the abort won");
  assert.equal((await server.log(k)).length, 1);
});

test("init.signal aborts like the signal option", async () => {
  const k = key("init-signal");
  const ctrl = new AbortController();
  const t0 = Date.now();
  setTimeout(() => ctrl.abort(), 100);
  await assert.rejects(
    retryFetch(`${server.base}/api/slow?ms=5000&key=${k}`, { signal: ctrl.signal }, { policy: fast }),
    (e) => e.name === "AbortError",
  );
  assert.ok(Date.now() - t0 < 1000, `took ${Date.now() - t0} ms`);
  // During a wait: the 5 s Retry-After is cut short, and nothing more is sent.
  const k2 = key("init-signal-wait");
  const ctrl2 = new AbortController();
  const other = new AbortController();
  const p = retryFetch(`${server.base}/api/flaky?key=${k2}&fail=5&status=503&retry_after=5`, { signal: ctrl2.signal }, { policy: fast, signal: other.signal });
  setTimeout(() => ctrl2.abort(new Error("init says stop")), 300);
  const t1 = Date.now();
  await assert.rejects(p, (e) => e.message === "init says stop");
  assert.ok(Date.now() - t1 < 1500);
  await pause(100);
  assert.equal((await server.log(k2)).length, 1);
  await assert.rejects(retryFetch(`${server.base}/api/health`, { signal: {} }, { policy: fast }), (e) => e instanceof TypeError && /^init\.signal: expected an AbortSignal/.test(e.message));
});

test("bodies that cannot be sent again are refused before anything is sent; a Request is cloned per attempt", async () => {
  const k = key("stream-body");
  const body = new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode("{}")); c.close(); } });
  await assert.rejects(
    retryFetch(`${server.base}/api/flaky?key=${k}&fail=0`, { method: "POST", body, duplex: "half" }, { policy: fast, idempotent: true }),
    (e) => e instanceof TypeError && /^init\.body: a ReadableStream can be sent only once/.test(e.message) && e.field === "init.body" && e.code === "wrong_type",
  );
  const used = new Request(`${server.base}/api/flaky?key=${k}&fail=0`, { method: "POST", body: "{}" });
  await used.text();
  await assert.rejects(retryFetch(used, undefined, { policy: fast }), (e) => e instanceof TypeError && /^input: the Request's body was already used/.test(e.message) && e.field === "input" && e.code === "wrong_type");
  assert.equal((await server.log(k)).length, 0, "nothing was sent");
  // A fresh Request with a body is sent whole on every attempt (a clone each time).
  const k2 = key("request-body");
  const req = new Request(`${server.base}/api/flaky?key=${k2}&fail=2&status=503`, { method: "POST", body: '{"order":1}' });
  const r = await retryFetch(req, undefined, { policy: fast, idempotent: true });
  assert.equal(r.status, 200);
  assert.deepEqual((await server.log(k2)).map((e) => e.status), [503, 503, 200]);
  assert.equal(req.bodyUsed, false, "the caller's Request is left unread");
});

test("retryFetch's budget settings reconfigure an existing call site (the registry rule)", async () => {
  const site = `GET /api/flaky ${key("live-panel")}`;
  const b = Budget.forCallSite(site, { capacity: 2, refillPerSec: 0 });
  assert.ok(b.tryRetry() && b.tryRetry());
  const url = (k) => `${server.base}/api/flaky?key=${k}&fail=0`;
  const k = key("panel");
  await assert.rejects(retryFetch(url(k), undefined, { policy: fast, callSite: site }), (e) => e instanceof BudgetExhaustedError && e.retryInMs === Infinity);
  // New settings from the panel: the tokens are kept (still 0), but the new refill rate holds
  // from now on, which the error already reports.
  await assert.rejects(
    retryFetch(url(k), undefined, { policy: fast, callSite: site, budget: { capacity: 2, refillPerSec: 1000 } }),
    (e) => e instanceof BudgetExhaustedError && e.retryInMs > 0 && e.retryInMs <= 1.0001,
  );
  await pause(20);
  const r = await retryFetch(url(k), undefined, { policy: fast, callSite: site });
  assert.equal(r.status, 200);
  assert.equal((await server.log(k)).length, 1, "only the admitted call reached the server");
  assert.equal(b.tokens(), 2, "refilled at the new rate, up to the capacity");
  // A smaller capacity clamps the tokens at once (missing fields take the defaults: +1/s).
  await assert.rejects(
    retryFetch(url(k), undefined, { policy: fast, callSite: site, budget: { capacity: 0.5 } }),
    (e) => e instanceof BudgetExhaustedError && e.tokens === 0.5,
  );
});

test("wrong types in retryFetch's arguments name the argument", async () => {
  const url = `${server.base}/api/health`;
  await assert.rejects(retryFetch(url, 5, {}), (e) => e instanceof TypeError && /^init: expected an object, got 5$/.test(e.message));
  await assert.rejects(retryFetch(url, undefined, { callSite: 42 }), (e) => e instanceof TypeError && /^callSite: expected a string, got 42$/.test(e.message));
  // A budget without a call site is the call's own (issue #12): accepted, and checked.
  assert.equal((await retryFetch(url, undefined, { budget: { capacity: 1 } })).status, 200);
  await assert.rejects(retryFetch(url, undefined, { budget: 3 }), (e) => e instanceof TypeError && /^budget: expected an object, got 3$/.test(e.message));
  await assert.rejects(retryFetch(url, undefined, 7), (e) => e instanceof TypeError && /^retryFetch options: /.test(e.message));
  await assert.rejects(retryFetch(url, undefined, [{ policy: fast }]), (e) => e instanceof TypeError && e.message === "retryFetch options: expected an object, got an array");
  await assert.rejects(retryFetch(url, { method: "FETCH ME" }, {}), (e) => e instanceof RangeError && /^init\.method: /.test(e.message));
  await assert.rejects(retryFetch(url, undefined, { attemptTimeoutMs: 0 }), (e) => e instanceof RangeError && /^attemptTimeoutMs: /.test(e.message));
});

test("onAttempt throwing ends the call: a TypeError naming it, and the server sees nothing more", async () => {
  const k = key("callback-throws");
  const broken = new Error("dashboard is gone");
  await assert.rejects(
    retryFetch(`${server.base}/api/flaky?key=${k}&fail=5&status=503`, undefined, { policy: fast, onAttempt: () => { throw broken; } }),
    (e) => e instanceof TypeError && e.message === "onAttempt: threw an exception: dashboard is gone" && e.cause === broken,
  );
  await pause(300); // longer than any of the policy's waits (≤ 100 ms)
  assert.equal((await server.log(k)).length, 1);
});

test("an async onAttempt is waited for before the next attempt and before the call resolves", async () => {
  const k = key("callback-async");
  const told = [];
  const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=1&status=503`, undefined, {
    policy: fast,
    onAttempt: async (a) => {
      await pause(150); // longer than any of the policy's waits (≤ 100 ms)
      told.push([a.number, Date.now()]);
    },
  });
  const resolved = Date.now();
  assert.equal(r.status, 200);
  assert.deepEqual(told.map(([n]) => n), [1, 2], "both reports finished before the call resolved");
  assert.ok(told[1][1] <= resolved);
  const log = await server.log(k);
  assert.equal(log.length, 2);
  assert.ok(log[1].t_ms - log[0].t_ms >= 150, `${log[1].t_ms - log[0].t_ms} ms between attempts`);
});

test("an async onAttempt that rejects ends the call as a throw does, and nothing is left unhandled", async () => {
  const k = key("callback-rejects");
  const broken = new Error("dashboard is gone");
  const unhandled = [];
  const onUnhandled = (e) => unhandled.push(e);
  process.on("unhandledRejection", onUnhandled);
  try {
    await assert.rejects(
      retryFetch(`${server.base}/api/flaky?key=${k}&fail=5&status=503`, undefined, { policy: fast, onAttempt: async () => { throw broken; } }),
      (e) => e instanceof TypeError && e.message === "onAttempt: threw an exception: dashboard is gone" && e.cause === broken,
    );
    // A thenable whose `then` getter throws: the same, naming onAttempt.
    await assert.rejects(
      retryFetch(`${server.base}/api/flaky?key=${k}-2&fail=5&status=503`, undefined, {
        policy: fast,
        onAttempt: () => ({ get then() { throw broken; } }),
      }),
      (e) => e instanceof TypeError && /^onAttempt: threw an exception/.test(e.message) && e.cause === broken,
    );
    await pause(300);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
  assert.deepEqual(unhandled, []);
  assert.equal((await server.log(k)).length, 1);
  assert.equal((await server.log(`${k}-2`)).length, 1);
});

test("an abort while an async onAttempt is pending rejects at once with the reason", async () => {
  const k = key("callback-pending");
  const ctrl = new AbortController();
  const t0 = Date.now();
  const call = retryFetch(`${server.base}/api/flaky?key=${k}&fail=5&status=503`, undefined, {
    policy: fast,
    signal: ctrl.signal,
    onAttempt: () => {
      setTimeout(() => ctrl.abort(new Error("user left")), 50);
      return new Promise(() => {}); // never settles
    },
  });
  await assert.rejects(call, (e) => e.message === "user left");
  assert.ok(Date.now() - t0 < 2000);
  assert.equal((await server.log(k)).length, 1);
});

test("deadlineMs bounds an async onAttempt: no retry starts past it while the callback runs", async () => {
  const k = key("deadline-callback");
  const seen = [];
  const t0 = Date.now();
  // The policy retries within 100 ms, but the callback takes 2 s of a 400 ms deadline.
  const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=5&status=503`, undefined, {
    policy: fast,
    deadlineMs: 400,
    onAttempt: async (a) => {
      seen.push(a.decision);
      await pause(2000);
    },
  });
  const took = Date.now() - t0;
  // Stopped at the deadline as a stop there does: the last answer is handed back.
  assert.equal(r.status, 503);
  assert.deepEqual(seen, ["retry"]);
  assert.equal((await server.log(k)).length, 1, "no second attempt after the deadline");
  // Far below the callback's 2 s, so that a stalled machine does not blur the two.
  assert.ok(took >= 350 && took < 1500, `ended at the deadline, not after the callback: ${took} ms`);
});

test("deadlineMs ends the wait for an onAttempt whose promise never settles", async () => {
  const k = key("deadline-never");
  const t0 = Date.now();
  const r = await retryFetch(`${server.base}/api/flaky?key=${k}&fail=0`, undefined, {
    policy: fast,
    deadlineMs: 300,
    onAttempt: () => new Promise(() => {}),
  });
  assert.equal(r.status, 200);
  const took = Date.now() - t0;
  assert.ok(took >= 250 && took < 1500, `took ${took} ms`);
});

test("the classes keep their names in both entries (the slim one is minified)", async () => {
  const { inspect } = await import("node:util");
  for (const name of ["RetryError", "BudgetExhaustedError", "CircuitOpenError", "ThrottledError"]) {
    const C = stampede[name];
    assert.equal(C.name, name);
    const e = new C("boom");
    assert.equal(e.constructor.name, name);
    assert.ok(inspect(e).startsWith(`${name}: boom`), inspect(e).slice(0, 40));
  }
  // And so do the objects' classes: `util.inspect` of a budget printed `e {}`.
  assert.equal(stampede.RetryPolicy.name, "RetryPolicy");
  assert.equal(stampede.Budget.name, "Budget");
  const budget = stampede.Budget.forCallSite("names-kept");
  assert.ok(inspect(budget).startsWith("Budget"), inspect(budget));
  budget.free?.();
});
