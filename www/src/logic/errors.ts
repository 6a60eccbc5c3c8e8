// The package names the field in every settings error ("policy.baseMs: expected …",
// "budget.capacity: expected …"). This finds the control that field belongs to, so the
// message can sit next to it.

import type { Side } from "./state.js";

/** The package's field names (without prefix) → the page's control id (policy A). */
const FIELD_TO_CONTROL: Record<string, string> = {
  strategy: "strategy",
  baseMs: "base",
  capMs: "cap",
  maxAttempts: "attempts",
  multiplier: "multiplier",
  clients: "clients",
  outageMs: "outage",
  outageStartMs: "outage-start",
  capacityRps: "capacity",
  retryAfterMs: "retry-after",
  ratePerClient: "rate",
  durationMs: "duration",
  seed: "seed",
  scenario: "scenario",
  budgetScope: "budget-scope",
  capacity: "budget-capacity",
  refillPerSec: "budget-refill",
};

const POLICY_FIELDS = new Set(["strategy", "baseMs", "capMs", "maxAttempts", "multiplier"]);
const BUDGET_FIELDS = new Set(["capacity", "refillPerSec"]);

export interface FieldError {
  /** The control to show the message next to; null when none fits. */
  control: string | null;
  message: string;
}

/**
 * Where a settings error from the package belongs. `side` is the policy the run used:
 * policy fields of a B run belong to the compare panel's controls.
 */
export function locateError(message: string, side: Side = "a"): FieldError {
  const m = /^([A-Za-z][A-Za-z.]*):\s/.exec(message);
  if (!m || m[1] === undefined) return { control: null, message };
  const path = m[1].split(".");
  const field = path[path.length - 1] ?? "";
  const scope = path.length > 1 ? path[0] : undefined;
  let control: string | undefined;
  if (scope === "budget" || (scope === undefined && BUDGET_FIELDS.has(field))) {
    control = FIELD_TO_CONTROL[field];
  } else if (scope === "policy" || POLICY_FIELDS.has(field)) {
    const id = FIELD_TO_CONTROL[field];
    control = id && side === "b" ? `b-${id}` : id;
  } else {
    control = FIELD_TO_CONTROL[field];
  }
  return { control: control ?? null, message };
}

/** A thrown value's message, whatever was thrown. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === "string") return e;
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}
