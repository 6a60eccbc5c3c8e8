// Presets that tell the story, in order. Each replaces the whole state (seed pinned), so
// the picture a preset shows never changes. Policy B is the counterpoint the compare panel
// shows next to it.

import { DEFAULT_STATE, cloneState, type State } from "./state.js";

export interface Preset {
  id: string;
  /** i18n keys of the button's title and the sentence under it. */
  title: string;
  blurb: string;
  state: State;
}

function make(edit: (s: State) => void): State {
  const s = cloneState(DEFAULT_STATE);
  edit(s);
  return s;
}

/** A 30 s outage in steady traffic: the retry storm keeps the recovered server down. */
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
];

export function presetById(id: string): Preset | undefined {
  return PRESETS.find((p) => p.id === id);
}
