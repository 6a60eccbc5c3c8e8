//! The event queue: a timing wheel of 1 ms buckets with intrusive lists.
//!
//! A binary heap of a million pending events is cache-bound (about 1 µs an event measured
//! here); delays in this simulator are bounded (by the cap and the Retry-After maximum),
//! which is exactly what bucketed queues need. Each bucket is a singly linked list threaded
//! through the event records themselves ([`Linked`]): pushing writes the record's own link
//! (already in cache: it was just processed) and one bucket head, and walking a bucket
//! loads each record once, as processing it needs anyway. Nothing is allocated per event.
//! Events further ahead than the wheel's span (65.5 s) wait in a small overflow heap and
//! move into the wheel as it turns.
//!
//! Within a bucket, the last event pushed comes out first. The simulation's event order
//! therefore has a resolution of 1 ms, and it is deterministic: the order of pushes is
//! itself a function of the seed.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

const BITS: u32 = 16;
/// Buckets in the wheel: its span in ms.
pub(crate) const SPAN: u64 = 1 << BITS;
const MASK: u64 = SPAN - 1;
/// The end of a list.
pub(crate) const NIL: u32 = u32::MAX;

/// An event record that carries the link of the bucket list it is in.
pub(crate) trait Linked {
    fn link(&mut self) -> &mut u32;
}

#[derive(Debug, Clone)]
pub(crate) struct Wheel {
    heads: Vec<u32>,
    /// The absolute ms of the bucket being processed.
    cur: u64,
    in_wheel: usize,
    /// Far events: (bucket, push order, id).
    overflow: BinaryHeap<Reverse<(u64, u64, u32)>>,
    pushes: u64,
}

impl Wheel {
    pub(crate) fn new() -> Self {
        Wheel {
            heads: vec![NIL; SPAN as usize],
            cur: 0,
            in_wheel: 0,
            overflow: BinaryHeap::new(),
            pushes: 0,
        }
    }

    /// Whether nothing is pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.in_wheel == 0 && self.overflow.is_empty()
    }

    /// Schedules `items[id]` at `t_ms` (≥ 0). A time before the current bucket goes in the
    /// current bucket.
    #[inline]
    pub(crate) fn push<T: Linked>(&mut self, items: &mut [T], id: u32, t_ms: f64) {
        let bucket = (t_ms as u64).max(self.cur);
        if bucket - self.cur >= SPAN {
            self.pushes += 1;
            self.overflow.push(Reverse((bucket, self.pushes, id)));
        } else {
            self.link(items, id, bucket);
        }
    }

    #[inline]
    fn link<T: Linked>(&mut self, items: &mut [T], id: u32, bucket: u64) {
        let slot = (bucket & MASK) as usize;
        *items[id as usize].link() = self.heads[slot];
        self.heads[slot] = id;
        self.in_wheel += 1;
    }

    /// Takes the list of the first non-empty bucket below `limit` (an absolute ms) and
    /// returns `(bucket, first id)`; `None` when there is none. Walk the list through the
    /// items' links, reading each link *before* processing (processing may push the item
    /// again), and report how many were walked with [`walked`](Self::walked). The wheel
    /// stays on that bucket, so items pushed into it meanwhile come back on the next call.
    pub(crate) fn pop_bucket<T: Linked>(
        &mut self,
        items: &mut [T],
        limit: u64,
    ) -> Option<(u64, u32)> {
        loop {
            if self.in_wheel == 0 {
                // Jump over the empty stretch to the first far event.
                let &Reverse((bucket, _, _)) = self.overflow.peek()?;
                if bucket >= limit {
                    return None;
                }
                self.cur = self.cur.max(bucket);
            }
            while let Some(&Reverse((bucket, _, id))) = self.overflow.peek() {
                if bucket >= self.cur + SPAN {
                    break;
                }
                self.overflow.pop();
                self.link(items, id, bucket.max(self.cur));
            }
            if self.cur >= limit {
                return None;
            }
            let slot = (self.cur & MASK) as usize;
            let head = self.heads[slot];
            if head != NIL {
                self.heads[slot] = NIL;
                return Some((self.cur, head));
            }
            self.cur += 1;
        }
    }

    /// Records that `n` items of a taken list were walked.
    #[inline]
    pub(crate) fn walked(&mut self, n: usize) {
        self.in_wheel -= n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy)]
    struct Item(u32);
    impl Linked for Item {
        fn link(&mut self) -> &mut u32 {
            &mut self.0
        }
    }

    fn drain(w: &mut Wheel, items: &mut [Item], limit: u64) -> Vec<(u64, Vec<u32>)> {
        let mut all = vec![];
        while let Some((b, mut id)) = w.pop_bucket(items, limit) {
            let mut ids = vec![];
            while id != NIL {
                ids.push(id);
                id = items[id as usize].0;
            }
            w.walked(ids.len());
            all.push((b, ids));
        }
        all
    }

    #[test]
    fn buckets_come_out_in_order_including_far_ones() {
        let mut items = [Item(NIL); 8];
        let mut w = Wheel::new();
        w.push(&mut items, 1, 5.9);
        w.push(&mut items, 2, 5.0);
        w.push(&mut items, 3, 0.0);
        w.push(&mut items, 4, 200_000.5); // beyond the span: overflow
        w.push(&mut items, 5, 70_000.0); // beyond the span: overflow
        w.push(&mut items, 7, 70_000.9); // same far bucket, pushed later
        w.push(&mut items, 6, 65_535.0); // last bucket of the first turn
        assert_eq!(
            drain(&mut w, &mut items, u64::MAX),
            vec![
                (0, vec![3]),
                (5, vec![2, 1]),
                (65_535, vec![6]),
                (70_000, vec![7, 5]),
                (200_000, vec![4])
            ]
        );
        assert!(w.is_empty());
    }

    #[test]
    fn pushing_into_the_current_bucket_is_seen_again_and_the_past_clamps() {
        let mut items = [Item(NIL); 4];
        let mut w = Wheel::new();
        w.push(&mut items, 1, 10.0);
        assert_eq!(w.pop_bucket(&mut items, u64::MAX), Some((10, 1)));
        w.walked(1);
        w.push(&mut items, 2, 10.5);
        w.push(&mut items, 3, 3.0);
        assert_eq!(drain(&mut w, &mut items, u64::MAX), vec![(10, vec![3, 2])]);
    }

    #[test]
    fn limit_stops_before_a_bucket() {
        let mut items = [Item(NIL); 3];
        let mut w = Wheel::new();
        w.push(&mut items, 1, 50.0);
        w.push(&mut items, 2, 100_000.0);
        assert_eq!(drain(&mut w, &mut items, 50), vec![]);
        assert_eq!(drain(&mut w, &mut items, 51), vec![(50, vec![1])]);
        assert_eq!(drain(&mut w, &mut items, 99_999), vec![]);
        assert_eq!(drain(&mut w, &mut items, 100_001), vec![(100_000, vec![2])]);
        assert!(w.is_empty());
    }
}
