// The live panel's body reading (www/src/logic/body.ts): only the start of a body, stopped
// past the limit or on a Cancel, the stream cancelled either way.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readBody, untilAborted } from "../../www/src/logic/body.js";

/** A Response whose body sends `chunks` one by one, `gapMs` apart, then ends (or never, if
 *  `endless`); records whether it was cancelled and how many chunks were pulled. */
function trickle(chunks: string[], gapMs = 0, endless = false) {
  const seen = { pulled: 0, cancelled: false };
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async pull(c) {
      if (gapMs > 0) await new Promise((r) => setTimeout(r, gapMs));
      const next = chunks[seen.pulled];
      seen.pulled++;
      if (next !== undefined) c.enqueue(encoder.encode(next));
      else if (!endless) c.close();
      else await new Promise(() => {});
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { res: new Response(stream), seen };
}

test("a body within the limit is read whole, across chunks and split characters", async () => {
  // "é" is two bytes: split across chunks, it must still decode as one character.
  const bytes = new TextEncoder().encode("héllo wörld");
  const parts = [bytes.slice(0, 2), bytes.slice(2, 7), bytes.slice(7)];
  let i = 0;
  const res = new Response(
    new ReadableStream<Uint8Array>({
      pull(c) {
        const p = parts[i++];
        if (p) c.enqueue(p);
        else c.close();
      },
    }),
  );
  assert.deepEqual(await readBody(res, 100, new AbortController().signal), { text: "héllo wörld", cut: false });
  assert.deepEqual(await readBody(new Response(null), 100, new AbortController().signal), { text: "", cut: false });
});

test("past the limit it stops reading and cancels the rest", async () => {
  const { res, seen } = trickle(["a".repeat(10), "b".repeat(10), "c".repeat(10), "d".repeat(10)], 0, true);
  const got = await readBody(res, 15, new AbortController().signal);
  assert.deepEqual(got, { text: `${"a".repeat(10)}${"b".repeat(5)}`, cut: true });
  assert.ok(seen.pulled <= 3, `${seen.pulled} chunks pulled`);
  assert.equal(seen.cancelled, true);
});

test("a body that trickles is read for at most its time: what came by then, cut, the rest cancelled", async () => {
  // A byte every 20 ms, forever (a body sent a byte every half second kept the live panel
  // "Sending…" for hours: retryFetch's attempt timeout ends with the headers).
  const { res, seen } = trickle(Array.from({ length: 1000 }, () => "z"), 20, true);
  const started = Date.now();
  const got = await readBody(res, 1000, new AbortController().signal, 150);
  const took = Date.now() - started;
  assert.ok(took >= 140 && took < 1000, `${took} ms`);
  assert.equal(got.cut, true);
  assert.match(got.text, /^z{2,10}$/);
  assert.equal(seen.cancelled, true);
  // Within its time, a body is read whole.
  assert.deepEqual(await readBody(trickle(["a", "b"], 5).res, 100, new AbortController().signal, 1000), { text: "ab", cut: false });
});

test("a Cancel while the body trickles rejects at once with its reason, and cancels the body", async () => {
  const { res, seen } = trickle(["x"], 5, true);
  const ctrl = new AbortController();
  const reading = readBody(res, 1000, ctrl.signal);
  setTimeout(() => ctrl.abort(new Error("cancelled by the reader")), 30);
  const started = Date.now();
  await assert.rejects(reading, /cancelled by the reader/);
  assert.ok(Date.now() - started < 1000);
  assert.equal(seen.cancelled, true);
  // Already aborted: nothing is read.
  await assert.rejects(readBody(trickle(["y"]).res, 10, AbortSignal.abort(new Error("before"))), /before/);
});

test("untilAborted: the promise's value, or the abort's reason, whichever comes first", async () => {
  assert.equal(await untilAborted(Promise.resolve(7), new AbortController().signal), 7);
  const ctrl = new AbortController();
  const never = new Promise<number>(() => {});
  const waiting = untilAborted(never, ctrl.signal);
  ctrl.abort(new Error("stop"));
  await assert.rejects(waiting, /stop/);
  await assert.rejects(untilAborted(Promise.resolve(1), AbortSignal.abort(new Error("early"))), /early/);
});
