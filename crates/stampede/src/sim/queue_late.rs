//! The millisecond being handed out, a child of `queue.rs`: events pushed into it while
//! its batch goes out, and the finer buckets it is split into when they crowd it.
//!
//! Most runs push few events into the bucket being handed out (a server that finishes
//! within the millisecond, a network of almost no delay), and a small heap merged with the
//! batch orders them. But a run whose whole storm fits in one millisecond — a million
//! clients over a network of a microsecond, retrying at once — pushes every event there:
//! the heap then held a million of them, each pop a walk down twenty levels of it, missing
//! the cache at every one, and such a run took 25 s natively (38 s in wasm) where a run of
//! as many events spread over seconds takes 2. Two things keep that linear:
//! - Once the heap holds [`RUN_FROM`] events, events pushed in (time, push) order, as
//!   retries with no delay at equal times are, join a run, a queue that stays sorted by
//!   itself; only the others go in the heap.
//! - When the heap and the run hold [`SPLIT_AT`] events, the unit being handed out (the
//!   bucket, or a finer bucket of it) is split into [`Rung`]s of finer buckets, sized to
//!   the events (a ladder queue's rungs): the batch's rest and the late events move into
//!   them, and the wheel hands them out one finer bucket at a time, sorted as a bucket
//!   is. Pushes into the split millisecond go into the finer bucket of their time, in the
//!   wheel's chunks; a finer bucket crowded in its turn is split again.
//!
//! The order stays (time, push order), to the bit: each unit is sorted stably by time,
//! the batch's events (pushed before the unit was taken) come before late ones on a tie,
//! late ones among themselves by push order, and a finer bucket's events are placed in
//! that order before it is sorted. Which unit an event goes in depends only on its time,
//! through one mapping per rung that never decreases with the time, decided from the
//! outermost rung in; so no event of a later unit is earlier than one of an earlier unit.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use super::{EMPTY, FILL_BITS, FILL_MASK, List, NIL, Timed, Wheel, put};
use crate::float;

/// Late events at which the unit being handed out is split into a rung (when their times
/// differ; else the threshold doubles until the unit is done). A heap of 4,096 events
/// (320 KB) is still in cache.
pub(super) const SPLIT_AT: usize = 4096;
/// The fewest and the most finer buckets in a rung: sized to the events moved into it,
/// at most 16,384 (each may hold a part-filled chunk, 512 bytes).
const MIN_SUBS: usize = 64;
const MAX_SUBS: usize = 1 << 14;

/// Which of the late events' two places holds the earliest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    Run,
    Heap,
}

/// An event pushed into the unit being handed out, ordered by (time, push order). Times
/// are never negative, so their bits order as the times do.
#[derive(Debug, Clone, Copy)]
pub(super) struct Late<T> {
    pub(super) key: (u64, u64),
    pub(super) item: T,
}

impl<T> PartialEq for Late<T> {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl<T> Eq for Late<T> {}
impl<T> PartialOrd for Late<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Late<T> {
    /// Reversed: `BinaryHeap` pops the earliest first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key.cmp(&self.key)
    }
}

/// Late events in the heap from which later ones pushed in key order join the run
/// instead. Below it, the heap alone, as the wheel's own code pushes and pops it (a run
/// beside a small heap made the queueing story, whose servers finish within the
/// millisecond all the time, 5% slower: every pop looked at both).
pub(super) const RUN_FROM: usize = 256;

/// The late events, earliest first: in `heap`, and (once it holds [`RUN_FROM`]) those
/// pushed in key order after them in `run`. Keys are unique (the push count is in them),
/// so the order is the keys' alone. The heap is never empty while the run holds events
/// (see [`refill`](Self::refill)).
#[derive(Debug, Clone)]
pub(super) struct LateQueue<T> {
    pub(super) run: VecDeque<Late<T>>,
    pub(super) heap: BinaryHeap<Late<T>>,
}

impl<T> LateQueue<T> {
    pub(super) fn new() -> Self {
        LateQueue {
            run: VecDeque::new(),
            heap: BinaryHeap::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.run.len() + self.heap.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.run.is_empty() && self.heap.is_empty()
    }

    /// Pushes `late`: into the run if it comes after the run's last, or if the run is empty
    /// and the heap holds `run_from` events; else into the heap.
    #[inline(never)]
    pub(super) fn push(&mut self, late: Late<T>, run_from: usize) {
        match self.run.back() {
            Some(last) if late.key < last.key => self.heap.push(late),
            None if self.heap.len() < run_from => self.heap.push(late),
            _ => self.run.push_back(late),
        }
    }

    /// Where the earliest is, and its key, given the heap's first key. Out of line: the
    /// wheel's loop looks at the run only when it has events.
    #[inline(never)]
    pub(super) fn first(&self, heap: (u64, u64)) -> (Place, (u64, u64)) {
        match self.run.front() {
            Some(r) if r.key < heap => (Place::Run, r.key),
            _ => (Place::Heap, heap),
        }
    }

    /// Keeps the heap holding events while the run does: moves the run's first into the
    /// emptied heap.
    #[inline(never)]
    pub(super) fn refill(&mut self) {
        if let Some(r) = self.run.pop_front() {
            self.heap.push(r);
        }
    }

    /// All of them in their order, leaving none. (Not through the heap's `pop`: its one
    /// call, in the wheel's own loop, then stays inlined there; with a second, the
    /// queueing story ran 10% slower.)
    fn drain(&mut self) -> Vec<Late<T>> {
        // Sorted by `Ord`, which is the keys' reversed: latest first.
        let mut heap = std::mem::take(&mut self.heap).into_sorted_vec();
        let mut all = Vec::with_capacity(heap.len() + self.run.len());
        while let Some(r) = self.run.front() {
            match heap.last() {
                Some(h) if h.key < r.key => all.push(heap.pop().expect("a late event")),
                _ => all.push(self.run.pop_front().expect("a late event")),
            }
        }
        all.extend(heap.into_iter().rev());
        all
    }

    /// The earliest and latest times.
    fn span(&self) -> (f64, f64) {
        let times = self.run.iter().chain(self.heap.iter());
        times.fold((f64::INFINITY, 0.0), |(lo, hi), l| {
            let t = f64::from_bits(l.key.0);
            (float::min(lo, t), float::max(hi, t))
        })
    }
}

/// A unit of the millisecond split into finer buckets, each a list of chunks in the
/// wheel's pool: bucket `s` holds the times that [`sub`](Self::sub) maps to `s`.
#[derive(Debug, Clone)]
pub(super) struct Rung {
    /// Where bucket 0 starts (ms), and buckets per ms.
    lo: f64,
    per_ms: f64,
    lists: Vec<List>,
    /// The bucket being handed out, or the next to be.
    cur: usize,
}

impl Rung {
    /// The bucket of time `t`: never decreasing with `t`, and within `cur..lists.len()`
    /// (an earlier time goes in the current bucket, a later one in the last).
    #[inline]
    fn sub(&self, t: f64) -> usize {
        let x = (t - self.lo) * self.per_ms;
        let last = (self.lists.len() - 1) as f64;
        float::min(float::max(x, self.cur as f64), last) as usize
    }

    /// Where bucket `s` starts (ms).
    fn start(&self, s: usize) -> f64 {
        self.lo + s as f64 / self.per_ms
    }

    /// The current bucket: where it starts and its width (ms).
    pub(super) fn unit(&self) -> (f64, f64) {
        (self.start(self.cur), 1.0 / self.per_ms)
    }
}

impl<T: Copy + Timed> Wheel<T> {
    /// Schedules `item` at `t_ms` in the millisecond being handed out (or split): into the
    /// finer bucket of its time, or, in the unit being handed out, among the late events.
    #[inline(never)]
    pub(super) fn push_current(&mut self, t_ms: f64, item: T) {
        let t = self.clamped(t_ms);
        let depth = self.rungs.len();
        for i in 0..depth {
            let r = &self.rungs[i];
            let s = r.sub(t);
            // The current bucket of an outer rung is split further: on to the next rung.
            // The innermost one's is being handed out, unless it was just made.
            if s > r.cur || (i + 1 == depth && self.fresh) {
                self.in_rungs += 1;
                return self.rung_append(i, s, item);
            }
        }
        let late = self.late(t, item);
        self.late.push(late, self.run_from);
        if self.late.len() >= self.split_at {
            self.split();
        }
    }

    /// Appends `item` to bucket `s` of rung `i`.
    #[inline(never)]
    fn rung_append(&mut self, i: usize, s: usize, item: T) {
        let stream = self.stream();
        let tail = self.rungs[i].lists[s].tail;
        if tail != NIL && tail & FILL_MASK != FILL_MASK {
            let c = &mut self.pool[(tail >> FILL_BITS) as usize];
            put(&mut c.items[(tail & FILL_MASK) as usize + 1], &item, stream);
            self.rungs[i].lists[s].tail = tail + 1;
            return;
        }
        let id = self.new_chunk(&item);
        super::link(&mut self.next, &mut self.rungs[i].lists[s], id);
    }

    /// Splits the unit being handed out into a rung of finer buckets over the times of its
    /// events (the batch's rest and the late ones), with room seven times as wide after
    /// them (within the unit) for what comes next: later times go in the last bucket,
    /// split in its turn if it crowds. (A million clients retrying at once over a network
    /// of a microsecond, every attempt in one millisecond: 4.1 s natively with room as
    /// wide again, 3.0–3.3 s with three times, 2.6 s with seven; 25 s before rungs.)
    /// Times all equal cannot be split: the late events then stay where they are (their
    /// run orders equal times at no cost) and the threshold doubles, so that they are not
    /// looked at again for every push.
    #[inline(never)]
    fn split(&mut self) {
        let rest = &self.batch[self.taken..self.end];
        let (mut lo, mut hi) = self.late.span();
        let floor = self.cur as f64;
        for e in rest {
            let t = e.time().max(floor);
            (lo, hi) = (float::min(lo, t), float::max(hi, t));
        }
        let end = match self.rungs.last() {
            Some(r) => r.start(r.cur + 1),
            None => floor + 1.0,
        };
        let count = rest.len() + self.late.len();
        let subs = count.next_power_of_two().clamp(MIN_SUBS, MAX_SUBS);
        let top = float::min(hi + 7.0 * (hi - lo), end).max(hi);
        let per_ms = subs as f64 / (top - lo);
        if !(hi > lo && per_ms.is_finite() && per_ms > 0.0) {
            self.split_at = self.late.len() * 2;
            return;
        }
        let mut lists = self.spare_lists.pop().unwrap_or_default();
        lists.clear();
        lists.resize(subs, EMPTY);
        self.rungs.push(Rung {
            lo,
            per_ms,
            lists,
            cur: 0,
        });
        let i = self.rungs.len() - 1;
        // The batch's rest first, in its order, then the late events in theirs: on a tie,
        // the earlier push first, as the sort within each bucket keeps it.
        for k in self.taken..self.end {
            let item = self.batch[k].0;
            let s = self.rungs[i].sub(item.time().max(floor));
            self.rung_append(i, s, item);
        }
        for l in self.late.drain() {
            let s = self.rungs[i].sub(f64::from_bits(l.key.0));
            self.rung_append(i, s, l.item);
        }
        self.in_rungs += count;
        (self.taken, self.end) = (0, 0);
        self.fresh = true;
    }

    /// When the unit being handed out is done and the current bucket is split: puts the
    /// innermost rung's next finer bucket that holds events in the current bucket's slot
    /// (empty since the bucket was taken), for `take_bucket` to take, or, when the rung
    /// has none left, drops it (its unit, a finer bucket of the rung around it, is then
    /// done too) and returns `false`.
    #[inline(never)]
    pub(super) fn next_unit(&mut self) -> bool {
        let r = self.rungs.last_mut().expect("a rung");
        let from = if self.fresh { r.cur } else { r.cur + 1 };
        match r.lists[from.min(r.lists.len())..]
            .iter()
            .position(|l| l.head != NIL)
        {
            Some(p) => {
                let s = from + p;
                r.cur = s;
                let list = std::mem::replace(&mut r.lists[s], EMPTY);
                let mut k = 0;
                let mut id = list.head;
                while id != NIL {
                    k += super::filled(id, list);
                    id = self.next[id as usize];
                }
                (self.in_rungs, self.in_wheel) = (self.in_rungs - k, self.in_wheel + k);
                let slot = (self.cur & super::MASK) as usize;
                debug_assert!(self.buckets[slot].head == NIL);
                self.buckets[slot] = list;
                true
            }
            None => {
                let r = self.rungs.pop().expect("a rung");
                self.spare_lists.push(r.lists);
                // The rung around it (if any) had its current finer bucket taken.
                self.fresh = false;
                false
            }
        }
    }
}
