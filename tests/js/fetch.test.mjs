// retryFetch against a real HTTP server on 127.0.0.1 (the project's `stampede serve`).
// The server's /api/log is the truth about what was sent.
import test from "node:test";
import assert from "node:assert/strict";
import { stampede } from "./load.mjs";
import { startServer } from "./server.mjs";

const { retryFetch, Budget } = stampede;
const server = await startServer();
test.after(() => server.stop());

const fast = { strategy: "full", baseMs: 20, capMs: 100, maxAttempts: 4, seed: 1 };
let n = 0;
const key = (name) => `${name}-${process.pid}-${++n}`;

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
    (e) => e.name === "BudgetExhaustedError" && e.callSite === site && e instanceof Error,
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
    (e) => e.name === "RetryError" && e.attempts.length === 2 && e.attempts.every((a) => a.error === "timeout") && /attempts made/.test(e.reason),
  );
});

test("a refused connection is retried up to maxAttempts", async () => {
  const closed = "http://127.0.0.1:9/"; // discard port: nothing listens on loopback
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
