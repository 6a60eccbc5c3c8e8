// The packed package in bundled browser apps, as their users build them: a Vite app that
// imports only `stampede/fetch` (built with `vite build`, no config) and a webpack 5 app that
// imports the full `stampede` (a five-line webpack.config.js). Each is a fresh project in a
// temporary folder with the tarball and its bundler installed; `stampede serve` serves the
// builds, and headless Chromium runs retryFetch in them against the server's /api/flaky.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { VERSIONS, launchBrowser, missingPrerequisites, pack, project, run, startServer, workspace } from "./harness.mjs";
import { USER_CODE, checkResult, deadUrl, freshKey } from "./user.mjs";

const missing = missingPrerequisites();
if (missing) throw new Error(`the package tests need:\n  ${missing.join("\n  ")}`);

const ws = workspace();
const site = join(ws.dir, "site");
let server;
let browser;
const apps = {};

const html = (script) => `<!doctype html>
<html><head><meta charset="utf-8"><title>stampede user</title></head>
<body><script type="module" src="${script}"></script></body></html>
`;

// webpack 5 with no loader or plugin: it turns the glue's new URL("…_bg.wasm", import.meta.url)
// into an asset by itself. Built through webpack's Node API (webpack-cli is a package more).
const WEBPACK_CONFIG = `export default {
  mode: "production",
  entry: "./src/main.js",
  output: { path: process.env.OUT ?? new URL("./dist/", import.meta.url).pathname, clean: true },
};
`;
const WEBPACK_BUILD = `import webpack from "webpack";
import config from "./webpack.config.js";

webpack(config, (err, stats) => {
  if (err || stats.hasErrors()) {
    console.error(err ?? stats.toString("errors-only"));
    process.exit(1);
  }
  if (stats.hasWarnings()) console.error(stats.toString("errors-warnings"));
});
`;

// Reports through the page: a user's app would render it; the test reads it.
const main = (importLines, api) => `${importLines}
import { run } from "./user.js";

const params = new URLSearchParams(location.search);
const [key, dead] = [params.get("key"), params.get("dead")];
${api}
  .then((result) => (globalThis.stampedeResult = result))
  .catch((e) => (globalThis.stampedeResult = { error: String(e && e.stack || e) }));
`;

before(async () => {
  const { tarball } = await pack(ws.dir);
  const [vite, webpack] = await Promise.all([
    project(ws.dir, "vite-app", tarball, {
      "index.html": html("./src/main.js"),
      "src/user.js": USER_CODE,
      "src/main.js": main(`import init, * as api from "stampede/fetch";`, `init().then(() => run(api, location.origin, key, dead))`),
    }, { vite: VERSIONS.vite }),
    project(ws.dir, "webpack-app", tarball, {
      "webpack.config.js": WEBPACK_CONFIG,
      "build.js": WEBPACK_BUILD,
      "src/user.js": USER_CODE,
      "src/main.js": main(
        `import init, * as api from "stampede";`,
        `init().then(() => {
  const sim = new api.Simulation({ clients: 100, seed: 1 });
  sim.run();
  return run(api, location.origin, key, dead).then((r) => ({ ...r, simulated: sim.metrics().requests }));
})`,
      ),
    }, { webpack: VERSIONS.webpack }),
  ]);
  apps.vite = vite;
  apps.webpack = webpack;
  // Both builds go under one folder that `stampede serve` serves: site/vite/, site/webpack/.
  await Promise.all([
    run("npx", ["vite", "build", "--base", "./", "--outDir", join(site, "vite"), "--emptyOutDir", "--logLevel", "warn"], { cwd: vite, timeoutMs: 90_000 }),
    run("node", ["build.js"], { cwd: webpack, timeoutMs: 120_000, env: { OUT: join(site, "webpack") } }),
  ]);
  writeFileSync(join(site, "webpack", "index.html"), html("./main.js"));
  [server, browser] = await Promise.all([startServer(site), launchBrowser()]);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  ws.cleanup();
});

/** Opens `path` with a fresh key; resolves with { result, key, problems } (console errors and warnings). */
async function open(path, name) {
  const key = freshKey(name);
  const page = await browser.newPage();
  const problems = [];
  page.on("console", (m) => ["error", "warning"].includes(m.type()) && problems.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  await page.goto(`${server.base}/${path}?key=${key}&dead=${encodeURIComponent(await deadUrl())}`);
  const handle = await page.waitForFunction(() => globalThis.stampedeResult, null, { timeout: 20_000 });
  const result = await handle.jsonValue();
  await page.close();
  return { result, key, problems };
}

/** Chromium logs every failed load itself (the 503s, the refused port, a favicon): nothing
 *  else may be logged, a page error or a wasm warning. */
function unexpected(problems) {
  return problems.filter((p) => !p.startsWith("error: Failed to load resource:"));
}

test("Vite: an app on stampede/fetch builds with no config and retries in Chromium", { timeout: 60_000 }, async () => {
  const { result, key, problems } = await open("vite/index.html", "vite");
  assert.equal(result.error, undefined, result.error);
  await checkResult(result, key, server);
  assert.deepEqual(unexpected(problems), []);
});

// The goal is 25 KB gzipped for wasm + JS; not met (44.4 KB, see scripts/finish-pkg.mjs;
// 45.2 KB in this app, with its own code): the figure is printed, and bounded so that it does not
// grow.
test("Vite: the app ships the slim wasm only; its wasm + JS gzipped is printed and bounded", (t) => {
  const assets = readdirSync(join(site, "vite", "assets"));
  const wasm = assets.filter((f) => f.endsWith(".wasm"));
  assert.equal(wasm.length, 1, `one wasm: ${assets}`);
  assert.match(wasm[0], /^stampede_fetch_bg/, "the slim module, not the simulator's");
  const gz = assets.filter((f) => /\.(js|wasm)$/.test(f)).reduce((n, f) => n + gzipSync(readFileSync(join(site, "vite", "assets", f)), { level: 9 }).length, 0);
  t.diagnostic(`Vite app on stampede/fetch: wasm + JS ${gz} bytes gzip -9 (goal 25,000)`);
  // scripts/finish-pkg.mjs's bar (MAX_SLIM_GZIP_BYTES, 49.9 KB) and the app's own code (0.8 KB):
  // the goal, 25 KB, is not met.
  assert.ok(gz <= 50_700, `${gz} bytes gzipped`);
});

test("webpack 5: an app on the full stampede builds and runs the simulator and retryFetch in Chromium", { timeout: 60_000 }, async () => {
  const { result, key, problems } = await open("webpack/index.html", "webpack");
  assert.equal(result.error, undefined, result.error);
  assert.equal(result.simulated, 100, "the simulation ran its 100 clients' requests");
  await checkResult(result, key, server);
  assert.deepEqual(unexpected(problems), []);
  const emitted = readdirSync(join(site, "webpack")).filter((f) => f.endsWith(".wasm"));
  assert.equal(emitted.length, 1, `webpack emitted the wasm as an asset: ${emitted}`);
});
