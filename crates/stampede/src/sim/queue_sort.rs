//! How the wheel puts a bucket's events in time order, a child of `queue.rs`.

use super::{Timed, Wheel};
use crate::float;

impl<T: Copy + Timed> Wheel<T> {
    /// Sorts the batch (a bucket's events, in push order) by time.
    ///
    /// The sort is hand-written rather than `sort_unstable_by`: a bucket's times lie within
    /// one millisecond, spread nearly evenly over it, so placing each event straight into
    /// one of as many sub-bins as there are events (a counting sort on the sub-bin), then
    /// one insertion pass within sub-bins, is linear in the events. A comparison sort moves
    /// each 64-byte event `log k` times, and costs some 8 KB of WebAssembly. Small buckets
    /// take the insertion pass alone. Both passes are stable: exact ties keep push order.
    ///
    /// The sub-bins divide the range the bucket's times actually span, not the whole
    /// millisecond: when a million clients send at once over a network of almost no jitter
    /// (`--latency-sd 0.0000001ms`), their arrivals lie within a nanosecond, and sub-bins of
    /// the millisecond put them all in one, leaving the insertion pass quadratic (a
    /// 100,000-client run took 10 s). Times that are all equal need no sort at all.
    pub(super) fn sort_batch(&mut self) {
        const SMALL: usize = 32;
        let k = self.batch.len();
        if k > SMALL {
            let bins = k.next_power_of_two();
            // Sub-bins of the millisecond, unless that leaves a sub-bin crowded (see above):
            // then of the range the times span.
            let (mut from, mut scale) = (self.cur as f64, bins as f64);
            if self.count_sub_bins(bins, from, scale) > CROWDED {
                let (lo, hi) = self.batch.iter().fold((f64::INFINITY, 0.0), |(lo, hi), e| {
                    (float::min(lo, e.time()), float::max(hi, e.time()))
                });
                if hi <= lo {
                    // Every time the same: push order is the order.
                    return;
                }
                (from, scale) = (lo, bins as f64 / (hi - lo));
                self.count_sub_bins(bins, from, scale);
            }
            // The placing pass writes every one of the first `k` places (it is a
            // permutation), so the buffer is only lengthened, never cleared and refilled:
            // a fill would write the whole batch once more for nothing.
            if self.sorted.len() < k {
                self.sorted.resize(k, self.batch[0]);
            }
            for e in &self.batch {
                let at = &mut self.counts[sub_bin(e.time(), from, scale, bins)];
                self.sorted[*at as usize] = *e;
                *at += 1;
            }
            std::mem::swap(&mut self.batch, &mut self.sorted);
            self.batch.truncate(k);
        }
        // Order each sub-bin by insertion.
        for i in 1..k {
            // Most events are already in place: leave them without copying them out.
            if self.batch[i - 1].time() <= self.batch[i].time() {
                continue;
            }
            let e = self.batch[i];
            let mut j = i;
            while j > 0 && self.batch[j - 1].time() > e.time() {
                self.batch[j] = self.batch[j - 1];
                j -= 1;
            }
            self.batch[j] = e;
        }
    }

    /// Counts the batch's events by sub-bin (`bins` of them, from `from`, `scale` per ms)
    /// into `counts` as each sub-bin's first place; returns the most in one sub-bin.
    fn count_sub_bins(&mut self, bins: usize, from: f64, scale: f64) -> u32 {
        self.counts.clear();
        self.counts.resize(bins + 1, 0);
        for e in &self.batch {
            self.counts[sub_bin(e.time(), from, scale, bins) + 1] += 1;
        }
        // The running sum in a register: `counts[i] += counts[i - 1]` read back the value
        // just stored, one store-to-load round trip per sub-bin (in wasm, under V8, the
        // count's hottest lines).
        let (mut most, mut first) = (0, 0);
        for c in &mut self.counts[1..] {
            most = most.max(*c);
            first += *c;
            *c = first;
        }
        most
    }
}

/// Events in one sub-bin past which a bucket's sort bins the range its times span instead
/// of the millisecond (see `Wheel::take_bucket`): spread over the millisecond, a sub-bin
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
