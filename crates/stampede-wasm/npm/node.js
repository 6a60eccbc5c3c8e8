// `stampede` in Node (>= 20). wasm-bindgen's web build loads its wasm with fetch(), which in
// Node cannot read a file: URL ("fetch failed"); so this entry reads the bytes from disk and
// instantiates the module at import. Nothing needs calling: `await init()` still works (it
// resolves at once), so the same code runs in browsers and in Node.
import { readFileSync } from "node:fs";
import { initSync } from "./stampede.js";

initSync({ module: readFileSync(new URL("./stampede_bg.wasm", import.meta.url)) });

export * from "./stampede.js";
export { default } from "./stampede.js";
