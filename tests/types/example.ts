// A typed consumer of the package: `tsc --noEmit -p tests/types` must pass, which checks that
// the shipped stampede.d.ts types every option and result (no `any` leaks through).
import init, { RetryPolicy, Budget, Simulation, classify, parseRetryAfter, retryFetch, RetryError, BudgetExhaustedError, defaults, limits, strategies, scenarios } from "stampede";
import type { AttemptInfo, Metrics, PolicyOptions, Verdict } from "stampede";
import type { Defaults, Limit, Scenario, ScenarioBackoff, SettingsErrorCode, SettingsErrorInfo, SettingsRangeError, SettingsTypeError, Strategy, Unit } from "stampede";
import type { Balance, Choices, Fleet, HedgingOptions, LatencyDist, QueueOrder, RetryAt, ServiceDist, SimOptions, SlowdownOptions } from "stampede";
import { choices } from "stampede";

export async function demo(signal: AbortSignal): Promise<number> {
  await init();
  const policy: PolicyOptions = { strategy: "full", baseMs: 200, capMs: 30000, maxAttempts: 6, multiplier: 2, seed: 42, maxElapsedMs: 60000, maxRetryAfterMs: 60000 };
  const p = new RetryPolicy(policy);
  const delays: Float64Array = p.delays();
  const hist: Float64Array = p.sample(10000);
  const v: Verdict = classify({ status: 503, method: "GET", headers: { "retry-after": "2" }, nowMs: Date.now() });
  const hint: number | undefined = v.retryAfterMs;
  const t: Verdict = classify({ error: "timeout" });
  const ms: number | undefined = parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.now());
  const b = Budget.forCallSite("GET /api/orders", { capacity: 10, refillPerSec: 1 });
  const open: boolean = b.isOpen();
  const same: Budget = Budget.forCallSite("GET /api/orders"); // no settings: the bucket as it is
  const left: number = same.tokens(Date.now());
  const sim = new Simulation({ scenario: "burst", clients: 10000, policy, outageMs: 2000, capacityRps: 500, budget: { capacity: 10, refillPerSec: 1 }, seed: 1 });
  sim.run();
  const m: Metrics = sim.metrics();
  const p99: number | null = m.p99Ms;
  // Safety nets (issue #12): a budget of another school, a breaker, a throttle.
  const nets = new Simulation({ scenario: "steady", failRate: 0.3, budget: { kind: "ratio", ratio: 0.1, cap: 5, minPerSec: 0, windowMs: 60000 }, breaker: { failureRatio: 0.1, mode: "retries" }, throttle: { k: 2 }, budgetScope: "shared" });
  nets.run();
  const blocked: number = nets.metrics().breakerRejected + nets.metrics().throttled;
  const grpc = new Simulation({ budget: { kind: "grpc", maxTokens: 10, tokenRatio: 0.1 } });
  const aws = new Simulation({ budget: { kind: "aws", tokens: 500 } });
  sim.advanceTo(1000);
  const offered: Uint32Array = sim.offered();
  const log: Float32Array = sim.attemptLog();
  const seen: AttemptInfo[] = [];
  try {
    const r: Response = await retryFetch("/api/flaky?fail=2", { method: "GET" }, {
      policy, callSite: "GET /api/orders", attemptTimeoutMs: 5000, deadlineMs: 30000, idempotent: false, signal,
      onAttempt: (a) => { seen.push(a); const s: number | undefined = a.status; void s; },
    });
    void r;
  } catch (e) {
    if (e instanceof RetryError) {
      const log: AttemptInfo[] = e.attempts;
      const why: string = e.reason;
      void [log, why, e.cause, e.message];
    } else if (e instanceof BudgetExhaustedError) {
      const wait: number = e.retryInMs;
      void [wait, e.callSite, e.tokens];
    }
  }
  // init.signal is honoured like the signal option.
  void retryFetch(new Request("/api/orders", { method: "POST", body: "{}" }), { signal }, { idempotent: true, callSite: "POST /api/orders", budget: { capacity: 5 } });
  // @ts-expect-error the error classes are made by retryFetch, not by callers
  new RetryError();
  // @ts-expect-error baseMs is a number, not a string
  new RetryPolicy({ baseMs: "200" });
  // @ts-expect-error there is no such strategy
  new RetryPolicy({ strategy: "fibonacci" });
  // @ts-expect-error minPerSec is a ratio budget's, not a bucket's (refused at run time too)
  void retryFetch("/api/orders", undefined, { budget: { capacity: 3, minPerSec: 1 } });
  // @ts-expect-error tokens is the AWS quota's, not gRPC throttling's
  void retryFetch("/api/orders", undefined, { budget: { kind: "grpc", tokens: 5 } });
  // retryCost is both the bucket's and the AWS quota's.
  void retryFetch("/api/orders", undefined, { budget: { kind: "aws", tokens: 5, retryCost: 2 } });
  void retryFetch("/api/orders", undefined, { budget: { retryCost: 2, capacity: 5 } });
  // @ts-expect-error transport errors are a closed set
  classify({ error: "pigeon" });
  // @ts-expect-error a status or an error: classify refuses neither ("status: expected a status (100-599) or an error")
  classify({ method: "GET" });
  // @ts-expect-error not both
  classify({ status: 503, error: "timeout" });
  // Headers as fetch takes them: pairs as TypeScript infers them (string[][]), a Map, and a
  // record such as Node's IncomingHttpHeaders (a header of several values, an absent one).
  const pairs = [["retry-after", "2"]];
  classify({ status: 503, headers: pairs });
  classify({ status: 503, headers: new Map([["Retry-After", "2"]]) });
  classify({ status: 503, headers: { "retry-after": "2", "set-cookie": ["a=1", "b=2"], age: undefined } });
  // @ts-expect-error a RetryPolicy is no options object (refused at run time)
  void retryFetch("/api/orders", undefined, { policy: new RetryPolicy({ maxAttempts: 2 }) });
  // @ts-expect-error nor here
  new Simulation({ policy: new RetryPolicy() });
  // null counts as absent, in the options as at run time; and defaults() feed the options back.
  void retryFetch("/api/orders", { signal: null }, { policy: null, budget: null, breaker: null, throttle: null, hedging: null, signal: null, callSite: null, onAttempt: null });
  new Simulation({ policy: null }).free();
  Budget.forCallSite("GET /api/ratio", defaults().nets.ratio).free();
  Budget.forCallSite("GET /api/ratio2", { kind: "ratio", cap: null }).free();
  // Checked with exactOptionalPropertyTypes (tsconfig.json): an option may be given as
  // undefined, as a variable that may hold none, which the runtime takes as absent.
  const maybeSeed: number | undefined = Math.random() < 2 ? undefined : 1;
  new RetryPolicy({ seed: maybeSeed, baseMs: undefined }).free();
  Budget.forCallSite("GET /api/ratio3", { kind: "ratio", cap: undefined }).free();
  void retryFetch("/api/orders", undefined, { policy: { seed: maybeSeed }, deadlineMs: undefined });
  // defaults() gives every net's field, numbers, under exactOptionalPropertyTypes too.
  const k: number = defaults().nets.throttle.k;
  const tokens: number = defaults().nets.aws.tokens;
  // With an error, headers are taken and ignored (a response's, passed along).
  classify({ error: "reset", headers: new Headers() });
  void [k, tokens];
  return left + delays.length + hist.length + (hint ?? 0) + (ms ?? 0) + Number(open) + (p99 ?? 0) + offered.length + log.length + Number(t.retryable);
}

// The queueing model: servers, queues, timeouts; the new views and the fleet are typed.
export function queueing(): number {
  const slowdown: SlowdownOptions = { startMs: 10_000, lengthMs: 5_000, factor: 3 };
  const opts: SimOptions = {
    scenario: "spike", clients: 1000, ratePerClient: 0.04, durationMs: 80_000, spikeStartMs: 20_000, spikeLengthMs: 5_000, spikeFactor: 2,
    servers: 2, balance: "least-loaded", workers: 0, queue: null, queueOrder: "lifo", queueTimeoutMs: 1000, serviceMs: 1000,
    serviceDist: "lognormal", serviceSpread: 0.5, serviceSlopeMs: 10, failRate: 0.01, outageServers: 1, slowdown, timeoutMs: 3000,
    latencyMs: 200, latencyDist: "exponential", policy: { strategy: "none", maxAttempts: 3 },
  };
  const closed: SimOptions = { scenario: "closed", thinkMs: 1000, slowdown: null, workers: null, timeoutMs: null };
  const sim = new Simulation(opts);
  sim.run();
  const m: Metrics = sim.metrics();
  const rates: number = m.goodputRps + m.throughputRps + (m.meanMs ?? 0);
  const counts: number = m.timeouts + m.wasted + m.maxQueue;
  const views: Uint32Array[] = [sim.goodput(), sim.timedOut(), sim.wasted(), sim.queued()];
  const fleet: Fleet = sim.fleet();
  const capacity: number = fleet.capacityRps + fleet.workers + fleet.queue + fleet.servers + fleet.serviceMs;
  const c: Choices = choices();
  const names: [Balance[], QueueOrder[], ServiceDist[], LatencyDist[]] = [c.balance, c.queueOrder, c.serviceDist, c.latencyDist];
  const d = defaults().simulation;
  const timeout: number | null = d.timeoutMs;
  const window: SlowdownOptions | null = d.slowdown;
  const order: QueueOrder = d.queueOrder;
  // @ts-expect-error balance is a closed set
  const badBalance: SimOptions = { balance: "fastest" };
  // @ts-expect-error a slowdown needs all three parts
  const badSlowdown: SlowdownOptions = { startMs: 0, lengthMs: 10 };
  // @ts-expect-error scenarios are a closed set
  const badScenario: SimOptions = { scenario: "chaos" };
  // @ts-expect-error fleet() is read-only data, not settings
  const badFleet: Fleet = { servers: 1 };
  void [closed, views, names, timeout, window, order, badBalance, badSlowdown, badScenario, badFleet];
  return rates + counts + capacity;
}

// The settings contract: the error properties, defaults() and limits() are typed.
export function settingsContract(): number {
  const d: Defaults = defaults();
  const base: number = d.policy.baseMs;
  const elapsed: number | null = d.policy.maxElapsedMs;
  const occ: ScenarioBackoff = d.simulation.scenarioBackoff["aws-occ"];
  const all: Record<string, Limit> = limits();
  const l: Limit | undefined = all["policy.baseMs"];
  const unit: Unit | undefined = l?.unit;
  const names: Strategy[] = strategies();
  const scenes: Scenario[] = scenarios();
  try {
    new RetryPolicy({ baseMs: -1 });
  } catch (err) {
    if (err instanceof RangeError) {
      const e = err as SettingsRangeError;
      const code: SettingsErrorCode = e.code;
      const field: string = e.field;
      const bounds: [number | undefined, number | undefined] = [e.min, e.max];
      const allowed: string[] | undefined = e.allowed;
      void [code, field, bounds, allowed, e.got, e.message];
    } else if (err instanceof TypeError) {
      const e = err as SettingsTypeError;
      const wrong: "wrong_type" = e.code;
      void wrong;
    }
  }
  const info: SettingsErrorInfo = { field: "baseMs", code: "out_of_range", min: 0, max: 86_400_000, unit: "ms" };
  // @ts-expect-error codes are a closed set
  const bad: SettingsErrorCode = "oops";
  // @ts-expect-error units are a closed set
  const badUnit: Unit = "seconds";
  void [bad, badUnit, info, unit, elapsed, occ, names, scenes];
  return base;
}

// Issue #12: every budget kind, the breaker, the throttle, hedging, and their errors.
import { CircuitOpenError, ThrottledError } from "stampede";
import type { AwsBudgetOptions, BreakerMode, BreakerOptions, BudgetKind, BudgetOptions, GrpcBudgetOptions, RatioBudgetOptions, RetryFetchOptions, ThrottleOptions } from "stampede";

export async function nets(signal: AbortSignal): Promise<number> {
  const ratio: RatioBudgetOptions = { kind: "ratio", ratio: 0.1, cap: 5, minPerSec: 0, windowMs: 10_000 };
  const grpc: GrpcBudgetOptions = { kind: "grpc", maxTokens: 10, tokenRatio: 0.1 };
  const aws: AwsBudgetOptions = { kind: "aws", tokens: 500, retryCost: 5, timeoutCost: 10 };
  const bucket: BudgetOptions = { capacity: 10, refillPerSec: 1 };
  const kinds: BudgetOptions[] = [ratio, grpc, aws, bucket, { kind: "bucket", capacity: 3 }];
  const b = Budget.forCallSite("GET /api/orders", grpc);
  const kind: BudgetKind = b.kind;
  const mode: BreakerMode = "retries";
  const breaker: BreakerOptions = { failureRatio: 0.1, samplingMs: 30_000, minThroughput: 100, breakMs: 5_000, mode };
  const throttle: ThrottleOptions = { k: 2, windowMs: 120_000 };
  const hedging: HedgingOptions = { delayMs: 50, maxAttempts: 3 };
  const options: RetryFetchOptions = {
    callSite: "GET /api/orders", budget: ratio, breaker, throttle, hedging, signal,
    onAttempt: (a) => { const h: boolean = a.hedge; const won: true | undefined = a.won; const d: "retry" | "stop" | "success" | "wait" = a.decision; void [h, won, d]; },
  };
  // Any callback fits onAttempt's `void`: one that returns what it pushed, an async one.
  const pushed: RetryFetchOptions = { onAttempt: (a) => [a].push(a) };
  const awaited: RetryFetchOptions = { onAttempt: async (a) => { await Promise.resolve(a.number); } };
  void [pushed, awaited];
  let waited = 0;
  try {
    await retryFetch("/api/slow?ms=300", undefined, options);
  } catch (e) {
    if (e instanceof CircuitOpenError) {
      waited = e.retryInMs;
      const log: AttemptInfo[] = e.attempts;
      const where: string | undefined = e.callSite;
      void [log, where, e.reason, e.cause];
    } else if (e instanceof ThrottledError) {
      waited = e.probability;
      void [e.attempts, e.callSite, e.reason];
    }
  }
  // @ts-expect-error budget kinds are a closed set
  const badKind: BudgetOptions = { kind: "leaky" };
  // @ts-expect-error a ratio budget has no capacity
  const mixed: RatioBudgetOptions = { kind: "ratio", capacity: 10 };
  // @ts-expect-error breaker modes are a closed set
  const badMode: BreakerOptions = { mode: "half" };
  // @ts-expect-error the error classes are made by retryFetch, not by callers
  new CircuitOpenError();
  void [kinds, kind, badKind, mixed, badMode];
  return waited;
}

// Where to retry: a chain of layers, who retries, and the attempts at the bottom.
export function layers(): number {
  const every: SimOptions = { layers: 3, retryAt: "every", failRate: 1, policy: { strategy: "none", maxAttempts: 4 } };
  const at: RetryAt = defaults().simulation.retryAt;
  const choicesAt: RetryAt[] = choices().retryAt;
  const sim = new Simulation({ ...every, retryAt: at });
  sim.run();
  const m: Metrics = sim.metrics();
  // @ts-expect-error retryAt is a closed set
  const bad: SimOptions = { retryAt: "each" };
  void [choicesAt, bad];
  return m.bottomAttempts / m.totalAttempts + defaults().simulation.layers;
}

// Hedging: the option, its defaults and the metric are typed.
export function hedging(): number {
  const hedged: HedgingOptions = { delayMs: 40, maxAttempts: 3 };
  const opts: SimOptions = { scenario: "steady", workers: 0, serviceDist: "lognormal", hedging: hedged };
  const off: SimOptions = { hedging: null };
  const m: Metrics = new Simulation(opts).metrics();
  const hedges: number = m.hedges;
  const d = defaults();
  const delay: number = d.hedging.delayMs + d.hedging.maxAttempts;
  const none: HedgingOptions | null = d.simulation.hedging;
  // @ts-expect-error delayMs is a number of milliseconds
  const bad: HedgingOptions = { delayMs: "40ms" };
  void [off, none, bad];
  return hedges + delay;
}

// init and initSync take a compiled module typed as the DOM's WebAssembly.Module (and only
// the bytes where no lib declares one: tests/types/node.ts).
import { initSync } from "stampede";
import type { WasmModule } from "stampede";
type IsWebAssemblyModule = [WasmModule] extends [WebAssembly.Module] ? ([WebAssembly.Module] extends [WasmModule] ? true : false) : false;
export const wasmModuleIsTheDom: IsWebAssemblyModule = true;
export function loadFrom(module: WebAssembly.Module, bytes: Uint8Array): Promise<unknown> {
  initSync({ module });
  initSync({ module: bytes });
  return init({ module_or_path: module });
}
