// The package's objects as a careless or hostile caller handles them: methods called on the
// wrong object, objects made without their constructor, use after free() and a second free().
// Every case throws a TypeError naming the class, in both entries (fetch-slim.test.mjs runs
// this suite against stampede/fetch), and never traps the wasm.
import test from "node:test";
import assert from "node:assert/strict";
import { stampede } from "./load.mjs";

const { RetryPolicy, Budget } = stampede;

test("a method called on the wrong object throws a TypeError and harms neither object", () => {
  const p = new RetryPolicy({ strategy: "full", baseMs: 100, capMs: 1000, maxAttempts: 3, seed: 1 });
  const b = Budget.forCallSite("wrong-this", { capacity: 5, refillPerSec: 1 });
  try {
    assert.throws(() => RetryPolicy.prototype.delays.call(b), TypeError);
    assert.throws(() => Budget.prototype.tokens.call(p, 0), TypeError);
    assert.throws(() => RetryPolicy.prototype.delays.call({ __wbg_ptr: 8 }), TypeError);
    const maxAttempts = Object.getOwnPropertyDescriptor(RetryPolicy.prototype, "maxAttempts")?.get;
    if (maxAttempts) assert.throws(() => maxAttempts.call(b), TypeError);
    // Both still answer.
    assert.equal(p.delays().length, 2);
    assert.equal(b.tokens(0), 5);
    assert.equal(b.callSite, "wrong-this");
  } finally {
    p.free();
    b.free();
  }
});

test("new Budget() is refused with a TypeError pointing at Budget.forCallSite", () => {
  assert.throws(() => new Budget(), (e) => e instanceof TypeError && /Budget\.forCallSite/.test(e.message));
});

test("RetryPolicy and Budget: a freed object throws rather than answering", () => {
  const p = new RetryPolicy({ strategy: "full", baseMs: 100, capMs: 1000, maxAttempts: 3, seed: 1 });
  assert.equal(p.delays().length, 2);
  p.free();
  // A TypeError naming the class, the same in both entries.
  const freed = (name) => (e) => e instanceof TypeError && e.message === `${name} used after free()`;
  assert.throws(() => p.delays(), freed("RetryPolicy"));
  assert.throws(() => p.maxAttempts, freed("RetryPolicy"));
  assert.throws(() => p.sample(2), freed("RetryPolicy"));
  // Being freed is the first thing said, before any argument is checked.
  assert.throws(() => p.sample("two"), freed("RetryPolicy"));
  const b = Budget.forCallSite("freed-site", { capacity: 5, refillPerSec: 1 });
  assert.equal(b.tokens(0), 5);
  b.free();
  assert.throws(() => b.tokens(0), freed("Budget"));
  assert.throws(() => b.tryRetry(0), freed("Budget"));
  assert.throws(() => b.callSite, freed("Budget"));
  assert.throws(() => b.tokens("soon"), freed("Budget"));
  assert.throws(() => b.isOpen("soon"), freed("Budget"));
  assert.throws(() => b.tryRetry("soon"), freed("Budget"));
  // A second free (a finally after a dispose, say) is a no-op in both entries.
  assert.doesNotThrow(() => p.free());
  assert.doesNotThrow(() => b.free());
  if (Symbol.dispose) assert.doesNotThrow(() => p[Symbol.dispose]());
});

test("An object made without its constructor is refused with a TypeError, not a trap", () => {
  // The slim entry's #private fields refuse it; the full entry's guard finds no wasm object.
  const policy = Object.create(RetryPolicy.prototype);
  assert.throws(() => policy.delays(), TypeError);
  assert.throws(() => policy.maxAttempts, TypeError);
  assert.throws(() => policy.free(), TypeError);
  const budget = Object.create(Budget.prototype);
  assert.throws(() => budget.tokens(0), TypeError);
  assert.throws(() => budget.free(), TypeError);
});

test("a forged object (another's pointer, a swapped prototype, a rewritten pointer) is refused, not a trap", () => {
  const p = new RetryPolicy({ strategy: "full", baseMs: 100, capMs: 1000, maxAttempts: 3, seed: 1 });
  const b = Budget.forCallSite("forged", { capacity: 5, refillPerSec: 1 });
  try {
    // Made without the constructor, given a live object's pointer (public in wasm-bindgen's
    // classes): its free() would have freed the other's wasm object under it.
    const twin = Object.assign(Object.create(RetryPolicy.prototype), { __wbg_ptr: p.__wbg_ptr });
    assert.throws(() => twin.free(), TypeError);
    assert.throws(() => twin.delays(), TypeError);
    // One class's object passed off as another's: the wasm read a Budget as a RetryPolicy.
    const swapped = Budget.forCallSite("swapped", { capacity: 5, refillPerSec: 1 });
    Object.setPrototypeOf(swapped, RetryPolicy.prototype);
    assert.throws(() => swapped.delays(), TypeError);
    // Its own pointer rewritten (the slim entry's objects have none to rewrite).
    if ("__wbg_ptr" in p) {
      const real = p.__wbg_ptr;
      p.__wbg_ptr = 8;
      assert.throws(() => p.delays(), TypeError);
      p.__wbg_ptr = real;
    }
    // Nothing was harmed: both answer, and the module works.
    assert.equal(p.delays().length, 2);
    assert.equal(b.tokens(0), 5);
    assert.equal(new RetryPolicy({ maxAttempts: 4 }).maxAttempts, 4);
  } finally {
    p.free();
    b.free();
  }
});
