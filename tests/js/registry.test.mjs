// The budget registry's bound, in a module instance of its own (node --test runs each file in
// its own process): at most 1,000 call sites; past that a RangeError naming the call-site
// argument, while existing call sites keep working.
import test from "node:test";
import assert from "node:assert/strict";
import { stampede } from "./load.mjs";

const { Budget, retryFetch } = stampede;

test("the registry holds at most 1,000 call sites", async () => {
  let made = 0;
  let error;
  for (let i = 0; i < 1500 && !error; i++) {
    try {
      Budget.forCallSite(`GET /api/items/${i}`);
      made++;
    } catch (e) {
      error = e;
    }
  }
  assert.equal(made, 1000);
  assert.ok(error instanceof RangeError, String(error));
  assert.match(error.message, /^name: expected one of at most 1000 call sites/);
  assert.match(error.message, /got "GET \/api\/items\/1000"$/);
  // Existing call sites keep working, with or without settings.
  assert.equal(Budget.forCallSite("GET /api/items/0").tokens(), 10);
  assert.equal(Budget.forCallSite("GET /api/items/999", { capacity: 2 }).tokens(), 2);
  assert.throws(() => Budget.forCallSite("one more", { capacity: 2 }), (e) => e instanceof RangeError && /^name: /.test(e.message));
  // retryFetch names its own option, and sends nothing (a refused port would have given a
  // RetryError after attempts; a RangeError means no attempt was made).
  await assert.rejects(
    retryFetch("http://127.0.0.1:59/", undefined, { callSite: "GET /new", policy: { maxAttempts: 2, baseMs: 1, capMs: 1 } }),
    (e) => e instanceof RangeError && /^callSite: expected one of at most 1000 call sites/.test(e.message),
  );
  await assert.rejects(
    retryFetch("http://127.0.0.1:59/", undefined, { callSite: "GET /api/items/5", policy: { maxAttempts: 2, baseMs: 1, capMs: 1 } }),
    (e) => e.name === "RetryError" && e.attempts.length === 2,
    "an existing call site still works in retryFetch",
  );
});
