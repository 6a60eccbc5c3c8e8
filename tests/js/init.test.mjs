// init() and initSync() given a WebAssembly module that is not the entry's own: they refuse
// it with a TypeError and keep nothing, so the right module still loads afterwards. Before,
// a valid but foreign module (here the smallest one, with no exports) was kept: every later
// init() resolved at once and every call threw "… is not a function".
//
// Each entry is imported under its own query string: a module instance of its own, not yet
// initialised (tests/js/load.mjs initialises the shared one on import).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const pkg = new URL("../../crates/stampede-wasm/pkg/", import.meta.url);
const EMPTY = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]); // "\0asm", version 1, no sections

const entries = [
  { name: "stampede", js: "stampede.js", wasm: "stampede_bg.wasm", use: (m) => new m.RetryPolicy({ maxAttempts: 4 }).maxAttempts },
  { name: "stampede/fetch", js: "fetch/stampede_fetch.js", wasm: "fetch/stampede_fetch_bg.wasm", use: (m) => new m.RetryPolicy({ maxAttempts: 4 }).maxAttempts },
];

for (const entry of entries) {
  const bytes = readFileSync(fileURLToPath(new URL(entry.wasm, pkg)));
  const fresh = async (tag) => import(new URL(`${entry.js}?${tag}`, pkg).href);
  const refused = (e) => e instanceof TypeError && /init: .*not stampede/.test(e.message);
  const notLoaded = (e) => e instanceof TypeError && e.message === `${entry.name}: the WebAssembly module is not loaded: await init() (or call initSync()) first`;

  test(`${entry.name}: used before init(), every function throws a TypeError that says to call init(), and retryFetch's promise rejects with it`, async () => {
    const m = await fresh("before-init");
    assert.throws(() => new m.RetryPolicy({ maxAttempts: 4 }), notLoaded);
    assert.throws(() => m.classify({ status: 503 }), notLoaded);
    assert.throws(() => m.parseRetryAfter("5", 0), notLoaded);
    assert.throws(() => m.Budget.forCallSite("before init"), notLoaded);
    const call = m.retryFetch("http://127.0.0.1:59/never-sent");
    assert.ok(call instanceof Promise, "retryFetch returns a promise, not a throw");
    await assert.rejects(call, notLoaded);
    // Before any complaint about the arguments: the same in both entries.
    assert.throws(() => new m.RetryPolicy([]), notLoaded);
    assert.throws(() => m.classify(), notLoaded);
    assert.throws(() => new m.Budget(), notLoaded);
    await assert.rejects(m.retryFetch("http://127.0.0.1:59/never-sent", {}, []), notLoaded);
    // null is no module: refused (a rejected promise, not a throw), nothing loaded.
    const none = m.default(null);
    assert.ok(none instanceof Promise);
    await assert.rejects(none);
    await assert.rejects(m.default({ module_or_path: null }));
    assert.throws(() => m.classify({ status: 503 }), notLoaded);
    // Then loaded as usual, and everything works.
    await m.default({ module_or_path: bytes });
    assert.equal(entry.use(m), 4);
    assert.equal(m.classify({ status: 503 }).retryable, true);
  });

  test(`${entry.name}: init() refuses a foreign module, keeps nothing, then loads its own`, async () => {
    const m = await fresh("init-async");
    await assert.rejects(m.default({ module_or_path: EMPTY }), refused);
    // Refused again, not resolved from what the first call was given.
    await assert.rejects(m.default({ module_or_path: new WebAssembly.Module(EMPTY) }), refused);
    assert.throws(() => entry.use(m), notLoaded); // nothing loaded: the API does not run
    await m.default({ module_or_path: bytes });
    assert.equal(entry.use(m), 4);
    // Loaded: a later init() is a no-op that resolves, whatever it is given.
    await m.default({ module_or_path: EMPTY });
    assert.equal(entry.use(m), 4);
  });

  test(`${entry.name}: an init() given its module loads it itself, beside a load that stalls and one that fails`, async () => {
    const m = await fresh("beside-others");
    const other = readFileSync(fileURLToPath(new URL(entry.wasm.startsWith("fetch/") ? "stampede_bg.wasm" : "fetch/stampede_fetch_bg.wasm", pkg)));
    // A download that never ends (a stalled CDN), and the other entry's module, in flight.
    m.default({ module_or_path: new Promise(() => {}) });
    // (Its rejection handled at once: it may come before the good load's.)
    const wrong = m.default({ module_or_path: other }).then(() => "loaded", (e) => e);
    // It joined them: it never settled beside the first, and failed with the second's error.
    const loaded = m.default({ module_or_path: bytes });
    const late = new Promise((r) => setTimeout(() => r("still pending after 5 s"), 5000));
    assert.notEqual(await Promise.race([loaded.then(() => "loaded"), late]), "still pending after 5 s");
    assert.ok(refused(await wrong), String(await wrong));
    assert.equal(entry.use(m), 4);
  });

  test(`${entry.name}: initSync() while init() is loading: the first instance stays, and what was made from it works`, async () => {
    const m = await fresh("init-race");
    const pending = m.default({ module_or_path: Promise.resolve(bytes) });
    m.initSync({ module: bytes });
    const budget = m.Budget.forCallSite("race", { capacity: 5, refillPerSec: 0 });
    const policy = new m.RetryPolicy({ maxAttempts: 4, seed: 1 });
    await pending;
    // Had init() put in a second instance, these would read its memory (10 tokens, or a
    // "recursive use" error).
    assert.equal(budget.tokens(), 5);
    assert.deepEqual(policy.sample(8), new m.RetryPolicy({ maxAttempts: 4, seed: 1 }).sample(8));
    assert.equal(entry.use(m), 4);
  });

  test(`${entry.name}: initSync() refuses a foreign module, keeps nothing, then loads its own`, async () => {
    const m = await fresh("init-sync");
    assert.throws(() => m.initSync({ module: EMPTY }), refused);
    assert.throws(() => m.initSync({ module: EMPTY }), refused);
    // Not bytes, or bytes of no module: a TypeError naming module, the engine's error as cause.
    const unnamed = (e) => e instanceof TypeError && e.message.startsWith("initSync: module: expected the bytes of ") && e.cause instanceof Error;
    for (const bad of [5, {}, { module: "stampede_bg.wasm" }, { module: new Uint8Array([1, 2, 3]) }]) {
      assert.throws(() => m.initSync(bad), unnamed, JSON.stringify(bad));
    }
    m.initSync({ module: bytes });
    assert.equal(entry.use(m), 4);
  });
}

for (const entry of entries) {
  const bytes = readFileSync(fileURLToPath(new URL(entry.wasm, pkg)));
  const fresh = async (tag) => import(new URL(`${entry.js}?${tag}`, pkg).href);

  // The argument itself (bytes, a module) rather than `{ module }` / `{ module_or_path }`: the
  // types take it, and it loads without a word on the app's console (wasm-bindgen's glue
  // warned that it was deprecated on every load).
  test(`${entry.name}: init and initSync take the module or bytes themselves, without a console warning`, async () => {
    const warned = [];
    const warn = console.warn;
    console.warn = (...args) => warned.push(args.join(" "));
    try {
      const sync = await fresh("bare-sync");
      sync.initSync(new WebAssembly.Module(bytes));
      assert.equal(entry.use(sync), 4);
      const async = await fresh("bare-async");
      await async.default(bytes);
      assert.equal(entry.use(async), 4);
    } finally {
      console.warn = warn;
    }
    assert.deepEqual(warned, []);
  });
}

// The full entry's wasm given to stampede/fetch (an easy mix-up: both ship in the package):
// its imports do not link, and the error says which module was wanted, V8's LinkError as its
// cause, rather than V8's bare 'Import #0 "./snippets/…": module is not an object or function'.
test("stampede/fetch: init() and initSync() given the full entry's wasm name the module they want, and load their own after", async () => {
  const full = readFileSync(fileURLToPath(new URL("stampede_bg.wasm", pkg)));
  const own = readFileSync(fileURLToPath(new URL("fetch/stampede_fetch_bg.wasm", pkg)));
  const wanted = (e) => e instanceof TypeError && e.message === "init: not stampede_fetch_bg.wasm" && /Import #0/.test(e.cause?.message);
  const m = await import(new URL("fetch/stampede_fetch.js?other-entry", pkg).href);
  await assert.rejects(m.default({ module_or_path: full }), wanted);
  assert.throws(() => m.initSync({ module: full }), wanted);
  await m.default({ module_or_path: own });
  assert.equal(new m.RetryPolicy({ maxAttempts: 4 }).maxAttempts, 4);
});

test("stampede: init() and initSync() given the slim entry's wasm name the module they want, and load their own after", async () => {
  const slim = readFileSync(fileURLToPath(new URL("fetch/stampede_fetch_bg.wasm", pkg)));
  const own = readFileSync(fileURLToPath(new URL("stampede_bg.wasm", pkg)));
  const wanted = (e) => e instanceof TypeError && /^init: the WebAssembly module is not stampede's stampede_bg\.wasm/.test(e.message) && /Import #0/.test(e.cause?.message);
  const m = await import(new URL("stampede.js?other-entry", pkg).href);
  await assert.rejects(m.default({ module_or_path: slim }), wanted);
  assert.throws(() => m.initSync({ module: slim }), wanted);
  await m.default({ module_or_path: own });
  assert.equal(new m.RetryPolicy({ maxAttempts: 4 }).maxAttempts, 4);
});
