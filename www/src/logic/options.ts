// Which of the page's controls each package option belongs to.
//
// The package names the option in every settings error (`field`: "policy.baseMs",
// "budget.capacity", "clients", "attemptTimeoutMs") and keys `limits()` the same way. This is
// the one table from those names to the page's control ids. Each part is a Record keyed by
// the package's own option type, so an option added to the package fails to compile here
// until the page says where it goes (or that no control sets it: null).

import type { BudgetOptions, HedgingOptions, PolicyOptions, RetryFetchOptions, SimOptions } from "stampede";
import type { Side } from "./state.js";

/** A control's id (the typed field's or select's id, a stable page hook); null: none. */
type Control = string | null;

const POLICY: Record<keyof PolicyOptions, Control> = {
  strategy: "strategy",
  baseMs: "base",
  capMs: "cap",
  maxAttempts: "attempts",
  multiplier: "multiplier",
  // The page passes the scenario's seed to the delay sampler too.
  seed: "seed",
  maxElapsedMs: null,
  maxRetryAfterMs: null,
  retryOn: null,
  // Not options: typed `never` so that a RetryPolicy does not pass for its options.
  delays: null,
  sample: null,
};

/** Every field of a union's members (keyof a union is only the fields all share). */
type AnyKey<T> = T extends unknown ? keyof T : never;

/** The budget of every kind: the page's form sets the bucket's; the nets panel passes the others itself. */
const BUDGET: Record<AnyKey<BudgetOptions>, Control> = {
  kind: null,
  capacity: "budget-capacity",
  refillPerSec: "budget-refill",
  retryCost: null,
  successRefund: null,
  ratio: null,
  cap: null,
  minPerSec: null,
  windowMs: null,
  maxTokens: null,
  tokenRatio: null,
  tokens: null,
  timeoutCost: null,
};

const SIMULATION: Record<Exclude<keyof SimOptions, "policy" | "budget" | "slowdown" | "hedging">, Control> = {
  scenario: "scenario",
  clients: "clients",
  outageMs: "outage",
  outageStartMs: "outage-start",
  capacityRps: "capacity",
  rejectCost: null,
  servers: "servers",
  balance: "balance",
  workers: "workers",
  queue: "queue",
  queueOrder: "queue-order",
  queueTimeoutMs: "queue-timeout",
  serviceMs: "service",
  serviceDist: "service-dist",
  serviceSpread: "service-spread",
  serviceSlopeMs: "service-slope",
  failRate: "fail-rate",
  outageServers: "outage-servers",
  timeoutMs: "timeout",
  latencyDist: "latency-dist",
  spikeStartMs: "spike-start",
  spikeLengthMs: "spike-length",
  spikeFactor: "spike-factor",
  thinkMs: "think",
  latencyMs: "latency",
  latencySdMs: null,
  ratePerClient: "rate",
  durationMs: "duration",
  burstWindowMs: null,
  retryAfterMs: "retry-after",
  budgetScope: "budget-scope",
  seed: "seed",
  slotMs: null,
  logClients: null,
  // The layers panel's (#layers, #retry-at) say their own errors, beside their fields.
  layers: null,
  retryAt: null,
  // Safety nets (issue #12): the nets panel sets them and says their errors itself.
  breaker: null,
  throttle: null,
};

/** The slowdown window's parts (errors name them "slowdown.startMs" …). */
const SLOWDOWN: Record<keyof NonNullable<SimOptions["slowdown"]>, Control> = {
  startMs: "slowdown-start",
  lengthMs: "slowdown-length",
  factor: "slowdown-factor",
};

const FETCH: Record<Exclude<keyof RetryFetchOptions, "policy" | "budget">, Control> = {
  callSite: null,
  attemptTimeoutMs: "live-timeout",
  deadlineMs: null,
  idempotent: null,
  signal: null,
  onAttempt: null,
  // The live panel's breaker box says its own errors (ui/live.ts); hedging's parts are below.
  breaker: null,
  throttle: null,
  hedging: null,
};

/** Hedging's parts (errors name them "hedging.delayMs" …): the live panel's delay box; the
 *  hedges' number follows the policy's attempts, clamped (ui/live.ts). */
const HEDGING: Record<keyof HedgingOptions, Control> = {
  delayMs: "live-hedge-delay",
  maxAttempts: null,
};

/** Policy controls that exist twice: policy B's carry a `b-` prefix. */
const SIDED = new Set(["strategy", "base", "cap", "attempts", "multiplier"]);

function lookup(table: Record<string, Control>, name: string): Control {
  return Object.hasOwn(table, name) ? (table[name] ?? null) : null;
}

/**
 * The control a package field belongs to, or null when the page has none for it.
 * `side`: the policy the call used (a B run's policy fields belong to the compare panel).
 */
export function controlFor(field: string, side: Side = "a"): string | null {
  const dot = field.indexOf(".");
  const scope = dot < 0 ? "" : field.slice(0, dot);
  const name = dot < 0 ? field : field.slice(dot + 1);
  let id: Control;
  if (scope === "policy") id = lookup(POLICY, name);
  else if (scope === "budget") id = lookup(BUDGET, name);
  else if (scope === "slowdown") id = lookup(SLOWDOWN, name);
  else if (scope === "hedging") id = lookup(HEDGING, name);
  else if (scope !== "") id = null;
  // Unprefixed: a simulation's or retryFetch's own option, or a RetryPolicy's / Budget's
  // (their constructors take the options at the top level).
  else id = lookup(SIMULATION, name) ?? lookup(FETCH, name) ?? lookup(POLICY, name) ?? lookup(BUDGET, name);
  if (id !== null && side === "b" && SIDED.has(id)) return `b-${id}`;
  return id;
}

/**
 * The package's names for a control's option, as a simulation passes it ("policy.baseMs",
 * "budget.capacity", "clients"): how `limits()` and errors name it. Empty for a control the
 * package does not set.
 */
export function optionsFor(control: string): string[] {
  const id = control.startsWith("b-") && SIDED.has(control.slice(2)) ? control.slice(2) : control;
  const names: string[] = [];
  const add = (table: Record<string, Control>, prefix: string) => {
    for (const [name, c] of Object.entries(table)) if (c === id) names.push(prefix + name);
  };
  add(SIMULATION, "");
  add(POLICY, "policy.");
  add(BUDGET, "budget.");
  add(SLOWDOWN, "slowdown.");
  add(FETCH, "");
  add(HEDGING, "hedging.");
  return names;
}

/** Every control some package option belongs to, policy B's included. */
export function mappedControls(): string[] {
  const ids = new Set<string>();
  for (const table of [SIMULATION, POLICY, BUDGET, SLOWDOWN, FETCH, HEDGING] as Record<string, Control>[]) {
    for (const id of Object.values(table)) {
      if (id === null) continue;
      ids.add(id);
      if (SIDED.has(id)) ids.add(`b-${id}`);
    }
  }
  return [...ids];
}
