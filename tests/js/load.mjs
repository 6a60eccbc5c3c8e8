// Loads the built package (crates/stampede-wasm/pkg, made by `make wasm`) in Node 20 by
// handing the wasm bytes to init(), as a non-browser host must.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const pkg = new URL("../../crates/stampede-wasm/pkg/", import.meta.url);
export const wasmPath = fileURLToPath(new URL("stampede_bg.wasm", pkg));
export const stampede = await import(new URL("stampede.js", pkg).href);
export const wasm = await stampede.default({ module_or_path: readFileSync(wasmPath) });
