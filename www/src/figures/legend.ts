// The charts' legends name their series; the values beside the names (and the x value's own
// entry, "time:") are the reading under the cursor, so they show only while the cursor is
// over the plot. Without this a legend read "time: offered: served: capacity:", colons with
// nothing after them, which on a projector looks like missing data.

import type uPlot from "uplot";

/** The class on a chart's root while the cursor is over its plot (figures.css). */
export const CURSOR_ON = "cursor-on";

/** A uPlot setCursor hook: marks the root while the cursor has a point to read. */
export function followCursor(u: uPlot): void {
  const on = u.cursor.idx != null;
  if (u.root.classList.contains(CURSOR_ON) !== on) u.root.classList.toggle(CURSOR_ON, on);
}
