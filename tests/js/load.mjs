// Loads the built package (crates/stampede-wasm/pkg, made by `make wasm`) in Node 20 by
// handing the wasm bytes to init(), as a non-browser host must.
//
// STAMPEDE_ENTRY=fetch loads the slim entry `stampede/fetch` instead, whose retryFetch is
// another driver (JavaScript over the wasm's decisions), as are its RetryPolicy, classify,
// parseRetryAfter and Budget: the retryFetch tests (fetch*.test.mjs), api.test.mjs and
// registry.test.mjs run against it too (fetch-slim.test.mjs), the simulator's tests skipped.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const slim = process.env.STAMPEDE_ENTRY === "fetch";
const pkg = new URL(slim ? "../../crates/stampede-wasm/pkg/fetch/" : "../../crates/stampede-wasm/pkg/", import.meta.url);
export const wasmPath = fileURLToPath(new URL(slim ? "stampede_fetch_bg.wasm" : "stampede_bg.wasm", pkg));
export const stampede = await import(new URL(slim ? "stampede_fetch.js" : "stampede.js", pkg).href);
export const wasm = await stampede.default({ module_or_path: readFileSync(wasmPath) });
