// After wasm-pack: name the package "stampede" (wasm-pack names it after the crate) and
// replace the generated .d.ts with the hand-written one, whose option and result types
// are precise instead of `any`.
import { readFileSync, writeFileSync, copyFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = process.argv[2];
const here = dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
manifest.name = "stampede";
manifest.types = "stampede.d.ts";
manifest.files = [...new Set([...(manifest.files ?? []), "stampede.d.ts"])];
writeFileSync(join(pkg, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
copyFileSync(join(here, "..", "crates", "stampede-wasm", "stampede.d.ts"), join(pkg, "stampede.d.ts"));
console.log(`finish-pkg: ${pkg} is "stampede" ${manifest.version} with typed stampede.d.ts`);
