import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CAT,
  HerdScratch,
  cellOf,
  cellRows,
  packHex,
  packRgb,
  pickCategory,
  rasterHerd,
  rowMap,
  type HerdPalette,
} from "../../www/src/figures/raster.js";

const palette: HerdPalette = {
  background: packHex("#ffffff"),
  outage: packHex("#eeeeee"),
  marks: [0, 0, 0, 0, 0],
};
palette.marks[CAT.rejected] = packHex("#e69f00");
palette.marks[CAT.failed] = packHex("#d55e00");
palette.marks[CAT.blocked] = packHex("#cc79a7");
palette.marks[CAT.served] = packHex("#0072b2");
palette.marks[CAT.timedOut] = packHex("#3b3f46");

/** Log outcome codes. */
const SERVED = 0;
const FAILED = 1;
const REJECTED = 2;
const BLOCKED = 3;
const ERROR = 5;
const TIMEOUT = 6;

test("packing is little-endian RGBA", () => {
  const v = packRgb(1, 2, 3);
  const bytes = new Uint8Array(new Uint32Array([v]).buffer);
  assert.deepEqual([...bytes], [1, 2, 3, 255]);
  assert.equal(packHex("#fff"), packRgb(255, 255, 255));
  assert.equal(packHex("nonsense"), packRgb(0, 0, 0));
});

test("row mapping: few clients get bands, in either mode", () => {
  for (const mode of ["client", "fit"] as const) {
    const m = rowMap(100, 400, mode);
    assert.equal(m.folded, false);
    assert.equal(m.band, 4);
    assert.equal(m.virtualHeight, 400);
    assert.equal(cellOf(m, 0), 0);
    assert.equal(cellOf(m, 99), 99);
    assert.deepEqual(cellRows(m, 99), [396, 400]);
    assert.equal(cellOf(m, 100), -1);
    assert.equal(cellOf(m, -1), -1);
  }
});

test("row mapping: 10,000 clients, one pixel row each, scrolled", () => {
  const top = rowMap(10_000, 400, "client");
  assert.equal(top.folded, false);
  assert.equal(top.band, 1);
  assert.equal(top.perCell, 1);
  assert.equal(top.virtualHeight, 10_000);
  assert.equal(cellOf(top, 0), 0);
  assert.equal(cellOf(top, 399), 399);
  assert.equal(cellOf(top, 400), -1);
  const mid = rowMap(10_000, 400, "client", 1200);
  assert.equal(mid.first, 1200);
  assert.equal(cellOf(mid, 1199), -1);
  assert.equal(cellOf(mid, 1200), 0);
  assert.equal(cellOf(mid, 1599), 399);
  assert.equal(cellOf(mid, 1600), -1);
  assert.deepEqual(cellRows(mid, 7), [7, 8]);
  // Scrolling past the end stops at the last full view; NaN and negative scrolls at the top.
  const end = rowMap(10_000, 400, "client", 1e9);
  assert.equal(end.first, 9600);
  assert.equal(cellOf(end, 9999), 399);
  assert.equal(rowMap(10_000, 400, "client", -5).first, 0);
  assert.equal(rowMap(10_000, 400, "client", Number.NaN).first, 0);
  // Every client lands in exactly one pixel row over the whole scroll range.
  const seen = new Uint8Array(10_000);
  for (let scroll = 0; scroll < 10_000; scroll += 400) {
    const m = rowMap(10_000, 400, "client", scroll);
    for (let r = 0; r < 10_000; r++) if (cellOf(m, r) >= 0) seen[r] = (seen[r] ?? 0) + 1;
  }
  assert.ok(seen.every((n) => n === 1));
});

test("row mapping: fit folds 10,000 clients into 400 rows, 25 each, in order", () => {
  const m = rowMap(10_000, 400, "fit", 1234);
  assert.equal(m.folded, true);
  assert.equal(m.perCell, 25);
  assert.equal(m.first, 0);
  assert.equal(m.virtualHeight, 400);
  assert.equal(cellOf(m, 0), 0);
  assert.equal(cellOf(m, 24), 0);
  assert.equal(cellOf(m, 25), 1);
  assert.equal(cellOf(m, 9999), 399);
  for (let r = 1; r < 10_000; r++) assert.ok(cellOf(m, r) >= cellOf(m, r - 1));
});

test("a pixel shows the rare outcomes first, else the majority", () => {
  const counts = (served: number, failed: number, rejected: number, blocked: number, timedOut = 0) => {
    const c = [0, 0, 0, 0, 0];
    c[CAT.served] = served;
    c[CAT.failed] = failed;
    c[CAT.rejected] = rejected;
    c[CAT.blocked] = blocked;
    c[CAT.timedOut] = timedOut;
    return c;
  };
  // A timeout shows among many successes and rejections, after a block or a failure.
  assert.equal(pickCategory(counts(20, 0, 5, 0, 1)), CAT.timedOut);
  assert.equal(pickCategory(counts(20, 1, 5, 0, 3)), CAT.failed);
  assert.equal(pickCategory(counts(20, 0, 5, 1, 3)), CAT.blocked);
  assert.equal(pickCategory(counts(24, 0, 0, 1)), CAT.blocked);
  assert.equal(pickCategory(counts(0, 1, 10, 0)), CAT.failed);
  assert.equal(pickCategory(counts(3, 1, 10, 1)), CAT.blocked);
  assert.equal(pickCategory(counts(3, 0, 10, 0)), CAT.rejected);
  assert.equal(pickCategory(counts(10, 0, 3, 0)), CAT.served);
  assert.equal(pickCategory(counts(2, 0, 2, 0)), CAT.rejected);
  assert.equal(pickCategory(counts(1, 0, 0, 0)), CAT.served);
});

test("background, outage shading and one mark per client band", () => {
  const W = 100;
  const H = 40;
  const pixels = new Uint32Array(W * H);
  // 4 clients (10 px bands): client 0 fails in the outage at t=0; client 3 is served at t=50 ms.
  const log = new Float32Array([0, 0, 1, FAILED, 50, 3, 1, SERVED]);
  const stats = rasterHerd(pixels, { log, logRows: 4, logStride: 1 }, { width: W, height: H, tEndMs: 100, outage: [0, 20] }, palette, new HerdScratch());
  assert.equal(stats.marks, 2);
  assert.equal(stats.clientsPerRow, 0.1);
  assert.equal(pixels[0], palette.marks[CAT.failed]); // row 0, x 0
  assert.equal(pixels[W + 1], palette.marks[CAT.failed]); // failures are solid across the mark
  assert.equal(pixels[5 * W + 10], palette.outage); // inside the outage, no mark
  assert.equal(pixels[5 * W + 60], palette.background);
  assert.equal(pixels[35 * W + 50], palette.marks[CAT.served]);
  // The gap between bands stays background.
  assert.equal(pixels[39 * W + 50], palette.background);
});

test("a timed-out attempt and a 500 from the fail rate are marked as such, not as served", () => {
  const W = 40;
  const H = 20;
  const pixels = new Uint32Array(W * H);
  // 2 clients (10 px bands): client 0 timed out at x 10, client 1 got a 500 at x 20.
  const log = new Float32Array([10, 0, 1, TIMEOUT, 20, 1, 1, ERROR]);
  rasterHerd(pixels, { log, logRows: 2, logStride: 1 }, { width: W, height: H, tEndMs: W, outage: null }, palette, new HerdScratch());
  assert.equal(pixels[2 * W + 10], palette.marks[CAT.timedOut]);
  assert.equal(pixels[12 * W + 20], palette.marks[CAT.failed]);
});

test("rejections are striped and blocks checkered, so they read apart from failures without hue", () => {
  const W = 40;
  const H = 20;
  const pixels = new Uint32Array(W * H);
  // 2 clients (10 px bands): client 0 rejected at x 10, client 1 blocked at x 20.
  const log = new Float32Array([10, 0, 1, REJECTED, 20, 1, 1, BLOCKED]);
  rasterHerd(pixels, { log, logRows: 2, logStride: 1 }, { width: W, height: H, tEndMs: W, outage: null }, palette, new HerdScratch());
  const rej = [pixels[2 * W + 10], pixels[2 * W + 11], pixels[2 * W + 12]];
  assert.equal(rej[0], palette.marks[CAT.rejected]);
  assert.notEqual(rej[1], palette.marks[CAT.rejected]);
  assert.notEqual(rej[1], palette.background);
  // A column of a stripe is the same all the way down.
  assert.equal(pixels[5 * W + 11], rej[1]);
  const a = pixels[12 * W + 20];
  const b = pixels[12 * W + 21];
  const c = pixels[13 * W + 20];
  assert.notEqual(a, b);
  assert.equal(b, c); // checks alternate both ways
  assert.ok(a === palette.marks[CAT.blocked] || b === palette.marks[CAT.blocked]);
});

test("folded rows: opacity follows the share of clients with a mark", () => {
  const W = 10;
  const H = 2;
  const pixels = new Uint32Array(W * H);
  // 10 clients over 2 pixel rows: all 5 of the first half served at t=0, one of the second.
  const rows: number[] = [];
  for (let c = 0; c < 5; c++) rows.push(0, c, 2, SERVED);
  rows.push(0, 7, 2, SERVED);
  const scratch = new HerdScratch();
  rasterHerd(pixels, { log: new Float32Array(rows), logRows: 10, logStride: 1 }, { width: W, height: H, tEndMs: 10, outage: null, mode: "fit" }, palette, scratch);
  assert.equal(pixels[0], palette.marks[CAT.served]);
  const faint = pixels[W] ?? 0;
  assert.notEqual(faint, palette.marks[CAT.served]);
  assert.notEqual(faint, palette.background);
  // The scratch counts are cleared for the next draw: drawing nothing leaves the background.
  rasterHerd(pixels, { log: new Float32Array(0), logRows: 10, logStride: 1 }, { width: W, height: H, tEndMs: 10, outage: null, mode: "fit" }, palette, scratch);
  assert.ok(pixels.every((p) => p === palette.background));
});

test("folded rows: one budget block among many successes still shows", () => {
  const W = 10;
  const H = 4;
  const pixels = new Uint32Array(W * H);
  // 100 clients in 4 rows (25 each): row 0 has 24 served and 1 blocked at t=5; row 1 only served.
  const log: number[] = [];
  for (let c = 0; c < 24; c++) log.push(5, c, 1, SERVED);
  log.push(5, 24, 1, BLOCKED);
  for (let c = 25; c < 50; c++) log.push(5, c, 1, SERVED);
  rasterHerd(pixels, { log: new Float32Array(log), logRows: 100, logStride: 1 }, { width: W, height: H, tEndMs: W, outage: null, mode: "fit" }, palette, new HerdScratch());
  const pink = (p: number) => (p & 255) > ((p >>> 16) & 255) * 0.9 && (p & 255) > ((p >>> 8) & 255); // red leads: not the blue of served
  assert.ok(pink(pixels[5] ?? 0) || pink(pixels[6] ?? 0), "the block shows in row 0");
  assert.equal(pixels[W + 5], palette.marks[CAT.served]);
});

test("client mode draws only the rows in view, each client its own pixel row", () => {
  const W = 20;
  const H = 10;
  const pixels = new Uint32Array(W * H);
  // 1000 clients; client 0, 104 and 105 served at t=3.
  const log = new Float32Array([3, 0, 1, SERVED, 3, 104, 1, SERVED, 3, 105, 1, FAILED]);
  const layout = { width: W, height: H, tEndMs: W, outage: null, mode: "client" as const, scrollPx: 100 };
  const s = rasterHerd(pixels, { log, logRows: 1000, logStride: 1 }, layout, palette, new HerdScratch());
  assert.equal(s.marks, 2); // client 0 is above the view
  assert.equal(s.map.first, 100);
  assert.equal(s.map.virtualHeight, 1000);
  assert.equal(pixels[4 * W + 3], palette.marks[CAT.served]);
  assert.equal(pixels[5 * W + 3], palette.marks[CAT.failed]);
  assert.equal(pixels[3 * W + 3], palette.background);
  assert.equal(pixels[0 * W + 3], palette.background);
});

test("strided logs map clients to rows; marks outside the time range are skipped", () => {
  const pixels = new Uint32Array(20 * 10);
  // stride 10: client 90 is row 9 of 10.
  const log = new Float32Array([5, 90, 1, SERVED, 500, 0, 1, SERVED]);
  const s = rasterHerd(pixels, { log, logRows: 10, logStride: 10 }, { width: 20, height: 10, tEndMs: 10, outage: null }, palette, new HerdScratch());
  assert.equal(s.marks, 1);
  assert.equal(pixels[9 * 20 + 10], palette.marks[CAT.served]);
});
