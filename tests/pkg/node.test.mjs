// The packed package in Node and TypeScript, as their users set them up: what the tarball
// holds, a Node ESM script that uses both entries with no init() call, and a TypeScript project
// checked with moduleResolution "bundler" and "node16" (the node16 build then run by Node).
// Each is a fresh project in a temporary folder with the tarball installed; retryFetch runs
// against `stampede serve`'s /api/flaky.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { lstatSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VERSIONS, missingPrerequisites, pack, project, run, startServer, workspace } from "./harness.mjs";
import { USER_CODE, checkResult, deadUrl, freshKey } from "./user.mjs";

const missing = missingPrerequisites();
if (missing) throw new Error(`the package tests need:\n  ${missing.join("\n  ")}`);

const ws = workspace();
let packed;
let server;
const projects = {};

// The script prints its result as JSON; the key and the server come as arguments.
const NODE_MAIN = `import * as fetchApi from "stampede/fetch";
import init, { Simulation, defaults } from "stampede";
import { run } from "./user.js";

const [base, key, dead] = process.argv.slice(2);
// No init() before this line: in Node both entries load their wasm from disk on import.
const result = await run(fetchApi, base, key, dead);
const sim = new Simulation({ clients: 50, seed: 1 });
sim.run();
// init() is still there for code shared with browsers, and resolves at once.
await init();
await fetchApi.default();
console.log(JSON.stringify({ ...result, simulated: sim.metrics().requests, baseMs: defaults().policy.baseMs }));
`;

// Typed use of both entries; every @ts-expect-error fails the check if the types let it pass.
const TS_MAIN = `import init, { retryFetch, RetryPolicy, RetryError, type AttemptInfo, type RetryFetchOptions } from "stampede/fetch";
import { Simulation, type Metrics } from "stampede";
import { BASE, KEY } from "./server.js";

// @ts-expect-error: the slim entry has no simulator (and Node would refuse the import).
import type { Simulation as NotThere } from "stampede/fetch";

// Never called: what the types must refuse (at run time these throw).
export function refused(): RetryFetchOptions {
  // @ts-expect-error: baseMs is a number.
  new RetryPolicy({ baseMs: "200" });
  // @ts-expect-error: no such strategy.
  return { policy: { strategy: "linear" } };
}

export async function main(): Promise<string> {
  await init();
  const seen: AttemptInfo[] = [];
  const response: Response = await retryFetch(\`\${BASE}/api/flaky?key=\${KEY}&fail=2&status=503\`, undefined, {
    policy: { baseMs: 5, capMs: 20, maxAttempts: 4, seed: 1 },
    onAttempt: (a) => seen.push(a),
  });
  const sim = new Simulation({ clients: 10, seed: 1 });
  sim.run();
  const metrics: Metrics = sim.metrics();
  const err: RetryError | NotThere | undefined = undefined;
  return JSON.stringify({ status: response.status, attempts: seen.map((a) => a.decision), requests: metrics.requests, err });
}

console.log(await main());
`;

const tsconfig = (resolution, extra) =>
  JSON.stringify({
    compilerOptions: { target: "ES2022", strict: true, skipLibCheck: false, lib: ["ES2022", "DOM"], ...resolution, ...extra },
    include: ["src"],
  }, null, 2);

before(async () => {
  packed = await pack(ws.dir);
  const [node, ts] = await Promise.all([
    project(ws.dir, "node-esm", packed.tarball, { "main.js": NODE_MAIN, "user.js": USER_CODE }),
    project(ws.dir, "typescript", packed.tarball, {
      "src/main.ts": TS_MAIN,
      "tsconfig.bundler.json": tsconfig({ module: "ESNext", moduleResolution: "bundler" }, { noEmit: true }),
      "tsconfig.node16.json": tsconfig({ module: "node16", moduleResolution: "node16" }, { outDir: "out" }),
    }, { typescript: VERSIONS.typescript }),
  ]);
  projects.node = node;
  projects.ts = ts;
  server = await startServer(ws.dir);
});

after(async () => {
  await server?.stop();
  ws.cleanup();
});

test("the tarball holds both entries, their types and the README, and nothing else", () => {
  const files = packed.files.map((f) => f.replace(/snippets\/stampede-wasm-[0-9a-f]+\//, "snippets/HASH/"));
  assert.deepEqual(files, [
    "README.md",
    "fetch/node.js",
    "fetch/stampede_fetch.d.ts",
    "fetch/stampede_fetch.js",
    "fetch/stampede_fetch.js.map",
    "fetch/stampede_fetch_bg.wasm",
    "node.js",
    "package.json",
    "snippets/HASH/inline0.js",
    "snippets/HASH/js/errors.js",
    "snippets/HASH/js/fetch-env.js",
    "snippets/HASH/js/headers.js",
    "stampede.d.ts",
    "stampede.js",
    "stampede_bg.wasm",
  ]);
});

test("the projects hold the tarball's copy, not a link into the repository", () => {
  for (const dir of Object.values(projects)) {
    const installed = join(dir, "node_modules", "stampede");
    assert.ok(lstatSync(installed).isDirectory() && !lstatSync(installed).isSymbolicLink(), installed);
    const lock = JSON.parse(readFileSync(join(dir, "package-lock.json"), "utf8"));
    assert.equal(lock.packages["node_modules/stampede"].resolved, "file:stampede.tgz");
  }
});

test("Node ESM: both entries work on import, no init() call, retryFetch retries", { timeout: 30_000 }, async () => {
  const key = freshKey("node");
  const out = await run("node", ["main.js", server.base, key, await deadUrl()], { cwd: projects.node, timeoutMs: 20_000 });
  const result = JSON.parse(out.trim().split("\n").at(-1));
  await checkResult(result, key, server);
  assert.equal(result.simulated, 50);
  assert.equal(result.baseMs, 200, "the core's default, read through defaults()");
});

test("TypeScript: moduleResolution bundler checks, node16 checks and its build runs", { timeout: 90_000 }, async () => {
  const key = freshKey("ts");
  writeFileSync(join(projects.ts, "src", "server.ts"), `export const BASE = ${JSON.stringify(server.base)};\nexport const KEY = ${JSON.stringify(key)};\n`);
  const tsc = join(projects.ts, "node_modules", "typescript", "bin", "tsc");
  await run("node", [tsc, "-p", "tsconfig.bundler.json"], { cwd: projects.ts, timeoutMs: 60_000 });
  await run("node", [tsc, "-p", "tsconfig.node16.json"], { cwd: projects.ts, timeoutMs: 60_000 });
  const out = await run("node", ["out/main.js"], { cwd: projects.ts, timeoutMs: 20_000 });
  const result = JSON.parse(out.trim().split("\n").at(-1));
  assert.equal(result.status, 200);
  assert.deepEqual(result.attempts, ["retry", "retry", "success"]);
  assert.ok(result.requests >= 10, JSON.stringify(result));
  assert.deepEqual((await server.log(key)).map((e) => e.status), [503, 503, 200]);
});

test("TypeScript: a wrong option is an error under both resolutions", { timeout: 60_000 }, async () => {
  writeFileSync(join(projects.ts, "src", "wrong.ts"), `import { retryFetch } from "stampede/fetch";\nretryFetch("/", undefined, { policy: { maxAttempts: "3" } });\n`);
  const tsc = join(projects.ts, "node_modules", "typescript", "bin", "tsc");
  try {
    for (const config of ["tsconfig.bundler.json", "tsconfig.node16.json"]) {
      await assert.rejects(run("node", [tsc, "-p", config, "--noEmit"], { cwd: projects.ts, timeoutMs: 60_000 }), /wrong\.ts.*TS2322/s, config);
    }
  } finally {
    writeFileSync(join(projects.ts, "src", "wrong.ts"), "export {};\n");
  }
});

test("README: every policy and budget option, with the core's default and range", async () => {
  const dir = join(projects.node, "node_modules", "stampede");
  const readme = readFileSync(join(dir, "README.md"), "utf8");
  const { defaults, limits, strategies } = await import(join(dir, "node.js"));
  const [d, l] = [defaults(), limits()];
  const rows = new Map();
  // A budget row may name its kind first (`*bucket* budget.capacity`); defaults() and limits()
  // give the bucket's, the first row of a field that two kinds share (retryCost).
  for (const m of readme.matchAll(/^\| (?:\*\w+\* )?`((?:policy|budget)\.\w+)` \| ([^|]+) \| ([^|]+) \|/gm)) {
    if (!rows.has(m[1])) rows.set(m[1], { def: m[2].trim(), range: m[3].trim() });
  }
  const numbers = (s) => [...s.matchAll(/\d[\d,]*/g)].map((m) => Number(m[0].replaceAll(",", "")));
  let checked = 0;
  for (const group of ["policy", "budget"]) {
    for (const [name, value] of Object.entries(d[group])) {
      const key = `${group}.${name}`;
      const row = rows.get(key);
      assert.ok(row, `README documents ${key}`);
      assert.deepEqual(row.def === "none" ? null : JSON.parse(row.def.replaceAll("`", "")), value, `${key}'s default`);
      if (l[key]) {
        const [min, max] = [numbers(row.range).at(0), numbers(row.range).at(-1)];
        assert.equal(max, l[key].max, `${key}'s max`);
        if (!row.range.startsWith("`")) assert.equal(min, l[key].min, `${key}'s min`);
      }
      checked++;
    }
  }
  assert.deepEqual([...rows.get("policy.strategy").range.matchAll(/`([\w-]+)`/g)].map((m) => m[1]), strategies());
  assert.ok(checked >= 12, `${checked} options checked`);
});
