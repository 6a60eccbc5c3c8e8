// `stampede/fetch` in Node (>= 20): like ../node.js, the wasm read from disk and instantiated
// at import, so nothing needs calling (`await init()` resolves at once).
import { readFileSync } from "node:fs";
import { initSync } from "./stampede_fetch.js";

initSync({ module: readFileSync(new URL("./stampede_fetch_bg.wasm", import.meta.url)) });

export * from "./stampede_fetch.js";
export { default } from "./stampede_fetch.js";
