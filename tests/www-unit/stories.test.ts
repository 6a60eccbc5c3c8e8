// The story presets against the core's own stories (crates/stampede/src/sim/stories.rs),
// which the package does not export: the test reads the Rust source, each story's
// `SimSettings { … }` with its `..other()` base resolved, and checks every setting it names
// against the page's preset or variant. A story retuned in the core and not on the page
// (or the other way round) fails here, naming the setting.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { presetById } from "../../www/src/logic/presets.js";
import type { State } from "../../www/src/logic/state.js";

const root = process.env["STAMPEDE_ROOT"];
if (!root) throw new Error("STAMPEDE_ROOT is not set: run the page's unit tests with `node tests/www-unit/run.mjs`");
const source = readFileSync(join(root, "crates", "stampede", "src", "sim", "stories.rs"), "utf8");

/** A story's settings as written: field → Rust text of its value. */
type Story = Map<string, string>;

/** Each `pub fn name() -> SimSettings { SimSettings { … } }` of the source, bases resolved. */
function stories(): Map<string, Story> {
  const raw = new Map<string, { fields: Story; base: string | null }>();
  const fn = /pub fn (\w+)\(\) -> SimSettings \{\s*SimSettings \{([\s\S]*?)\n    \}\n\}/g;
  for (const m of source.matchAll(fn)) {
    const fields: Story = new Map();
    let base: string | null = null;
    for (const line of (m[2] ?? "").split("\n")) {
      const t = line.trim();
      const b = /^\.\.(\w+)\(\)/.exec(t);
      // `..SimSettings::default()` does not match: the defaults are not a story.
      if (b) base = b[1] ?? null;
      const f = /^(\w+): (.+),$/.exec(t);
      if (f && f[1] && f[2]) fields.set(f[1], f[2]);
    }
    raw.set(m[1] ?? "", { fields, base });
  }
  const resolve = (name: string): Story => {
    const r = raw.get(name);
    assert.ok(r, `stories.rs has no ${name}()`);
    return new Map([...(r.base ? resolve(r.base) : new Map<string, string>()), ...r.fields]);
  };
  return new Map([...raw.keys()].map((k) => [k, resolve(k)]));
}

/** A Rust number literal or `Some(n)` → the number; `None` → null. */
function num(v: string): number | null {
  if (v === "None") return null;
  const inner = /^Some\((.+)\)$/.exec(v)?.[1] ?? v;
  return Number(inner.replace(/_/g, ""));
}

/** `Enum::VariantName` → the page's kebab-case name. */
function choice(v: string): string {
  const name = v.split("::").pop() ?? v;
  return name.replace(/([a-z])([A-Z])/g, "$1-$2").toLowerCase();
}

/** Checks every setting `story` names against the page's state `s`. */
function check(label: string, story: Story, s: State): void {
  const numbers: Record<string, (x: State) => number> = {
    clients: (x) => x.clients,
    rate_per_client: (x) => x.ratePerClient,
    duration_ms: (x) => x.durationMs,
    spike_start_ms: (x) => x.spikeStartMs,
    spike_length_ms: (x) => x.spikeLengthMs,
    spike_factor: (x) => x.spikeFactor,
    outage_ms: (x) => x.outageMs,
    outage_start_ms: (x) => x.outageStartMs,
    servers: (x) => x.servers,
    service_ms: (x) => x.serviceMs,
    service_slope_ms: (x) => x.serviceSlopeMs,
    latency_ms: (x) => x.latencyMs,
  };
  // Settings whose "none" the page writes as 0.
  const optional: Record<string, (x: State) => number> = {
    timeout_ms: (x) => x.timeoutMs,
    queue_timeout_ms: (x) => x.queueTimeoutMs,
    outage_servers: (x) => x.outageServers,
  };
  const choices: Record<string, (x: State) => string> = {
    scenario: (x) => x.scenario,
    service_dist: (x) => x.serviceDist,
    latency_dist: (x) => x.latencyDist,
    queue_order: (x) => x.queueOrder,
  };
  for (const [field, v] of story) {
    const at = `${label}: ${field} = ${v}`;
    if (field in numbers) assert.equal(numbers[field]?.(s), num(v), at);
    else if (field in optional) assert.equal(optional[field]?.(s), num(v) ?? 0, at);
    else if (field in choices) assert.equal(choices[field]?.(s), choice(v), at);
    else if (field === "workers" || field === "queue") {
      // Given, the page sizes by the workers and sends exactly these.
      assert.equal(s.sizing, "workers", at);
      assert.equal(field === "workers" ? s.workers : s.queue, num(v), at);
    } else if (field === "policy") {
      const now = /^immediate\((\d+)\)$/.exec(v);
      const full = /^PolicySettings::new\(BackoffSettings::new\(Strategy::(\w+), ([\d_.]+), ([\d_.]+)\), (\d+)\)$/.exec(v);
      if (now) assert.deepEqual([s.a.strategy, s.a.maxAttempts], ["none", Number(now[1])], at);
      else if (full) {
        assert.deepEqual(
          [s.a.strategy, s.a.baseMs, s.a.capMs, s.a.maxAttempts],
          [choice(full[1] ?? ""), num(full[2] ?? ""), num(full[3] ?? ""), Number(full[4])],
          at,
        );
      } else assert.fail(`${at}: a policy the test cannot read`);
    } else if (field === "budget") {
      const b = /^Some\(BudgetSettings::new\(([\d_.]+), ([\d_.]+)\)\)$/.exec(v);
      assert.ok(b, `${at}: a budget the test cannot read`);
      assert.deepEqual([s.a.budget, s.budgetCapacity, s.budgetRefill, s.budgetScope], [true, num(b[1] ?? ""), num(b[2] ?? ""), "client"], at);
    } else if (field === "slot_ms") {
      // The series' resolution: the page draws finer slots (the core's default).
    } else {
      assert.fail(`${at}: a setting the page's check does not know (add it to the presets and here)`);
    }
  }
}

/** Each core story and the page's picture of it: [story fn, preset id, variant index]. */
const PAIRS: [string, string, number][] = [
  ["collapse", "collapse", 0],
  ["collapse_jittered", "collapse", 1],
  ["crash", "crash", 0],
  ["crash_without_retries", "crash", 1],
  ["crash_with_jitter_and_budget", "crash", 2],
  ["crash", "lifo", 0],
  ["crash_lifo", "lifo", 1],
  ["crash_queue_timeout", "lifo", 2],
];

test("every story preset and variant has the core's story numbers", () => {
  const all = stories();
  assert.ok(all.size >= 7, `read ${all.size} stories from stories.rs`);
  for (const [fn, id, i] of PAIRS) {
    const story = all.get(fn);
    assert.ok(story, fn);
    const variant = presetById(id)?.variants?.[i];
    assert.ok(variant, `${id}[${i}]`);
    check(`${id}[${i}] (${fn})`, story, variant.state);
  }
  // The presets themselves: story 1 and 2 as their first variants, story 3 its LIFO one.
  assert.deepEqual(presetById("collapse")?.state, presetById("collapse")?.variants?.[0]?.state);
  assert.deepEqual(presetById("crash")?.state, presetById("crash")?.variants?.[0]?.state);
  assert.deepEqual(presetById("lifo")?.state, presetById("lifo")?.variants?.[1]?.state);
  // Policy B is each story's counterpoint: the policy of the variant that recovers.
  for (const [id, fn] of [["collapse", "collapse_jittered"], ["crash", "crash_with_jitter_and_budget"]] as const) {
    const s = presetById(id)?.state;
    const policy = all.get(fn)?.get("policy");
    assert.ok(s && policy, id);
    check(`${id} B (${fn})`, new Map([["policy", policy]]), { ...s, a: s.b });
  }
});
