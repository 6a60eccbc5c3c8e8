// retryFetch under the safety nets of issue #12: budgets of every kind, the circuit breaker,
// adaptive throttling, and bad settings for them. `fetch` is a scripted stub on globalThis
// (retryFetch looks it up at every attempt): deterministic, no server, no real waiting
// beyond a few milliseconds.
import test from "node:test";
import assert from "node:assert/strict";
import { stampede } from "./load.mjs";

const { retryFetch, Budget, RetryError, BudgetExhaustedError, CircuitOpenError, ThrottledError } = stampede;

const realFetch = globalThis.fetch;
const URL_ = "http://127.0.0.1:59/nets";
const pause = (ms) => new Promise((r) => setTimeout(r, ms));
let n = 0;
const site = (name) => `${name} ${process.pid} ${++n}`;
/** Immediate retries: only the nets limit them. */
const now = { strategy: "none", maxAttempts: 10, seed: 1 };

/** Runs `body` with a stub fetch answering the i-th call (0-based) with `answer(i)`: a
 *  status (a Response), or an Error (a rejection). Returns the stub's call count. */
async function scripted(answer, body) {
  let calls = 0;
  globalThis.fetch = async () => {
    const a = answer(calls++);
    if (a instanceof Error) throw a;
    return new Response(String(a), { status: a });
  };
  try {
    await body(() => calls);
  } finally {
    globalThis.fetch = realFetch;
  }
  return calls;
}

test("error classes are exported next to BudgetExhaustedError", () => {
  for (const C of [CircuitOpenError, ThrottledError]) {
    assert.equal(typeof C, "function");
    assert.ok(C.prototype instanceof Error);
  }
});

test("ratio budget: each call deposits `ratio`, a retry withdraws 1 (Finagle), no floor", async () => {
  const cs = site("ratio");
  const budget = { kind: "ratio", ratio: 0.5, minPerSec: 0, windowMs: 60_000 };
  const calls = await scripted(() => 503, async () => {
    for (let i = 0; i < 10; i++) {
      const r = await retryFetch(URL_, undefined, { policy: now, callSite: cs, budget });
      assert.equal(r.status, 503);
    }
  });
  // Deposits 0.5 per call: every second call holds one token, so one retry. 10 + 5.
  assert.equal(calls, 15);
  const b = Budget.forCallSite(cs);
  assert.equal(b.kind, "ratio");
  assert.ok(Math.abs(b.tokens()) < 1e-9, `${b.tokens()} tokens`);
});

test("ratio budget: Brooker's adaptive client (0.1 per call, at most 5) allows about one retry per ten calls", async () => {
  const cs = site("brooker");
  const budget = { kind: "ratio", ratio: 0.1, cap: 5, minPerSec: 0 };
  const calls = await scripted(() => 503, async () => {
    for (let i = 0; i < 100; i++) await retryFetch(URL_, undefined, { policy: now, callSite: cs, budget });
  });
  // 100 deposits of 0.1 make 10 tokens: 10 retries (the cap of 5 is never reached, each
  // token being spent as soon as it is whole).
  assert.equal(calls, 110);
});

test("gRPC throttling: retries stop once tokens fall to maxTokens/2 (gRFC A6)", async () => {
  const cs = site("grpc");
  const budget = { kind: "grpc", maxTokens: 10, tokenRatio: 0.1 };
  const per = [];
  await scripted(() => 503, async (count) => {
    for (let i = 0; i < 2; i++) {
      const before = count();
      await retryFetch(URL_, undefined, { policy: now, callSite: cs, budget });
      per.push(count() - before);
    }
  });
  // 10 → 9, 8, 7, 6 (each > 5: retry) → 5 (not > 5: stop): 5 attempts; then 4: 1 attempt.
  assert.deepEqual(per, [5, 1]);
  assert.equal(Budget.forCallSite(cs).tokens(), 4);
  assert.equal(Budget.forCallSite(cs).kind, "grpc");
});

test("AWS retry quota: a retry costs retryCost, a first-try success refunds 1", async () => {
  const cs = site("aws");
  const budget = { kind: "aws", tokens: 12, retryCost: 5, timeoutCost: 10 };
  const per = [];
  await scripted((i) => (i < 4 ? 503 : 200), async (count) => {
    for (let i = 0; i < 3; i++) {
      const before = count();
      await retryFetch(URL_, undefined, { policy: now, callSite: cs, budget });
      per.push(count() - before);
    }
  });
  // 12 → 7 → 2 (a third retry cannot be paid): 3 attempts; then 1 attempt (2 < 5); then a
  // first-try success: 2 + 1.
  assert.deepEqual(per, [3, 1, 1]);
  assert.equal(Budget.forCallSite(cs).tokens(), 3);
});

test("a budget without callSite is the call's own: it starts afresh every call", async () => {
  const budget = { kind: "grpc", maxTokens: 4, tokenRatio: 0.1 };
  const per = [];
  await scripted(() => 503, async (count) => {
    for (let i = 0; i < 2; i++) {
      const before = count();
      await retryFetch(URL_, undefined, { policy: now, budget });
      per.push(count() - before);
    }
  });
  // 4 → 3 (> 2: retry) → 2: stop, twice over.
  assert.deepEqual(per, [2, 2]);
});

test("Budget.forCallSite takes every kind; the same settings keep the state, other ones start afresh", async () => {
  const cs = site("registry");
  const grpc = { kind: "grpc", maxTokens: 10, tokenRatio: 0.1 };
  Budget.forCallSite(cs, grpc);
  await scripted(() => 503, () => retryFetch(URL_, undefined, { policy: { ...now, maxAttempts: 1 }, callSite: cs }));
  assert.equal(Budget.forCallSite(cs).tokens(), 9, "a call without settings uses the call site's as they are");
  assert.equal(Budget.forCallSite(cs, grpc).tokens(), 9, "the same settings keep the tokens");
  assert.equal(Budget.forCallSite(cs, { ...grpc, maxTokens: 20 }).tokens(), 20, "other settings start afresh");
  assert.equal(Budget.forCallSite(cs, { kind: "aws" }).tokens(), 500);
  // Back to a bucket: today's rule (a bucket keeps its tokens, clamped, when reconfigured).
  const b = Budget.forCallSite(cs, { capacity: 3, refillPerSec: 0 });
  assert.equal(b.kind, "bucket");
  assert.equal(b.tokens(), 3);
  assert.equal(b.tryRetry(), true);
  assert.equal(Budget.forCallSite(cs, { capacity: 1, refillPerSec: 0 }).tokens(), 1);
  Budget.forCallSite(cs, { kind: "aws", tokens: 10 });
  assert.equal(b.tryRetry(), true);
  assert.equal(b.tokens(), 5);
  b.reset();
  assert.equal(b.tokens(), 10);
});

// A break of a second: the checks while it is open must not outlast it on a loaded machine
// (at 150 ms, a stall of that much let it half-open under them).
const breaker = { failureRatio: 0.5, samplingMs: 60_000, minThroughput: 4, breakMs: 1000 };

test("breaker: opens at the failure ratio, fails fast with CircuitOpenError, one probe half-open, closes", async () => {
  const cs = site("breaker");
  const one = { ...now, maxAttempts: 1 };
  let release;
  const calls = await scripted(
    (i) => (i < 4 ? 503 : 200),
    async (count) => {
      // Three failures are too few samples; the fourth outcome opens it (4 of 4 ≥ 50%).
      for (let i = 0; i < 4; i++) await retryFetch(URL_, undefined, { policy: one, callSite: cs, breaker });
      assert.equal(Budget.forCallSite(cs).isOpen(), true);
      const e = await retryFetch(URL_, undefined, { policy: one, callSite: cs, breaker }).then(() => null, (x) => x);
      assert.ok(e instanceof CircuitOpenError, String(e));
      assert.equal(e.name, "CircuitOpenError");
      assert.equal(e.callSite, cs);
      assert.deepEqual(e.attempts, []);
      assert.equal(e.cause, undefined);
      assert.ok(e.retryInMs > 0 && e.retryInMs <= 1000, `${e.retryInMs}`);
      assert.match(e.message, new RegExp(`^${cs}: circuit open: failing fast for \\d+ ms`));
      assert.equal(count(), 4, "nothing was sent");
      await pause(1020);
      // Half-open: the first call is the probe; while it is out, the others fail fast.
      const held = new Promise((r) => (release = r));
      globalThis.fetch = async () => { await held; return new Response("probe", { status: 200 }); };
      const probe = retryFetch(URL_, undefined, { policy: one, callSite: cs, breaker });
      await pause(5);
      await assert.rejects(retryFetch(URL_, undefined, { policy: one, callSite: cs, breaker }), CircuitOpenError);
      release();
      assert.equal((await probe).status, 200);
      // The probe's success closed it.
      assert.equal(Budget.forCallSite(cs).isOpen(), false);
      assert.equal((await retryFetch(URL_, undefined, { policy: one, callSite: cs, breaker })).status, 200);
    },
  );
  assert.ok(calls >= 4);
});

test("breaker mode `retries`: first attempts still go out, retries are blocked", async () => {
  const cs = site("breaker-retries");
  const b = { failureRatio: 0.5, minThroughput: 2, breakMs: 60_000, mode: "retries" };
  const seen = [];
  const calls = await scripted(() => 503, async (count) => {
    // Attempt 1 fails (1 sample), a retry goes, attempt 2 fails: open; the next retry is blocked.
    const r = await retryFetch(URL_, undefined, { policy: now, callSite: cs, breaker: b, onAttempt: (a) => seen.push(a) });
    assert.equal(r.status, 503, "an HTTP status comes back as the Response, as fetch would");
    assert.equal(count(), 2);
    assert.deepEqual(seen.map((a) => a.decision), ["retry", "stop"]);
    assert.match(seen[1].reason, /^circuit open/);
    // Open, but first attempts go out in this mode.
    await retryFetch(URL_, undefined, { policy: now, callSite: cs, breaker: b });
    assert.equal(count(), 3);
    assert.equal(Budget.forCallSite(cs).isOpen(), false, "a first attempt would not fail fast");
  });
  assert.equal(calls, 3);
  // On a network failure, the stop is a CircuitOpenError with the attempts and the cause.
  const down = new TypeError("fetch failed");
  await scripted(() => down, async () => {
    const e = await retryFetch(URL_, undefined, { policy: now, callSite: cs, breaker: b }).then(() => null, (x) => x);
    assert.ok(e instanceof CircuitOpenError, String(e));
    assert.equal(e.attempts.length, 1);
    assert.equal(e.cause, down);
  });
});

test("throttle: rejects locally with the SRE book's probability max(0, (requests − K·accepts − 5)/(requests + 1)), 5 go-zero's protection", async () => {
  const cs = site("throttle");
  const throttle = { k: 2, windowMs: 600_000 };
  // The backend fails three calls in four; each call is one attempt. Every call counts as a
  // request (rejected ones too), a 200 as an accept. Seeds differ per call, so the draws do.
  let requests = 0;
  let accepts = 0;
  let expected = 0;
  let variance = 0;
  let rejected = 0;
  await scripted((i) => (i % 4 === 0 ? 200 : 503), async (count) => {
    for (let i = 0; i < 400; i++) {
      const p = Math.max(0, (requests - 2 * accepts - 5) / (requests + 1));
      expected += p;
      variance += p * (1 - p);
      requests++;
      const before = count();
      const out = await retryFetch(URL_, undefined, { policy: { ...now, maxAttempts: 1, seed: i }, callSite: cs, throttle }).then(
        (r) => r,
        (e) => e,
      );
      if (out instanceof ThrottledError) {
        rejected++;
        assert.equal(count(), before, "a throttled call sends nothing");
        assert.ok(Math.abs(out.probability - p) < 1e-12, `${out.probability} vs ${p}`);
        assert.deepEqual(out.attempts, []);
        assert.match(out.message, /throttled: rejected locally \(probability 0\.\d+\)/);
      } else {
        assert.equal(count(), before + 1);
        if (out.status === 200) accepts++;
      }
    }
  });
  // Rejections are a sum of independent Bernoulli draws given the counts: within 4 standard
  // deviations of their expectation.
  const sd = Math.sqrt(variance);
  assert.ok(rejected > 0 && Math.abs(rejected - expected) <= 4 * sd + 1, `${rejected} rejected, ${expected.toFixed(1)} ± ${sd.toFixed(1)} expected`);
});

// The protection (go-zero's 5): without it a call site's second call was rejected with
// probability 1/2 once its first had failed, and a quiet call site fed on its first failures.
test("throttle: a call site's first six calls go out even if every one fails; the seventh may not", async () => {
  let rejected = 0;
  for (let seed = 0; seed < 40; seed++) {
    const cs = site(`throttle-protection-${seed}`);
    const throttle = { k: 2 };
    await scripted(() => 503, async (count) => {
      for (let i = 0; i < 6; i++) {
        const r = await retryFetch(URL_, undefined, { policy: { ...now, maxAttempts: 1, seed: seed * 100 + i }, callSite: cs, throttle });
        assert.equal(r.status, 503, `seed ${seed}, call ${i + 1}`);
      }
      assert.equal(count(), 6);
      // Six requests, no accept: rejected with probability (6 − 0 − 5)/7.
      const seventh = await retryFetch(URL_, undefined, { policy: { ...now, maxAttempts: 1, seed: seed * 100 + 6 }, callSite: cs, throttle }).catch((e) => e);
      if (seventh instanceof ThrottledError) {
        rejected++;
        assert.ok(Math.abs(seventh.probability - 1 / 7) < 1e-12, `${seventh.probability}`);
        assert.equal(count(), 6);
      } else {
        assert.equal(seventh.status, 503);
      }
    });
  }
  // 40 seeded draws at 1/7: about 5.7 (standard deviation 2.2); the seeds fix which.
  assert.ok(rejected >= 1 && rejected <= 15, `${rejected}`);
});

test("bad nets settings: RangeError or TypeError naming the field, and nothing is sent", async () => {
  const cases = [
    [{ budget: { kind: "leaky" } }, RangeError, /^budget\.kind: expected one of bucket, ratio, grpc, aws, got "leaky"$/],
    [{ budget: { kind: 5 } }, TypeError, /^budget\.kind: expected a string, got 5$/],
    [{ budget: { kind: "ratio", ratio: -1 } }, RangeError, /^budget\.ratio: /],
    [{ budget: { kind: "ratio", cap: NaN } }, RangeError, /^budget\.cap: /],
    [{ budget: { kind: "grpc", maxTokens: 0 } }, RangeError, /^budget\.maxTokens: /],
    [{ budget: { kind: "aws", timeoutCost: "10" } }, TypeError, /^budget\.timeoutCost: expected a number/],
    [{ breaker: 1 }, TypeError, /^breaker: expected an object, got 1$/],
    [{ breaker: { failureRatio: 2 } }, RangeError, /^breaker\.failureRatio: expected a fraction from 0 to 1, got 2$/],
    [{ breaker: { minThroughput: 1.5 } }, RangeError, /^breaker\.minThroughput: /],
    [{ breaker: { mode: "half" } }, RangeError, /^breaker\.mode: expected one of all, retries, got "half"$/],
    [{ breaker: { breakMs: -1 } }, RangeError, /^breaker\.breakMs: /],
    [{ throttle: { k: 0.5 } }, RangeError, /^throttle\.k: /],
    [{ throttle: { windowMs: Infinity } }, RangeError, /^throttle\.windowMs: /],
    [{ hedging: { delayMs: -1 } }, RangeError, /^hedging\.delayMs: /],
    [{ hedging: { maxAttempts: 6 } }, RangeError, /^hedging\.maxAttempts: /],
    [{ hedging: "fast" }, TypeError, /^hedging: expected an object, got "fast"$/],
    // An array is no options object: `hedging: []` once turned hedging on with its defaults.
    [{ hedging: [] }, TypeError, /^hedging: expected an object, got an array$/],
    [{ breaker: [0.5] }, TypeError, /^breaker: expected an object, got an array$/],
    [{ budget: [] }, TypeError, /^budget: expected an object, got an array$/],
    [{ throttle: [] }, TypeError, /^throttle: expected an object, got an array$/],
    [{ breaker: { get failureRatio() { throw new Error("boom"); } } }, TypeError, /^breaker\.failureRatio: threw an exception: boom$/],
    // A field only other kinds read: a ratio budget meant, not a bucket's setting to drop.
    [{ budget: { capacity: 3, minPerSec: 1 } }, RangeError, /^budget\.minPerSec: expected none with kind "bucket" \(kind "ratio" reads it\), got 1$/],
    [{ budget: { ratio: 0.1 } }, RangeError, /^budget\.ratio: expected none with kind "bucket" \(kind "ratio" reads it\), got 0\.1$/],
    [{ budget: { kind: "grpc", retryCost: 2 } }, RangeError, /^budget\.retryCost: expected none with kind "grpc" \(kind "bucket" or "aws" reads it\), got 2$/],
    [{ budget: { kind: "RATIO", capacity: 3 } }, RangeError, /^budget\.capacity: expected none with kind "ratio" \(kind "bucket" reads it\), got 3$/],
    // The kind named as the core compares names (trimmed, ASCII letters in either case), and
    // the fields taken in one order, in both entries: the same field named first.
    [{ budget: { kind: " ratio ", capacity: 3 } }, RangeError, /^budget\.capacity: expected none with kind "ratio"/],
    [{ budget: { kind: "RATIO ", ratio: -5 } }, RangeError, /^budget\.ratio: expected /],
    [{ budget: { kind: "buc\u212Aet", minPerSec: 1 } }, RangeError, /^budget\.kind: expected one of bucket, ratio, grpc, aws/],
    [{ budget: { capacity: "3", minPerSec: 1 } }, TypeError, /^budget\.capacity: expected a number/],
    [{ budget: { kind: "ratio", capacity: 3, ratio: "x" } }, RangeError, /^budget\.capacity: expected none with kind "ratio"/],
    [{ budget: { kind: "grpc", maxTokens: "x", ratio: 0.5 } }, RangeError, /^budget\.ratio: expected none with kind "grpc"/],
  ];
  const calls = await scripted(() => 200, async () => {
    for (const [opts, cls, pattern] of cases) {
      for (const callSite of [undefined, site("bad")]) {
        const e = await retryFetch(URL_, undefined, { ...opts, callSite }).then(() => null, (x) => x);
        assert.ok(e instanceof cls, `${pattern}: ${e}`);
        assert.match(e.message, pattern);
      }
    }
    assert.throws(() => Budget.forCallSite(site("bad"), { kind: "grpc", tokenRatio: -1 }), (e) => e instanceof RangeError && /^tokenRatio: /.test(e.message));
    const notRead = (e) => e instanceof RangeError && e.code === "not_read" && e.field === "windowMs" && e.got === 1000 && /^windowMs: expected none with kind "aws" \(kind "ratio" reads it\)/.test(e.message);
    assert.throws(() => Budget.forCallSite(site("bad"), { kind: "aws", windowMs: 1000 }), notRead);
    // Each kind's own fields (and null for an absent one) are still taken.
    for (const o of [{ kind: "aws", tokens: 10, retryCost: 2, timeoutCost: 5 }, { capacity: 3, minPerSec: null }, { kind: "ratio", ratio: 0.2, cap: 3, minPerSec: 1, windowMs: 1000 }]) {
      assert.ok(Budget.forCallSite(site("good"), o) instanceof Budget, JSON.stringify(o));
    }
  });
  assert.equal(calls, 0);
});

test("a bucket without a kind behaves as before: BudgetExhaustedError, and RetryError on a network stop", async () => {
  const cs = site("bucket");
  await scripted(() => new TypeError("fetch failed"), async (count) => {
    const e = await retryFetch(URL_, undefined, { policy: now, callSite: cs, budget: { capacity: 2, refillPerSec: 0 } }).then(() => null, (x) => x);
    assert.ok(e instanceof RetryError, String(e));
    assert.equal(count(), 3, "two retries paid for");
    await assert.rejects(retryFetch(URL_, undefined, { policy: now, callSite: cs }), (x) => x instanceof BudgetExhaustedError && x.tokens === 0);
    assert.equal(count(), 3);
  });
});

test("the slim stampede/fetch entry has the nets, hedging and their error classes", async () => {
  const slim = await import(new URL("../../crates/stampede-wasm/pkg/fetch/node.js", import.meta.url).href);
  assert.equal(typeof slim.CircuitOpenError, "function");
  assert.equal(typeof slim.ThrottledError, "function");
  const cs = site("slim");
  // Two failures open it: the first 503 sends the hedge at once, the hedge's opens it.
  const breaker = { failureRatio: 0.5, minThroughput: 2, breakMs: 60_000 };
  await scripted(() => 503, async (count) => {
    const r = await slim.retryFetch(URL_, undefined, { policy: { ...now, maxAttempts: 1 }, callSite: cs, breaker, hedging: { delayMs: 1000, maxAttempts: 2 } });
    assert.equal(r.status, 503);
    assert.equal(count(), 2, "a 503 sent the hedge at once");
    await assert.rejects(slim.retryFetch(URL_, undefined, { callSite: cs }), (e) => e instanceof slim.CircuitOpenError);
    assert.equal(slim.Budget.forCallSite(cs).kind, "bucket");
  });
});
