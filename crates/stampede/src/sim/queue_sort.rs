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
        let mut most = 0;
        for i in 1..=bins {
            most = most.max(self.counts[i]);
            self.counts[i] += self.counts[i - 1];
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
#[inline(always)]
fn sub_bin(t: f64, from: f64, scale: f64, bins: usize) -> usize {
    (((t - from) * scale) as i64).clamp(0, bins as i64 - 1) as usize
}
