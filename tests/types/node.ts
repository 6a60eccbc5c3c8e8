// The package's types in a Node project without the DOM lib (`lib: ["ES2022"]`,
// `types: ["node"]`, skipLibCheck off: tsconfig.node.json): what @tsconfig/node20-style
// projects compile with. Every name the declarations use must come from ES2022 or
// @types/node (fetch's Request, Response, URL, AbortSignal, Headers), none from the DOM.
import { readFile } from "node:fs/promises";
import init, { initSync, retryFetch, RetryError } from "stampede";
import type { WasmBytes, WasmModule } from "stampede";
import * as slim from "stampede/fetch";

// No lib declares WebAssembly here: a module cannot be typed, so only the bytes are.
type NoModule = [WasmModule] extends [never] ? true : false;
export const noModule: NoModule = true;

export async function main(signal: AbortSignal): Promise<number> {
  const bytes: WasmBytes = await readFile(new URL("./stampede_bg.wasm", import.meta.url));
  initSync({ module: bytes });
  await init({ module_or_path: bytes });
  await slim.default();
  try {
    const response: Response = await retryFetch(new URL("http://127.0.0.1:8080/api/flaky"), { headers: new Headers({ accept: "application/json" }), signal }, { policy: { maxAttempts: 3 } });
    const again: Response = await slim.retryFetch(new Request("http://127.0.0.1:8080/"), undefined, { deadlineMs: 5000 });
    return response.status + again.status;
  } catch (e) {
    if (e instanceof RetryError) return e.attempts.length;
    throw e;
  }
}
