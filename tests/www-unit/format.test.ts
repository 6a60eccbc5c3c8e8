import { test } from "node:test";
import assert from "node:assert/strict";
import {
  NO_VALUE,
  clipText,
  formatAxisSeconds,
  formatCompact,
  formatDuration,
  formatFull,
  formatMultiple,
  formatNumber,
  formatTicks,
  metricText,
  niceTicks,
} from "../../www/src/logic/format.js";

test("metric text is a plain number", () => {
  assert.equal(metricText("peakRps", 10000), "10000");
  assert.equal(metricText("totalAttempts", 5490.4), "5490");
  assert.equal(metricText("amplification", 3.2512), "3.25");
  assert.equal(metricText("amplification", 3), "3");
  assert.equal(metricText("recoveryMs", 58100.2), "58100");
  assert.equal(metricText("p99Ms", null), NO_VALUE);
  assert.equal(metricText("p99Ms", Number.NaN), NO_VALUE);
  for (const v of [0, 1, 12.5, 123456.7]) assert.ok(Number.isFinite(Number(metricText("completionMs", v))));
});

test("durations read naturally in both languages", () => {
  assert.equal(formatDuration(350, "en"), "350 ms");
  assert.equal(formatDuration(2000, "en"), "2 s");
  assert.equal(formatDuration(1500, "en"), "1.5 s");
  assert.equal(formatDuration(58_100, "en"), "58.1 s");
  assert.equal(formatDuration(150_000, "en"), "2.5 min");
  assert.equal(formatDuration(1500, "ru"), "1,5 с");
  assert.equal(formatDuration(350, "ru"), "350 мс");
  assert.equal(formatDuration(Number.POSITIVE_INFINITY, "en"), NO_VALUE);
});

test("numbers group digits by locale", () => {
  assert.equal(formatNumber(12345, "en"), "12,345");
  assert.equal(formatNumber(12345, "ru").replace(/\s/g, " "), "12 345");
  assert.equal(formatNumber(0.125, "en", 2), "0.13");
});

test("multiples and compact axis labels", () => {
  assert.equal(formatMultiple(20, "en"), "×20");
  assert.equal(formatMultiple(0.857, "en"), "×0.86");
  assert.equal(formatCompact(2500), "2.5k");
  assert.equal(formatCompact(1_000_000), "1M");
  assert.equal(formatCompact(500), "500");
  assert.equal(formatAxisSeconds(0, "en"), "0 s");
  assert.equal(formatAxisSeconds(500, "en"), "500 ms");
  assert.equal(formatAxisSeconds(180_000, "ru"), "3 мин");
  // An axis's ticks share one unit: seconds while they are not all whole minutes (the herd's
  // axis read "0 s, 50 s, 100 s, 2.5 min"), minutes when they are, seconds over ms from 1 s.
  const axis = (ticks: number[]) => ticks.map((t) => formatAxisSeconds(t, "en", ticks));
  assert.deepEqual(axis([0, 50_000, 100_000, 150_000]), ["0 s", "50 s", "100 s", "150 s"]);
  assert.deepEqual(axis([0, 60_000, 120_000, 180_000]), ["0 min", "1 min", "2 min", "3 min"]);
  assert.deepEqual(axis([0, 500, 1000, 1500]), ["0 s", "0.5 s", "1 s", "1.5 s"]);
  assert.deepEqual(axis([0, 200, 400]), ["0 ms", "200 ms", "400 ms"]);
});

test("ticks step by 1, 2 or 5 and cover the range", () => {
  assert.deepEqual(niceTicks(60_000, 6), [0, 10_000, 20_000, 30_000, 40_000, 50_000, 60_000]);
  assert.deepEqual(niceTicks(1, 4), [0, 0.5, 1]);
  assert.deepEqual(niceTicks(0), [0]);
  const t = niceTicks(61_270, 8);
  assert.ok(t.length >= 5 && t.length <= 10);
  assert.ok((t[t.length - 1] ?? 0) <= 61_270);
});

test("clipped text keeps whole characters: an emoji is never cut in half", () => {
  assert.equal(clipText("short", 40), "short");
  const bombs = "a" + "💥".repeat(21);
  const clipped = clipText(bombs, 20);
  assert.equal(clipped, "a" + "💥".repeat(19) + "…");
  // No lone surrogate anywhere in it (a cut by UTF-16 units left one before the "…").
  assert.doesNotMatch(clipped, /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/, JSON.stringify(clipped));
  assert.equal(clipText("x".repeat(41), 40), "x".repeat(40) + "…");
});

test("a number in full keeps every digit past a quadrillion", () => {
  assert.equal(formatFull(9_007_199_254_740_991, "en"), "9,007,199,254,740,991");
  assert.equal(formatFull(0.0000001, "en"), "0.0000001");
  assert.equal(formatFull(Infinity, "en"), NO_VALUE);
});

test("an axis's tick labels: each distinct, powers of ten only on a log axis", () => {
  // An empty rate chart's 0..1 axis read "0, 0.3, 0.5, 0.8, 1".
  assert.deepEqual(formatTicks([0, 0.25, 0.5, 0.75, 1]), ["0", "0.25", "0.5", "0.75", "1"]);
  assert.deepEqual(formatTicks([0, 0.2, 0.4]), ["0", "0.2", "0.4"]);
  assert.deepEqual(formatTicks([0, 0.002, 0.004]), ["0", "0.002", "0.004"]);
  assert.deepEqual(formatTicks([0, 500, 1000, 1500]), ["0", "500", "1k", "1.5k"]);
  assert.deepEqual(formatTicks([1000, 1250, 1500, 1750]), ["1k", "1.25k", "1.5k", "1.75k"]);
  assert.deepEqual(formatTicks([1e6, 1.025e6, 1.05e6]), ["1M", "1.025M", "1.05M"]);
  // A tick's float noise is no digit: 0.30000000000000004 reads 0.3.
  assert.deepEqual(formatTicks([0, 0.1, 0.2, 0.1 + 0.2]), ["0", "0.1", "0.2", "0.3"]);
  // The log scale's minor ticks (uPlot's splits) are left unlabelled: "10k" stood buried in
  // "8 6 4 2" from every one of them.
  assert.deepEqual(formatTicks([1, 2, 5, 10, 20, 100, 300, 1000, 10_000], true), ["1", "", "", "10", "", "100", "", "1k", "10k"]);
  assert.deepEqual(formatTicks([null, 0, 10], true), ["", "", "10"]);
  // In Russian, the page's decimal comma.
  assert.deepEqual(formatTicks([0, 2500, 5000, 7500], false, "ru"), ["0", "2,5k", "5k", "7,5k"]);
  assert.deepEqual(formatTicks([0, 0.25, 0.5], false, "ru"), ["0", "0,25", "0,5"]);
});
