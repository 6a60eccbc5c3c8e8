// The page's runner: logic/runner.ts's lanes over the package's simulation (inline runs) and
// the simulation worker (worker.ts, which Vite bundles from the `new Worker(new URL(…))`
// below).

import { SimRunner, type SimWorker } from "../logic/runner.js";
import { simulate } from "./bridge.js";

export { SimRunner, type Lane, type Outcome } from "../logic/runner.js";

/** A runner whose worker runs tell `onWorking` when they start and stop. */
export function pageRunner(onWorking: (working: boolean) => void): SimRunner {
  return new SimRunner({
    simulate,
    createWorker: () => new Worker(new URL("./worker.ts", import.meta.url), { type: "module", name: "stampede-sim" }) as unknown as SimWorker,
    onWorking,
  });
}
