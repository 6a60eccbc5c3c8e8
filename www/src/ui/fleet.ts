// The line under the Server group: the servers the core simulated, as it sized them, and
// what sized them (the capacity, or the workers and queue the reader gave).

import { formatDuration, formatNumber } from "../logic/format.js";
import { type Lang, type Sizing } from "../logic/state.js";
import { fleetCapacity, type FleetShape } from "../logic/run.js";
import type { T } from "./i18n-dom.js";

export type FleetView = FleetShape;

export function fleetText(f: FleetView, sizing: Sizing, t: T, lang: Lang): string {
  const vars = {
    servers: formatNumber(f.servers, lang),
    workers: formatNumber(f.workers, lang),
    service: formatDuration(f.serviceMs, lang),
    queue: formatNumber(f.queue, lang),
    capacity: formatNumber(fleetCapacity(f), lang),
  };
  if (f.workers === 0) return t("fleet.unlimited", vars);
  return t(sizing === "capacity" ? "fleet.byCapacity" : "fleet.byWorkers", vars);
}
