// A bundler consumer: the `--target bundler` build imported as an npm package would be.
import { RetryPolicy, Simulation, RetryError, BudgetExhaustedError } from "stampede";

const delays = new RetryPolicy({ strategy: "exponential", baseMs: 200, capMs: 30000, maxAttempts: 4 }).delays();
const sim = new Simulation({ clients: 100, seed: 1 });
sim.run();
globalThis.stampedeResult = {
  delays: Array.from(delays),
  requests: sim.metrics().requests,
  errorClasses: [new RetryError("x", "y", [], null), new BudgetExhaustedError("x", "s", 0, 0)].every((e) => e instanceof Error),
};
