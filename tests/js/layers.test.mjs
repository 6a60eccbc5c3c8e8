// Where to retry, through the built package: SimOptions `layers` and `retryAt`, the metric
// `bottomAttempts`, the published products (the SRE book's 64, the Builders' Library's 243,
// and 4 and 3 retrying at the top), defaults, limits and choices from the core, and bad or
// hostile values throwing errors that name the field without killing the module.
import test from "node:test";
import assert from "node:assert/strict";
import { stampede } from "./load.mjs";

const { Simulation, defaults, limits, choices } = stampede;

/** 1000 clients whose server always fails, no wait between tries. */
function failing(extra) {
  const sim = new Simulation({ clients: 1000, failRate: 1, policy: { strategy: "none", maxAttempts: 4 }, seed: 3, ...extra });
  sim.run();
  const m = sim.metrics();
  sim.free();
  return m;
}

test("attempts multiply down the chain as published, and retrying at the top keeps them at the clients'", () => {
  for (const [maxAttempts, layers, every, top] of [[4, 3, 64, 4], [3, 5, 243, 3]]) {
    const policy = { strategy: "none", maxAttempts };
    const m = failing({ policy, layers });
    assert.equal(m.requests, 1000);
    assert.equal(m.bottomAttempts, every * 1000);
    assert.equal(m.amplification, maxAttempts, "layer 1 sees the clients' attempts");
    assert.equal(m.successes + m.gaveUp + m.budgetRejected, m.requests);
    const t = failing({ policy, layers, retryAt: "top" });
    assert.equal(t.bottomAttempts, top * 1000);
    assert.equal(t.bottomAttempts, t.totalAttempts);
  }
  // One layer, the default: the bottom is the first layer.
  const one = failing({});
  assert.equal(one.bottomAttempts, one.totalAttempts);
  assert.equal(one.bottomAttempts, 4000);
  // "every" is the default, and null is absent.
  assert.deepEqual(failing({ layers: 3, retryAt: "every" }), failing({ layers: 3 }));
  assert.deepEqual(failing({ layers: null, retryAt: null }), one);
});

test("defaults, limits and choices come from the core", () => {
  const d = defaults().simulation;
  assert.equal(d.layers, 1);
  assert.equal(d.retryAt, "every");
  assert.deepEqual(limits().layers, { min: 1, max: 10, unit: "count", whole: true });
  assert.deepEqual(choices().retryAt, ["every", "top"]);
});

test("bad values name the field; too much work names what to lower", () => {
  const range = (field, code) => (e) => e instanceof RangeError && e.field === field && e.code === code && e.message.startsWith(`${field}: expected `);
  const type = (field) => (e) => e instanceof TypeError && e.field === field && e.code === "wrong_type";
  assert.throws(() => new Simulation({ layers: 0 }), range("layers", "out_of_range"));
  assert.throws(() => new Simulation({ layers: 11 }), range("layers", "out_of_range"));
  assert.throws(() => new Simulation({ layers: 2.5 }), range("layers", "not_whole"));
  assert.throws(() => new Simulation({ layers: NaN }), range("layers", "not_a_number"));
  assert.throws(() => new Simulation({ layers: "3" }), type("layers"));
  assert.throws(() => new Simulation({ retryAt: "each" }), (e) => range("retryAt", "unknown_value")(e)
    && e.message === `retryAt: expected one of every, top, got "each"`);
  assert.throws(() => new Simulation({ retryAt: 3 }), type("retryAt"));
  // A million clients, 4 attempts at each of 3 layers: 84 million attempts; with layers a
  // run makes at most 5 million, so 1 fits.
  assert.throws(() => new Simulation({ clients: 1_000_000, layers: 3, policy: { maxAttempts: 4 } }),
    (e) => range("policy.maxAttempts", "too_much_work")(e) && e.max === 1);
  // With a timeout not even one attempt at 10 layers fits 200,000 clients: the layers are
  // named, 8 fit.
  assert.throws(() => new Simulation({ clients: 200_000, layers: 10, timeoutMs: 1000 }),
    (e) => range("layers", "too_much_work")(e) && e.max === 8);
});

test("hostile values never kill the module", () => {
  const boom = new Error("boom");
  const values = [NaN, -Infinity, Number.MAX_VALUE, 2 ** 53, -0, "", "x".repeat(100_000), {}, [], true, Symbol("s"), 10n, () => 1];
  for (const k of ["layers", "retryAt"]) {
    for (const v of values) {
      let sim;
      try {
        sim = new Simulation({ clients: 10, [k]: v });
      } catch (e) {
        assert.ok(e instanceof RangeError || e instanceof TypeError, `${k}: ${e}`);
        assert.equal(e.field, k);
        continue;
      }
      // Accepted (-0 is no number of layers, but null-like values are absent): it runs.
      sim.run();
      assert.equal(sim.isDone(), true, k);
      sim.free();
    }
    // A getter that throws: a TypeError naming the field, the caller's exception as cause.
    assert.throws(() => new Simulation({ get [k]() { throw boom; } }), (e) => e instanceof TypeError && e.message === `${k}: threw an exception: boom` && e.cause === boom, k);
  }
  const sim = new Simulation({ clients: 50, seed: 1, layers: 2 });
  sim.run();
  assert.equal(sim.metrics().requests, 50);
  sim.free();
});
