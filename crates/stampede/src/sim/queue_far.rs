//! The wheel's far reach, a child of `queue.rs`: events of later blocks wait in the coarse
//! wheel (one bucket a block, 37 hours in all), and events beyond it in a heap; each moves
//! into the fine wheel when the wheel enters its block.

use std::cmp::Ordering;

use super::{BITS, BLOCKS, Timed, Wheel};

/// An event beyond the wheel's span, ordered by bucket, then by push order.
#[derive(Debug, Clone, Copy)]
pub(super) struct Far<T> {
    pub(super) bucket: u64,
    pub(super) seq: u64,
    pub(super) item: T,
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

impl<T: Copy + Timed> Wheel<T> {
    /// Schedules `item` in a later block: in the coarse wheel, or the heap beyond it.
    #[inline(never)]
    pub(super) fn push_far(&mut self, bucket: u64, item: T) {
        self.pushes += 1;
        let far = Far {
            bucket,
            seq: self.pushes,
            item,
        };
        if (bucket >> BITS) - (self.cur >> BITS) < BLOCKS {
            self.coarse_push(far);
        } else {
            self.overflow.push(far);
        }
    }

    /// Puts `far` in its block of the coarse wheel; a block's first event takes the spare
    /// buffer.
    fn coarse_push(&mut self, far: Far<T>) {
        if self.coarse.is_empty() {
            self.coarse = (0..BLOCKS).map(|_| Vec::new()).collect();
        }
        let block = &mut self.coarse[((far.bucket >> BITS) % BLOCKS) as usize];
        if block.capacity() == 0 {
            std::mem::swap(block, &mut self.spare);
        }
        block.push(far);
        self.in_coarse += 1;
    }

    /// The first block after the current one that holds events (coarse or far).
    pub(super) fn next_block(&self) -> Option<u64> {
        let here = self.cur >> BITS;
        let coarse = if self.in_coarse == 0 {
            None
        } else {
            (1..BLOCKS)
                .map(|d| here + d)
                .find(|b| !self.coarse[(b % BLOCKS) as usize].is_empty())
        };
        let far = self.overflow.peek().map(|f| f.bucket >> BITS);
        match (coarse, far) {
            (Some(c), Some(f)) => Some(c.min(f)),
            (c, f) => c.or(f),
        }
    }

    /// The wheel has entered the block of `cur` (at its start): far events now within the
    /// coarse wheel's reach move into it, then the block's events into the wheel.
    pub(super) fn enter_block(&mut self) {
        let here = self.cur >> BITS;
        while let Some(far) = self.overflow.peek() {
            if (far.bucket >> BITS) - here >= BLOCKS {
                break;
            }
            let Some(far) = self.overflow.pop() else {
                break;
            };
            if far.bucket >> BITS == here {
                self.append(far.bucket.max(self.cur), far.item);
            } else {
                self.coarse_push(far);
            }
        }
        if self.in_coarse == 0 {
            return;
        }
        let mut block = std::mem::take(&mut self.coarse[(here % BLOCKS) as usize]);
        self.in_coarse -= block.len();
        for far in block.drain(..) {
            self.append(far.bucket.max(self.cur), far.item);
        }
        // The emptied buffer serves the next block to get events (see `spare`).
        if block.capacity() > self.spare.capacity() {
            self.spare = block;
        }
    }
}
