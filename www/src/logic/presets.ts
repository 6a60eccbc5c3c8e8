// Presets that tell the story, in order. Each replaces the whole state (seed pinned), so
// the picture a preset shows never changes. Policy B is the counterpoint the compare panel
// shows next to it.
//
// The last three are the queueing stories (a spike that collapses, a short crash that keeps
// a fleet down, what LIFO and a queue timeout buy). Each also has variants: the same
// servers and traffic with one thing changed, drawn side by side under the goodput figure.
// The numbers are the core's stories (crates/stampede/src/sim/stories.rs: collapse,
// collapse_jittered, crash, crash_without_retries, crash_with_jitter_and_budget, crash_lifo,
// crash_queue_timeout); the package does not export them, so the page keeps its copy here,
// in this one place, and the unit tests pin it to the same numbers.

import type { Key } from "./i18n.js";
import { DEFAULT_STATE, cloneState, type PolicyState, type State } from "./state.js";
import { encodeState } from "./url.js";

/** One of a story's side-by-side pictures: its label and its whole state. */
export interface Variant {
  label: Key;
  state: State;
}

export interface Preset {
  id: string;
  /** i18n keys of the button's title and the one-line lesson under it. */
  title: Key;
  blurb: Key;
  state: State;
  /** A story's side-by-side pictures (the first is the preset's own state). */
  variants?: Variant[];
}

function make(edit: (s: State) => void): State {
  const s = cloneState(DEFAULT_STATE);
  edit(s);
  return s;
}

/** A 30 s outage in steady traffic: the retry storm keeps the recovered server overloaded. */
function storm(s: State): void {
  s.scenario = "steady";
  s.clients = 1000;
  s.ratePerClient = 1;
  s.durationMs = 120_000;
  s.outageMs = 30_000;
  s.outageStartMs = 10_000;
  s.capacityRps = 1250;
  s.a = { strategy: "exponential", baseMs: 1000, capMs: 30_000, maxAttempts: 6, multiplier: 2, budget: false };
  s.b = { ...s.a, budget: true };
  s.budgetCapacity = 100;
  s.budgetRefill = 100;
  s.budgetScope = "shared";
  s.seed = 1;
  s.speed = 10;
}

/** Policy A of the queueing stories: retry at once, `attempts` attempts in all. */
function immediate(attempts: number): PolicyState {
  // The strategy "none" waits nothing; base and cap are only kept valid.
  return { strategy: "none", baseMs: 100, capMs: 1000, maxAttempts: attempts, multiplier: 2, budget: false };
}

/** Servers that queue and clients that time out; the rest of `s` as the story sets it. */
function queueing(s: State): void {
  s.sizing = "workers";
  s.servers = 1;
  s.balance = "round-robin";
  s.queueOrder = "fifo";
  s.queueTimeoutMs = 0;
  s.serviceSpread = 1;
  s.serviceSlopeMs = 0;
  s.failRate = 0;
  s.outageServers = 0;
  s.slowdownLengthMs = 0;
  s.retryAfterMs = 0;
  s.seed = 1;
}

/**
 * Story 1 (Brooker's simple_collapse_sim): 40 requests a second, doubled for 5 s from
 * 20 s; unlimited workers whose service time is 1 s plus 10 ms per request in service;
 * 100 ms each way; clients give up after 3 s and retry at once, 3 attempts in all. After
 * the spike the server stays busy with work nobody waits for. B: full jitter from 20 s.
 */
function collapse(s: State): void {
  queueing(s);
  s.scenario = "spike";
  s.clients = 1000;
  s.ratePerClient = 0.04;
  s.durationMs = 80_000;
  s.spikeStartMs = 20_000;
  s.spikeLengthMs = 5_000;
  s.spikeFactor = 2;
  s.outageMs = 0;
  s.workers = 0;
  s.queue = 1000;
  s.serviceMs = 1000;
  s.serviceDist = "constant";
  s.serviceSlopeMs = 10;
  s.latencyMs = 200;
  s.latencyDist = "exponential";
  s.timeoutMs = 3000;
  s.a = immediate(3);
  s.b = { strategy: "full", baseMs: 20_000, capMs: 60_000, maxAttempts: 3, multiplier: 2, budget: false };
  s.speed = 5;
}

/**
 * Story 2: 70 requests a second on 2 servers of 5 workers (exponential service, mean
 * 100 ms: 70% busy); clients time out after 1 s and retry at once (4 attempts); one server
 * fails fast for 5 s from 10 s. B: full jitter (100 ms to 5 s) with a retry budget per
 * client (1 token, 0.04 a second: the fleet's refill, 40 a second, stays inside the spare
 * capacity).
 */
function crash(s: State): void {
  queueing(s);
  s.scenario = "steady";
  s.clients = 1000;
  s.ratePerClient = 0.07;
  s.durationMs = 60_000;
  s.outageMs = 5000;
  s.outageStartMs = 10_000;
  s.outageServers = 1;
  s.servers = 2;
  s.workers = 5;
  s.queue = 1000;
  s.serviceMs = 100;
  s.serviceDist = "exponential";
  s.latencyMs = DEFAULT_STATE.latencyMs;
  s.latencyDist = DEFAULT_STATE.latencyDist;
  s.timeoutMs = 1000;
  s.a = immediate(4);
  s.b = { strategy: "full", baseMs: 100, capMs: 5000, maxAttempts: 4, multiplier: 2, budget: true };
  // Each client's own bucket: 1 retry in hand, then one per 25 s.
  s.budgetScope = "client";
  s.budgetCapacity = 1;
  s.budgetRefill = 0.04;
  s.speed = 5;
}

/** `base` with `edit` applied, as a new state. */
function variant(base: State, edit: (s: State) => void): State {
  const s = cloneState(base);
  edit(s);
  return s;
}

const COLLAPSE = make(collapse);
const CRASH = make(crash);
const LIFO = variant(CRASH, (s) => {
  s.queueOrder = "lifo";
});

export const PRESETS: Preset[] = [
  {
    id: "herd",
    title: "preset.herd.title",
    blurb: "preset.herd.blurb",
    // 1000 clients, a 2 s outage, exponential backoff from 2 s without jitter: all of them
    // come back at exactly T+2 s, T+6 s, … and each time knock the server over again.
    state: make((s) => {
      s.speed = 1;
    }),
  },
  {
    id: "jitter",
    title: "preset.jitter.title",
    blurb: "preset.jitter.blurb",
    state: make((s) => {
      s.a = { ...s.a, strategy: "full" };
      s.b = { ...s.a, strategy: "exponential" };
      s.speed = 1;
    }),
  },
  {
    id: "storm",
    title: "preset.storm.title",
    blurb: "preset.storm.blurb",
    state: make(storm),
  },
  {
    id: "budget",
    title: "preset.budget.title",
    blurb: "preset.budget.blurb",
    state: make((s) => {
      storm(s);
      s.a = { ...s.a, budget: true };
      s.b = { ...s.a, budget: false };
    }),
  },
  {
    id: "aws",
    title: "preset.aws.title",
    blurb: "preset.aws.blurb",
    // The AWS Architecture Blog's experiment: 100 clients race to update one row.
    state: make((s) => {
      s.scenario = "aws-occ";
      s.clients = 100;
      s.a = { strategy: "exponential", baseMs: 5, capMs: 2000, maxAttempts: 6, multiplier: 2, budget: false };
      s.b = { ...s.a, strategy: "full" };
      s.seed = 1;
      s.speed = 0.5;
    }),
  },
  {
    id: "collapse",
    title: "preset.collapse.title",
    blurb: "preset.collapse.blurb",
    state: COLLAPSE,
    variants: [
      { label: "variant.immediate", state: COLLAPSE },
      { label: "variant.jitter", state: variant(COLLAPSE, (s) => (s.a = { ...s.b })) },
    ],
  },
  {
    id: "crash",
    title: "preset.crash.title",
    blurb: "preset.crash.blurb",
    state: CRASH,
    variants: [
      { label: "variant.immediate", state: CRASH },
      { label: "variant.noRetries", state: variant(CRASH, (s) => (s.a = { ...s.a, maxAttempts: 1 })) },
      { label: "variant.jitterBudget", state: variant(CRASH, (s) => (s.a = { ...s.b })) },
    ],
  },
  {
    id: "lifo",
    title: "preset.lifo.title",
    blurb: "preset.lifo.blurb",
    state: LIFO,
    variants: [
      { label: "variant.fifo", state: CRASH },
      { label: "variant.lifo", state: LIFO },
      // Well inside the clients' 1 s timeout: at or past it, a queue timeout drops only
      // requests whose clients have given up anyway.
      { label: "variant.queueTimeout", state: variant(CRASH, (s) => (s.queueTimeoutMs = 300)) },
    ],
  },
];

export function presetById(id: string): Preset | undefined {
  return PRESETS.find((p) => p.id === id);
}

/** The story a link names (`story=crash`, written beside the settings while a story is on
 *  show), if the link's settings `s` are that story's (its rows and playback speed apart, the
 *  reader's choices, and what the core sized from the rest):
 *  a shared story then opens with its lesson and figures. A link whose settings were changed
 *  by hand is not that story any more: null, as for an unknown name. */
export function linkedStory(search: string, s: State): string | null {
  const id = new URLSearchParams(search).get("story");
  const p = PRESETS.find((x) => x.id === id);
  if (!p) return null;
  // What the core sized after the first run is written into the link too (run.ts
  // adoptFleet): the workers and queue, or the capacity; they follow from the rest.
  const story = { ...cloneState(p.state), rows: s.rows, speed: s.speed };
  if (story.sizing === "capacity") [story.workers, story.queue] = [s.workers, s.queue];
  else story.capacityRps = s.capacityRps;
  return encodeState(story) === encodeState(s) ? p.id : null;
}
