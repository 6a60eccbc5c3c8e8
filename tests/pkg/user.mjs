// What the users' projects run, and what the tests expect of it. Each project holds its own
// copy of `USER_CODE` (plain JavaScript, as a user would write it) behind its own import
// line; the tests check its result with `checkResult`.
import assert from "node:assert/strict";
import { createServer } from "node:net";

/**
 * `run(api, base, key, dead)`: retryFetch against `stampede serve`'s /api/flaky (two 503s,
 * then 200), a settings error, and a transport failure given up on (`dead`: a loopback URL
 * whose port nothing listens on).
 */
export const USER_CODE = `
export async function run(api, base, key, dead) {
  const { retryFetch, RetryPolicy, RetryError } = api;
  const seen = [];
  const response = await retryFetch(base + "/api/flaky?key=" + key + "&fail=2&status=503", undefined, {
    policy: { baseMs: 5, capMs: 20, maxAttempts: 4, seed: 1 },
    onAttempt: (a) => seen.push([a.number, a.status, a.decision]),
  });
  let settingsError;
  try {
    new RetryPolicy({ baseMs: -1 });
  } catch (e) {
    settingsError = { name: e.name, field: e.field, code: e.code, isRangeError: e instanceof RangeError };
  }
  let gaveUp;
  try {
    await retryFetch(dead, undefined, { policy: { baseMs: 1, capMs: 1, maxAttempts: 2 } });
  } catch (e) {
    gaveUp = { isRetryError: e instanceof RetryError, attempts: e.attempts && e.attempts.length };
  }
  // A RetryPolicy where its options go: refused, in a minified build too.
  let instance;
  try {
    await retryFetch(dead, undefined, { policy: new RetryPolicy({ maxAttempts: 2 }) });
  } catch (e) {
    instance = { name: e.name, field: e.field };
  }
  return { status: response.status, body: await response.json(), seen, settingsError, gaveUp, instance };
}
`;

/** A loopback URL that refuses connections: a port just freed (Chromium refuses port 1 itself). */
export function deadUrl() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.on("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => res(`http://127.0.0.1:${port}/`));
    });
  });
}

/** A fresh key for /api/flaky, so runs never share a counter. */
export function freshKey(name) {
  return `pkg-${name}-${process.pid}-${Date.now()}`;
}

/** Asserts what `run` returned, and that the server saw exactly the three attempts. */
export async function checkResult(result, key, server) {
  assert.equal(result.status, 200, JSON.stringify(result));
  assert.deepEqual(result.body, { key, attempt: 3 });
  assert.deepEqual(result.seen, [
    [1, 503, "retry"],
    [2, 503, "retry"],
    [3, 200, "success"],
  ]);
  assert.deepEqual(result.settingsError, { name: "RangeError", field: "baseMs", code: "out_of_range", isRangeError: true });
  assert.deepEqual(result.gaveUp, { isRetryError: true, attempts: 2 });
  assert.deepEqual(result.instance, { name: "TypeError", field: "policy" });
  assert.deepEqual((await server.log(key)).map((e) => e.status), [503, 503, 200]);
}
