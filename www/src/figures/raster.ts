// The herd rasteriser: every logged attempt as a mark in a clients × time pixel grid,
// written straight into an ImageData's pixels (no canvas calls, nothing allocated per
// draw once the scratch buffers have grown to size).
//
// Rows: client `c` of the log sits in row `c / stride`. When there are fewer rows than
// pixel rows, each client gets a band of pixels; when there are more, a pixel row holds
// several clients and its opacity says how many of them had a mark there, so 10,000
// clients stay legible. A cell shows its most common outcome; budget blocks are hatched so
// that they read apart from failures without colour.

/** Colour categories, in the order a tie is broken (the story's outcomes first). */
export const CAT = { rejected: 0, failed: 1, blocked: 2, served: 3 } as const;
const CATS = 4;

/** Log outcome code (0 served, 1 failed, 2 rejected, 3 blocked, 4 conflict) → category. */
const OUTCOME_TO_CAT = [CAT.served, CAT.failed, CAT.rejected, CAT.blocked, CAT.rejected];

export interface HerdPalette {
  /** Packed RGBA as a little-endian Uint32 (ImageData byte order r, g, b, a). */
  background: number;
  outage: number;
  /** Indexed by CAT. */
  marks: [number, number, number, number];
}

export interface HerdLayout {
  width: number;
  height: number;
  /** The time at the right edge (ms). */
  tEndMs: number;
  /** Shaded [start, end) ms, or null. */
  outage: [number, number] | null;
}

export interface HerdInput {
  log: ArrayLike<number>;
  logRows: number;
  logStride: number;
}

/** Packs r, g, b (0-255) into a little-endian RGBA Uint32 with full alpha. */
export function packRgb(r: number, g: number, b: number): number {
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
}

/** `#rrggbb` or `#rgb` → packed; unknown text → black. */
export function packHex(hex: string): number {
  let h = hex.trim().replace(/^#/, "");
  if (h.length === 3) h = h.replace(/./g, (c) => c + c);
  const n = /^[0-9a-fA-F]{6}$/.test(h) ? parseInt(h, 16) : 0;
  return packRgb((n >> 16) & 255, (n >> 8) & 255, n & 255);
}

function blend(bg: number, fg: number, a: number): number {
  const ia = 1 - a;
  const r = (bg & 255) * ia + (fg & 255) * a;
  const g = ((bg >>> 8) & 255) * ia + ((fg >>> 8) & 255) * a;
  const b = ((bg >>> 16) & 255) * ia + ((fg >>> 16) & 255) * a;
  return packRgb(r | 0, g | 0, b | 0);
}

/** Opacity steps a cell can take: colours are blended once per step, not once per pixel. */
const LEVELS = 16;

/** Reusable scratch memory for `rasterHerd`. */
export class HerdScratch {
  counts = new Uint16Array(0);
  touched = new Int32Array(0);
  /** Per pixel column: 1 inside the outage, else 0. */
  columnOutage = new Uint8Array(0);
  columnBg = new Uint32Array(0);
  /** [outage][category][level] → the blended colour. */
  readonly colours = new Uint32Array(2 * CATS * LEVELS);

  ensure(cells: number, width: number, marks: number): void {
    if (this.counts.length < cells * CATS) this.counts = new Uint16Array(grow(cells * CATS));
    if (this.touched.length < Math.min(cells, marks)) this.touched = new Int32Array(grow(Math.min(cells, marks)));
    if (this.columnBg.length < width) {
      this.columnBg = new Uint32Array(grow(width));
      this.columnOutage = new Uint8Array(grow(width));
    }
  }

  blendTable(p: HerdPalette): void {
    for (let o = 0; o < 2; o++) {
      const bg = o === 1 ? p.outage : p.background;
      for (let c = 0; c < CATS; c++) {
        const fg = p.marks[c] ?? p.marks[CAT.served];
        for (let l = 0; l < LEVELS; l++) this.colours[(o * CATS + c) * LEVELS + l] = blend(bg, fg, (l + 1) / LEVELS);
      }
    }
  }
}

function grow(n: number): number {
  let size = 1024;
  while (size < n) size *= 2;
  return size;
}

export interface RasterStats {
  /** Marks drawn (attempts in the log within the time range). */
  marks: number;
  /** Clients per pixel row (1 or less: each client has a band of its own). */
  clientsPerRow: number;
}

/** Draws the herd into `pixels` (width × height, row-major RGBA as Uint32). */
export function rasterHerd(
  pixels: Uint32Array,
  input: HerdInput,
  layout: HerdLayout,
  palette: HerdPalette,
  scratch: HerdScratch,
): RasterStats {
  const { width: W, height: H, tEndMs } = layout;
  const rows = Math.max(1, input.logRows);
  const stride = Math.max(1, input.logStride);
  const cellRows = Math.min(rows, H);
  const entries = Math.floor(input.log.length / 4);
  const cells = W * cellRows;
  scratch.ensure(cells, W, entries);
  const { counts, touched, columnBg, columnOutage, colours } = scratch;
  scratch.blendTable(palette);

  // Background, with the outage shaded: one row built, then copied down.
  const xScale = tEndMs > 0 ? W / tEndMs : 0;
  let o0 = W;
  let o1 = W;
  if (layout.outage) {
    o0 = Math.max(0, Math.floor(layout.outage[0] * xScale));
    o1 = Math.min(W, Math.ceil(layout.outage[1] * xScale));
  }
  for (let x = 0; x < W; x++) {
    const inOutage = x >= o0 && x < o1 ? 1 : 0;
    columnOutage[x] = inOutage;
    columnBg[x] = inOutage ? palette.outage : palette.background;
  }
  const bgRow = columnBg.subarray(0, W);
  for (let y = 0; y < H; y++) pixels.set(bgRow, y * W);

  // Count marks per cell and category.
  let nTouched = 0;
  let marks = 0;
  const log = input.log;
  for (let i = 0; i < entries; i++) {
    const t = log[i * 4] ?? 0;
    const x = Math.floor(t * xScale);
    if (x < 0 || x >= W) continue;
    const row = Math.floor((log[i * 4 + 1] ?? 0) / stride);
    if (row < 0 || row >= rows) continue;
    const cy = cellRows === rows ? row : Math.floor((row * cellRows) / rows);
    const cat = OUTCOME_TO_CAT[log[i * 4 + 3] ?? 0] ?? CAT.served;
    const cell = cy * W + x;
    const base = cell * CATS;
    if (counts[base] === 0 && counts[base + 1] === 0 && counts[base + 2] === 0 && counts[base + 3] === 0) {
      touched[nTouched++] = cell;
    }
    const k = base + cat;
    const c = counts[k] ?? 0;
    if (c < 65535) counts[k] = c + 1;
    marks++;
  }

  // Paint each touched cell: its most common category, as opaque as its share of clients.
  const clientsPerCell = rows / cellRows;
  const band = H / cellRows;
  // Marks are at least 2 pixels wide, so a wave of retries in one millisecond reads as a
  // stripe; wide bands get wider marks (and a hairline gap between clients) so few clients
  // read as dots.
  const markW = band >= 4 ? 3 : 2;
  const gap = band >= 5 ? 1 : 0;
  for (let n = 0; n < nTouched; n++) {
    const cell = touched[n] ?? 0;
    const base = cell * CATS;
    let best = 0;
    let bestCount = -1;
    let total = 0;
    for (let c = 0; c < CATS; c++) {
      const v = counts[base + c] ?? 0;
      total += v;
      if (v > bestCount) {
        bestCount = v;
        best = c;
      }
      counts[base + c] = 0; // cleared for the next draw
    }
    const x = cell % W;
    const cy = (cell - x) / W;
    const y0 = Math.floor(cy * band);
    const y1 = Math.max(y0 + 1, Math.floor((cy + 1) * band) - gap);
    const share = Math.min(1, total / clientsPerCell);
    const alpha = clientsPerCell <= 1 ? 1 : 0.3 + 0.7 * share;
    const level = Math.max(0, Math.min(LEVELS - 1, Math.round(alpha * LEVELS) - 1));
    const hatched = best === CAT.blocked;
    const faintLevel = Math.max(0, Math.round(alpha * 0.35 * LEVELS) - 1);
    for (let dx = 0; dx < markW && x + dx < W; dx++) {
      const px = x + dx;
      const row = ((columnOutage[px] ?? 0) * CATS + best) * LEVELS;
      const solid = colours[row + level] ?? 0;
      if (!hatched) {
        for (let y = y0; y < y1 && y < H; y++) pixels[y * W + px] = solid;
      } else {
        const faint = colours[row + faintLevel] ?? 0;
        for (let y = y0; y < y1 && y < H; y++) pixels[y * W + px] = ((px + y) & 1) === 1 ? faint : solid;
      }
    }
  }
  return { marks, clientsPerRow: rows / H };
}
