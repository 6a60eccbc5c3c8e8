// The backoff settings each strategy reads, as the core's `Strategy::reads` has them: none
// waits nothing, constant waits its base (the cap only bounds it), and only exponential,
// full and equal grow by the multiplier. The page shows and sends only these (logic/run.ts,
// policyOptions: "constant" sends its base as its cap, which the core checks): a setting the
// strategy does not read changed nothing, and a hidden one could still be refused (a cap
// below the base under "constant"). The unit tests hold this table to the package's runs.

import type { Strategy } from "./state.js";

/** A backoff setting of a policy. */
export type BackoffKey = "baseMs" | "capMs" | "multiplier";

const READS: Record<Strategy, readonly BackoffKey[]> = {
  none: [],
  constant: ["baseMs"],
  exponential: ["baseMs", "capMs", "multiplier"],
  full: ["baseMs", "capMs", "multiplier"],
  equal: ["baseMs", "capMs", "multiplier"],
  decorrelated: ["baseMs", "capMs"],
  "decorrelated-v2": ["baseMs", "capMs"],
};

/** Whether `strategy` reads `key`. */
export function readsBackoff(strategy: Strategy, key: BackoffKey): boolean {
  return READS[strategy].includes(key);
}
