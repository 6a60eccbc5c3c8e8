import { test } from "node:test";
import assert from "node:assert/strict";
import { byPeers, coreRangeError, valueAt } from "../../www/src/logic/core-range.js";
import { fieldById } from "../../www/src/logic/fields.js";
import { simOptions } from "../../www/src/logic/run.js";
import { DEFAULT_STATE, cloneState } from "../../www/src/logic/state.js";

test("a value past the package's range, as the run would send it, gets the package's refusal", () => {
  const s = cloneState(DEFAULT_STATE);
  s.a.baseMs = -5;
  const e = coreRangeError("base", -5, simOptions(s, "a"));
  assert.ok(e);
  assert.deepEqual([e.field, e.code, e.min, e.max, e.unit, e.got, e.control], ["policy.baseMs", "out_of_range", 0, 86_400_000, "ms", -5, "base"]);
  // In range: nothing to say.
  s.a.baseMs = 100;
  assert.equal(coreRangeError("base", 100, simOptions(s, "a")), null);
});

test("a value the run does not send is not judged: a timeout of 0 is none", () => {
  const s = cloneState(DEFAULT_STATE);
  s.timeoutMs = 0;
  assert.equal(valueAt(simOptions(s, "a"), "timeoutMs"), undefined);
  assert.equal(coreRangeError("timeout", 0, simOptions(s, "a")), null);
});

test("a refusal past the field's own range names the range its peer leaves", () => {
  const cap = fieldById("cap");
  assert.ok(cap);
  const refusal = { name: "RangeError", message: "", field: "policy.capMs", code: "out_of_range" as const, min: 0, max: 86_400_000, unit: "ms" as const, got: -5, control: "cap" };
  const peers = (id: string) => (id === "base" ? 2000 : undefined);
  assert.deepEqual([byPeers(refusal, cap, peers).min, byPeers(refusal, cap, peers).max], [2000, 86_400_000]);
  // A hidden or unreadable peer bounds nothing; a value above the peer's bound is the field's own.
  assert.equal(byPeers(refusal, cap, () => undefined), refusal);
  assert.equal(byPeers({ ...refusal, got: 1e9 }, cap, peers).min, 0);
});
