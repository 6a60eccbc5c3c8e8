// The slim entry `stampede/fetch` has a retryFetch driver of its own (JavaScript over the wasm's
// decisions, crates/stampede-wasm/js/slim/retry.js; the full entry's is Rust), and RetryPolicy,
// classify, parseRetryAfter and Budget of its own (js/slim/api.js over a numeric ABI): every
// retryFetch test and the API's run against it too, the suites below loaded with
// STAMPEDE_ENTRY=fetch (see load.mjs; the simulator's tests are skipped there).
import test from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const SUITES = ["fetch.test.mjs", "fetch-after.test.mjs", "fetch-hostile.test.mjs", "fetch-mistakes.test.mjs", "fetch-hedge.test.mjs", "fetch-nets.test.mjs", "api.test.mjs", "callers.test.mjs", "objects.test.mjs", "registry.test.mjs"];

test("every retryFetch suite and the API's pass against stampede/fetch", { timeout: 300_000 }, () => {
  const files = SUITES.map((f) => fileURLToPath(new URL(f, import.meta.url)));
  // Without NODE_TEST_CONTEXT, which would make the child report to this runner, not print.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", ...files], {
    env: { ...env, STAMPEDE_ENTRY: "fetch" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  const count = (name) => Number(run.stdout.match(new RegExp(`^# ${name} (\\d+)$`, "m"))?.[1]);
  const failed = run.stdout.split("\n").filter((l) => /^\s*not ok /.test(l));
  assert.equal(run.status, 0, `failed against stampede/fetch:\n${failed.join("\n")}\n${run.stderr.slice(-2000)}`);
  assert.equal(count("fail"), 0);
  // Every suite ran (a suite that failed to load would count no tests).
  assert.ok(count("pass") >= 98, `${count("pass")} tests passed`);
});

test("a process's first call may be retryFetch with no options: its failed attempt is reported, in both entries", { timeout: 60_000 }, async () => {
  // Nothing has read the options schema yet in a fresh process; the slim entry once failed
  // there with "Cannot read properties of undefined" on the first refused connection.
  const script = (entry) => `
    import net from "node:net";
    const m = await import(${JSON.stringify(entry)});
    if (typeof m.default === "function") await m.default();
    const server = net.createServer((s) => s.destroy()).listen(0, "127.0.0.1");
    await new Promise((r) => server.once("listening", r));
    // The default policy waits seconds between attempts: the first one refused, the call
    // is cancelled in its backoff (through init's signal: retryFetch has no options here).
    const signal = AbortSignal.timeout(500);
    try {
      await m.retryFetch("http://127.0.0.1:" + server.address().port + "/", { signal });
      console.log("resolved");
    } catch (e) {
      console.log(e.name);
    } finally {
      server.close();
    }`;
  const pkg = fileURLToPath(new URL("../../crates/stampede-wasm/pkg/", import.meta.url));
  for (const entry of [`${pkg}node.js`, `${pkg}fetch/node.js`]) {
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script(entry)], { encoding: "utf8", timeout: 30_000 });
    assert.equal(run.stdout.trim(), "TimeoutError", `${entry}: ${run.stdout}${run.stderr.slice(-1000)}`);
  }
});

test("stampede/fetch's minified file maps back to its sources: a stack frame names js/errors.js and js/slim/api.js", { timeout: 30_000 }, () => {
  const pkg = fileURLToPath(new URL("../../crates/stampede-wasm/pkg/", import.meta.url));
  // A settings error is built in js/errors.js, called from the options reader: with source
  // maps on (as a browser's devtools have them), its stack names those files, not "Ee".
  const script = `
    const m = await import(${JSON.stringify(`${pkg}fetch/node.js`)});
    try { new m.RetryPolicy({ baseMs: "200" }); } catch (e) { console.log(e.stack); }`;
  const run = spawnSync(process.execPath, ["--enable-source-maps", "--input-type=module", "-e", script], { encoding: "utf8", timeout: 20_000 });
  assert.match(run.stdout, /^TypeError: baseMs: expected a number/);
  assert.match(run.stdout, /js\/errors\.js:\d+:\d+/, run.stdout);
  assert.match(run.stdout, /js\/slim\/(options|api)\.js:\d+:\d+/, run.stdout);
});
