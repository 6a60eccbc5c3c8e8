// Which explanation goes under each figure: the texts say what the picture shows, so they
// follow the run on show. "Every vertical stripe is the whole fleet retrying at once" is
// true of backoff without jitter, not of full jitter's picture; "the dashed line is what the
// server can serve" needs a capacity line, which unlimited workers and the contention
// experiment do not have; "once requests wait in the queue longer than the timeout" needs a
// queue, which unlimited workers do not keep (their price of load is every request slowing
// the others), and a timeout, which clients without one do not have.

import type { Key } from "./i18n.js";
import type { Scenario, Strategy } from "./state.js";

/** The explanation of each figure (rich text keys). */
export interface Why {
  herd: Key;
  load: Key;
  goodput: Key;
}

/** Strategies whose waits are drawn at random: their retries do not come back together. */
const JITTERED: ReadonlySet<Strategy> = new Set(["full", "equal", "decorrelated", "decorrelated-v2"]);

/** `unlimited`: the run's servers had unlimited workers (no queue, no capacity line);
 *  `timeout`: its clients give attempts up (without, no answer is wasted: goodput is
 *  throughput, and the text about timeouts says what one would do instead). */
export function whyKeys(scenario: Scenario, strategy: Strategy, unlimited: boolean, timeout: boolean): Why {
  if (scenario === "aws-occ") return { herd: "herd.whyOcc", load: "load.whyOcc", goodput: "goodput.why" };
  return {
    // In a burst the first attempts all leave at once, before any wait: its text says so.
    // Ongoing traffic fails over a stretch of time, not at one moment: no stripes to explain
    // without jitter, but retries landing on top of the new requests.
    herd: JITTERED.has(strategy)
      ? scenario === "burst"
        ? "herd.whyJitterBurst"
        : "herd.whyJitter"
      : scenario === "burst"
        ? "herd.why"
        : "herd.whyOngoing",
    load: unlimited ? "load.whyUnlimited" : "load.why",
    goodput: unlimited ? (timeout ? "goodput.whyUnlimited" : "goodput.whyUnlimitedNoTimeout") : timeout ? "goodput.why" : "goodput.whyNoTimeout",
  };
}
