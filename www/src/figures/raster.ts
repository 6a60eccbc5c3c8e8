// The herd rasteriser: every logged attempt as a mark in a clients × time pixel grid,
// written straight into an ImageData's pixels (no canvas calls, nothing allocated per
// draw once the scratch buffers have grown to size).
//
// Rows (see `rowMap`): in "client" mode every logged client has at least one pixel row of
// its own — when there are more clients than pixel rows in view, the picture is taller
// than the view and scrolls, and only the rows in view are drawn. In "fit" mode the whole
// herd is squeezed into the view, and when there are more clients than pixel rows several
// share one ("folded"): a pixel's opacity then says how many of them had a mark there.
//
// What a pixel shows when several marks land in it (folded rows, or one client's attempts
// closer together than a pixel column): the rare outcomes the story is about win — a budget
// block, then an outage failure — so that one of them among many successes never vanishes
// under the majority; otherwise the commoner of overload rejection and success. A promoted
// outcome's opacity follows its own count, so a lone block among many successes shows as
// a faint mark, not as a wall of them.
//
// Outcomes are told apart without hue too: failures are solid, rejections striped,
// budget blocks checkered (the legend draws the same patterns); a timeout is solid and
// far darker (or lighter, in the dark theme) than a failure.
//
// A timeout is promoted after a failure: an attempt the client gave up on is the story of
// a collapse, and one among many successes must show.

/** Colour categories. */
export const CAT = { rejected: 0, failed: 1, blocked: 2, served: 3, timedOut: 4 } as const;
const CATS = 5;

/**
 * Log outcome code (0 served, 1 failed in the outage, 2 rejected, 3 blocked, 4 conflict,
 * 5 a 500 from the fail rate, 6 timed out) → category.
 */
const OUTCOME_TO_CAT = [CAT.served, CAT.failed, CAT.rejected, CAT.blocked, CAT.rejected, CAT.failed, CAT.timedOut];

export interface HerdPalette {
  /** Packed RGBA as a little-endian Uint32 (ImageData byte order r, g, b, a). */
  background: number;
  outage: number;
  /** Indexed by CAT. */
  marks: [number, number, number, number, number];
}

/** "client": one pixel row (at least) per client, scrolling when they do not fit; "fit": all in view. */
export type RowMode = "client" | "fit";

export interface HerdLayout {
  width: number;
  height: number;
  /** The time at the right edge (ms). */
  tEndMs: number;
  /** Shaded [start, end) ms, or null. */
  outage: [number, number] | null;
  /** Default "fit". */
  mode?: RowMode;
  /** Client mode: how far the picture is scrolled down, in pixel rows. */
  scrollPx?: number;
  /**
   * Pixels per pattern stripe (1 at 1× backing stores; 2 at 2×, so that the stripes stay
   * visible rather than blending into a tint).
   */
  patternPx?: number;
}

export interface HerdInput {
  log: ArrayLike<number>;
  logRows: number;
  logStride: number;
}

/** How logged clients map to pixel rows in view. */
export interface RowMap {
  /** Logged clients (the herd's rows). */
  rows: number;
  /** Pixel rows in view. */
  height: number;
  /** Cells down the view: one per client in view, or one per pixel row when folded. */
  cells: number;
  /** Whether several clients share a pixel row. */
  folded: boolean;
  /** Clients per cell: 1, or more when folded. */
  perCell: number;
  /** Pixel rows per cell: 1 or more (a band per client when there are few). */
  band: number;
  /** The first client in view (client mode, scrolled). */
  first: number;
  /** The whole picture's height in pixel rows; more than `height` means it scrolls. */
  virtualHeight: number;
}

/** Where the herd's rows go, for `rows` logged clients in a view `height` pixel rows tall. */
export function rowMap(rows: number, height: number, mode: RowMode, scrollPx = 0): RowMap {
  const r = Math.max(1, Math.floor(rows));
  const h = Math.max(1, Math.floor(height));
  if (r <= h) {
    return { rows: r, height: h, cells: r, folded: false, perCell: 1, band: h / r, first: 0, virtualHeight: h };
  }
  if (mode === "fit") {
    return { rows: r, height: h, cells: h, folded: true, perCell: r / h, band: 1, first: 0, virtualHeight: h };
  }
  const first = Math.min(r - h, Math.max(0, Math.round(Number.isFinite(scrollPx) ? scrollPx : 0)));
  return { rows: r, height: h, cells: h, folded: false, perCell: 1, band: 1, first, virtualHeight: r };
}

/** The cell (0 at the top of the view) that client row `row` is drawn in, or -1 when it is out of view. */
export function cellOf(m: RowMap, row: number): number {
  if (!(row >= 0 && row < m.rows)) return -1;
  if (m.folded) return Math.floor((row * m.cells) / m.rows);
  const c = Math.floor(row) - m.first;
  return c < m.cells ? c : -1;
}

/** The pixel rows [y0, y1) of cell `c` (before the hairline gap). */
export function cellRows(m: RowMap, c: number): [number, number] {
  const y0 = Math.floor(c * m.band);
  return [y0, Math.max(y0 + 1, Math.floor((c + 1) * m.band))];
}

/**
 * The category a pixel shows, given its counts per category: a budget block, a failure or
 * a timeout if there is one (in that order), else the commoner of rejection and success (a
 * tie shows the rejection).
 */
export function pickCategory(counts: ArrayLike<number>, base = 0): number {
  if ((counts[base + CAT.blocked] ?? 0) > 0) return CAT.blocked;
  if ((counts[base + CAT.failed] ?? 0) > 0) return CAT.failed;
  if ((counts[base + CAT.timedOut] ?? 0) > 0) return CAT.timedOut;
  return (counts[base + CAT.rejected] ?? 0) >= (counts[base + CAT.served] ?? 0) && (counts[base + CAT.rejected] ?? 0) > 0
    ? CAT.rejected
    : CAT.served;
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
/** The light pixels of a pattern (stripes, checks), relative to the solid ones. */
const PATTERN_LIGHT = 0.35;

/** Reusable scratch memory for `rasterHerd`. */
export class HerdScratch {
  counts = new Uint16Array(0);
  touched = new Int32Array(0);
  /** Per pixel column: 1 inside the outage, else 0. */
  columnOutage = new Uint8Array(0);
  columnBg = new Uint32Array(0);
  /** Per logged client: its cell down the view, or -1 (the row mapping as a table). */
  rowCell = new Int32Array(0);
  /** [outage][category][level] → the blended colour. */
  readonly colours = new Uint32Array(2 * CATS * LEVELS);
  private paletteKey = "";

  ensure(cells: number, width: number, marks: number, rows = 0): void {
    if (this.rowCell.length < rows) this.rowCell = new Int32Array(grow(rows));
    if (this.counts.length < cells * CATS) this.counts = new Uint16Array(grow(cells * CATS));
    if (this.touched.length < Math.min(cells, marks)) this.touched = new Int32Array(grow(Math.min(cells, marks)));
    if (this.columnBg.length < width) {
      this.columnBg = new Uint32Array(grow(width));
      this.columnOutage = new Uint8Array(grow(width));
    }
  }

  blendTable(p: HerdPalette): void {
    const key = `${p.background}|${p.outage}|${p.marks.join(",")}`;
    if (key === this.paletteKey) return;
    this.paletteKey = key;
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
  /** Marks drawn (attempts in the log within the time range and in view). */
  marks: number;
  /** Clients per pixel row (1 or less: each client has a row or a band of its own). */
  clientsPerRow: number;
  /** Where the rows went. */
  map: RowMap;
}

function level(alpha: number): number {
  return Math.max(0, Math.min(LEVELS - 1, Math.round(alpha * LEVELS) - 1));
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
  const map = rowMap(input.logRows, H, layout.mode ?? "fit", layout.scrollPx ?? 0);
  const { rows, cells: nCells } = map;
  const stride = Math.max(1, input.logStride);
  const entries = Math.floor(input.log.length / 4);
  const cells = W * nCells;
  scratch.ensure(cells, W, entries, rows);
  const { counts, touched, columnBg, columnOutage, colours, rowCell } = scratch;
  // The row mapping as a table: the loop below is then the same code in every mode (no
  // branch that would make the engine re-optimise it when the mode changes), and cheaper.
  for (let r = 0; r < rows; r++) rowCell[r] = cellOf(map, r);
  scratch.blendTable(palette);
  const shift = (layout.patternPx ?? 1) >= 2 ? 1 : 0;

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
    if (!(row >= 0 && row < rows)) continue;
    const cy = rowCell[row] ?? -1;
    if (cy < 0) continue;
    const cat = OUTCOME_TO_CAT[log[i * 4 + 3] ?? 0] ?? CAT.served;
    const cell = cy * W + x;
    const base = cell * CATS;
    if (counts[base] === 0 && counts[base + 1] === 0 && counts[base + 2] === 0 && counts[base + 3] === 0 && counts[base + 4] === 0) {
      touched[nTouched++] = cell;
    }
    const k = base + cat;
    const c = counts[k] ?? 0;
    if (c < 65535) counts[k] = c + 1;
    marks++;
  }

  // Paint each touched cell.
  const perCell = map.perCell;
  // Marks are at least 2 pixels wide, so a wave of retries in one millisecond reads as a
  // stripe; wide bands get wider marks (and a hairline gap between clients) so few clients
  // read as dots.
  const markW = map.band >= 4 ? 3 : 2;
  const gap = map.band >= 5 ? 1 : 0;
  for (let n = 0; n < nTouched; n++) {
    const cell = touched[n] ?? 0;
    const base = cell * CATS;
    const best = pickCategory(counts, base);
    let total = 0;
    for (let c = 0; c < CATS; c++) total += counts[base + c] ?? 0;
    const promoted = best === CAT.blocked || best === CAT.failed || best === CAT.timedOut;
    const own = counts[base + best] ?? 0;
    for (let c = 0; c < CATS; c++) counts[base + c] = 0; // cleared for the next draw
    let alpha = 1;
    if (perCell > 1) {
      alpha = promoted ? 0.5 + 0.5 * Math.min(1, own / perCell) : 0.3 + 0.7 * Math.min(1, total / perCell);
    }
    const solidLevel = level(alpha);
    const lightLevel = level(alpha * PATTERN_LIGHT);
    const x = cell % W;
    const cy = (cell - x) / W;
    const y0 = Math.floor(cy * map.band);
    const y1 = Math.min(H, Math.max(y0 + 1, Math.floor((cy + 1) * map.band) - gap));
    for (let dx = 0; dx < markW && x + dx < W; dx++) {
      const px = x + dx;
      const row = ((columnOutage[px] ?? 0) * CATS + best) * LEVELS;
      const solid = colours[row + solidLevel] ?? 0;
      const light = colours[row + lightLevel] ?? 0;
      if (best === CAT.rejected) {
        // Vertical stripes.
        const c = ((px >> shift) & 1) === 1 ? light : solid;
        for (let y = y0; y < y1; y++) pixels[y * W + px] = c;
      } else if (best === CAT.blocked) {
        // Checks.
        for (let y = y0; y < y1; y++) pixels[y * W + px] = (((px >> shift) + (y >> shift)) & 1) === 1 ? light : solid;
      } else {
        for (let y = y0; y < y1; y++) pixels[y * W + px] = solid;
      }
    }
  }
  return { marks, clientsPerRow: rows / H, map };
}
