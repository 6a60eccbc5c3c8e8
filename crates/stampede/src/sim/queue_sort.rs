//! How the wheel puts a bucket's events in time order, a child of `queue.rs`.

use super::{Chunk, Line, List, NIL, Timed, filled};
use crate::float;

/// A bucket's events where they lie, in push order: the chunks of `list`, linked through
/// `next`, in `pool` (the wheel's pool, or a copy of the bucket's chunks laid end to end).
pub(super) struct Bucket<'a, T> {
    pub(super) pool: &'a [Chunk<T>],
    pub(super) next: &'a [u32],
    pub(super) list: List,
    /// Whether each walk asks for the next chunk's lines while it reads one: in the pool,
    /// where a bucket's chunks lie anywhere, the first read of each missed (measured at
    /// 100,000 clients under exponential backoff, natively: the sub-bins' count, the
    /// first walk, was 13% of the run, two thirds of it on the load of the time; asking
    /// ahead made the run 5-6% faster). A copy is read in order, which the CPU sees.
    pub(super) ahead: bool,
}

impl<T: Copy> Bucket<'_, T> {
    /// Calls `f` on each event, in push order.
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(&T)) {
        let mut id = self.list.head;
        while id != NIL {
            // (wasm has no prefetch: there the walk is left as it was, to the byte.)
            if super::hints::PREFETCH && self.ahead {
                let next = self.next[id as usize];
                if next != NIL {
                    for e in &self.pool[next as usize].items {
                        super::hints::for_read(e);
                    }
                }
            }
            self.pool[id as usize].items[..filled(id, self.list)]
                .iter()
                .for_each(&mut f);
            id = self.next[id as usize];
        }
    }

    /// The first event (a bucket is never empty).
    fn first(&self) -> T {
        self.pool[self.list.head as usize].items[0]
    }
}

/// Puts a bucket's `k` events, read from `src`, into `batch[..k]` sorted by time (the
/// bucket: `width` ms from `from`). `batch` is only lengthened, never cleared: every one of its first `k`
/// places is written.
///
/// The sort is hand-written rather than `sort_unstable_by`: a bucket's times lie within
/// one millisecond, spread nearly evenly over it, so placing each event straight into
/// one of as many sub-bins as there are events (a counting sort on the sub-bin), then
/// one insertion pass within sub-bins, is linear in the events. A comparison sort moves
/// each 64-byte event `log k` times, and costs some 8 KB of WebAssembly. Small buckets
/// take the insertion pass alone. Both passes are stable: exact ties keep push order.
///
/// "Small" is up to [`SMALL`] events: an insertion pass moves an event once for each
/// earlier one with a later time, k²/4 moves for a bucket in random order (full jitter's
/// buckets, of 4 to 64 events at 10,000 clients), where the sub-bins' passes copy each
/// event once (measured: the 10,000-client full-jitter burst 3.5% faster with 8 than
/// with 32, the same under exponential backoff).
///
/// The sub-bins divide the range the bucket's times actually span, not the whole
/// millisecond: when a million clients send at once over a network of almost no jitter
/// (`--latency-sd 0.0000001ms`), their arrivals lie within a nanosecond, and sub-bins of
/// the millisecond put them all in one, leaving the insertion pass quadratic (a
/// 100,000-client run took 10 s). Times that are all equal need no sort at all.
pub(super) fn sort_into<T: Copy + Timed>(
    src: &Bucket<'_, T>,
    k: usize,
    from: f64,
    width: f64,
    counts: &mut Vec<u32>,
    batch: &mut Vec<Line<T>>,
) {
    if batch.len() < k {
        batch.resize(k, Line(src.first()));
    }
    let out = &mut batch[..k];
    if k <= SMALL || !place_by_sub_bin(src, from, width, counts, out) {
        copy(src, out);
    }
    // Order each sub-bin by insertion.
    for i in 1..k {
        // Most events are already in place: leave them without copying them out.
        if out[i - 1].time() <= out[i].time() {
            continue;
        }
        let e = out[i];
        let mut j = i;
        while j > 0 && out[j - 1].time() > e.time() {
            out[j] = out[j - 1];
            j -= 1;
        }
        out[j] = e;
    }
}

/// Buckets of up to this many events are sorted by the insertion pass alone (see
/// [`sort_into`]).
const SMALL: usize = 8;

/// Places `src`'s events into `out` by sub-bin: as many sub-bins as the next power of two
/// of the events, of the bucket (`width` ms from `from`), unless that leaves a sub-bin crowded (see
/// [`sort_into`]): then of the range the times span. `false`, placing nothing, when every
/// time is the same (push order is then the order).
fn place_by_sub_bin<T: Copy + Timed>(
    src: &Bucket<'_, T>,
    from: f64,
    width: f64,
    counts: &mut Vec<u32>,
    out: &mut [Line<T>],
) -> bool {
    let bins = out.len().next_power_of_two();
    let (mut from, mut scale) = (from, bins as f64 / width);
    if count_sub_bins(src, counts, bins, from, scale) > CROWDED {
        let (mut lo, mut hi) = (f64::INFINITY, 0.0);
        src.each(|e| (lo, hi) = (float::min(lo, e.time()), float::max(hi, e.time())));
        if hi <= lo {
            return false;
        }
        (from, scale) = (lo, bins as f64 / (hi - lo));
        count_sub_bins(src, counts, bins, from, scale);
    }
    src.each(|e| {
        let at = &mut counts[sub_bin(e.time(), from, scale, bins)];
        out[*at as usize] = Line(*e);
        *at += 1;
    });
    true
}

/// Copies `src`'s events into `out` in push order.
#[inline(always)]
fn copy<T: Copy>(src: &Bucket<'_, T>, out: &mut [Line<T>]) {
    let mut i = 0;
    src.each(|e| {
        out[i] = Line(*e);
        i += 1;
    });
}

/// Counts `src`'s events by sub-bin (`bins` of them, from `from`, `scale` per ms) into
/// `counts` as each sub-bin's first place; returns the most in one sub-bin.
fn count_sub_bins<T: Copy + Timed>(
    src: &Bucket<'_, T>,
    counts: &mut Vec<u32>,
    bins: usize,
    from: f64,
    scale: f64,
) -> u32 {
    counts.clear();
    counts.resize(bins + 1, 0);
    src.each(|e| counts[sub_bin(e.time(), from, scale, bins) + 1] += 1);
    // The running sum in a register: `counts[i] += counts[i - 1]` read back the value
    // just stored, one store-to-load round trip per sub-bin (in wasm, under V8, the
    // count's hottest lines).
    let (mut most, mut first) = (0, 0);
    for c in &mut counts[1..] {
        most = most.max(*c);
        first += *c;
        *c = first;
    }
    most
}

/// Events in one sub-bin past which a bucket's sort bins the range its times span instead
/// of the millisecond (see [`sort_into`]): spread over the millisecond, a sub-bin
/// holds one or two.
const CROWDED: u32 = 64;

/// The sub-bin of time `t`: `bins` of them from `from`, `scale` per ms. A time before
/// `from` (pushed into the past, so clamped to the bucket) goes in the first; the range's
/// last time, at `bins`, in the last.
///
/// Clamped as a float, then rounded to the nearest whole number through the mantissa
/// (adding 2^52 leaves it in the low bits), rather than converted with `as`: in wasm that
/// is a saturating conversion, which V8 lowers to a compare-and-branch sequence around
/// every time. Any binning that does not decrease with the time gives the same order (the
/// insertion pass finishes the sort, stably), and rounding does not: so the result is
/// the same as by truncation, to the bit. `bins` is a power of two; the mask keeps the
/// index in range even for a time that is not a number.
#[inline(always)]
fn sub_bin(t: f64, from: f64, scale: f64, bins: usize) -> usize {
    const ROUND: f64 = 4_503_599_627_370_496.0; // 2^52
    let x = float::min(float::max((t - from) * scale, 0.0), (bins - 1) as f64);
    ((x + ROUND).to_bits() & (bins as u64 - 1)) as usize
}

#[cfg(test)]
mod tests {
    use super::sub_bin;

    /// The sort's order rests on the binning never decreasing with the time, and on every
    /// index being in range: over the millisecond and past both its ends, at every size.
    #[test]
    fn sub_bins_never_decrease_with_the_time_and_stay_in_range() {
        for bins in [1usize, 2, 64, 1 << 10, 1 << 20] {
            let (from, scale) = (7.0, bins as f64);
            let mut last = 0;
            for i in -1000..=3000 {
                let t = from + f64::from(i) / 2000.0;
                let b = sub_bin(t, from, scale, bins);
                assert!(
                    b < bins && b >= last,
                    "bins {bins}, t {t}: {b} after {last}"
                );
                last = b;
            }
            assert_eq!(sub_bin(from, from, scale, bins), 0);
            assert_eq!(sub_bin(from + 1.0, from, scale, bins), bins - 1);
            assert_eq!(sub_bin(f64::INFINITY, from, scale, bins), bins - 1);
            assert_eq!(sub_bin(f64::NEG_INFINITY, from, scale, bins), 0);
            assert!(sub_bin(f64::NAN, from, scale, bins) < bins);
        }
    }
}
