// The classes are disposable: `using` frees each one when its block ends (the runtime sets
// [Symbol.dispose] to free() where the symbol exists; tests/js/objects.test.mjs runs it).
// Checked with lib ESNext.Disposable (tsconfig.dispose.json); tsconfig.json and
// tsconfig.node.json check the same declarations with plain ES2022, where the package's own
// declaration of Symbol.dispose must stand alone.
import init, { Budget, RetryPolicy, Simulation } from "stampede";

export async function disposable(): Promise<number> {
  await init();
  using policy = new RetryPolicy({ maxAttempts: 3 });
  using budget = Budget.forCallSite("GET /api/using", { kind: "ratio" });
  using sim = new Simulation({ clients: 10 });
  const d: Disposable = policy;
  void [d, budget, sim];
  // @ts-expect-error a disposable is not a number
  const n: number = policy[Symbol.dispose];
  return n;
}
