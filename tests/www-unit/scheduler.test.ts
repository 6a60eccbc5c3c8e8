// The page's frame cadence (www/src/app/scheduler.ts), driven by a hand-cranked frame source.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Scheduler, type Steps } from "../../www/src/app/scheduler.js";

/** A frame source the test advances by hand, and steps that log what ran in which frame. */
function rig(opts: { compareWaits?: () => boolean; offThread?: () => boolean } = {}) {
  let queue: (() => void)[] = [];
  let frameNo = 0;
  const log: string[] = [];
  const steps: Steps = {
    main: (restart) => log.push(`${frameNo}:main${restart ? "!" : ""}`),
    compareWaits: opts.compareWaits ?? (() => false),
    compare: () => log.push(`${frameNo}:compare`),
    delays: () => log.push(`${frameNo}:delays`),
  };
  const offThread = opts.offThread;
  if (offThread) {
    steps.mainNow = (restart) => {
      if (!offThread()) return false;
      log.push(`${frameNo}:now${restart ? "!" : ""}`);
      return true;
    };
  }
  const s = new Scheduler(steps, (cb) => queue.push(cb));
  return {
    s,
    log,
    pending: () => queue.length,
    /** Runs one animation frame: every callback requested before it. */
    frame() {
      frameNo++;
      const now = queue;
      queue = [];
      for (const cb of now) cb();
    },
  };
}

test("nothing runs before start; start runs the main picture with a restart", () => {
  const r = rig();
  r.s.request(false);
  r.frame();
  assert.deepEqual(r.log, []);
  assert.equal(r.s.started, false);
  r.s.start();
  assert.equal(r.s.started, true);
  r.frame();
  assert.deepEqual(r.log, ["2:main!"]);
  // Nothing else is pending: no compare was asked for.
  assert.equal(r.pending(), 0);
});

test("requests within a frame coalesce into one main update, restart if any asked for it", () => {
  const r = rig();
  r.s.start();
  r.frame();
  r.s.request(false);
  r.s.request(true);
  r.s.request(false);
  r.frame();
  r.s.request(false);
  r.frame();
  assert.deepEqual(r.log, ["1:main!", "2:main!", "3:main"]);
});

test("a follow-up runs compare in a frame of its own, then the histograms in the next", () => {
  const r = rig();
  r.s.start();
  r.frame();
  r.s.followUp();
  r.frame();
  r.frame();
  r.frame();
  assert.deepEqual(r.log, ["1:main!", "2:compare", "3:delays"]);
  assert.equal(r.pending(), 0);
});

test("a new main request goes before a pending compare, which then follows", () => {
  const r = rig();
  r.s.start();
  r.frame();
  r.s.followUp();
  r.s.request(false);
  r.frame();
  r.frame();
  r.frame();
  assert.deepEqual(r.log, ["1:main!", "2:main", "3:compare", "4:delays"]);
});

test("compare waits while policy A is busy, and goes once resumed", () => {
  let busy = true;
  const r = rig({ compareWaits: () => busy });
  r.s.start();
  r.frame();
  r.s.followUp();
  r.frame();
  // Held back, and no frame is burnt waiting for it.
  assert.deepEqual(r.log, ["1:main!"]);
  assert.equal(r.pending(), 0);
  busy = false;
  r.s.resume();
  r.frame();
  r.frame();
  assert.deepEqual(r.log, ["1:main!", "3:compare", "4:delays"]);
  // resume with nothing held back asks for no frame.
  r.s.resume();
  assert.equal(r.pending(), 0);
});

test("a run that goes to the worker is posted at once, not a frame later; a main-thread run waits for the frame", () => {
  let worker = false;
  const r = rig({ offThread: () => worker });
  r.s.request(true);
  assert.deepEqual(r.log, [], "nothing before start");
  r.s.start();
  r.frame();
  assert.deepEqual(r.log, ["1:main!"], "a main-thread run: in the frame");
  worker = true;
  r.s.request(false);
  r.s.request(true);
  assert.deepEqual(r.log, ["1:main!", "1:now", "1:now!"], "each input posts at once, with its restart");
  assert.equal(r.pending(), 0, "and asks for no frame");
  // Follow-ups still wait for frames of their own.
  r.s.followUp();
  r.frame();
  r.frame();
  assert.deepEqual(r.log.slice(3), ["2:compare", "3:delays"]);
  // A main-thread request waiting for its frame is taken over by a posted one: it runs once.
  worker = false;
  r.s.request(true);
  worker = true;
  r.s.request(false);
  r.frame();
  assert.deepEqual(r.log.slice(5), ["3:now!"], "the restart asked for first is kept");
});

test("later draws run one per frame, in order, the latest per key, which keeps its place", () => {
  const r = rig();
  const drawn: string[] = [];
  r.s.later("a", () => drawn.push("a1"));
  r.s.later("b", () => drawn.push("b"));
  r.s.later("a", () => drawn.push("a2"));
  r.frame();
  assert.deepEqual(drawn, ["a2"]);
  r.frame();
  assert.deepEqual(drawn, ["a2", "b"]);
  r.frame();
  assert.deepEqual(drawn, ["a2", "b"]);
  assert.equal(r.pending(), 0);
});

test("two figures asking again every frame take turns: the one that asks last is not starved", () => {
  const r = rig();
  const drawn: string[] = [];
  for (let i = 0; i < 4; i++) {
    // Two sweep panels whose points keep coming, "b"'s always after "a"'s.
    r.s.later("a", () => drawn.push("a"));
    r.s.later("b", () => drawn.push("b"));
    r.frame();
  }
  assert.deepEqual(drawn, ["a", "b", "a", "b"]);
});

test("a later draw that asks again from inside itself runs once a frame, not twice", () => {
  // The delay histograms draw one panel a frame and ask for the next from the draw; the
  // drain then asked for a frame too, so two callbacks came in the next frame and drew two
  // panels in one task (a long task of 31 + 8 ms in `make bench-page`).
  const r = rig();
  const frames: number[] = [];
  let left = 4;
  let frameNo = 0;
  const panel = (): void => {
    frames.push(frameNo);
    if (--left > 0) r.s.later("panels", panel);
  };
  r.s.later("panels", panel);
  for (let i = 0; i < 6; i++) {
    frameNo++;
    r.frame();
  }
  assert.deepEqual(frames, [1, 2, 3, 4]);
  assert.equal(r.pending(), 0);
});

test("a later draw that throws does not stop the ones after it", () => {
  const r = rig();
  const drawn: string[] = [];
  r.s.later("bad", () => {
    throw new Error("boom");
  });
  r.s.later("good", () => drawn.push("good"));
  assert.throws(() => r.frame(), /boom/);
  r.frame();
  assert.deepEqual(drawn, ["good"]);
});
