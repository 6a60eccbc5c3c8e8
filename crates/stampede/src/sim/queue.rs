//! The event queue: a timing wheel of 1 ms buckets whose events live *in* the buckets.
//!
//! Why this shape. A binary heap of a million pending events is cache-bound (about 1 µs an
//! event measured here). Delays in this simulator are bounded (by the cap and the
//! Retry-After maximum), which is what bucketed queues need, so a wheel of 1 ms buckets
//! makes each event O(1). What is left is memory traffic: if a bucket only held ids into a
//! per-request arena, walking it would load records scattered over the whole arena — one
//! cache miss per event at a million clients, most of the run's time. So the events
//! themselves are stored in the buckets, in fixed chunks of [`CHUNK`] drawn from one
//! pool: walking a bucket reads its chunks front to back, and scheduling an event again
//! copies it (48 bytes) to the tail of another bucket. Chunks are recycled through a free
//! list, so nothing is allocated per event, and the pool is bounded by
//! `pending / CHUNK + SPAN` chunks (a full chunk per `CHUNK` events, at most one partial
//! chunk per bucket).
//!
//! Events further ahead than the wheel's span (32.8 s) wait in a small overflow heap and
//! move into the wheel as it turns.
//!
//! Within a bucket, events come out in the order they were pushed. The simulation's event
//! order therefore has a resolution of 1 ms, and it is deterministic: the order of pushes
//! is itself a function of the seed.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

const BITS: u32 = 15;
/// Buckets in the wheel: its span in ms.
pub(crate) const SPAN: u64 = 1 << BITS;
const MASK: u64 = SPAN - 1;
/// Events per chunk.
pub(crate) const CHUNK: usize = 8;
/// No chunk.
const NIL: u32 = u32::MAX;

/// Up to [`CHUNK`] events of one bucket, in push order. The header comes first, so that
/// reading it and the first events touches one cache line.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct Chunk<T> {
    /// The bucket's next chunk.
    next: u32,
    /// How many of the events have been taken.
    read: u32,
    items: [T; CHUNK],
}

/// An event beyond the wheel's span, ordered by bucket, then by push order.
#[derive(Debug, Clone, Copy)]
struct Far<T> {
    bucket: u64,
    seq: u64,
    item: T,
}

impl<T> PartialEq for Far<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.bucket, self.seq) == (other.bucket, other.seq)
    }
}
impl<T> Eq for Far<T> {}
impl<T> PartialOrd for Far<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Far<T> {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.bucket, other.seq).cmp(&(self.bucket, self.seq))
    }
}

/// A bucket's list of chunks, 8 bytes, so the wheel's 32,768 buckets fit in 256 KiB of
/// cache: the first chunk, and the last with how many of its events are filled, packed
/// as `id << 4 | (filled - 1)` (a push then needs nothing else to find its place).
#[derive(Debug, Clone, Copy)]
struct List {
    head: u32,
    tail: u32,
}

const EMPTY: List = List {
    head: NIL,
    tail: NIL,
};
const FILL_BITS: u32 = 3;
const FILL_MASK: u32 = (1 << FILL_BITS) - 1;
const _: () = assert!(CHUNK == 1 << FILL_BITS);
/// The most chunks the pool may hold (ids must fit beside the fill count).
const MAX_CHUNKS: usize = (NIL >> FILL_BITS) as usize;

#[derive(Debug, Clone)]
pub(crate) struct Wheel<T> {
    buckets: Vec<List>,
    pool: Vec<Chunk<T>>,
    /// The free chunks, linked through `next`; the last freed comes first (warm in cache).
    free: u32,
    /// The absolute ms of the bucket being processed.
    cur: u64,
    /// Events in the wheel (not counting the overflow).
    in_wheel: usize,
    overflow: BinaryHeap<Far<T>>,
    pushes: u64,
}

impl<T: Copy> Wheel<T> {
    pub(crate) fn new() -> Self {
        Wheel {
            buckets: vec![EMPTY; SPAN as usize],
            pool: Vec::new(),
            free: NIL,
            cur: 0,
            in_wheel: 0,
            overflow: BinaryHeap::new(),
            pushes: 0,
        }
    }

    /// Makes room for `events` pending at once without growing the pool.
    pub(crate) fn reserve(&mut self, events: usize) {
        self.pool.reserve(events / CHUNK + 1);
    }

    /// Whether nothing is pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.in_wheel == 0 && self.overflow.is_empty()
    }

    /// Schedules `item` at `t_ms` (≥ 0). A time before the current bucket goes in the
    /// current bucket, after what is already there.
    #[inline(always)]
    pub(crate) fn push(&mut self, t_ms: f64, item: T) {
        let bucket = (t_ms as u64).max(self.cur);
        if bucket - self.cur >= SPAN {
            self.pushes += 1;
            self.overflow.push(Far {
                bucket,
                seq: self.pushes,
                item,
            });
        } else {
            self.append(bucket, item);
        }
    }

    #[inline(always)]
    fn append(&mut self, bucket: u64, item: T) {
        let slot = (bucket & MASK) as usize;
        self.in_wheel += 1;
        let tail = self.buckets[slot].tail;
        if tail != NIL && tail & FILL_MASK != FILL_MASK {
            let filled = (tail & FILL_MASK) + 1;
            self.pool[(tail >> FILL_BITS) as usize].items[filled as usize] = item;
            self.buckets[slot].tail = tail + 1;
        } else {
            self.append_chunk(slot, item);
        }
    }

    /// Starts a new chunk at the end of bucket `slot`'s list with `item`: the last freed
    /// chunk, or a new one at the end of the pool. Out of line: the common push fills a
    /// chunk that is already there.
    #[inline(never)]
    fn append_chunk(&mut self, slot: usize, item: T) {
        let id = if self.free != NIL {
            let id = self.free;
            let c = &mut self.pool[id as usize];
            self.free = c.next;
            c.next = NIL;
            c.read = 0;
            c.items[0] = item;
            id
        } else {
            // Pending events are bounded far below this (clients, or a steady run's
            // 20 million requests), so ids always fit beside the fill count.
            debug_assert!(self.pool.len() < MAX_CHUNKS);
            self.pool.push(Chunk {
                next: NIL,
                read: 0,
                items: [item; CHUNK],
            });
            (self.pool.len() - 1) as u32
        };
        let list = &mut self.buckets[slot];
        if list.tail == NIL {
            list.head = id;
        } else {
            self.pool[(list.tail >> FILL_BITS) as usize].next = id;
        }
        list.tail = id << FILL_BITS;
    }

    /// The bucket (absolute ms) of the last event [`pop`](Self::pop) returned.
    pub(crate) fn bucket(&self) -> u64 {
        self.cur
    }

    /// Takes the next event of the first non-empty bucket below `limit` (an absolute ms);
    /// `None` when there is none. The wheel stays on that bucket, so events pushed into it
    /// meanwhile come out before the wheel moves on.
    #[inline(always)]
    pub(crate) fn pop(&mut self, limit: u64) -> Option<&T> {
        loop {
            let list = &mut self.buckets[(self.cur & MASK) as usize];
            if list.head != NIL && self.cur < limit {
                let id = list.head;
                let c = &mut self.pool[id as usize];
                let at = c.read as usize;
                c.read += 1;
                let filled = if id == list.tail >> FILL_BITS {
                    (list.tail & FILL_MASK) + 1
                } else {
                    CHUNK as u32
                };
                if c.read == filled {
                    // Spent (if it was the tail, the next push starts a new chunk): unlink
                    // it and put it on the free list.
                    list.head = c.next;
                    if list.head == NIL {
                        list.tail = NIL;
                    }
                    c.next = self.free;
                    self.free = id;
                }
                self.in_wheel -= 1;
                // A spent chunk is only reused by the next push, after the caller has
                // copied the event out.
                return Some(&self.pool[id as usize].items[at]);
            }
            self.turn(limit)?;
        }
    }

    /// Moves past an empty current bucket (or jumps to the first far event when the wheel
    /// is empty), bringing far events that are now within the span into the wheel. `None`
    /// when nothing is left below `limit`.
    fn turn(&mut self, limit: u64) -> Option<()> {
        if self.in_wheel == 0 {
            let bucket = self.overflow.peek()?.bucket;
            if bucket >= limit {
                return None;
            }
            self.cur = self.cur.max(bucket);
        } else if self.cur + 1 >= limit {
            return None;
        } else {
            self.cur += 1;
        }
        while let Some(&far) = self.overflow.peek() {
            if far.bucket >= self.cur + SPAN {
                break;
            }
            self.overflow.pop();
            self.append(far.bucket.max(self.cur), far.item);
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(w: &mut Wheel<u32>, limit: u64) -> Vec<(u64, Vec<u32>)> {
        let mut all: Vec<(u64, Vec<u32>)> = vec![];
        while let Some(&id) = w.pop(limit) {
            let b = w.bucket();
            match all.last_mut() {
                Some((last, ids)) if *last == b => ids.push(id),
                _ => all.push((b, vec![id])),
            }
        }
        all
    }

    #[test]
    fn buckets_come_out_in_order_including_far_ones() {
        let mut w = Wheel::new();
        w.push(5.9, 1);
        w.push(5.0, 2);
        w.push(0.0, 3);
        w.push(200_000.5, 4); // beyond the span: overflow
        w.push(70_000.0, 5); // beyond the span: overflow
        w.push(70_000.9, 7); // same far bucket, pushed later
        w.push(32_767.0, 6); // last bucket of the first turn
        assert_eq!(
            drain(&mut w, u64::MAX),
            vec![
                (0, vec![3]),
                (5, vec![1, 2]),
                (32_767, vec![6]),
                (70_000, vec![5, 7]),
                (200_000, vec![4])
            ]
        );
        assert!(w.is_empty());
    }

    #[test]
    fn a_big_bucket_spans_chunks_in_push_order_and_chunks_are_reused() {
        let mut w = Wheel::new();
        for i in 0..100 {
            w.push(3.0, i);
        }
        assert_eq!(drain(&mut w, u64::MAX), vec![(3, (0..100).collect())]);
        let pool = w.pool.len();
        assert_eq!(pool, 100usize.div_ceil(CHUNK));
        // 64 events (8 full chunks) in one bucket and 36 (5 chunks) in the next.
        for i in 0..100 {
            w.push(if i < 64 { 10.0 } else { 11.0 }, i);
        }
        assert_eq!(
            drain(&mut w, u64::MAX),
            vec![(10, (0..64).collect()), (11, (64..100).collect())]
        );
        assert_eq!(
            w.pool.len(),
            pool,
            "the free chunks served the second round"
        );
    }

    #[test]
    fn pushing_into_the_current_bucket_is_seen_again_and_the_past_clamps() {
        let mut w = Wheel::new();
        w.push(10.0, 1);
        assert_eq!((w.pop(u64::MAX).copied(), w.bucket()), (Some(1), 10));
        w.push(10.5, 2);
        w.push(3.0, 3);
        assert_eq!(drain(&mut w, u64::MAX), vec![(10, vec![2, 3])]);
    }

    #[test]
    fn limit_stops_before_a_bucket() {
        let mut w = Wheel::new();
        w.push(50.0, 1);
        w.push(100_000.0, 2);
        assert_eq!(drain(&mut w, 50), vec![]);
        assert_eq!(drain(&mut w, 51), vec![(50, vec![1])]);
        assert_eq!(drain(&mut w, 99_999), vec![]);
        assert_eq!(drain(&mut w, 100_001), vec![(100_000, vec![2])]);
        assert!(w.is_empty());
    }
}
