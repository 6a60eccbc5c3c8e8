// The slim entry's loader and its wasm's objects: a hand-written stand-in for wasm-bindgen's
// glue (which was 2 KB of the slim's gzipped JavaScript), over the plain functions the wasm
// exports (src/slim/abi.rs): numbers in and out, strings through two buffers in wasm memory,
// objects as handles. `init` and `initSync` take what wasm-bindgen's do (the full entry's,
// stampede.d.ts), so every environment loads it alike: bundlers and browsers find the wasm
// by `new URL(…, import.meta.url)`, Node is handed the bytes (fetch/node.js).

// Until init() loads the wasm, any use of it throws this (where a bare "Cannot read
// properties of undefined" did); retryFetch, async, rejects with it.
const NOT_LOADED = new Proxy({}, {
  get() {
    throw new TypeError("stampede/fetch: the WebAssembly module is not loaded: await init() (or call initSync()) first");
  },
});
let w = NOT_LOADED;

/** Throws NOT_LOADED's error unless the wasm is loaded: the API's entry points ask first, so
 *  that a call before init() says so before any complaint about its arguments. */
export function loaded() {
  if (w === NOT_LOADED) w.memory;
}
const enc = new TextEncoder();
const dec = new TextDecoder();

/** Queues `s` as the next string argument. */
function arg(s) {
  const max = s.length * 3;
  const at = w.inbuf(max);
  w.arg(enc.encodeInto(s, new Uint8Array(w.memory.buffer, at, max)).written);
}

/** A string result of `len` bytes (-1: none). */
const str = (len) => (len < 0 ? undefined : dec.decode(new Uint8Array(w.memory.buffer, w.outbuf(), len)));
/** A numbers result: a copy. */
const nums = (len) => new Float64Array(w.memory.buffer, w.outf(), len).slice();

// Objects the program drops unfreed are freed when collected.
const gc = new FinalizationRegistry(([free, h]) => free(h));

/** A handle-backed object: `h` 0 (the wasm's "none") makes none. `name`: the public
 *  class it serves, for the error of a use after free(). */
function wrap(Class, free, h, name) {
  if (!h) return undefined;
  const o = Object.create(Class.prototype);
  o.h = h;
  o.f = free;
  o.n = name;
  gc.register(o, [w[free], h], o);
  return o;
}

class Handle {
  /** The live handle. A freed object throws a TypeError, as the full entry's do, rather
   *  than answering with the wasm's "none". */
  get k() {
    if (!this.h) throw new TypeError(`${this.n} used after free()`);
    return this.h;
  }
  free() {
    if (this.h) w[this.f](this.h);
    gc.unregister(this);
    this.h = 0;
  }
}

export class Backoff extends Handle {
  static create() {
    return wrap(Backoff, "policy_free", w.policy_new(), "RetryPolicy");
  }
  draw(rows) {
    return nums(w.policy_draw(this.k, rows));
  }
  rows(n) {
    return w.policy_rows(this.k, n);
  }
  get maxAttempts() {
    return w.policy_max_attempts(this.k);
  }
  get strategy() {
    return str(w.policy_strategy(this.k));
  }
}

export class Site extends Handle {
  static create(name, given, now) {
    arg(name);
    return wrap(Site, "site_free", w.site_new(given, now), "Budget");
  }
  kind(now) {
    return str(w.site_kind(this.k, now));
  }
  tokens(now) {
    return w.site_tokens(this.k, now);
  }
  isOpen(now) {
    return w.site_is_open(this.k, now);
  }
  tryRetry(now) {
    return w.site_try_retry(this.k, now);
  }
  reset(now) {
    return w.site_reset(this.k, now) === 1;
  }
}

/** Queues the optional Retry-After and grpc-retry-pushback-ms: their flags. */
function hints(retryAfter, pushback) {
  return [retryAfter, pushback].map((v) => (v == null ? 0 : (arg(v), 1)));
}

export class FetchCall extends Handle {
  static create() {
    return wrap(FetchCall, "call_free", w.call_new(), "retryFetch");
  }
  static maxText() {
    return w.call_max_text();
  }
  /** Enters this call's fetch (a retryFetch made meanwhile is one level below): the depth
   *  to restore with fetchLeave. */
  fetchEnter() {
    return w.call_fetch_enter(this.k);
  }
  static fetchLeave(outer) {
    w.call_fetch_leave(outer);
  }
  get depth() {
    return w.call_depth(this.k);
  }
  below(depth) {
    return w.call_below(this.k, depth) === 1;
  }
  setMethod(method, input) {
    arg(method);
    return w.call_set_method(this.k, input) === 1;
  }
  get hedged() {
    return w.call_hedged(this.k) === 1;
  }
  admit(now) {
    return w.call_admit(this.k, now);
  }
  number() {
    return w.call_number(this.k);
  }
  timeout(now) {
    return w.call_timeout(this.k, now);
  }
  get deadline() {
    return w.call_deadline(this.k);
  }
  mayStart(now) {
    return w.call_may_start(this.k, now);
  }
  hedgeMaySend(now) {
    return w.call_hedge_may_send(this.k, now);
  }
  decide(status, error, retryAfter, pushback, wall, now) {
    const [a, p] = hints(retryAfter, pushback);
    return w.call_decide(this.k, status, error, a, p, wall, now);
  }
  hedgeStart(now) {
    w.call_hedge_start(this.k, now);
  }
  nextDue() {
    return w.call_next_due(this.k);
  }
  onDue(now) {
    return w.call_on_due(this.k, now);
  }
  onOutcome(status, error, retryAfter, pushback, wall, now, deadlineBound) {
    const [a, p] = hints(retryAfter, pushback);
    return w.call_on_outcome(this.k, status, error, a, p, wall, now, deadlineBound ? 1 : 0);
  }
  get deadlineBound() {
    return w.call_deadline_bound(this.k) === 1;
  }
  get delayMs() {
    return w.call_delay(this.k);
  }
  get fromServer() {
    return w.call_from_server(this.k) === 1;
  }
  get reason() {
    return str(w.call_reason(this.k));
  }
  tokens(now) {
    return w.call_tokens(this.k, now);
  }
  get callSite() {
    return str(w.call_site(this.k));
  }
  stopped() {
    return nums(w.call_stopped(this.k));
  }
}

/** `classify` on the staged input: its verdict, undefined on a bad value (`lastError`). */
export function classifyStaged(now) {
  if (!w.classify(now)) return undefined;
  return {
    retryable: w.verdict_retryable() === 1,
    action: str(w.verdict_action()),
    reason: str(w.verdict_reason()),
    retryAfterMs: w.verdict_retry_after(),
    ignoredHint: str(w.verdict_ignored()),
    free() {},
  };
}

export function parseRetryAfter(value, now) {
  arg(value);
  return w.retry_after(now);
}

export const unstage = () => w.opts_unstage();
export const stage = (slot, value) => w.opts_stage(slot, value);
export function stageText(slot, value) {
  arg(value);
  w.opts_stage_text(slot);
}
export const schema = () => str(w.opts_schema());
export const lastError = () => str(w.last_err());
export const lastErrorNumbers = () => nums(w.last_err_numbers());

// ---- Loading -------------------------------------------------------------------------------

const imports = { env: { random: Math.random } };

/** Keeps `instance` if it is this entry's wasm (another module, kept, left every later
 *  `init()` resolved and every call throwing "… is not a function"). */
function ready(instance) {
  // Loaded meanwhile (initSync while init() was fetching): keep that instance, or the
  // objects made from it would read the other's memory.
  if (w !== NOT_LOADED) return w;
  const e = instance.exports;
  if (typeof e.call_new != "function") throw notOurs();
  return (w = e);
}

/** The TypeError of a module that is not this entry's wasm: its exports are not ours, or its
 *  imports (the full entry's, another app's) do not link, `cause` what the engine threw. */
const notOurs = (cause) => new TypeError("init: not stampede_fetch_bg.wasm", { cause });
/** What instantiating threw, as a module that is not ours when it is about the imports (a
 *  LinkError, or the TypeError engines throw for an import module they are not given: V8's
 *  'Import #0 module="…"', Firefox's 'import object field …', Safari's 'import … must be an
 *  object'); anything else (a download cut short, an argument that is no module) as it is. */
const linked = (e) => (e instanceof WebAssembly.LinkError || (e instanceof TypeError && /import/i.test(e.message)) ? notOurs(e) : e);
async function instantiated(made) {
  try {
    made = await made;
  } catch (e) {
    throw linked(e);
  }
  return ready(made instanceof WebAssembly.Instance ? made : made.instance);
}

/** What the argument of `init`/`initSync` holds: `{ module_or_path }` / `{ module }`, or
 *  (as wasm-bindgen still takes) the value itself. */
const unwrap = (a, key) => (a !== undefined && a !== null && Object.getPrototypeOf(a) === Object.prototype ? a[key] : a);

/** Instantiates the wasm synchronously from its bytes or a `WebAssembly.Module`. */
export function initSync(module) {
  if (w !== NOT_LOADED) return w;
  module = unwrap(module, "module");
  if (!(module instanceof WebAssembly.Module)) {
    try {
      module = new WebAssembly.Module(module);
    } catch (e) {
      // Not bytes, or bytes of no module: named, as init() names a module that is not ours.
      throw new TypeError("initSync: module: expected the bytes of stampede_fetch_bg.wasm or its WebAssembly.Module", { cause: e });
    }
  }
  try {
    return ready(new WebAssembly.Instance(module, imports));
  } catch (e) {
    throw linked(e);
  }
}

/** The load of the default file in flight, shared by the calls that give no argument. */
let loading;

/** Loads the wasm: from `module_or_path` (a URL, a path, a `Request`, a `Response`, bytes
 *  or a `WebAssembly.Module`), or by default the file beside this one. The first load to
 *  succeed is kept. A call given a module loads it itself: it once joined a load in flight,
 *  so a stalled download left it pending for ever and a wrong module failed it too. */
export default function init(moduleOrPath) {
  if (w !== NOT_LOADED) return Promise.resolve(w);
  const source = unwrap(moduleOrPath, "module_or_path");
  if (source !== undefined) return load(source);
  loading ??= load(undefined).catch((e) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

async function load(source) {
  // Only an absent argument means the default (as in wasm-bindgen's init, `null` is refused).
  if (source === undefined) source = new URL("stampede_fetch_bg.wasm", import.meta.url);
  if (typeof source === "string" || source instanceof URL || (typeof Request === "function" && source instanceof Request)) source = fetch(source);
  source = await source;
  if (typeof Response === "function" && source instanceof Response) {
    if (!source.ok) throw new Error(`failed to fetch Wasm: ${source.status} ${source.statusText} fetching '${source.url}'`);
    // Streaming needs the application/wasm type; some hosts serve another.
    if (WebAssembly.instantiateStreaming && source.headers.get("Content-Type") === "application/wasm") {
      return instantiated(WebAssembly.instantiateStreaming(source, imports));
    }
    source = await source.arrayBuffer();
  }
  return instantiated(WebAssembly.instantiate(source, imports));
}
