/* Stampede: retry strategies that do not stampede — the WebAssembly package's types.
 * Hand-written (scripts/finish-pkg.mjs installs it over wasm-bindgen's generated file) so
 * that every option and result is typed precisely, not `any`. */

/** Loads the wasm module: with no argument, the `.wasm` beside the module (browsers, workers,
 *  bundlers, Deno). In Node (the package's `node` entry) the module is loaded on import and
 *  this resolves at once. Also takes a URL, a Response, the bytes or a compiled module.
 *  Before it has loaded, every function and constructor throws a TypeError that says to call
 *  it (retryFetch returns a promise rejected with it). */
export default function init(
  input?: { module_or_path: WasmBytes | WasmModule | URL | string | Response | Promise<Response> } | WasmBytes | URL | string,
): Promise<unknown>;
/** Synchronous variant for bytes or a compiled module. */
export function initSync(module: { module: WasmBytes | WasmModule } | WasmBytes | WasmModule): unknown;

/** `Symbol.dispose`, declared as `@types/node` declares it, so that these types check with any
 *  `lib` (ES2020 as well as ESNext): the classes below are disposable with `using` where the
 *  runtime has the symbol (Node 20, Deno, current browsers; elsewhere call free()). */
declare global {
  interface SymbolConstructor {
    readonly dispose: unique symbol;
  }
}

/** The wasm's bytes (the DOM's `BufferSource`, spelled out so that these types need no DOM
 *  lib: a Node project with `@types/node` and `lib: ["ES2022"]` checks them as they are). */
export type WasmBytes = ArrayBuffer | ArrayBufferView;
/** A compiled `WebAssembly.Module`, where the project's libs declare one (the DOM's do;
 *  `@types/node` does not, and there only the bytes are typed). */
export type WasmModule = typeof globalThis extends { WebAssembly: { Module: { prototype: infer M } } } ? M : never;

export type Strategy = "none" | "constant" | "exponential" | "full" | "equal" | "decorrelated" | "decorrelated-v2";
export type TransportErrorKind = "timeout" | "connect" | "reset" | "dns" | "abort";

/** A retry policy. Every field is optional; defaults: full jitter, 200 ms, 30 s, 6 attempts, ×2. */
export interface PolicyOptions {
  strategy?: Strategy | undefined;
  /** The first delay (for decorrelated-v2: the median first delay), ms. */
  baseMs?: number | undefined;
  /** No delay is longer, ms. At least baseMs; when absent, 30 s or baseMs when that is longer. */
  capMs?: number | undefined;
  /** Attempts in all, the first included: 1 to 100. */
  maxAttempts?: number | undefined;
  /** Growth per retry, 1 to 1000. */
  multiplier?: number | undefined;
  /** 0 to 2^53-1. Omit for a random seed (what real clients want: a shared seed re-synchronises a herd). */
  seed?: number | undefined;
  /** No retry starts later than this after the first attempt, ms; an attempt already
   *  running is not cut short (retryFetch's deadlineMs does that). */
  maxElapsedMs?: number | undefined;
  /** The longest Retry-After / pushback honoured; past it the request gives up. Default 60000. */
  maxRetryAfterMs?: number | undefined;
  /** The statuses retried, e.g. "5xx,408,429" (the default) or "502-504". */
  retryOn?: string | undefined;
  /** A RetryPolicy is no options object (refused at run time: "expected a plain options
   *  object"): its methods keep one from passing as these options. */
  delays?: never;
  sample?: never;
}

export class RetryPolicy {
  /** @throws RangeError (bad value) or TypeError (wrong type), naming the field. */
  constructor(options?: PolicyOptions);
  /** maxAttempts-1 delays (ms) of one client's request; each call draws the next. A copy. */
  delays(): Float64Array;
  /** n sequences of maxAttempts-1 delays, flattened row by row (a copy). n is a whole number
   *  from 0 to 1,000,000 and n × (maxAttempts-1) at most 10,000,000 values (80 MB).
   *  @throws TypeError if n is not a number; RangeError (naming n and its bound) past it. */
  sample(n: number): Float64Array;
  readonly maxAttempts: number;
  readonly strategy: Strategy;
  /** Frees its wasm memory. A second free() does nothing; any other use after it throws a
   *  TypeError ("RetryPolicy used after free()"). */
  free(): void;
  /** free(), for `using x = new RetryPolicy(…)`: freed when the block ends. */
  [Symbol.dispose](): void;
}

/** What `classify` reads: a `status` (100 to 599, with the response's headers) or a transport
 *  `error`, not both (either alone is required: a TypeError names `status` otherwise). */
export type ClassifyInput = ClassifyStatus | ClassifyError;

export interface ClassifyStatus extends ClassifyCommon {
  status: number;
  /** What fetch takes as a HeadersInit: a Headers (anything with `get(name)`), an iterable of
   *  `[name, value]` pairs (at most 10,000; `[["retry-after", "2"]]` as TypeScript infers
   *  it, `string[][]`, is taken), a Map (read as its pairs), or a plain object, such as
   *  Node's `IncomingHttpHeaders` (a header of several values is an array; Retry-After and
   *  grpc-retry-pushback-ms must be one). Retry-After and grpc-retry-pushback-ms are read,
   *  names without regard to case, the first of each; a value longer than 4096 characters is
   *  malformed (ignoredHint; a pushback so long stops), never refused as too long. */
  headers?: Record<string, string | number | readonly string[] | undefined> | Iterable<readonly (string | number)[]> | Headers | null | undefined;
  error?: undefined;
}

export interface ClassifyError extends ClassifyCommon {
  error: TransportErrorKind;
  status?: undefined;
  /** Read only beside a status: taken and ignored with an error. */
  headers?: ClassifyStatus["headers"];
}

interface ClassifyCommon {
  method?: string | undefined;
  /** "Now" for Retry-After dates: wall-clock ms since the epoch. Default Date.now(). (Only a
   *  date is read against it; budgets use a monotonic clock, see Budget.tokens.) */
  nowMs?: number | undefined;
  idempotent?: boolean | undefined;
  maxRetryAfterMs?: number | undefined;
  retryOn?: string | undefined;
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
/** Retry-After (delta-seconds or any HTTP-date form) as ms from nowMs; undefined if malformed
 *  (a value longer than 4096 characters is: it is a server's, never refused as too long). */
export function parseRetryAfter(value: string, nowMs?: number): number | undefined;

/** The budget schools (issue #12): today's token bucket, a ratio budget (Finagle, tower,
 *  Linkerd; Brooker's adaptive client), gRPC retry throttling (gRFC A6), the AWS SDKs'
 *  retry quota (standard mode). */
export type BudgetKind = "bucket" | "ratio" | "grpc" | "aws";

/** A token bucket refilled per second: `kind` absent or "bucket" (today's budget). */
export interface BucketBudgetOptions {
  kind?: "bucket" | undefined;
  /** Tokens when full (default 10). */
  capacity?: number | undefined;
  /** Tokens added per second (default 1). */
  refillPerSec?: number | undefined;
  /** Tokens one retry costs (default 1). */
  retryCost?: number | undefined;
  /** Tokens a success puts back (default 0). */
  successRefund?: number | undefined;
}

/** Each call deposits `ratio` of a token (expiring after `windowMs`), a retry withdraws 1,
 *  and `minPerSec` retries per second are always allowed. Defaults Finagle's: 0.2, no cap,
 *  10 per second, 10 s. Brooker's adaptive client: `{ kind: "ratio", ratio: 0.1, cap: 5,
 *  minPerSec: 0 }`. First attempts are never refused. */
export interface RatioBudgetOptions {
  kind: "ratio";
  /** Tokens each call deposits (0 to 1000; default 0.2). */
  ratio?: number | undefined;
  /** The most tokens held (default: no cap; `null` is none, as `defaults()` gives it). */
  cap?: number | null | undefined;
  /** Retries per second always allowed (default 10). */
  minPerSec?: number | undefined;
  /** How long deposits and withdrawals count, ms (default 10,000). */
  windowMs?: number | undefined;
}

/** gRPC retry throttling: tokens start at `maxTokens`; a failure takes 1, a success gives
 *  back `tokenRatio`; retries and hedges only while tokens > maxTokens / 2. Defaults gRFC
 *  A6's example (10, 0.1). First attempts are never refused. */
export interface GrpcBudgetOptions {
  kind: "grpc";
  /** More than 0, at most 1000 (default 10). */
  maxTokens?: number | undefined;
  /** More than 0 (default 0.1). */
  tokenRatio?: number | undefined;
}

/** The AWS SDKs' retry quota: `tokens` to start with (and at most); a retry costs
 *  `retryCost` (`timeoutCost` after a timeout); a successful retry refunds its cost, a
 *  first-try success 1. Defaults the SDKs' (500, 5, 10). First attempts are never refused. */
export interface AwsBudgetOptions {
  kind: "aws";
  tokens?: number | undefined;
  retryCost?: number | undefined;
  timeoutCost?: number | undefined;
}

/** `T` with every other kind's fields refused (`never`): a union alone lets an object mix
 *  the kinds' fields (`{ capacity: 3, minPerSec: 1 }`), which the package refuses at run
 *  time (a RangeError, code "not_read"). */
type OneKind<T> = T & {
  [K in Exclude<keyof BucketBudgetOptions | keyof RatioBudgetOptions | keyof GrpcBudgetOptions | keyof AwsBudgetOptions, keyof T>]?: never;
};

/** A budget of one of the four kinds; every field is optional and takes the default the
 *  core gives it (see defaults()/limits()). A bad value is a RangeError naming it
 *  (`budget.ratio`, `budget.kind`), a wrong type a TypeError, a field of another kind a
 *  RangeError with code "not_read". */
export type BudgetOptions =
  | OneKind<BucketBudgetOptions>
  | OneKind<RatioBudgetOptions>
  | OneKind<GrpcBudgetOptions>
  | OneKind<AwsBudgetOptions>;

/** What an open breaker blocks: every call ("all", Polly) or only retries and hedges
 *  ("retries", Brooker's simulations; first attempts keep measuring the dependency). */
export type BreakerMode = "all" | "retries";

/** A circuit breaker with Polly v8's semantics: it opens at a failure when, over
 *  `samplingMs`, at least `minThroughput` outcomes were seen and the share that failed
 *  reaches `failureRatio` (a success never opens it);
 *  open, it fails fast (CircuitOpenError) for `breakMs`; then one call goes through as a
 *  probe (half-open): its success closes it, its failure opens it again. A failure is the
 *  service failing, retried or not (any 5xx, 408, 429, a timeout or another transport
 *  failure; a POST's 503 too); an aborted attempt counts for nothing (an aborted probe is one
 *  that never reported: the next goes a break later). Defaults Polly's:
 *  0.1 over 30 s, 100 calls, 5 s, mode "all". */
export interface BreakerOptions {
  /** 0 to 1. */
  failureRatio?: number | undefined;
  samplingMs?: number | undefined;
  /** A whole number, at least 1. */
  minThroughput?: number | undefined;
  breakMs?: number | undefined;
  mode?: BreakerMode | undefined;
}

/** Client-side adaptive throttling (Google SRE book, "Handling Overload"): every attempt is
 *  rejected locally (ThrottledError) with probability max(0, (requests − k·accepts − 5) /
 *  (requests + 1)) over the last `windowMs` (the 5 is go-zero's protection: a call site's
 *  first failures reject nothing); an attempt counts as accepted unless the service failed
 *  (as for the breaker), and the calls it rejects count as requests. Defaults the book's:
 *  k 2, 2 minutes. */
export interface ThrottleOptions {
  /** At least 1. */
  k?: number | undefined;
  windowMs?: number | undefined;
}

/** Hedging (gRFC A6 hedgingPolicy, Polly v8): if no answer has come `delayMs` after the last
 *  attempt was sent, send another, up to `maxAttempts` in all (the first included); the first
 *  success wins and the others are aborted; a failure the classifier retries sends the next
 *  at once, a server hint (Retry-After, grpc-retry-pushback-ms) delays it. A request runs
 *  under hedging or retries, not both: with hedging, the policy's rules, deadline and the
 *  call site's nets apply, its backoff and maxAttempts do not. Defaults Polly's: 2 s, 2. */
export interface HedgingOptions {
  /** 0 (every attempt at once) to a day (default 2000). */
  delayMs?: number | undefined;
  /** 2 to 5 (default 2). */
  maxAttempts?: number | undefined;
}

/** A call site's safety nets in the module's registry (one per page or worker): a budget of
 *  any kind, and the breaker and throttle retryFetch gives it.
 *
 *  The rule, part by part (budget, breaker, throttle): naming a call site WITH settings for a
 *  part (forCallSite(name, options) for the budget, or retryFetch's `budget`, `breaker`,
 *  `throttle`) makes them its settings. The same settings as now keep the part's state; a
 *  bucket given other bucket settings keeps its tokens, clamped to the new capacity (a
 *  larger capacity does not refill it); any other change starts the part afresh. Missing
 *  fields take the defaults (a bucket: 10 tokens, +1/s, a retry costs 1, no refund). Naming
 *  it WITHOUT settings (forCallSite(name), retryFetch with only `callSite`) gets it as it is,
 *  or a new call site with a default bucket. One call site has one set of nets, whatever
 *  handles point at it. The registry holds at most 1,000 call sites: a new name past that
 *  throws a RangeError naming `name` (retryFetch: `callSite`); existing ones keep working. */
export class Budget {
  /** Refused (a TypeError): a budget belongs to a call site; use Budget.forCallSite. */
  private constructor();
  /** @throws TypeError if name is not a string (RangeError past 4096 characters);
   *  RangeError/TypeError naming a bad option (unprefixed: `kind`, `capacity`); RangeError
   *  when the registry is full. */
  static forCallSite(name: string, options?: BudgetOptions): Budget;
  readonly callSite: string;
  /** The kind of the call site's budget. */
  readonly kind: BudgetKind;
  /** Tokens at nowMs: a bucket's tokens, a ratio budget's balance, gRPC's token count, the
   *  AWS quota's available tokens. A budget measures intervals, so nowMs is read as a
   *  monotonic clock: by default the one retryFetch charges budgets on, performance.now()
   *  moved onto the epoch scale (Date.now() − performance.now() taken once, plus
   *  performance.now()), which no change of the system clock moves. Date.now() is still
   *  accepted (same scale), but a clock jump then refills a bucket or holds it (a jump back of
   *  more than a day, or one nowMs far ahead, restarts the call site's nets from then).
   *  @throws TypeError/RangeError for a non-number or non-finite nowMs. */
  tokens(nowMs?: number): number;
  /** Whether a new call would fail fast at nowMs: an empty bucket (its circuit is open), or a
   *  breaker of mode "all" that is open or waiting for its half-open probe. */
  isOpen(nowMs?: number): boolean;
  /** Decides a retry as retryFetch would: if the budget, breaker and throttle let it
   *  through, it is charged to them; returns whether it was. */
  tryRetry(nowMs?: number): boolean;
  /** Refills the budget under its current settings: a bucket to full, any other kind back
   *  to its start. */
  reset(): void;
  /** Frees the handle (the call site stays in the registry). A second free() does nothing;
   *  any other use after it throws a TypeError ("Budget used after free()"). */
  free(): void;
  /** free(), for `using b = Budget.forCallSite(…)`: freed when the block ends. */
  [Symbol.dispose](): void;
}

export type Scenario = "burst" | "steady" | "aws-occ" | "spike" | "closed";
/** How the load balancer picks a server for each attempt. */
export type Balance = "round-robin" | "random" | "least-loaded";
/** Which waiting request a server serves next. */
export type QueueOrder = "fifo" | "lifo";
/** How one request's service time is distributed around its mean. */
export type ServiceDist = "constant" | "exponential" | "lognormal";
/** How one network leg's delay is distributed. */
export type LatencyDist = "normal" | "exponential";
export type BudgetScope = "client" | "shared";
/** Which layers of a chain of services retry: every one (attempts multiply down the
 *  chain), or only the clients (inner layers make one attempt and pass failures up). */
export type RetryAt = "every" | "top";

/** A window in which every request that starts service takes `factor` times as long (a
 *  brownout, a GC storm, a noisy neighbour). All three are required. */
export interface SlowdownOptions {
  startMs: number;
  lengthMs: number;
  /** 1 to 1000. */
  factor: number;
}

/** A simulation's settings. Every field is optional (see defaults().simulation); `null`
 *  counts as absent. Errors name the field as written here (`slowdown.factor`). */
export interface SimOptions {
  scenario?: Scenario | undefined;
  /** 1 to 1,000,000. */
  clients?: number | undefined;
  policy?: PolicyOptions | null | undefined;
  outageMs?: number | undefined;
  outageStartMs?: number | undefined;
  /** Requests per second the fleet serves: sizes the workers when `workers` is not given
   *  (given workers and serviceMs, capacity follows from them and this is ignored). */
  capacityRps?: number | undefined;
  /** A rejection's cost as a fraction of serving a request, 0 to 1 (default 0.1). */
  rejectCost?: number | undefined;
  /** Identical servers behind the load balancer (default 1). */
  servers?: number | undefined;
  balance?: Balance | undefined;
  /** Concurrent requests per server; 0 = unlimited; absent/null = sized from capacityRps. */
  workers?: number | null | undefined;
  /** Requests each server keeps waiting (one more is rejected with 503); absent/null = 100 ms
   *  of a server's capacity. */
  queue?: number | null | undefined;
  queueOrder?: QueueOrder | undefined;
  /** A request that waited longer than this before service is dropped with 503, ms; absent/null: never. */
  queueTimeoutMs?: number | null | undefined;
  /** Mean service time, ms (more than 0). */
  serviceMs?: number | undefined;
  serviceDist?: ServiceDist | undefined;
  /** lognormal: the standard deviation of the service time's logarithm (0 to 3; the mean stays serviceMs). */
  serviceSpread?: number | undefined;
  /** Each request's service time grows by this for every request already in service on its server, ms. */
  serviceSlopeMs?: number | undefined;
  /** The chance (0 to 1) that an attempt fails with 500, whatever the load. */
  failRate?: number | undefined;
  /** How many servers the outage takes down (at most `servers`); absent/null: all. */
  outageServers?: number | null | undefined;
  slowdown?: SlowdownOptions | null | undefined;
  /** A client gives an attempt up after this long (a "timeout", retried like one; the server
   *  still does the work), ms (more than 0); absent/null: never. */
  timeoutMs?: number | null | undefined;
  /** The mean round trip, ms (with latencyDist "exponential", each leg is exponential with half
   *  of it; for "aws-occ", each message's mean delay, more than 0). */
  latencyMs?: number | undefined;
  latencySdMs?: number | null | undefined;
  latencyDist?: LatencyDist | undefined;
  /** steady, spike: new requests per client per second. */
  ratePerClient?: number | undefined;
  /** steady, spike, closed: how long new requests keep coming, ms. */
  durationMs?: number | undefined;
  burstWindowMs?: number | undefined;
  /** spike: when the arrival rate is multiplied, ms. */
  spikeStartMs?: number | undefined;
  /** spike: for how long, ms. */
  spikeLengthMs?: number | undefined;
  /** spike: by what (0 to 1000). */
  spikeFactor?: number | undefined;
  /** closed: a client's mean pause between one request's end and the next, ms. */
  thinkMs?: number | undefined;
  /** The server's Retry-After during the outage, ms (sent in whole seconds). */
  retryAfterMs?: number | null | undefined;
  /** A retry budget of any school: `kind` absent (or "bucket") is the token bucket. */
  budget?: BudgetOptions | null | undefined;
  /** Who shares the budget, the breaker and the throttle: each client its own, or one for all. */
  budgetScope?: BudgetScope | undefined;
  /** A circuit breaker (Polly v8's semantics; mode "retries" is Brooker's). */
  breaker?: BreakerOptions | null | undefined;
  /** Client-side adaptive throttling (Google SRE book). */
  throttle?: ThrottleOptions | null | undefined;
  /** Hedged requests instead of retries; absent/null: none. Errors name `hedging.delayMs`,
   *  `hedging.maxAttempts`. */
  hedging?: HedgingOptions | null | undefined;
  /** Default 1 (simulations are always seeded). */
  seed?: number | undefined;
  slotMs?: number | undefined;
  logClients?: number | undefined;
  /** Services in the chain each request goes through, 1 to 10 (default 1): clients call layer
   *  1, each layer calls the next, and the servers above are the last layer (the outage, fail
   *  rate, slowdown and queues apply there); upper layers pass calls on at the cost of a
   *  network trip each way. */
  layers?: number | undefined;
  /** Which layers retry (default "every"); the budget is the clients' alone. */
  retryAt?: RetryAt | undefined;
}

/** The servers a simulation runs, as sized from its settings. */
export interface Fleet {
  servers: number;
  /** Per server; 0 = unlimited. */
  workers: number;
  /** Mean service time, ms (scaled so the fleet serves capacityRps when workers were derived). */
  serviceMs: number;
  /** Requests each server keeps waiting. */
  queue: number;
  /** Requests per second the fleet serves at the mean service time; Infinity with unlimited workers. */
  capacityRps: number;
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
  /** The mean latency of successful requests, retries and waits included, ms; null when none succeeded. */
  meanMs: number | null;
  calls: number;
  /** Attempts the client gave up on at its timeout. */
  timeouts: number;
  /** Requests the servers served whose answer reached their client after it had given the attempt up (finished after its timeout, or on the way back when it fired): work nobody used. */
  wasted: number;
  /** Successful requests per second of the run's simulated time (to the last answer, or to
   *  the servers' last finish if they worked on for clients that had left). */
  goodputRps: number;
  /** Requests the servers finished per second of the same time, wasted work included: never
   *  below goodputRps. */
  throughputRps: number;
  /** The most requests waiting in queues at once, all servers together. */
  maxQueue: number;
  /** Attempts that reached the last layer of the chain (`totalAttempts` counts layer 1's);
   *  equal to `totalAttempts` with one layer. */
  bottomAttempts: number;
  /** Requests stopped by an open circuit breaker (before their first attempt or a retry). */
  breakerRejected: number;
  /** Requests stopped by adaptive throttling (before their first attempt or a retry). */
  throttled: number;
  /** Extra attempts sent as hedges (already in totalAttempts). */
  hedges: number;
}

/** Attempt-log outcome codes: the 4th number of each entry. */
export type OutcomeCode = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8; // served, outage, overload, budget-blocked, aws-occ conflict, fail rate (500), timed out, breaker-blocked, throttled

/** A seeded simulation.
 *
 *  offered(), served(), rejected(), failed(), blocked(), goodput(), timedOut(), wasted(),
 *  queued() and attemptLog() are VIEWS into wasm
 *  memory (pointer + length), not copies. Read them at once. Any call into the module may
 *  allocate, and an allocation that grows memory detaches every view taken before it (it
 *  then reads as empty): take views again after ANY call into the module — run, advanceTo,
 *  metrics, sample, delays, new RetryPolicy, new Simulation, classify, parseRetryAfter,
 *  Budget, retryFetch (including while it is pending) — and never use one after free(),
 *  when its memory is reused. Copy (`view.slice()`) what must be kept. */
export class Simulation {
  constructor(options?: SimOptions);
  /** Runs to the end.
   *  @throws RangeError (code too_much_work, field durationMs) when a closed loop stopped
   *  early at a run's most attempts: its requests ended far faster than its settings
   *  foretold (failed at once, refused by a net); `max` is the time it had reached. */
  run(): void;
  /** Processes every event before tMs (whole ms); Infinity runs to the end.
   *  @throws TypeError for a non-number, RangeError for NaN, and as run() does. */
  advanceTo(tMs: number): void;
  isDone(): boolean;
  nowMs(): number;
  /** The model's events so far, the unit of the simulator's speed: each request created,
   *  retry sent, attempt reaching a server, service started and finished, waiting request
   *  dropped, answer reaching its client and timeout that fired (aws-occ: its messages). */
  events(): number;
  metrics(): Metrics;
  /** The series' slot width (ms): slotMs as asked, doubled as often as a run longer than
   *  1,048,576 slots needs (the series then still covers the whole run). */
  slotMs(): number;
  logStride(): number;
  logRows(): number;
  /** Per slot: attempts that reached a server. */
  offered(): Uint32Array;
  /** Per slot: requests a server finished (the throughput), wasted work included. */
  served(): Uint32Array;
  /** Per slot: attempts rejected for overload (a full queue, a queue timeout; aws-occ: conflicts). */
  rejected(): Uint32Array;
  /** Per slot: attempts failed by the outage or the fail rate. */
  failed(): Uint32Array;
  /** Per slot: requests and retries blocked by a net: the budget, the breaker or the throttle. */
  blocked(): Uint32Array;
  /** Per slot: successful requests, counted when the answer reached the client (the goodput). */
  goodput(): Uint32Array;
  /** Per slot: attempts the client gave up on at its timeout. */
  timedOut(): Uint32Array;
  /** Per slot: requests a server finished after their client had given them up. */
  wasted(): Uint32Array;
  /** Per slot: requests waiting in queues at the slot's end, all servers together. */
  queued(): Uint32Array;
  /** The servers as sized from the settings (a plain object, not a view). */
  fleet(): Fleet;
  /** Flat [tMs, client, attempt, outcome] × n. */
  attemptLog(): Float32Array;
  /** Frees its wasm memory. A second free() does nothing; any other use after it throws a
   *  TypeError ("Simulation used after free()"). */
  free(): void;
  /** free(), for `using x = new Simulation(…)`: freed when the block ends. */
  [Symbol.dispose](): void;
}

export interface AttemptInfo {
  /** The attempt's number, in the order attempts were sent (with hedging, attempts end in
   *  any order, and onAttempt is called as each ends). */
  number: number;
  startedMs: number;
  status?: number;
  error?: TransportErrorKind;
  /** "retry": another attempt follows (with hedging: sent at once); "wait" (hedging only):
   *  attempts are still in flight, or a server hint put the next one off (`delayMs`);
   *  "success"; "stop". Attempts aborted because another ended the request are reported
   *  last, as `error: "abort"`, decision "stop". */
  decision: "retry" | "stop" | "success" | "wait";
  delayMs?: number;
  /** The classifier's reason (for a stop: why it stopped). */
  reason: string;
  /** Whether the wait came from Retry-After / pushback. */
  fromServer?: boolean;
  /** The call site's budget's tokens after the decision (see Budget.tokens). */
  budgetTokens?: number;
  /** Whether the attempt was sent as a hedge (false for the first and for retries). */
  hedge: boolean;
  /** When hedging, on the attempt whose answer ended the request and is what retryFetch
   *  resolves with: a success, or a status that stops hedging. */
  won?: true;
}

export interface RetryFetchOptions {
  policy?: PolicyOptions | null | undefined;
  /** Names the call site's nets (budget, breaker, throttle) in the same registry as
   *  Budget.forCallSite (see Budget for the rule): every call naming it shares them. */
  callSite?: string | null | undefined;
  /** Settings for the budget: they reconfigure the call site's (see Budget). Without
   *  callSite, the call has a budget of its own, which no other call sees. */
  budget?: BudgetOptions | null | undefined;
  /** A circuit breaker: the call site's, or without callSite the call's own. */
  breaker?: BreakerOptions | null | undefined;
  /** Client-side adaptive throttling: the call site's, or without callSite the call's own. */
  throttle?: ThrottleOptions | null | undefined;
  /** Send hedges (concurrent attempts) instead of retrying after failures. Only requests
   *  that may be repeated are hedged: a POST or PATCH needs `idempotent: true`. */
  hedging?: HedgingOptions | null | undefined;
  /** Each attempt's own timeout, ms (more than 0, at most a day); a timed-out attempt is a
   *  "timeout", retried like one. */
  attemptTimeoutMs?: number | null | undefined;
  /** The whole call's deadline from its start, ms (more than 0, at most a day): no attempt
   *  runs past it and no retry starts after it (policy.maxElapsedMs only stops retries from
   *  starting; with both, the smaller stops them). It ends when the call settles: reading
   *  the body of the Response it resolved with is the caller's, as with fetch. */
  deadlineMs?: number | null | undefined;
  /** Allow retrying and hedging POST/PATCH (e.g. with an idempotency key). */
  idempotent?: boolean | null | undefined;
  /** Aborts at once, whenever it fires (before the call, during an attempt, inside onAttempt,
   *  during a wait): the promise rejects with the signal's reason and nothing more is sent.
   *  init.signal (and a Request input's own signal) do exactly the same. Once the call has
   *  resolved, it still aborts the reading of the Response's body, as with fetch (its listener
   *  goes once the Response is collected). An object like an
   *  AbortSignal (`aborted`, `reason`, `addEventListener`) is taken too; an `aborted` that is
   *  not true or false is a TypeError naming it (`signal.aborted`). */
  signal?: AbortSignal | null | undefined;
  /** Called after each attempt with what happened and what the policy decided. If it throws,
   *  the call ends there: the promise rejects with a TypeError naming `onAttempt` (the thrown
   *  value as `cause`) and nothing more is sent. If it returns a promise (an async function),
   *  the call waits for it before going on (the next attempt, the backoff, resolving), as
   *  ky's hooks and p-retry's `onFailedAttempt` are waited for; a rejection ends the call as
   *  a throw does, and an abort or `deadlineMs` ends the wait (so does `policy.maxElapsedMs`
   *  with hedging, whose deadline it is; without hedging it does not: it only stops retries
   *  from starting, so none starts after a wait that ran past it); with none of them, a
   *  promise that never settles leaves retryFetch pending, as a
   *  `fetch` that never settles does (`attemptTimeoutMs` bounds `fetch`, not this
   *  callback). (`void`, as TypeScript reads it for a
   *  callback: any function fits, an async one included.) */
  onAttempt?: ((attempt: AttemptInfo) => void) | null | undefined;
}

/** Rejection after giving up on a transport failure (or timeout): `err instanceof RetryError`. */
export class RetryError extends Error {
  readonly name: "RetryError";
  /** The core policy's reason for stopping. */
  readonly reason: string;
  /** Every attempt, as onAttempt saw it. */
  readonly attempts: AttemptInfo[];
  /** The last attempt's error (what fetch rejected with; for an attempt cut off by
   *  attemptTimeoutMs or deadlineMs, a DOMException named "TimeoutError", as
   *  AbortSignal.timeout gives). */
  readonly cause: unknown;
  private constructor();
}
/** Rejection when the budget refuses the call (no request sent): `err instanceof BudgetExhaustedError`. */
export class BudgetExhaustedError extends Error {
  readonly name: "BudgetExhaustedError";
  /** The call site, or undefined for a call's own budget. */
  readonly callSite: string | undefined;
  /** How long until a retry could be paid for again, ms (Infinity without refill, or when
   *  the budget's capacity is below a retry's cost: it never reopens). */
  readonly retryInMs: number;
  readonly tokens: number;
  private constructor();
}

/** The call site's circuit breaker is open: the call was not sent (`attempts` empty, no
 *  `cause`), or it stopped a retry or hedge after a network failure (`attempts` the log,
 *  `cause` the last attempt's error; after an HTTP status, the Response comes back instead,
 *  as fetch would). */
export class CircuitOpenError extends Error {
  readonly name: "CircuitOpenError";
  /** The call site, or undefined for a call's own breaker. */
  readonly callSite: string | undefined;
  /** The core's reason: "circuit open: failing fast for … ms instead of calling downstream". */
  readonly reason: string;
  /** How long until a call could go through again (the probe), ms. */
  readonly retryInMs: number;
  readonly attempts: AttemptInfo[];
  readonly cause: unknown;
  private constructor();
}
/** The call site's adaptive throttle rejected the call (or its next retry or hedge) locally;
 *  the same shape as CircuitOpenError. */
export class ThrottledError extends Error {
  readonly name: "ThrottledError";
  readonly callSite: string | undefined;
  readonly reason: string;
  /** The probability it was rejected with. */
  readonly probability: number;
  readonly attempts: AttemptInfo[];
  readonly cause: unknown;
  private constructor();
}

/** fetch with retries (or hedges) decided by the core policy, under the call site's nets. Two clocks: Date.now() only to read a
 *  Retry-After HTTP-date; a monotonic clock (see Budget.tokens) for the budget, deadlineMs and
 *  policy.maxElapsedMs, so a system clock change neither refills nor drains a budget nor moves
 *  a deadline. AttemptInfo.startedMs stays Date.now().
 *
 *  Resolves with the first success or, when
 *  it gives up on an HTTP status, the last Response (like fetch, a 503 does not throw);
 *  rejects with RetryError, with BudgetExhaustedError, CircuitOpenError or ThrottledError
 *  (at once, nothing sent, when the budget, the breaker or the throttle refuses the call),
 *  or with the signal's reason on abort (every attempt in flight is aborted). The promise
 *  always settles, whatever the arguments hold.
 *
 *  The caller's code: `init` is copied once (its getters run once) and each option read once.
 *  Whatever the caller's code throws — a getter or Proxy trap on `init`, `input`, `options`,
 *  `policy` or `budget`, a signal's `aborted`/`reason`/`addEventListener`, `fetch`, the `then`
 *  of what it returns, the response's `status`/`headers`/`headers.get`, `onAttempt` — rejects
 *  the promise with a TypeError whose message names it (`init: threw an exception: …`,
 *  `policy.baseMs: …`, `signal.aborted: …`, `response.headers.get: …`, `onAttempt: …`),
 *  whose `field` names it too (`"policy.baseMs"`; no `code`), and whose `cause` is what was
 *  thrown.
 *
 *  `fetch` is `globalThis.fetch`, looked up at every attempt, and held to its contract: it must
 *  return a promise (a thenable) of a Response (a `status` of 0 or 100 to 599 and
 *  `headers.get`), else a TypeError naming `fetch`, with no retry; a rejection is a transport
 *  failure, retried as one, unless it is this package's own settings error (a retryFetch the
 *  caller's fetch made in turn, refused): that is no network failure, and the call rejects
 *  with it. Each attempt waits for `fetch` only until `attemptTimeoutMs`,
 *  `deadlineMs` or the caller's abort, even if `fetch` ignores its signal; with none of them, a
 *  `fetch` that never settles leaves retryFetch pending, as it would leave `fetch` itself.
 *
 *  What the call is given is read when retryFetch is called, as fetch reads it: a URL (or
 *  anything but a string or a Request) as its text, a Request copied (and the copy cloned for
 *  every attempt, so its body is sent whole each time), init's headers (a Headers, pairs or a
 *  record) and a body of bytes, a FormData or a URLSearchParams copied: every attempt goes
 *  where the call was sent with those headers and that body, whatever the caller changes in
 *  them, writes into a buffer or detaches afterwards (a buffer detached before the call: a
 *  TypeError naming `init.body`). A body that cannot be sent again is refused up front with a
 *  TypeError, before anything is sent: a ReadableStream or an async iterable (a generator, a
 *  Node Readable) as init.body (naming `init.body`), a Request whose body was already used
 *  (naming `input`). Use a string, Blob, ArrayBuffer, FormData or URLSearchParams.
 *
 *  Bounds (a RangeError, `code: "too_much_work"`, with `max`): at most 100,000 calls in
 *  flight at once in a module (naming `input`), and at most 16 calls one inside the `fetch`
 *  of another (naming `fetch`): a `globalThis.fetch` replaced by a function that calls
 *  retryFetch, which calls `globalThis.fetch`, recurses without end. Past either, the call is
 *  refused, and the module lives on.
 *
 *  An input fetch would refuse whatever the network does is refused at once, naming `input`:
 *  no string, URL or Request (`undefined`, a number: a TypeError, `code: "wrong_type"`), or a
 *  URL that no parser reads (relative to the page where there is one; in Node only an
 *  absolute URL), whose scheme fetch does not fetch (`ftp:`, `javascript:`; http, https,
 *  data, blob and file are fetched), or that carries credentials (`user:pass@`): a
 *  RangeError, `code: "bad_syntax"`. That is no refused connection to retry. So is a method
 *  fetch refuses to send (CONNECT, TRACE, TRACK): a RangeError, `code: "bad_syntax"`, naming
 *  `init.method` (or `input.method`, a Request's). And so is, with a URL or a Request input
 *  (asked of a copy: its body stays unread), an `init` the environment's own `Request`
 *  refuses (a header name or value HTTP cannot carry, a body on GET or HEAD, an unknown
 *  `mode` or `redirect`): a RangeError, `code: "bad_syntax"`, naming `init`, whose `cause`
 *  is the environment's TypeError.
 *
 *  Cross-origin: the server must send Access-Control-Expose-Headers: Retry-After (and
 *  grpc-retry-pushback-ms) for the hints to be readable, and a CORS failure looks exactly like
 *  a network failure ("connect"). */
export function retryFetch(input: string | URL | Request, init?: RequestInit, options?: RetryFetchOptions): Promise<Response>;

// ---- Settings: the core's names, defaults and ranges, and the errors that name them ----

/** The unit of a numeric setting; absent for a plain number (a multiplier, a status, a seed). */
export type Unit = "ms" | "per_second" | "count" | "fraction" | "chars";

/** What kind of wrong a settings error is. `wrong_type` is always a TypeError, every other
 *  code a RangeError. */
export type SettingsErrorCode =
  | "out_of_range" // a number outside its range (±Infinity included)
  | "not_a_number" // NaN
  | "not_whole" // a fraction where a whole number is needed
  | "wrong_type" // a value of the wrong type (always a TypeError)
  | "unknown_value" // a string not in a fixed list (see `allowed`)
  | "too_long" // a string past its length bound (`max`, unit "chars")
  | "bad_syntax" // a string that does not parse (e.g. retryOn)
  | "too_much_work" // settings that together ask for more work than one call may do
  | "not_read"; // a budget field its kind does not read (minPerSec in a "bucket" budget)

/** The machine-readable properties every settings error carries, as own, enumerable
 *  properties, besides a message of the form `budget.capacity: expected …, got …`. */
export interface SettingsErrorInfo {
  /** The option as the caller wrote it, prefixed when nested: "baseMs", "policy.baseMs",
   *  "budget.capacity", "n", "init.signal". */
  field: string;
  code: SettingsErrorCode;
  /** The smallest value accepted (for a cross-field bound, e.g. capMs, the other field's value;
   *  for too_much_work without a `max`, the least that fits with the other settings: a closed
   *  loop's thinkMs when no duration fits). */
  min?: number;
  /** Present (true) when `min` itself is refused: more than min (serviceMs, attemptTimeoutMs). */
  minExclusive?: true;
  /** The largest value accepted (for too_much_work, the largest that fits with the other settings). */
  max?: number;
  unit?: Unit;
  /** The accepted names, for unknown_value. */
  allowed?: string[];
  /** The offending value as given, when it is a primitive. */
  got?: unknown;
}
/** A bad value: `e instanceof RangeError`, with the contract's properties. */
export type SettingsRangeError = RangeError & SettingsErrorInfo;
/** A value of the wrong type: `e instanceof TypeError`, `code: "wrong_type"`. */
export type SettingsTypeError = TypeError & SettingsErrorInfo & { code: "wrong_type" };
/** Either settings error. */
export type SettingsError = SettingsRangeError | SettingsTypeError;

/** The range of one numeric option. */
export interface Limit {
  min: number;
  max: number;
  /** Absent for a plain number. */
  unit?: Unit;
  /** Whether only whole numbers are accepted. */
  whole: boolean;
  /** Present (true) when `min` itself is refused: more than min, at most max. */
  minExclusive?: true;
}

/** The backoff a scenario's own experiment uses. */
export interface ScenarioBackoff {
  baseMs: number;
  capMs: number;
}

/** The core's defaults under the options' names; `null` where the default is none. */
/** Every field of options `T` present and set (what defaults() gives): `Required` alone keeps
 *  an optional field's `| undefined` under exactOptionalPropertyTypes. */
type Filled<T> = { [K in keyof T]-?: Exclude<T[K], undefined | null> };

export interface Defaults {
  policy: {
    strategy: Strategy;
    baseMs: number;
    capMs: number;
    multiplier: number;
    maxAttempts: number;
    maxElapsedMs: number | null;
    maxRetryAfterMs: number;
    retryOn: string;
  };
  budget: { capacity: number; refillPerSec: number; retryCost: number; successRefund: number };
  /** What a `hedging` object's missing fields become. */
  hedging: { delayMs: number; maxAttempts: number };
  simulation: {
    scenario: Scenario;
    clients: number;
    outageMs: number;
    outageStartMs: number;
    capacityRps: number;
    rejectCost: number;
    latencyMs: number;
    /** null: latencyMs / 5. */
    latencySdMs: number | null;
    ratePerClient: number;
    durationMs: number;
    burstWindowMs: number;
    /** null: the server sends no Retry-After. */
    retryAfterMs: number | null;
    budgetScope: BudgetScope;
    servers: number;
    balance: Balance;
    /** null: sized from capacityRps. */
    workers: number | null;
    /** null: 100 ms of a server's capacity. */
    queue: number | null;
    queueOrder: QueueOrder;
    /** null: never. */
    queueTimeoutMs: number | null;
    serviceMs: number;
    serviceDist: ServiceDist;
    serviceSpread: number;
    serviceSlopeMs: number;
    failRate: number;
    /** null: all. */
    outageServers: number | null;
    /** null: none. */
    slowdown: SlowdownOptions | null;
    /** null: no hedging. */
    hedging: HedgingOptions | null;
    /** null: never. */
    timeoutMs: number | null;
    latencyDist: LatencyDist;
    spikeStartMs: number;
    spikeLengthMs: number;
    spikeFactor: number;
    thinkMs: number;
    seed: number;
    slotMs: number;
    logClients: number;
    layers: number;
    retryAt: RetryAt;
    scenarioBackoff: Record<Scenario, ScenarioBackoff>;
  };
  /** Each safety net's defaults, its source's numbers (issue #12). */
  nets: {
    /** `cap` null: no cap (as defaults() gives it). */
    ratio: Omit<Filled<RatioBudgetOptions>, "cap"> & { cap: number | null };
    grpc: Filled<GrpcBudgetOptions>;
    aws: Filled<AwsBudgetOptions>;
    breaker: Filled<BreakerOptions>;
    throttle: Filled<ThrottleOptions>;
  };
}

/** The core's defaults: what every omitted option becomes (a Simulation's policy takes
 *  `policy`'s; `simulation.scenarioBackoff` is each scenario's own experiment's backoff). */
export function defaults(): Defaults;
/** The range of every numeric option, keyed by its name as errors give it: alone
 *  ("baseMs", "capacity", "clients", "status", "n", "deadlineMs") and, for a policy's and a
 *  budget's options, nested too ("policy.baseMs", "budget.capacity", "policy.seed"); a
 *  slowdown's parts only nested ("slowdown.startMs", "slowdown.lengthMs", "slowdown.factor"),
 *  and hedging's ("hedging.delayMs", "hedging.maxAttempts"). */
export function limits(): Record<string, Limit>;
/** The backoff strategies' names, in the core's order. */
export function strategies(): Strategy[];
/** The simulation scenarios' names, in the core's order. */
export function scenarios(): Scenario[];

/** Every option that takes a name, with the names it accepts, in the core's order. */
export interface Choices {
  strategy: Strategy[];
  scenario: Scenario[];
  budgetScope: BudgetScope[];
  balance: Balance[];
  queueOrder: QueueOrder[];
  serviceDist: ServiceDist[];
  latencyDist: LatencyDist[];
  retryAt: RetryAt[];
}
/** The accepted names of every option that takes one, keyed by the option's name. */
export function choices(): Choices;
