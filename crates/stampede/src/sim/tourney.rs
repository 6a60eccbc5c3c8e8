//! A tournament tree (Knuth, TAOCP vol. 3, §5.4.1, "replacement selection"): the event
//! queue of `aws-occ`, where each client has exactly one event pending at a time.
//!
//! A binary heap would pop the earliest event and push its successor: two walks of the
//! tree, moving whole entries. Here each client owns a leaf holding its next event's key,
//! and each inner node the least key below it. Handling the earliest event reschedules the
//! same client, so one walk from its leaf to the root does both, with one load, one
//! comparison and one store per level. A key is one `u128`: the event's time bits, then a
//! sequence number (so that equal times keep the order they were scheduled in), then the
//! client, which the root's key therefore names.

/// The key of "nothing pending": a client that has finished, or a padding leaf.
pub(crate) const IDLE: u128 = u128::MAX;

/// Bits of a key that name the item (below the sequence number).
const ITEM_BITS: u32 = 16;

/// The most items a tree takes (`aws-occ` takes at most 5,000 clients).
pub(crate) const MAX_ITEMS: u32 = 1 << 13;

/// The key of `item`'s event at `t_ms` (non-negative), scheduled `seq`-th: ordered by
/// time, then by `seq` (non-negative `f64`s order as their bits do). `seq` must be below
/// 2^48, which at one event a nanosecond takes three days to reach.
#[inline]
pub(crate) fn key(t_ms: f64, seq: u64, item: u32) -> u128 {
    debug_assert!(item < MAX_ITEMS && seq < 1 << (64 - ITEM_BITS));
    (u128::from(t_ms.to_bits()) << 64) | u128::from(seq << ITEM_BITS) | u128::from(item)
}

/// The time of a [`key`].
#[inline]
pub(crate) fn time_of(key: u128) -> f64 {
    f64::from_bits((key >> 64) as u64)
}

/// The item of a [`key`].
#[inline]
pub(crate) fn item_of(key: u128) -> u32 {
    (key as u32) & ((1 << ITEM_BITS) - 1)
}

pub(crate) struct Tourney {
    /// Node `n` (children `2n`, `2n + 1`) holds the least key below it; item `i`'s leaf is
    /// node `leaves + i`. Node 0 is unused.
    nodes: Vec<u128>,
    /// The walk from a leaf to the root, for this many nodes.
    walk: Walk,
}

/// A walk from `item`'s leaf (given `key`) to the root of a tree of `nodes`.
type Walk = fn(nodes: &mut [u128], item: u32, key: u128);

impl Tourney {
    /// Leaves for `items` (at most [`MAX_ITEMS`]), all idle.
    pub(crate) fn new(items: u32) -> Self {
        let leaves = (items.min(MAX_ITEMS) as usize).next_power_of_two().max(2);
        Tourney {
            nodes: vec![IDLE; 2 * leaves],
            walk: walk_for(2 * leaves),
        }
    }

    /// The earliest key ([`IDLE`] when nothing is pending); [`item_of`] names its item.
    #[inline]
    pub(crate) fn first(&self) -> u128 {
        self.nodes[1]
    }

    /// Gives `item` a new key (from [`key`] with the same item, or [`IDLE`]) and replays
    /// its path to the root.
    #[inline]
    pub(crate) fn set(&mut self, item: u32, key: u128) {
        debug_assert!((item as usize) < self.nodes.len() / 2);
        (self.walk)(&mut self.nodes, item, key);
    }
}

/// The walk for a tree of `nodes` nodes (a power of two, at least 4).
///
/// Natively, one function per size, each straight-line code with no bounds check
/// ([`walk`]): which side wins at a level is a coin toss, which a branch predictor guesses
/// wrong half the time, and LLVM's x86 pass that turns conditional moves into branches
/// only looks inside loops (as a loop, each level was a branch mispredicted half the time,
/// which cost 40% of the run). Unrolled, each level is a load (its address known in
/// advance), a compare and two conditional moves. Wasm has `select` and no such pass, so
/// there the plain loop ([`walk_loop`], smaller: the package has a size bar) does the same.
fn walk_for(nodes: usize) -> Walk {
    #[cfg(not(target_arch = "wasm32"))]
    {
        macro_rules! sizes {
            ($($n:literal)*) => {
                match nodes {
                    $($n => return walk::<$n>,)*
                    _ => {}
                }
            };
        }
        sizes!(4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384);
    }
    let _ = nodes;
    walk_loop
}

/// The walk on a tree of `N` nodes, as an array of a size known at compile time (so
/// every index is provably in bounds) and with a number of levels known at compile time
/// (so LLVM unrolls it completely).
#[cfg(not(target_arch = "wasm32"))]
fn walk<const N: usize>(nodes: &mut [u128], item: u32, key: u128) {
    let Some(nodes) = nodes.first_chunk_mut::<N>() else {
        return walk_loop(nodes, item, key);
    };
    let mut n = N / 2 + (item as usize & (N / 2 - 1));
    nodes[n] = key;
    let mut least = key;
    for _ in 1..N.trailing_zeros() {
        least = least.min(nodes[n ^ 1]);
        n >>= 1;
        nodes[n] = least;
    }
}

/// The walk on a tree of any size (a power of two).
fn walk_loop(nodes: &mut [u128], item: u32, key: u128) {
    let mut n = nodes.len() / 2 + item as usize;
    nodes[n] = key;
    let mut least = key;
    while n > 1 {
        least = least.min(nodes[n ^ 1]);
        n >>= 1;
        nodes[n] = least;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::RngExt;

    /// Against a plain minimum, over random keys with many ties in time, for sizes that
    /// are and are not powers of two.
    #[test]
    fn first_is_the_least_key_under_any_updates() {
        let mut rng = crate::seeded(7);
        for items in [1u32, 2, 3, 5, 8, 13, 190, 256, 5000] {
            let mut t = Tourney::new(items);
            let mut keys = vec![IDLE; items as usize];
            assert_eq!(t.first(), IDLE);
            let mut seq = 0;
            for _ in 0..2000 {
                let i = rng.random_range(0..items);
                seq += 1;
                let k = if rng.random_range(0..10) == 0 {
                    IDLE
                } else {
                    key(f64::from(rng.random_range(0..20u32)), seq, i)
                };
                keys[i as usize] = k;
                t.set(i, k);
                let least = *keys.iter().min().unwrap();
                assert_eq!(t.first(), least);
                if least != IDLE {
                    assert_eq!(keys[item_of(least) as usize], least);
                }
            }
        }
    }

    #[test]
    fn keys_order_by_time_then_sequence() {
        assert!(key(1.0, 9, 0) < key(1.5, 1, 0));
        assert!(key(2.0, 1, 7) < key(2.0, 2, 3));
        assert!(key(0.0, (1 << 48) - 1, 5) < key(f64::MIN_POSITIVE, 0, 0));
        assert!(key(1e300, 0, MAX_ITEMS - 1) < IDLE);
        let k = key(12.25, 3, 4999);
        assert_eq!((time_of(k), item_of(k)), (12.25, 4999));
    }
}
