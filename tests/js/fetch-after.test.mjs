// retryFetch where a hostile pass (a helper, 2026-12-06) found it unlike fetch or unlike its
// docs: the caller's signal after the call resolved, what a Node failure was, maxElapsedMs
// against deadlineMs, and the nets seeing failures the call may not retry. Against node:http
// servers of its own on 127.0.0.1, each closed by its test; run against both entries
// (fetch-slim.test.mjs).
import test from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { stampede } from "./load.mjs";
import { collectUntil } from "./gc.mjs";

const { retryFetch, RetryError, CircuitOpenError } = stampede;
const realFetch = globalThis.fetch;
const quick = { strategy: "none", maxAttempts: 4, seed: 1 };
let n = 0;
const site = (name) => `${name} ${process.pid} ${++n}`;

/** A server on 127.0.0.1 answering with `handler`, closed (connections too) after `body`. */
async function serving(handler, body) {
  const server = http.createServer(handler);
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    await body(`http://127.0.0.1:${server.address().port}/`);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

/** Settles `p` within `ms`, else "pending". */
const within = (p, ms) =>
  Promise.race([p.then(() => "resolved", (e) => e), new Promise((r) => setTimeout(r, ms, "pending"))]);

test("the caller's signal still aborts the body of the Response the call resolved with, as fetch's does", async () => {
  await serving(
    (req, res) => {
      res.writeHead(200);
      res.write("partial"); // and never ends
    },
    async (url) => {
      for (const where of ["signal", "init.signal"]) {
        const ctrl = new AbortController();
        const options = where === "signal" ? { signal: ctrl.signal } : {};
        const init = where === "init.signal" ? { signal: ctrl.signal } : undefined;
        const res = await retryFetch(url, init, { ...options, policy: quick });
        assert.equal(res.status, 200);
        const read = res.text();
        setTimeout(() => ctrl.abort(new Error(`stop ${where}`)), 50);
        const got = await within(read, 3000);
        assert.ok(got instanceof Error, `${where}: the body read is ${got}`);
        assert.equal(got.message, `stop ${where}`);
      }
      // One signal shared by calls whose bodies are read at once aborts every one of them.
      const shared = new AbortController();
      const reads = [];
      for (let i = 0; i < 3; i++) reads.push((await retryFetch(url, undefined, { signal: shared.signal, policy: quick })).text());
      setTimeout(() => shared.abort(new Error("stop all")), 50);
      const got = await Promise.all(reads.map((r) => within(r, 3000)));
      assert.deepEqual(got.map((e) => e?.message), ["stop all", "stop all", "stop all"]);
      // A reader of the body outlives the Response object it came from: the signal still
      // aborts it after that object is collected, as fetch's does.
      const late = new AbortController();
      const reader = await (async () => (await retryFetch(url, undefined, { signal: late.signal, policy: quick })).body.getReader())();
      await reader.read();
      await collectUntil(() => false, 10);
      const pending = reader.read();
      late.abort(new Error("stop the reader"));
      assert.equal((await within(pending, 3000))?.message, "stop the reader");
    },
  );
});

/** Runs `body` with `fake` as the global fetch (retryFetch looks it up at every attempt),
 *  and a count of its calls; the real one is put back after. */
async function stubbed(fake, body) {
  let calls = 0;
  globalThis.fetch = async (...args) => {
    calls++;
    return fake(...args);
  };
  try {
    await body(() => calls);
  } finally {
    globalThis.fetch = realFetch;
  }
}

/** Runs `body` with a stub fetch that rejects as Node's undici does: a TypeError "fetch
 *  failed" whose cause carries the system error's `code`. */
function failing(code, body) {
  return stubbed(() => {
    throw new TypeError("fetch failed", { cause: Object.assign(new Error(`${code} example.invalid`), { code }) });
  }, body);
}

/** Runs `body`, then returns the names of the process warnings emitted meanwhile (Node's
 *  MaxListenersExceededWarning among them), once pending warnings have been emitted. */
async function warningsDuring(body) {
  const warnings = [];
  const onWarning = (w) => warnings.push(w.name);
  process.on("warning", onWarning);
  try {
    await body();
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off("warning", onWarning);
  }
  return warnings;
}

test("a long-lived signal carries one listener for all its calls, none once their Responses are dropped", async () => {
  const { getEventListeners } = await import("node:events");
  const page = new AbortController();
  const left = () => getEventListeners(page.signal, "abort").length;
  const warnings = await warningsDuring(() =>
    stubbed(() => new Response("ok"), async () => {
      // In a function of its own, so that no Response is left in this frame.
      const calls = async () => {
        for (let i = 0; i < 50; i++) {
          const res = await retryFetch("http://127.0.0.1:59/", undefined, { signal: page.signal, policy: quick });
          await res.text();
        }
      };
      await calls();
      // Every resolved Response's body still follows the signal, through one listener (one
      // a call set off Node's MaxListenersExceededWarning past ten).
      assert.equal(left(), 1, "one listener for fifty Responses");
    }),
  );
  assert.deepEqual(warnings, [], "no warning");
  // Collected, the Responses take it with them (a FinalizationRegistry).
  assert.ok(await collectUntil(() => left() === 0), `${left()} listeners left on the long-lived signal`);
});

test("Node's failures are told apart by their cause: a host that does not resolve is dns, not retried", async () => {
  for (const [code, kind, attempts] of [
    ["ENOTFOUND", "dns", 1],
    ["EAI_NONAME", "dns", 1],
    // The resolver's "try again" (its server timed out): transient, retried.
    ["EAI_AGAIN", "connect", 4],
    ["ECONNRESET", "reset", 4],
    ["UND_ERR_SOCKET", "reset", 4],
    ["ECONNREFUSED", "connect", 4],
    ["UND_ERR_CONNECT_TIMEOUT", "timeout", 4],
    ["SOMETHING_NEW", "connect", 4],
  ]) {
    await failing(code, async (calls) => {
      const seen = [];
      const e = await retryFetch("http://example.invalid/", undefined, { policy: quick, onAttempt: (a) => seen.push(a.error) }).then(
        () => assert.fail("resolved"),
        (e) => e,
      );
      assert.ok(e instanceof RetryError, `${code}: ${e}`);
      assert.deepEqual(seen, Array(attempts).fill(kind), code);
      assert.equal(calls(), attempts, code);
      assert.equal(e.cause.cause.code, code, "the environment's error is the cause");
    });
  }
});

test("a real reset (the server drops the socket) is reset; a refused port is connect", async () => {
  await serving(
    (req) => req.socket.destroy(),
    async (url) => {
      const seen = [];
      await assert.rejects(retryFetch(url, undefined, { policy: { ...quick, maxAttempts: 2 }, onAttempt: (a) => seen.push(a.error) }), RetryError);
      assert.deepEqual(seen, ["reset", "reset"]);
    },
  );
  const seen = [];
  await assert.rejects(retryFetch("http://127.0.0.1:59/", undefined, { policy: { ...quick, maxAttempts: 2 }, onAttempt: (a) => seen.push(a.error) }), RetryError);
  assert.deepEqual(seen, ["connect", "connect"]);
});

test("a timeout the network reports is retried, even with a deadline (only the deadline's own timer is the deadline)", async () => {
  await failing("ETIMEDOUT", async (calls) => {
    const seen = [];
    await assert.rejects(retryFetch("http://example.invalid/", undefined, { policy: quick, deadlineMs: 5000, onAttempt: (a) => seen.push([a.error, a.decision]) }), RetryError);
    assert.deepEqual(seen, [["timeout", "retry"], ["timeout", "retry"], ["timeout", "retry"], ["timeout", "stop"]]);
    assert.equal(calls(), 4);
  });
  // A fetch wrapper's own TimeoutError is a timeout too.
  const timedOut = () => {
    throw new DOMException("took too long", "TimeoutError");
  };
  await stubbed(timedOut, async () => {
    const seen = [];
    await assert.rejects(retryFetch("http://example.invalid/", undefined, { policy: { ...quick, maxAttempts: 2 }, onAttempt: (a) => seen.push(a.error) }), RetryError);
    assert.deepEqual(seen, ["timeout", "timeout"]);
  });
});

test("policy.maxElapsedMs stops retries from starting, never cuts an attempt short; deadlineMs does", async () => {
  await serving(
    (req, res) => setTimeout(() => res.end("late"), 2000),
    async (url) => {
      const seen = [];
      const res = await retryFetch(url, undefined, { policy: { ...quick, maxElapsedMs: 100 }, onAttempt: (a) => seen.push(a) });
      assert.equal(res.status, 200);
      assert.equal(await res.text(), "late");
      assert.deepEqual(seen.map((a) => [a.status, a.decision]), [[200, "success"]]);
      const t0 = performance.now();
      const e = await retryFetch(url, undefined, { policy: quick, deadlineMs: 100 }).then(
        () => assert.fail("resolved"),
        (e) => e,
      );
      assert.ok(e instanceof RetryError);
      assert.equal(e.attempts[0].error, "timeout");
      const took = performance.now() - t0;
      // Far below the server's 2 s: a late deadline would have let the answer resolve the call.
      assert.ok(took >= 90 && took < 1500, `the deadline ended the call after ${took} ms`);
    },
  );
  // Nor does it cut the wait for an async onAttempt (deadlineMs does).
  await stubbed(() => new Response("ok"), async () => {
    const t0 = performance.now();
    const res = await retryFetch("http://127.0.0.1:59/", undefined, { policy: { ...quick, maxElapsedMs: 50 }, onAttempt: () => new Promise((r) => setTimeout(r, 300)) });
    assert.equal(res.status, 200);
    assert.ok(performance.now() - t0 >= 290, `resolved after ${performance.now() - t0} ms, before onAttempt`);
  });
});

test("deadlineMs: 0 is refused up front, naming it, and nothing is sent", async () => {
  await stubbed(() => new Response("x"), async (calls) => {
    await assert.rejects(
      retryFetch("http://127.0.0.1:59/", undefined, { deadlineMs: 0 }),
      (e) => e instanceof RangeError && /^deadlineMs: /.test(e.message) && e.minExclusive === true,
    );
    assert.equal(calls(), 0);
  });
});

test("the breaker opens on a POST endpoint's 503s, which are never retried", async () => {
  await stubbed(() => new Response("down", { status: 503 }), async (calls) => {
    const callSite = site("post breaker");
    const breaker = { failureRatio: 0.5, minThroughput: 2, breakMs: 60_000 };
    const post = () => retryFetch("http://127.0.0.1:59/orders", { method: "POST", body: "{}" }, { callSite, breaker, policy: quick });
    assert.equal((await post()).status, 503);
    assert.equal((await post()).status, 503);
    await assert.rejects(post(), CircuitOpenError);
    assert.equal(calls(), 2, "one attempt each, and nothing once open");
  });
});

test("hedging: the caller's abort reports every attempt in flight, and won marks the response the call resolves with", async () => {
  await serving(
    () => {}, // never answers
    async (url) => {
      const seen = [];
      const signal = AbortSignal.timeout(150);
      const hedging = { delayMs: 30, maxAttempts: 3 };
      const e = await retryFetch(url, undefined, { hedging, signal, onAttempt: (a) => seen.push(a) }).then(
        () => assert.fail("resolved"),
        (e) => e,
      );
      assert.equal(e.name, "TimeoutError", "the caller's reason");
      assert.deepEqual(
        seen.map((a) => [a.number, a.error, a.decision, a.hedge]),
        [
          [1, "abort", "stop", false],
          [2, "abort", "stop", true],
          [3, "abort", "stop", true],
        ],
      );
      assert.match(seen[0].reason, /caller aborted/);
    },
  );
  await serving(
    (req, res) => {
      res.writeHead(503);
      res.end();
    },
    async (url) => {
      const seen = [];
      const res = await retryFetch(url, undefined, { hedging: { delayMs: 20, maxAttempts: 3 }, policy: quick, onAttempt: (a) => seen.push(a) });
      assert.equal(res.status, 503, "hedging gave up on a status: the last response, as fetch");
      assert.deepEqual(seen.map((a) => a.won === true), [false, false, true]);
    },
  );
});

test("a signal-like that calls its listener at once (already aborted) aborts the body of every call it follows", async () => {
  // Called as soon as it is added once fired, as an AbortSignal-like of some libraries is.
  const listeners = new Set();
  let fired = false;
  const signal = {
    get aborted() {
      return fired;
    },
    reason: new Error("fired"),
    addEventListener(_type, f) {
      listeners.add(f);
      if (fired) f();
    },
    removeEventListener(_type, f) {
      listeners.delete(f);
    },
  };
  const { follow } = await import(new URL("../../crates/stampede-wasm/js/fetch-env.js", import.meta.url).href);
  const first = new AbortController();
  follow(new Response("a"), [signal], first);
  fired = true;
  for (const f of [...listeners]) f();
  assert.equal(first.signal.aborted, true);
  // Resolved after it fired: each is aborted at once, none left waiting on a spent link.
  const later = [new AbortController(), new AbortController()];
  for (const c of later) follow(new Response("b"), [signal, signal], c);
  assert.deepEqual(later.map((c) => c.signal.aborted), [true, true]);
  assert.equal(listeners.size, 0, "no listener left on it");
});

test("calls in flight on one shared signal add one listener to it, and its abort stops every one", async () => {
  const { getEventListeners } = await import("node:events");
  const shutdown = new AbortController();
  let arrived = 0;
  const warnings = await warningsDuring(() =>
    serving(
      () => {
        arrived++; // and never answers
      },
      async (url) => {
        // A server's shutdown signal, passed to every call it makes: a dozen at once.
        const calls = Array.from({ length: 12 }, () => retryFetch(url, undefined, { signal: shutdown.signal, policy: quick }).then(() => "resolved", (e) => e));
        const deadline = Date.now() + 5000;
        while (arrived < 12 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        assert.equal(arrived, 12, "every call is in flight");
        assert.equal(getEventListeners(shutdown.signal, "abort").length, 1, "one listener for twelve calls");
        shutdown.abort(new Error("shutting down"));
        const got = await Promise.all(calls.map((c) => Promise.race([c, new Promise((r) => setTimeout(r, 3000, "pending"))])));
        assert.deepEqual(got.map((e) => e?.message ?? e), Array(12).fill("shutting down"));
      },
    ),
  );
  assert.deepEqual(warnings, [], "no MaxListenersExceededWarning");
  assert.equal(getEventListeners(shutdown.signal, "abort").length, 0, "none left once it fired");
});
