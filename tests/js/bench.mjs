// The wasm simulator's speed in Node (V8, the engine of Chromium): the 10,000-client burst
// the page re-simulates on every slider move, best of 30. Compare with the native figure from
// `cargo bench -p stampede --bench sim` (burst/full/10000). `make bench-wasm`.
import { stampede } from "./load.mjs";

const { Simulation } = stampede;
for (const [strategy, clients, reps] of [["full", 10_000, 30], ["exponential", 10_000, 30], ["full", 100_000, 5]]) {
  let best = Infinity;
  let attempts = 0;
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    const sim = new Simulation({ clients, policy: { strategy, baseMs: 200, capMs: 30000, maxAttempts: 6 }, seed: 1 });
    sim.run();
    attempts = sim.metrics().totalAttempts;
    sim.free();
    best = Math.min(best, performance.now() - t);
  }
  console.log(`wasm burst/${strategy}/${clients}: ${best.toFixed(2)} ms (${((attempts / best) * 1000 / 1e6).toFixed(1)} M events/s)`);
}
