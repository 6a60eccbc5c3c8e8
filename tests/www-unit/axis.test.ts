// A herd's time axis (www/src/logic/axis.ts): as many labels as fit its width, none
// overlapping, none past its edges.
import { test } from "node:test";
import assert from "node:assert/strict";
import { axisLabels, type AxisLabel } from "../../www/src/logic/axis.js";
import { formatAxisSeconds } from "../../www/src/logic/format.js";

/** About a 12 px font's width: 7 px a character. */
const measure = (text: string) => 7 * text.length;
const seconds = (t: number) => formatAxisSeconds(t, "en");

/** Each label's [left, right] on an axis `width` px wide. */
function boxes(labels: AxisLabel[], max: number, width: number): [number, number][] {
  return labels.map(({ t, text, align }) => {
    const x = (t / max) * width;
    const w = measure(text);
    const left = align === "start" ? x : align === "end" ? x - w : x - w / 2;
    return [left, left + w];
  });
}

test("a wide axis keeps every label of the 1-2-5 step; a narrow one fewer, none overlapping or past an edge", () => {
  const wide = axisLabels(60_000, 900, seconds, measure);
  assert.deepEqual(
    wide.map((l) => l.text),
    ["0 s", "10 s", "20 s", "30 s", "40 s", "50 s", "60 s"],
  );
  for (const width of [900, 400, 160, 120, 80, 40, 10]) {
    const labels = axisLabels(60_000, width, seconds, measure);
    assert.ok(labels.length >= 1, `${width} px`);
    assert.equal(labels[0]?.t, 0, `${width} px: the axis starts at 0`);
    const b = boxes(labels, 60_000, width);
    for (let i = 1; i < b.length; i++) assert.ok((b[i]?.[0] ?? 0) >= (b[i - 1]?.[1] ?? 0) + 8, `${width} px: ${JSON.stringify(labels)}`);
    if (labels.length > 1) {
      assert.ok((b[0]?.[0] ?? -1) >= 0, `${width} px: the first label starts inside`);
      assert.ok((b.at(-1)?.[1] ?? Infinity) <= width, `${width} px: the last label ends inside`);
    }
  }
  // The compare panel's herds on a phone: ~150 px for a minute.
  const phone = axisLabels(61_400, 150, seconds, measure).map((l) => l.text);
  assert.ok(phone.length >= 2 && phone.length < 7, phone.join(" "));
});

test("labels are centred on their ticks, except at the edges", () => {
  const labels = axisLabels(60_000, 600, seconds, measure);
  assert.equal(labels[0]?.align, "start");
  assert.ok(labels.slice(1, -1).every((l) => l.align === "center"));
  // 60 s exactly at the right edge: it ends there.
  assert.equal(labels.at(-1)?.align, "end");
  // A tick short of the edge, its label still past it: it ends at the tick.
  const near = axisLabels(61_400, 600, seconds, measure);
  assert.equal(near.at(-1)?.text, "60 s");
  assert.equal(near.at(-1)?.align, "end");
});

test("an empty or tiny run has its 0 label", () => {
  assert.deepEqual(axisLabels(0, 300, seconds, measure), [{ t: 0, text: "0 s", align: "start" }]);
  assert.deepEqual(axisLabels(1, 0, seconds, measure).map((l) => l.t), [0]);
});
