//! A sliding window of counts, kept in ten slots: the ratio budget's deposits, the
//! breaker's samples and the throttle's requests all expire this way.
//!
//! The same shape as tower's `TpsBudget` (ten slots over its ttl) and Polly v8's rolling
//! health metrics (its sampling duration cut into windows): a count made at `t` is live
//! until the slot holding `t` falls out, between 9/10 and 10/10 of the window later.
//! Slots are aligned on the time the window was made, so slot `i` holds
//! `[start + i·slot, start + (i+1)·slot)`.

/// Slots per window.
pub(crate) const SLOTS: usize = 10;

/// Counts of `N` kinds over a sliding window of ten slots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Window<const N: usize> {
    slot_ms: f64,
    /// Start of the newest slot (ms).
    head_start: f64,
    head: usize,
    slots: [[f64; N]; SLOTS],
}

impl<const N: usize> Window<N> {
    /// An empty window of `window_ms` (more than 0) starting at `now_ms`.
    pub(crate) fn new(window_ms: f64, now_ms: f64) -> Self {
        Window {
            slot_ms: window_ms / SLOTS as f64,
            head_start: now_ms,
            head: 0,
            slots: [[0.0; N]; SLOTS],
        }
    }

    /// Moves the newest slot to the one holding `now_ms`, emptying those that expire.
    /// A clock a little behind changes nothing; one that went back by more than a day
    /// expires nothing and restarts the current slot there.
    fn advance(&mut self, now_ms: f64) {
        if super::went_back(now_ms, self.head_start) {
            // Another clock: the counts stay, and the current slot runs from now, so they
            // expire a window later rather than never (after one bad `now_ms` far ahead).
            self.head_start = now_ms;
            return;
        }
        let steps = ((now_ms - self.head_start) / self.slot_ms).floor();
        if steps.is_nan() || steps < 1.0 {
            return;
        }
        if steps >= SLOTS as f64 {
            self.slots = [[0.0; N]; SLOTS];
            self.head = 0;
        } else {
            for _ in 0..steps as usize {
                self.head = (self.head + 1) % SLOTS;
                self.slots[self.head] = [0.0; N];
            }
        }
        self.head_start += steps * self.slot_ms;
    }

    /// Adds `by` to count `i` at `now_ms`.
    pub(crate) fn add(&mut self, now_ms: f64, i: usize, by: f64) {
        self.advance(now_ms);
        self.slots[self.head][i] += by;
    }

    /// The live sums of every count at `now_ms`.
    pub(crate) fn sums(&mut self, now_ms: f64) -> [f64; N] {
        self.advance(now_ms);
        let mut s = [0.0; N];
        for slot in &self.slots {
            for (acc, v) in s.iter_mut().zip(slot) {
                *acc += v;
            }
        }
        s
    }

    /// Forgets every count.
    pub(crate) fn clear(&mut self) {
        self.slots = [[0.0; N]; SLOTS];
    }

    /// When the oldest live slot expires, as seen at `now_ms` (ms from `now_ms`).
    pub(crate) fn next_expiry_ms(&mut self, now_ms: f64) -> f64 {
        self.advance(now_ms);
        (self.head_start + self.slot_ms - now_ms).max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_live_for_nine_to_ten_tenths_of_the_window() {
        let mut w = Window::<1>::new(1000.0, 0.0);
        w.add(50.0, 0, 1.0); // slot [0, 100)
        assert_eq!(w.sums(999.0), [1.0]);
        assert_eq!(w.sums(1000.0), [0.0]); // the slot fell out at 10 × 100 ms
        w.add(1050.0, 0, 2.0);
        assert_eq!(w.sums(100_000.0), [0.0]); // a long jump empties everything
        w.add(100_000.0, 0, 3.0);
        assert_eq!(w.sums(50.0), [3.0]); // backwards: nothing moves
    }

    #[test]
    fn one_time_far_ahead_does_not_freeze_the_window() {
        let mut w = Window::<1>::new(1000.0, 0.0);
        w.add(10.0, 0, 1.0);
        w.add(1e300, 0, 1.0);
        w.add(20.0, 0, 1.0);
        assert_eq!(w.sums(20.0), [2.0]);
        assert_eq!(w.sums(1020.0), [0.0]);
    }
}
