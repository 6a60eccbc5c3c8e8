// A simulation run as a series of calls rather than one, so that a run started before the
// engine's optimised code exists picks that code up when it lands.
//
// V8 compiles a wasm function first with its baseline compiler (Liftoff) and, once the
// function is hot, again with its optimising one (TurboFan) in the background; a call
// already running keeps the code it entered with (wasm has no on-stack replacement). The
// engine's whole run is one call into one function, so the first big run after the module
// loads (a page opened on a link at 1,000,000 clients, a worker just started) ran entirely in
// baseline code: 1.2–1.4 s where every later run takes about 0.7 s. In slices, it switches
// at the next slice after the optimised code is ready. (A page that has run anything first
// does not see it: its small runs, on the main thread, have already made the code hot.)

/** What a slice needs of the package's `Simulation`. */
export interface Steppable {
  advanceTo(tMs: number): void;
  isDone(): boolean;
}

/** The first slices' length (simulated ms). */
export const SLICE_MS = 100;

/**
 * Runs `sim` to its end in slices of simulated time: SLICE_MS, then a sixteenth of the time
 * reached, so that a run of any length takes a few hundred calls at most (a run's last
 * events may be hours of simulated time away) and each call costs next to nothing beside
 * its events. The same result as `run()`, event for event (the engine processes events in
 * time order however it is called). Returns the number of calls.
 */
export function runSliced(sim: Steppable): number {
  let calls = 0;
  for (let t = SLICE_MS; !sim.isDone(); t += Math.max(SLICE_MS, t / 16)) {
    sim.advanceTo(t);
    calls++;
  }
  return calls;
}
