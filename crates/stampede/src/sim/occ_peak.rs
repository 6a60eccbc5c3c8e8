//! The busiest 100 ms of an `aws-occ` run's writes, as a sliding window over the writes
//! themselves: the same number as `record::PeakWindow`, at a
//! fraction of its cost per write.
//!
//! `PeakWindow` keeps a count per whole millisecond and, when time moves on, walks the
//! milliseconds it skipped; in `aws-occ` that walk and its bookkeeping were a tenth of a
//! write's instructions. Here each write's millisecond is queued once and dropped once,
//! when it falls out of the window: the writes in the window are the queue, its length
//! their count.

use crate::sim::record::PEAK_WINDOW_MS;

/// The most writes in any [`PEAK_WINDOW_MS`] consecutive whole milliseconds. Writes must
/// come in non-decreasing time, which the event order gives.
pub(super) struct Peak {
    /// A ring of the whole milliseconds of the latest writes; its length is a power of
    /// two. Write `k` (counted from 0) is at `k & (ring.len() - 1)`.
    ring: Vec<i64>,
    /// Writes so far.
    added: usize,
    /// The first write still in the window.
    oldest: usize,
    max: usize,
}

impl Peak {
    pub(super) fn new() -> Self {
        Peak {
            ring: vec![0; 256],
            added: 0,
            oldest: 0,
            max: 0,
        }
    }

    /// A write at `t_ms` (non-negative).
    #[inline(always)]
    pub(super) fn add(&mut self, t_ms: f64) {
        if self.added - self.oldest == self.ring.len() {
            self.grow();
        }
        let m = t_ms as i64;
        let mask = self.ring.len() - 1;
        self.ring[self.added & mask] = m;
        self.added += 1;
        // The window is the milliseconds `m - 99` to `m`; `m` itself stays, so this ends.
        // Most writes drop none, one or two: those two steps without a branch (which way
        // a loop would go is a guess the predictor gets wrong a third of the time), then
        // the rest.
        let cut = m - PEAK_WINDOW_MS;
        self.oldest += usize::from(self.ring[self.oldest & mask] <= cut);
        self.oldest += usize::from(self.ring[self.oldest & mask] <= cut);
        while self.ring[self.oldest & mask] <= cut {
            self.oldest += 1;
        }
        self.max = self.max.max(self.added - self.oldest);
    }

    /// Twice the room.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let mut ring = vec![0; 2 * self.ring.len()];
        let (old, new) = (self.ring.len() - 1, ring.len() - 1);
        for k in self.oldest..self.added {
            ring[k & new] = self.ring[k & old];
        }
        self.ring = ring;
    }

    /// The peak as a rate per second.
    pub(super) fn peak_rps(&self) -> f64 {
        self.max as f64 * (1000.0 / PEAK_WINDOW_MS as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::record::PeakWindow;
    use rand::RngExt;

    /// Against the per-millisecond window, over bursts (thousands in one millisecond, so
    /// that the ring grows), gaps longer than the window and steady trickles.
    #[test]
    fn the_same_peak_as_the_per_millisecond_window() {
        let mut rng = crate::seeded(5);
        for case in 0..200 {
            let (mut ours, mut theirs) = (Peak::new(), PeakWindow::new(f64::INFINITY));
            let mut t = f64::from(rng.random_range(0..1000u32));
            for _ in 0..rng.random_range(1..5000) {
                t += match rng.random_range(0..10) {
                    0 => rng.random_range(0.0..400.0),
                    1 | 2 => 0.0,
                    _ => rng.random_range(0.0..3.0),
                };
                ours.add(t);
                theirs.add(t);
            }
            assert_eq!(ours.peak_rps(), theirs.peak_rps(), "case {case}");
        }
        let mut p = Peak::new();
        for t in [0.0, 10.0, 99.9, 100.0, 150.0, 199.0, 199.5, 300.0] {
            p.add(t);
        }
        // [100, 199] holds 100.0, 150.0, 199.0, 199.5 = 4; [0, 99] holds 3.
        assert_eq!(p.peak_rps(), 40.0);
    }
}
