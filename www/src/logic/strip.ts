// The live panel's strip: where each attempt's bar goes. Attempts one after another share
// one row; a hedge sent while an earlier attempt is still out (issue #12: "draws hedges as
// parallel attempts") takes the first row free at its start, so parallel attempts stack.

export interface Span {
  /** ms since the call started. */
  sent: number;
  answered: number;
}

/** Each span's row (0 = the top): the first row whose last bar has ended by the span's start. */
export function stripRows(spans: readonly Span[]): number[] {
  const ends: number[] = [];
  return spans.map((s) => {
    let row = ends.findIndex((end) => end <= s.sent);
    if (row < 0) row = ends.length;
    ends[row] = Math.max(s.answered, s.sent);
    return row;
  });
}
