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
//! copies it (64 bytes) to the tail of another bucket. Chunks are recycled through a free
//! stack, so nothing is allocated per event, and the pool is bounded by
//! `pending / CHUNK + SPAN` chunks (a full chunk per `CHUNK` events, at most one partial
//! chunk per bucket).
//!
//! The wheel holds the events of one aligned block of [`SPAN`] ms (32.8 s). Later ones
//! wait in a second, coarse wheel of [`BLOCKS`] buckets of one block each (37 hours in
//! all), and move into the fine wheel when it reaches their block; only events further
//! ahead than that wait in a heap. So a long timeout, a long service time or a long
//! backoff costs two appends rather than a heap's cache misses.
//!
//! Within a bucket, events come out in time order: when the wheel reaches a bucket, it
//! places the bucket's events into one batch sorted by their exact times. An event
//! pushed into that bucket while it is being handed out (a server that finishes within the
//! millisecond, an answer over a network of no delay) goes among the late events, merged
//! with the batch, so it too comes out in time order; a millisecond crowded with them is
//! split into finer buckets (see `queue_late.rs`). The order
//! matters to the model: a server that serves while it has capacity serves whoever arrives
//! first, and an order that followed the queue's internals instead (last pushed first, or
//! first pushed first) would systematically favour young requests or old retries, and
//! change how long a retry storm lasts. Sorting is linear in a bucket's events (see
//! `queue_sort.rs`); the buffers are reused, so nothing is allocated per event.

use std::collections::BinaryHeap;

use super::hints;

const BITS: u32 = 15;
/// Buckets in the wheel: its span in ms.
pub(crate) const SPAN: u64 = 1 << BITS;
const MASK: u64 = SPAN - 1;
/// Blocks in the coarse wheel: 37 hours, past every delay a setting allows (24 h at most).
pub(crate) const BLOCKS: u64 = 1 << 12;
/// Events per chunk.
pub(crate) const CHUNK: usize = 8;
/// From this many chunks in the pool (16 MB of events) the wheel asks for the chunks its
/// walks read next, and a pool reserved this big asks for huge pages ([`hints`]). Below it
/// they mostly stay in cache and the hints cost more than they save (measured, with the
/// push hints of the time: a 100,000-client burst no faster, the 10,000-client one 3–4%
/// slower; a 1,000,000-client burst 15–19% faster).
const HINT_CHUNKS: usize = 1 << 15;
/// From this many chunks in the pool (32 MB of events, as much as the CPU's last-level
/// cache, shared by all its cores) the wheel streams its pushes past the cache
/// ([`hints::stream`]): an event pushed then has left the cache before the wheel reaches
/// it. Below, a push that streamed would miss on the walk where it may still hit (in a
/// first try, streaming from [`HINT_CHUNKS`], the 100,000-client burst measured ~3% slower;
/// that build also copied each event once more, so the figure is an upper bound).
const STREAM_CHUNKS: usize = 1 << 16;
/// No chunk.
const NIL: u32 = u32::MAX;

/// Up to [`CHUNK`] events of one bucket, in push order. Aligned to a cache line, with the
/// link to the bucket's next chunk kept apart (in `Wheel::next`), so that a 64-byte event
/// fills exactly one line. With the link inside, a chunk was 520 bytes and most events
/// straddled two lines: two cache misses for a push or a read where one will do, which
/// at a million clients (64 MB of pending events) made a run 15–20% slower.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
struct Chunk<T> {
    items: [T; CHUNK],
}

/// An event in the batch, aligned to a cache line as in a chunk: in a `Vec` of events
/// (aligned to 8 bytes, or 16 from the allocator) each 64-byte event straddled two lines,
/// and placing a big bucket's events writes them all over the batch.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub(crate) struct Line<T>(pub(crate) T);

impl<T> std::ops::Deref for Line<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// An event with a time: the wheel hands out the events of one millisecond in time order.
pub(crate) trait Timed {
    /// The event's time (ms).
    fn time(&self) -> f64;
}

/// A bucket's list of chunks, 8 bytes, so the wheel's 32,768 buckets fit in 256 KiB of
/// cache: the first chunk, and the last with how many of its events are filled, packed
/// as `id << FILL_BITS | (filled - 1)` (a push then needs nothing else to find its place).
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
    /// One bit per bucket, set while it holds events: the wheel moves to the next bucket
    /// that does in one step (see `turn`). Stepping through empty ones cost a run with one
    /// event every few seconds of simulated time some 16,000 steps an event (100,000
    /// clients against a server of 0.001 requests per second, three years simulated:
    /// 4 s).
    occupied: Vec<u64>,
    pool: Vec<Chunk<T>>,
    /// Each chunk's next chunk in its bucket.
    next: Vec<u32>,
    /// The free chunks, a stack: the last freed comes first (warm in cache). A stack rather
    /// than a list linked through `next`: the chunk after the one taken is known without
    /// reading a link that, at a million clients, would miss the cache.
    free: Vec<u32>,
    /// The absolute ms of the bucket being processed.
    cur: u64,
    /// Events in the wheel (not counting the overflow).
    in_wheel: usize,
    /// Events of later blocks, by block (`block % BLOCKS`), in push order. Empty (no
    /// block at all) until the first event beyond the wheel's block: most runs never have
    /// one, and making and dropping 4,096 buffers was 20% of a one-client run in wasm
    /// (whose calls to free each empty buffer are not inlined away).
    coarse: Vec<Vec<Far<T>>>,
    in_coarse: usize,
    /// The largest emptied block's buffer, for the next block that gets its first event: a
    /// block's own buffer is reused only when the coarse wheel comes round again (37 hours
    /// on), so keeping each one kept every event that ever waited there (a million clients
    /// with 20 attempts over ten minutes: 1.2 GB).
    spare: Vec<Far<T>>,
    overflow: BinaryHeap<Far<T>>,
    pushes: u64,
    /// The current bucket's events, sorted by time, in `batch[..end]`, and how many have
    /// been handed out. The buffer only ever lengthens (its tail past `end` is stale), so
    /// that the sort can place events into it without filling it first.
    batch: Vec<Line<T>>,
    end: usize,
    taken: usize,
    /// Scratch for the sort: where each sub-bin starts, and (with a big pool) a copy of
    /// the bucket's chunks, each one's next the one after it.
    counts: Vec<u32>,
    copied: Vec<Chunk<T>>,
    copied_next: Vec<u32>,
    /// Whether the current bucket is being handed out (its batch, or its finer buckets'
    /// when it is split): pushes into it then go to `late`, or to the finer buckets.
    active: bool,
    /// With the bucket split: whether the innermost rung's current finer bucket is still
    /// to be taken (it was just made), so that pushes into it join its list.
    fresh: bool,
    /// Events pushed into the current unit while its batch is handed out, ordered by
    /// time, then push order.
    late: LateQueue<T>,
    /// The current bucket split into finer buckets, outermost first (`queue_late.rs`),
    /// the events they hold, and the late events at which the current unit is split
    /// (`split_at`, from `split_base` for each unit taken).
    rungs: Vec<Rung>,
    in_rungs: usize,
    split_at: usize,
    split_base: usize,
    /// [`late::RUN_FROM`], lowered by the tests with the split.
    run_from: usize,
    spare_lists: Vec<Vec<List>>,
}

impl<T: Copy + Timed> Wheel<T> {
    pub(crate) fn new() -> Self {
        Wheel {
            buckets: vec![EMPTY; SPAN as usize],
            occupied: vec![0; SPAN as usize / 64],
            pool: Vec::new(),
            next: Vec::new(),
            free: Vec::new(),
            cur: 0,
            in_wheel: 0,
            coarse: Vec::new(),
            in_coarse: 0,
            spare: Vec::new(),
            overflow: BinaryHeap::new(),
            pushes: 0,
            batch: Vec::new(),
            end: 0,
            taken: 0,
            counts: Vec::new(),
            copied: Vec::new(),
            copied_next: Vec::new(),
            active: false,
            fresh: false,
            late: LateQueue::new(),
            rungs: Vec::new(),
            in_rungs: 0,
            split_at: late::SPLIT_AT,
            split_base: late::SPLIT_AT,
            run_from: late::RUN_FROM,
            spare_lists: Vec::new(),
        }
    }

    /// Makes room for `events` pending at once: the pool then never grows. (Growing it by
    /// doubling costs more than the copies: the allocator hands the memory back and forth
    /// with the system on every run of a program that runs many.)
    pub(crate) fn reserve(&mut self, events: usize) {
        // A chunk holds at least one event, and each bucket at most one partial chunk.
        let chunks = events.min(events / CHUNK + SPAN as usize) + 1;
        self.pool.reserve(chunks);
        if self.pool.capacity() >= HINT_CHUNKS {
            hints::huge_pages(&mut self.pool);
        }
        self.next.reserve(chunks);
        self.free.reserve(chunks);
        self.batch.reserve(events.min(1 << 13));
    }

    /// Events pending: in the wheel, waiting for a later block, being handed out.
    pub(crate) fn pending(&self) -> usize {
        self.in_wheel
            + self.in_coarse
            + self.overflow.len()
            + (self.end - self.taken)
            + self.late.len()
            + self.in_rungs
    }

    /// Whether nothing is pending.
    pub(crate) fn is_empty(&self) -> bool {
        self.in_wheel == 0
            && self.in_coarse == 0
            && self.overflow.is_empty()
            && self.taken == self.end
            && self.late.is_empty()
            && self.in_rungs == 0
    }

    /// Schedules `item` at `t_ms` (≥ 0). A time before the current bucket goes in the
    /// current bucket, as if it were at the bucket's start.
    #[inline(always)]
    pub(crate) fn push(&mut self, t_ms: f64, item: T) {
        // Through i64: one `cvttsd2si` (a time is never negative; NaN and overflow saturate
        // the same way either way, and a bucket past 2^63 ms cannot occur).
        let bucket = ((t_ms as i64) as u64).max(self.cur);
        if bucket == self.cur && self.active {
            if self.rungs.is_empty() && self.late.heap.len() < self.run_from {
                let late = self.late(self.clamped(t_ms), item);
                self.late.heap.push(late);
            } else {
                self.push_current(t_ms, item);
            }
        } else if bucket >> BITS == self.cur >> BITS {
            self.append(bucket, item);
        } else {
            self.push_far(bucket, item);
        }
    }

    /// `t_ms` in the current bucket: not before its start (nor 0).
    #[inline(always)]
    fn clamped(&self, t_ms: f64) -> f64 {
        t_ms.max(self.cur as f64).max(0.0)
    }

    /// A late event at `t` (clamped), keyed by its time and push order.
    #[inline(always)]
    fn late(&mut self, t: f64, item: T) -> Late<T> {
        self.pushes += 1;
        Late {
            key: (t.to_bits(), self.pushes),
            item,
        }
    }

    #[inline(always)]
    fn append(&mut self, bucket: u64, item: T) {
        let slot = (bucket & MASK) as usize;
        self.in_wheel += 1;
        let tail = self.buckets[slot].tail;
        if tail != NIL && tail & FILL_MASK != FILL_MASK {
            let filled = (tail & FILL_MASK) + 1;
            let stream = self.stream();
            let c = &mut self.pool[(tail >> FILL_BITS) as usize];
            put(&mut c.items[filled as usize], &item, stream);
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
        let id = self.new_chunk(&item);
        if link(&mut self.next, &mut self.buckets[slot], id) {
            self.occupied[slot / 64] |= 1 << (slot % 64);
        }
    }

    /// A chunk holding `item` first, linked to nothing: the last freed, or a new one at
    /// the end of the pool.
    #[inline(always)]
    fn new_chunk(&mut self, item: &T) -> u32 {
        if let Some(id) = self.free.pop() {
            self.next[id as usize] = NIL;
            let stream = self.stream();
            put(&mut self.pool[id as usize].items[0], item, stream);
            id
        } else {
            // Pending events are bounded far below this (clients, or a steady run's
            // 5 million requests), so ids always fit beside the fill count.
            debug_assert!(self.pool.len() < MAX_CHUNKS);
            // Growing the pool may copy it: the streamed events first.
            self.fence();
            self.pool.push(Chunk {
                items: [*item; CHUNK],
            });
            self.next.push(NIL);
            (self.pool.len() - 1) as u32
        }
    }

    /// Orders the events pushed so far before anything that follows: with the hints on,
    /// they are written past the cache ([`hints::stream`]), and such stores must be
    /// fenced before the memory is read again, by this thread or another. The wheel
    /// fences before it reads or moves its pool; its owner must fence before the wheel
    /// can change hands (the engine does at the end of every call that pushes).
    #[inline]
    pub(crate) fn fence(&self) {
        if self.stream() {
            hints::fence();
        }
    }

    /// Whether the pool has grown past [`STREAM_CHUNKS`], so the wheel streams its pushes
    /// past the cache.
    #[inline(always)]
    fn stream(&self) -> bool {
        self.pool.len() >= STREAM_CHUNKS
    }

    /// Whether the pool has grown past [`HINT_CHUNKS`], so the wheel asks for the lines
    /// its walks will read next.
    #[inline(always)]
    fn hint(&self) -> bool {
        self.pool.len() >= HINT_CHUNKS
    }

    /// The bucket (absolute ms) of the last event [`pop_with`](Self::pop_with) returned.
    pub(crate) fn bucket(&self) -> u64 {
        self.cur
    }

    /// Splits the current unit at `late` late events instead of [`late::SPLIT_AT`], so
    /// that a test splits small ones.
    #[cfg(test)]
    pub(crate) fn split_at(&mut self, late: usize) {
        (self.split_at, self.split_base) = (late, late);
        self.run_from = late.div_ceil(2).min(late::RUN_FROM);
    }

    /// The finer buckets' depth now, and the late events' heap (not their run).
    #[cfg(test)]
    pub(crate) fn late_shape(&self) -> (usize, usize) {
        (self.rungs.len(), self.late.heap.len())
    }

    /// [`pop_with`](Self::pop_with), not looking (the tests' way to drain the wheel).
    #[cfg(test)]
    pub(crate) fn pop(&mut self, limit: u64) -> Option<T> {
        self.pop_with(limit, |_| {})
    }

    /// Takes the next event of the first non-empty bucket below `limit` (an absolute ms);
    /// `None` when there is none. Within a bucket, events come out in time order: the
    /// bucket is taken whole and sorted when the wheel reaches it. The wheel stays on that
    /// bucket, so events pushed into it meanwhile come out, sorted among themselves, before
    /// the wheel moves on. Each bucket's batch, sorted, is shown to `taken` when the wheel
    /// takes it: the caller may look ahead at the events it is about to hand out (events
    /// pushed into the bucket later are not in it).
    #[inline(always)]
    pub(crate) fn pop_with(&mut self, limit: u64, mut taken: impl FnMut(&[Line<T>])) -> Option<T> {
        loop {
            // The late events' first, if it comes before the batch's next (the batch
            // goes first on a tie: it was pushed earlier). The heap holds some whenever
            // the run does (see `queue_late.rs`), so that most pops look at the heap alone.
            if let Some(l) = self.late.heap.peek() {
                let (from, key) = if self.late.run.is_empty() {
                    (Place::Heap, l.key)
                } else {
                    self.late.first(l.key)
                };
                let first_late = match self.batch[..self.end].get(self.taken) {
                    Some(e) => f64::from_bits(key.0) < e.time(),
                    None => true,
                };
                if first_late {
                    let l = match from {
                        Place::Heap => self.late.heap.pop(),
                        Place::Run => self.late.run.pop_front(),
                    };
                    if self.late.heap.is_empty() && !self.late.run.is_empty() {
                        self.late.refill();
                    }
                    return l.map(|l| l.item);
                }
            }
            if self.taken < self.end {
                self.taken += 1;
                return Some(self.batch[self.taken - 1].0);
            }
            // The current bucket split into finer ones: the next of them goes where the
            // bucket's list was, and is taken as the bucket would be.
            if !self.rungs.is_empty() && !self.next_unit() {
                continue;
            }
            let slot = (self.cur & MASK) as usize;
            if self.buckets[slot].head != NIL && (self.cur < limit || !self.rungs.is_empty()) {
                self.take_bucket(slot);
                taken(&self.batch[..self.end]);
            } else {
                self.turn(limit)?;
            }
        }
    }

    /// Moves the events of `list` into the batch, sorted by time (see `queue_sort.rs`),
    /// and frees its chunks.
    ///
    /// While the pool is small enough to stay in cache ([`HINT_CHUNKS`]), the sort reads
    /// the events where they lie, in their chunks, and places each straight into its place
    /// in the batch: one copy of each event where there were two (measured on the
    /// 10,000-client burst natively: full jitter 4.5% faster, exponential 2.6%; in wasm
    /// 3.5% and 2.4%). With a big pool, the chunks lie anywhere in memory (a million pending
    /// events are 64 MB of it), so each is a cache miss and the sort's two or three walks
    /// would miss on each (in wasm, which cannot ask for lines ahead, a million clients'
    /// exponential burst ran 25% slower that way): the chunks are walked once, copied out
    /// end to end, and sorted from the copy.
    ///
    /// With the current bucket split (`queue_late.rs`), the list in the bucket's slot is
    /// the innermost rung's current finer bucket's.
    fn take_bucket(&mut self, slot: usize) {
        let list = self.buckets[slot];
        self.buckets[slot] = EMPTY;
        self.occupied[slot / 64] &= !(1 << (slot % 64));
        let (from, width) = match self.rungs.last() {
            None => (self.cur as f64, 1.0),
            Some(r) => r.unit(),
        };
        self.fence();
        self.taken = 0;
        self.active = true;
        self.fresh = false;
        self.split_at = self.split_base;
        // The chunks go back to the free stack now; nothing reuses them until the next
        // push, after the sort.
        let (bucket, k) = if self.hint() {
            // Copied out, a chunk at a time, in a single walk; the copies then stand for
            // the bucket, laid end to end.
            self.copied.clear();
            self.copied_next.clear();
            let mut id = list.head;
            while id != NIL {
                let next = self.next[id as usize];
                // The next chunk's lines load while this one is copied.
                if next != NIL {
                    for e in &self.pool[next as usize].items {
                        hints::for_read(e);
                    }
                }
                self.copied.push(self.pool[id as usize]);
                self.copied_next.push(self.copied.len() as u32);
                self.free.push(id);
                id = next;
            }
            let n = self.copied.len() as u32;
            self.copied_next[n as usize - 1] = NIL;
            let copy = sort::Bucket {
                pool: &self.copied,
                next: &self.copied_next,
                list: List {
                    head: 0,
                    tail: (n - 1) << FILL_BITS | list.tail & FILL_MASK,
                },
                ahead: false,
            };
            let k = (n as usize - 1) * CHUNK + filled(list.tail >> FILL_BITS, list);
            (copy, k)
        } else {
            let (mut id, mut k) = (list.head, 0);
            while id != NIL {
                k += filled(id, list);
                self.free.push(id);
                id = self.next[id as usize];
            }
            let chunks = sort::Bucket {
                pool: &self.pool,
                next: &self.next,
                list,
                ahead: true,
            };
            (chunks, k)
        };
        sort::sort_into(&bucket, k, from, width, &mut self.counts, &mut self.batch);
        self.end = k;
        self.in_wheel -= k;
    }

    /// Moves past an empty current bucket (or, when the block holds nothing more, jumps
    /// to the start of the next block that holds events), bringing that block's events
    /// into the wheel when it enters it. `None` when nothing is left below `limit`.
    fn turn(&mut self, limit: u64) -> Option<()> {
        self.active = false;
        if self.in_wheel == 0 {
            // The block holds nothing more (its events are all in the wheel): on to the
            // next block that holds any.
            let start = self.next_block()? << BITS;
            if start >= limit {
                return None;
            }
            debug_assert!(start > self.cur);
            self.cur = start;
            self.enter_block();
        } else if self.cur + 1 >= limit {
            return None;
        } else {
            // Events are left in this block, after this bucket: on to the next that holds
            // any, or to the limit's bucket if that comes first.
            let next = self.next_occupied(self.cur + 1);
            debug_assert!(next.is_some_and(|n| n > self.cur && n >> BITS == self.cur >> BITS));
            let next = next.unwrap_or(self.cur + 1);
            if next >= limit {
                self.cur = limit - 1;
                return None;
            }
            self.cur = next;
        }
        Some(())
    }

    /// The first bucket from `from` (absolute ms) to the end of its block that holds
    /// events, if any.
    fn next_occupied(&self, from: u64) -> Option<u64> {
        let block = from & !MASK;
        let slot = (from & MASK) as usize;
        let mut word = slot / 64;
        let mut bits = self.occupied[word] & (u64::MAX << (slot % 64));
        loop {
            if bits != 0 {
                return Some(block + (word * 64) as u64 + u64::from(bits.trailing_zeros()));
            }
            word += 1;
            bits = *self.occupied.get(word)?;
        }
    }
}

/// Puts chunk `id` (one event, linked to nothing) at the end of `list`; `true` if the list
/// was empty.
#[inline(always)]
fn link(next: &mut [u32], list: &mut List, id: u32) -> bool {
    let was_empty = list.tail == NIL;
    if was_empty {
        list.head = id;
    } else {
        next[(list.tail >> FILL_BITS) as usize] = id;
    }
    list.tail = id << FILL_BITS;
    was_empty
}

/// How many events chunk `id` of bucket list `list` holds: all but the last are full.
#[inline(always)]
fn filled(id: u32, list: List) -> usize {
    if id == list.tail >> FILL_BITS {
        (list.tail & FILL_MASK) as usize + 1
    } else {
        CHUNK
    }
}

/// Writes `item` into a chunk's slot `dst`: streamed past the cache when `stream` (see
/// [`STREAM_CHUNKS`]), else a plain store.
#[inline(always)]
fn put<T: Copy>(dst: &mut T, item: &T, stream: bool) {
    if stream {
        hints::stream(dst, item);
    } else {
        *dst = *item;
    }
}

// The events beyond the current block: `sim/queue_far.rs`.
#[path = "queue_far.rs"]
mod far;
use far::Far;

// The millisecond being handed out: its late events, and its finer buckets when they
// crowd it: `sim/queue_late.rs`.
#[path = "queue_late.rs"]
mod late;
use late::{Late, LateQueue, Place, Rung};

// How a bucket's batch is put in time order: `sim/queue_sort.rs`.
#[path = "queue_sort.rs"]
mod sort;

#[cfg(test)]
#[path = "queue_tests.rs"]
mod tests;
