// The real package, built by `make wasm` (crates/stampede-wasm/pkg), loaded once per test
// file: the page's tables and messages are checked against what it exports and throws, not
// against hand-typed copies.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Limit } from "stampede";
import { optionsFor } from "../../www/src/logic/options.js";

type Package = typeof import("stampede");

const root = process.env["STAMPEDE_ROOT"];
if (!root) throw new Error("STAMPEDE_ROOT is not set: run the page's unit tests with `node tests/www-unit/run.mjs`");
const dir = join(root, "crates", "stampede-wasm", "pkg");

export const pkg = (await import(pathToFileURL(join(dir, "stampede.js")).href)) as Package;
await pkg.default({ module_or_path: readFileSync(join(dir, "stampede_bg.wasm")) });

export type { Limit } from "stampede";

/**
 * A page control's option as a simulation passes it ("policy.baseMs", "clients") and its
 * range in `limits()`, which may key a nested option with or without its prefix. Undefined
 * when limits() has none of the control's options.
 */
export function limitOf(control: string, limits: Record<string, Limit>): { name: string; limit: Limit } | undefined {
  for (const name of optionsFor(control)) {
    const limit = limits[name] ?? limits[name.slice(name.indexOf(".") + 1)];
    if (limit) return { name, limit };
  }
  return undefined;
}
