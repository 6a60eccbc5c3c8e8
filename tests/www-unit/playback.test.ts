// The playhead's clock (www/src/figures/playback.ts), driven by a hand-cranked frame source:
// its pace, its end, and its frames thinned while a newer picture is being computed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Playback, THROTTLED_FRAME_MS } from "../../www/src/figures/playback.js";

/** A Playback over a frame source the test advances, recording each drawn playhead time. */
function rig(reducedMotion = false) {
  let queue = new Map<number, (now: number) => void>();
  let next = 1;
  let now = 1000;
  // Frames default to 16 ms apart: whole numbers keep the clock's sums exact.
  const drawn: number[] = [];
  const playing: boolean[] = [];
  const p = new Playback(
    { render: (t) => drawn.push(t), playing: (on) => playing.push(on) },
    {
      request: (tick) => {
        queue.set(next, tick);
        return next++;
      },
      cancel: (id) => void queue.delete(id),
    },
    reducedMotion,
  );
  return {
    p,
    drawn,
    playing,
    /** Runs `n` frames `ms` apart. */
    frames(n: number, ms = 16) {
      for (let i = 0; i < n; i++) {
        now += ms;
        const ticks = [...queue.values()];
        queue = new Map();
        for (const tick of ticks) tick(now);
      }
    },
    pending: () => queue.size,
  };
}

test("playing at speed 1 moves the playhead one simulated ms per real ms, and stops at the end", () => {
  const r = rig();
  r.p.load(1000, true);
  assert.deepEqual(r.playing, [true]);
  r.frames(1); // the first frame only sets the reference time
  r.frames(30, 10);
  assert.equal(r.p.time, 300);
  r.frames(100, 10);
  assert.equal(r.p.time, 1000);
  assert.equal(r.p.active, false);
  assert.deepEqual(r.playing, [true, false]);
  assert.equal(r.pending(), 0, "no frame is asked for once the run has played out");
});

test("while a newer picture is being computed, frames are drawn at most every THROTTLED_FRAME_MS at the same pace", () => {
  const r = rig();
  r.p.load(60_000, true);
  r.frames(1);
  r.drawn.length = 0;
  // Frames 10 ms apart (whole numbers keep the clock exact).
  r.frames(100, 10); // one second: every frame drawn
  assert.equal(r.drawn.length, 100);
  r.p.throttle(true);
  r.drawn.length = 0;
  const before = r.p.time;
  r.frames(100, 10);
  // One second: a frame drawn every THROTTLED_FRAME_MS (100 ms: every 10th frame).
  assert.equal(r.drawn.length, 1000 / THROTTLED_FRAME_MS);
  for (let i = 1; i < r.drawn.length; i++) {
    const gap = (r.drawn[i] ?? 0) - (r.drawn[i - 1] ?? 0);
    assert.ok(gap >= THROTTLED_FRAME_MS - 1e-9, `drawn ${gap} ms apart`);
  }
  // The clock itself kept its pace.
  assert.ok(Math.abs(r.p.time - before - 1000) < 1e-6);
  // Released: every frame drawn again.
  r.p.throttle(false);
  r.drawn.length = 0;
  r.frames(10, 10);
  assert.equal(r.drawn.length, 10);
});

test("throttled, the last frame of the run is still drawn, at the end", () => {
  const r = rig();
  r.p.load(250, true);
  r.p.throttle(true);
  r.frames(1);
  r.frames(40);
  assert.equal(r.p.active, false);
  assert.equal(r.drawn.at(-1), 250);
});

test("off screen nothing ticks; back on screen it resumes from where it was", () => {
  const r = rig();
  r.p.load(10_000, true);
  r.frames(1);
  r.frames(10, 10);
  r.p.visible(false);
  r.frames(1, 10); // the frame asked for before going off screen
  const t = r.p.time;
  assert.equal(r.pending(), 0);
  r.frames(10, 10);
  assert.equal(r.p.time, t);
  r.p.visible(true);
  r.frames(1, 10); // the reference frame
  r.frames(5, 10);
  assert.equal(r.p.time, t + 50);
});

test("under reduced motion nothing plays by itself: the playhead stays at the end until Play", () => {
  const r = rig(true);
  r.p.load(5000, true);
  assert.equal(r.p.time, 5000);
  assert.equal(r.p.active, false);
  assert.equal(r.pending(), 0);
  // A new run does not start it either.
  r.p.load(6000, true);
  assert.equal(r.p.time, 6000);
  assert.equal(r.p.active, false);
  // Asked, it plays from the start.
  r.p.play();
  assert.equal(r.p.active, true);
  assert.equal(r.p.time, 0);
});
