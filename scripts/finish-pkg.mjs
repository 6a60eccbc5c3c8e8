// After wasm-pack: name the package "stampede" (wasm-pack names it after the crate), replace
// the generated .d.ts with the hand-written one, whose option and result types are precise
// instead of `any`, re-export the error classes (RetryError, BudgetExhaustedError) from
// stampede.js, and check the size bar: stampede_bg.wasm at most 180 KB (180,000 bytes: it
// was 150 KB before the queueing model, which adds about 28 KB),
// printed raw and gzipped. Exits non-zero past the bar, so `make wasm` (and with it every
// target that builds the package) fails.
import { readFileSync, writeFileSync, copyFileSync, readdirSync, existsSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const MAX_WASM_BYTES = 180_000;

const pkg = process.argv[2];
const here = dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
manifest.name = "stampede";
manifest.types = "stampede.d.ts";
manifest.files = [...new Set([...(manifest.files ?? []), "stampede.d.ts"])];
writeFileSync(join(pkg, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
copyFileSync(join(here, "..", "crates", "stampede-wasm", "stampede.d.ts"), join(pkg, "stampede.d.ts"));

// wasm-bindgen copies crates/stampede-wasm/js/errors.js to snippets/stampede-wasm-<hash>/js/.
const snippets = join(pkg, "snippets");
const dir = existsSync(snippets) && readdirSync(snippets).find((d) => existsSync(join(snippets, d, "js", "errors.js")));
if (!dir) {
  console.error(`finish-pkg: ${snippets}/*/js/errors.js not found: the error classes cannot be exported`);
  process.exit(1);
}
const entry = join(pkg, "stampede.js");
const marker = "// finish-pkg: the error classes";
const js = readFileSync(entry, "utf8");
if (!js.includes(marker)) {
  writeFileSync(entry, `${js}\n${marker}\nexport { RetryError, BudgetExhaustedError } from "./snippets/${dir}/js/errors.js";\n`);
}

const wasm = readFileSync(join(pkg, "stampede_bg.wasm"));
const gz = gzipSync(wasm, { level: 9 }).length;
const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
console.log(`finish-pkg: ${pkg} is "stampede" ${manifest.version} with typed stampede.d.ts and exported error classes`);
console.log(`finish-pkg: stampede_bg.wasm ${wasm.length} bytes (${kb(wasm.length)}), gzip -9 ${gz} bytes (${kb(gz)}); bar ${kb(MAX_WASM_BYTES)}`);
if (wasm.length > MAX_WASM_BYTES) {
  console.error(`finish-pkg: stampede_bg.wasm is ${kb(wasm.length)}, over the ${kb(MAX_WASM_BYTES)} bar`);
  process.exit(1);
}
