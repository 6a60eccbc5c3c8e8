// Garbage collection on demand, for the tests that check what a collected object leaves
// behind (retryFetch drops a resolved call's listeners on the caller's signal once its
// Response is collected): `--expose-gc` set at run time, `gc` taken from a fresh context.
import v8 from "node:v8";
import vm from "node:vm";

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc");

/** Collects until `done()` holds (finalizers run on later tasks), at most `rounds` times. */
export async function collectUntil(done, rounds = 20) {
  for (let i = 0; i < rounds && !done(); i++) {
    gc();
    await new Promise((r) => setTimeout(r, 10));
  }
  return done();
}
