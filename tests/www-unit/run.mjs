// Unit tests of the page's pure modules (state, URL codec, formatting, i18n, fields, the
// herd rasteriser…): compiles them with tsc into a temporary folder, then runs them with
// Node's own test runner. Some load the real package (crates/stampede-wasm/pkg, built by
// `make wasm`) to check the page against it. Usage: node tests/www-unit/run.mjs
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");
// Inside node_modules, so the compiled tests resolve packages (fast-check) from the root.
const cache = join(root, "node_modules", ".cache");
mkdirSync(cache, { recursive: true });
const out = mkdtempSync(join(cache, "www-unit-"));
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
try {
  const built = spawnSync(process.execPath, [tsc, "-p", join(here, "tsconfig.json"), "--outDir", out], { stdio: "inherit" });
  if (built.status !== 0) {
    console.error("www-unit: the TypeScript build failed");
    process.exitCode = 1;
  } else {
    // Compiled files are ES modules.
    writeFileSync(join(out, "package.json"), '{ "type": "module" }\n');
    const testsDir = join(out, "tests", "www-unit");
    const files = readdirSync(testsDir).filter((f) => f.endsWith(".test.js")).map((f) => join(testsDir, f));
    // Tests that need the real package (built by `make wasm`) find it through STAMPEDE_ROOT.
    const env = { ...process.env, STAMPEDE_ROOT: root };
    const run = spawnSync(process.execPath, ["--enable-source-maps", "--test", ...files], { stdio: "inherit", env });
    process.exitCode = run.status ?? 1;
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
