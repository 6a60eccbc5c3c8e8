// The simulator's speed, wasm against native in one run: the 10,000-client burst the page
// re-simulates on every slider move (full and exponential backoff, base 200 ms, cap 30 s,
// ×2, 6 attempts, a 2 s outage, 500 rps, seed 1), best of REPS runs each side.
//
// Native: crates/stampede/examples/burst_time.rs (release build), which prints JSON.
// Wasm: the built package (crates/stampede-wasm/pkg) in this Node.
// The two sides take turns: each round runs SLICES short native processes, each followed by
// a short wasm batch of each strategy, and each side's best is over all of them, so that a slow
// minute of the host (2 shared cores) falls on both sides rather than on whichever ran in it.
// Fails (exit 1) if wasm takes more than 1.3× native (issue #13's bar) or more than 16 ms
// (one frame), or if the two builds disagree on the total attempts or the events in any batch
// (same seed, same numbers). Each side is also given in the model's events per second
// (`Simulation.events()`).
// `make bench-wasm`; BENCH_REPS overrides the number of runs a side (default 50). BENCH_ROUNDS=5
// repeats the whole comparison five times over and sums up the ratios' spread (issue #13 asks
// for 1.3× in every one of 5 runs).
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { stampede } from "./load.mjs";

const REPS = Number(process.env.BENCH_REPS ?? 50);
const MAX_RATIO = 1.3;
const MAX_MS = 16;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
if (!(Number.isInteger(REPS) && REPS >= 1 && Number.isInteger(ROUNDS) && ROUNDS >= 1)) {
  console.error(`bench: BENCH_REPS and BENCH_ROUNDS must be whole numbers from 1, got ${REPS} and ${ROUNDS}`);
  process.exit(2);
}
const root = fileURLToPath(new URL("../../", import.meta.url));

// Both sides on one CPU. On this project's 2-core machine (a VM) one virtual CPU can run
// markedly slower than the other for seconds at a time (another tenant on its core), and the
// scheduler tends to keep this Node process on one CPU and start the native processes on the
// other: a whole round's wasm or native side then ran slow while the other did not (2026-12-06,
// three runs of five rounds: ratios from 0.83 to 1.92, a side 1.5–2× its usual time for the
// round). Pinned, a slow spell falls on both sides' alternating batches. Linux's `taskset`
// (util-linux) pins every thread of this process, and the native processes inherit it;
// where it is missing the bench runs unpinned and says so.
let pinned = "unpinned";
try {
  const cpu = execFileSync("taskset", ["-p", "-c", String(process.pid)], { encoding: "utf8" })
    .split(":").at(-1).trim().split(",")[0].split("-")[0];
  execFileSync("taskset", ["-a", "-p", "-c", cpu, String(process.pid)], { stdio: "ignore" });
  pinned = `pinned to CPU ${cpu}`;
} catch {
  // No taskset (not Linux, or not installed): unpinned.
}

execFileSync("cargo", ["build", "--release", "--locked", "-q", "-p", "stampede", "--example", "burst_time"], { cwd: root, stdio: "inherit" });
const timeNative = (reps) => JSON.parse(execFileSync(join(root, "target/release/examples/burst_time"), [String(reps)], { encoding: "utf8" }));
/** Turns per round: each side's REPS runs are split into this many alternating batches. */
const SLICES = Math.min(5, REPS);

const { Simulation } = stampede;
function wasmBest(strategy, reps) {
  const options = {
    scenario: "burst", clients: 10_000, outageMs: 2000, capacityRps: 500, seed: 1,
    policy: { strategy, baseMs: 200, capMs: 30_000, multiplier: 2, maxAttempts: 6 },
  };
  let best = Infinity;
  let attempts;
  let events;
  for (let i = 0; i <= reps; i++) {
    const t = performance.now();
    const sim = new Simulation(options);
    sim.run();
    attempts = sim.metrics().totalAttempts;
    events = sim.events();
    sim.free();
    // The first run is the warm-up (the engine compiles the hot code), as natively.
    if (i > 0) best = Math.min(best, performance.now() - t);
  }
  return { best, attempts, events };
}

let failed = false;
const ratios = new Map();
for (let round = 1; round <= ROUNDS; round++) {
  if (ROUNDS > 1) console.log(`round ${round} of ${ROUNDS}`);
  // Each side's best over SLICES alternating batches (see the top of this file); REPS runs
  // a side in all, the first REPS % SLICES batches one run longer.
  const best = new Map(); // strategy → { native, wasm, clients, mismatch }
  for (let slice = 0; slice < SLICES; slice++) {
    const reps = Math.floor(REPS / SLICES) + (slice < REPS % SLICES ? 1 : 0);
    const native = timeNative(reps);
    for (const n of native.runs) {
      const w = wasmBest(n.strategy, reps);
      const b = best.get(n.strategy) ?? { native: n, wasm: w, clients: native.clients, mismatch: null };
      if (n.bestMs < b.native.bestMs) b.native = n;
      if (w.best < b.wasm.best) b.wasm = w;
      // Same seed, same numbers, in every batch: the first batch that disagrees is kept.
      if (!b.mismatch && (w.attempts !== n.totalAttempts || w.events !== n.events)) {
        b.mismatch = `batch ${slice + 1}: attempts ${w.attempts}/${n.totalAttempts}, events ${w.events}/${n.events}`;
      }
      best.set(n.strategy, b);
    }
  }
  for (const [strategy, { native: n, wasm: w, clients, mismatch }] of best) {
    const ratio = w.best / n.bestMs;
    const ok = ratio <= MAX_RATIO && w.best <= MAX_MS && !mismatch;
    const perS = (ms) => `${(n.events / ms / 1000).toFixed(1)} M events/s`;
    failed ||= !ok;
    ratios.set(strategy, [...(ratios.get(strategy) ?? []), ratio]);
    console.log(
      `burst/${strategy}/${clients}: wasm ${w.best.toFixed(3)} ms (${perS(w.best)}), ` +
        `native ${n.bestMs.toFixed(3)} ms (${perS(n.bestMs)}), ratio ${ratio.toFixed(2)} (bar ${MAX_RATIO}×, ${MAX_MS} ms), ` +
        (mismatch ? `the builds disagree (${mismatch})` : `attempts ${w.attempts}, events ${w.events} in both`) +
        ` — ${ok ? "ok" : "FAIL"}`,
    );
  }
}
if (ROUNDS > 1) {
  for (const [strategy, r] of ratios) {
    const met = r.filter((x) => x <= MAX_RATIO).length;
    console.log(
      `${strategy}: ratios ${r.map((x) => x.toFixed(2)).join(", ")} (${Math.min(...r).toFixed(2)}–${Math.max(...r).toFixed(2)}); ` +
        `≤ ${MAX_RATIO}× in ${met} of ${r.length} rounds (issue #13: every round)`,
    );
  }
}
console.log(`best of ${REPS} runs a side (in ${SLICES} alternating batches, ${pinned}), Node ${process.version}`);
process.exitCode = failed ? 1 : 0;
