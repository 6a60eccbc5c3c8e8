import { test } from "node:test";
import assert from "node:assert/strict";
import { CAT, HerdScratch, packHex, packRgb, rasterHerd, type HerdPalette } from "../../www/src/figures/raster.js";

const palette: HerdPalette = {
  background: packHex("#ffffff"),
  outage: packHex("#eeeeee"),
  marks: [0, 0, 0, 0],
};
palette.marks[CAT.rejected] = packHex("#e69f00");
palette.marks[CAT.failed] = packHex("#d55e00");
palette.marks[CAT.blocked] = packHex("#cc79a7");
palette.marks[CAT.served] = packHex("#0072b2");

test("packing is little-endian RGBA", () => {
  const v = packRgb(1, 2, 3);
  const bytes = new Uint8Array(new Uint32Array([v]).buffer);
  assert.deepEqual([...bytes], [1, 2, 3, 255]);
  assert.equal(packHex("#fff"), packRgb(255, 255, 255));
  assert.equal(packHex("nonsense"), packRgb(0, 0, 0));
});

test("background, outage shading and one mark per client band", () => {
  const W = 100;
  const H = 40;
  const pixels = new Uint32Array(W * H);
  // 4 clients (10 px bands): client 0 fails in the outage at t=0; client 3 is served at t=50 ms.
  const log = new Float32Array([0, 0, 1, 1, 50, 3, 1, 0]);
  const stats = rasterHerd(pixels, { log, logRows: 4, logStride: 1 }, { width: W, height: H, tEndMs: 100, outage: [0, 20] }, palette, new HerdScratch());
  assert.equal(stats.marks, 2);
  assert.equal(stats.clientsPerRow, 0.1);
  assert.equal(pixels[0], palette.marks[CAT.failed]); // row 0, x 0
  assert.equal(pixels[5 * W + 10], palette.outage); // inside the outage, no mark
  assert.equal(pixels[5 * W + 60], palette.background);
  assert.equal(pixels[35 * W + 50], palette.marks[CAT.served]);
  // The gap between bands stays background.
  assert.equal(pixels[39 * W + 50], palette.background);
});

test("many clients per pixel row: opacity follows the share of clients with a mark", () => {
  const W = 10;
  const H = 2;
  const pixels = new Uint32Array(W * H);
  // 10 clients over 2 pixel rows: all 5 of the first half rejected at t=0, one of the second.
  const rows: number[] = [];
  for (let c = 0; c < 5; c++) rows.push(0, c, 2, 2);
  rows.push(0, 7, 2, 2);
  const scratch = new HerdScratch();
  rasterHerd(pixels, { log: new Float32Array(rows), logRows: 10, logStride: 1 }, { width: W, height: H, tEndMs: 10, outage: null }, palette, scratch);
  assert.equal(pixels[0], palette.marks[CAT.rejected]);
  const faint = pixels[W] ?? 0;
  assert.notEqual(faint, palette.marks[CAT.rejected]);
  assert.notEqual(faint, palette.background);
  // The scratch counts are cleared for the next draw: drawing nothing leaves the background.
  rasterHerd(pixels, { log: new Float32Array(0), logRows: 10, logStride: 1 }, { width: W, height: H, tEndMs: 10, outage: null }, palette, scratch);
  assert.ok(pixels.every((p) => p === palette.background));
});

test("strided logs map clients to rows; marks outside the time range are skipped", () => {
  const pixels = new Uint32Array(20 * 10);
  // stride 10: client 90 is row 9 of 10.
  const log = new Float32Array([5, 90, 1, 0, 500, 0, 1, 0]);
  const s = rasterHerd(pixels, { log, logRows: 10, logStride: 10 }, { width: 20, height: 10, tEndMs: 10, outage: null }, palette, new HerdScratch());
  assert.equal(s.marks, 1);
  assert.equal(pixels[9 * 20 + 10], palette.marks[CAT.served]);
});
