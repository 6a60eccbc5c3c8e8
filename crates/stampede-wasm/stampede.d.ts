/* Stampede: retry strategies that do not stampede — the WebAssembly package's types.
 * Hand-written (scripts/finish-pkg.mjs installs it over wasm-bindgen's generated file) so
 * that every option and result is typed precisely, not `any`. */

/** Loads the wasm module. In browsers and workers call it with no argument; in Node pass
 *  the bytes: `await init({ module_or_path: readFileSync(".../stampede_bg.wasm") })`. */
export default function init(
  input?: { module_or_path: BufferSource | WebAssembly.Module | URL | string | Response | Promise<Response> } | BufferSource | URL | string,
): Promise<unknown>;
/** Synchronous variant for bytes or a compiled module. */
export function initSync(module: { module: BufferSource | WebAssembly.Module } | BufferSource | WebAssembly.Module): unknown;

export type Strategy = "none" | "constant" | "exponential" | "full" | "equal" | "decorrelated" | "decorrelated-v2";
export type TransportErrorKind = "timeout" | "connect" | "reset" | "dns" | "abort";

/** A retry policy. Every field is optional; defaults: full jitter, 200 ms, 30 s, 6 attempts, ×2. */
export interface PolicyOptions {
  strategy?: Strategy;
  /** The first delay (for decorrelated-v2: the median first delay), ms. */
  baseMs?: number;
  /** No delay is longer, ms. At least baseMs. */
  capMs?: number;
  /** Attempts in all, the first included: 1 to 100. */
  maxAttempts?: number;
  /** Growth per retry, 1 to 1000. */
  multiplier?: number;
  /** 0 to 2^53-1. Omit for a random seed (what real clients want: a shared seed re-synchronises a herd). */
  seed?: number;
  /** No retry starts later than this after the first attempt, ms. */
  maxElapsedMs?: number;
  /** The longest Retry-After / pushback honoured; past it the request gives up. Default 60000. */
  maxRetryAfterMs?: number;
  /** The statuses retried, e.g. "5xx,408,429" (the default) or "502-504". */
  retryOn?: string;
}

export class RetryPolicy {
  /** @throws RangeError (bad value) or TypeError (wrong type), naming the field. */
  constructor(options?: PolicyOptions);
  /** maxAttempts-1 delays (ms) of one client's request; each call draws the next. */
  delays(): Float64Array;
  /** n sequences of maxAttempts-1 delays, flattened row by row. */
  sample(n: number): Float64Array;
  readonly maxAttempts: number;
  readonly strategy: Strategy;
  free(): void;
}

export interface ClassifyInput {
  status?: number;
  method?: string;
  /** A plain object or a Headers; Retry-After and grpc-retry-pushback-ms are read. */
  headers?: Record<string, string> | Headers;
  /** "Now" for Retry-After dates, ms since the epoch. Default Date.now(). */
  nowMs?: number;
  error?: TransportErrorKind;
  idempotent?: boolean;
  maxRetryAfterMs?: number;
  retryOn?: string;
}

export interface Verdict {
  retryable: boolean;
  action: "success" | "retry" | "do-not-retry";
  /** Why, for a person. */
  reason: string;
  /** The server's hint (Retry-After or grpc-retry-pushback-ms), ms; undefined when there is none. */
  retryAfterMs: number | undefined;
  /** A hint that was present but malformed, and why it was ignored. */
  ignoredHint?: string;
}

export function classify(input: ClassifyInput): Verdict;
/** Retry-After (delta-seconds or any HTTP-date form) as ms from nowMs; undefined if malformed. */
export function parseRetryAfter(value: string, nowMs?: number): number | undefined;

export interface BudgetOptions {
  /** Tokens when full. */
  capacity?: number;
  /** Tokens added per second. */
  refillPerSec?: number;
  /** Tokens one retry costs (default 1). */
  retryCost?: number;
  /** Tokens a success puts back (default 0). */
  successRefund?: number;
}

/** A call site's retry budget in the module's registry (one per page or worker). */
export class Budget {
  /** The bucket of that call site, made full now if new (defaults: 10 tokens, +1/s). */
  static forCallSite(name: string, options?: BudgetOptions): Budget;
  readonly callSite: string;
  tokens(nowMs?: number): number;
  isOpen(nowMs?: number): boolean;
  tryRetry(nowMs?: number): boolean;
  reset(): void;
  free(): void;
}

export type Scenario = "burst" | "steady" | "aws-occ";

export interface SimOptions {
  scenario?: Scenario;
  /** 1 to 1,000,000. */
  clients?: number;
  policy?: PolicyOptions;
  outageMs?: number;
  outageStartMs?: number;
  capacityRps?: number;
  /** A rejection's cost as a fraction of serving a request, 0 to 1 (default 0.1). */
  rejectCost?: number;
  latencyMs?: number;
  latencySdMs?: number;
  /** steady: new requests per client per second. */
  ratePerClient?: number;
  /** steady: how long new requests keep coming, ms. */
  durationMs?: number;
  burstWindowMs?: number;
  /** The server's Retry-After during the outage, ms (sent in whole seconds). */
  retryAfterMs?: number | null;
  budget?: BudgetOptions | null;
  budgetScope?: "client" | "shared";
  /** Default 1 (simulations are always seeded). */
  seed?: number;
  slotMs?: number;
  logClients?: number;
}

export interface Metrics {
  requests: number;
  totalAttempts: number;
  successes: number;
  gaveUp: number;
  budgetRejected: number;
  amplification: number;
  peakRps: number;
  peakRecoveryRps: number;
  completionMs: number;
  recoveryMs: number;
  p50Ms: number | null;
  p99Ms: number | null;
  calls: number;
}

/** Attempt-log outcome codes: the 4th number of each entry. */
export type OutcomeCode = 0 | 1 | 2 | 3 | 4; // served, outage, overload, budget-blocked, aws-occ conflict

/** A seeded simulation. Series and the log are VIEWS into wasm memory: re-take them after
 *  run(), advanceTo() or creating another Simulation (memory growth detaches old views). */
export class Simulation {
  constructor(options?: SimOptions);
  run(): void;
  advanceTo(tMs: number): void;
  isDone(): boolean;
  nowMs(): number;
  metrics(): Metrics;
  slotMs(): number;
  logStride(): number;
  logRows(): number;
  offered(): Uint32Array;
  served(): Uint32Array;
  rejected(): Uint32Array;
  failed(): Uint32Array;
  blocked(): Uint32Array;
  /** Flat [tMs, client, attempt, outcome] × n. */
  attemptLog(): Float32Array;
  free(): void;
}

export interface AttemptInfo {
  number: number;
  startedMs: number;
  status?: number;
  error?: TransportErrorKind;
  decision: "retry" | "stop" | "success";
  delayMs?: number;
  /** The classifier's reason (for a stop: why it stopped). */
  reason: string;
  /** Whether the wait came from Retry-After / pushback. */
  fromServer?: boolean;
  /** The call site's tokens after the decision. */
  budgetTokens?: number;
}

export interface RetryFetchOptions {
  policy?: PolicyOptions;
  /** Names a budget in the same registry as Budget.forCallSite. */
  callSite?: string;
  /** Settings for the call site's budget if it does not exist yet. */
  budget?: BudgetOptions;
  attemptTimeoutMs?: number;
  deadlineMs?: number;
  /** Allow retrying POST/PATCH (e.g. with an idempotency key). */
  idempotent?: boolean;
  signal?: AbortSignal;
  onAttempt?: (attempt: AttemptInfo) => void;
}

/** Rejection after giving up on a transport failure: err.name === "RetryError". */
export interface RetryError extends Error { name: "RetryError"; reason: string; attempts: AttemptInfo[]; cause: unknown }
/** Rejection when the call site's budget is spent (no request sent): err.name === "BudgetExhaustedError". */
export interface BudgetExhaustedError extends Error { name: "BudgetExhaustedError"; callSite: string; retryInMs: number; tokens: number }

/** fetch with retries decided by the core policy. Resolves with the first success or, when
 *  it gives up on an HTTP status, the last Response; rejects with RetryError,
 *  BudgetExhaustedError, or the signal's reason on abort. Cross-origin: the server must send
 *  Access-Control-Expose-Headers: Retry-After for the hint to be readable, and a CORS
 *  failure looks exactly like a network failure ("connect"). */
export function retryFetch(input: RequestInfo | URL, init?: RequestInit, options?: RetryFetchOptions): Promise<Response>;
