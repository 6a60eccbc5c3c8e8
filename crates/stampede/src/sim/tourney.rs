//! A tournament tree (Knuth, TAOCP vol. 3, §5.4.1, "replacement selection"): the event
//! queue of `aws-occ`, where each client has exactly one event pending at a time.
//!
//! A binary heap would pop the earliest event and push its successor: two walks of the
//! tree, moving whole entries. Here each client owns a leaf holding its next event's key,
//! and each inner node the least key below it. Handling the earliest event reschedules the
//! same client, so one walk from its leaf to the root does both, with one load, one
//! comparison and one store per level. A key names its item, so the root's key names the
//! next event's.
//!
//! Two kinds of key ([`Key`]):
//! - [`Exact`] (`u128`): the event's time bits, then a sequence number (so that equal
//!   times keep the order they were scheduled in), then the item.
//! - [`Fine`] (`u64`): the time's bits with the last 13 of its 52 mantissa bits replaced
//!   by the item: events are ordered by their times rounded down to 2^-39 of themselves
//!   (under a nanosecond for any time below 2^20 ms, some 17 minutes), then by item. Half the width
//!   makes each level of the walk a third cheaper. Where times are drawn from a continuous
//!   distribution, two events tie with probability zero, and rounding only decides
//!   between events less than a nanosecond apart; where every delay is a constant, times
//!   tie exactly and their order is the model's, which `Exact` keeps.

/// Bits of an [`Exact`] key that name the item (below the sequence number).
const ITEM_BITS: u32 = 16;

/// Bits of a [`Fine`] key that name the item: the low bits of the time's mantissa.
const FINE_ITEM_BITS: u32 = 13;

/// The most items a tree takes (`aws-occ` takes at most 5,000 clients).
pub(crate) const MAX_ITEMS: u32 = 1 << FINE_ITEM_BITS;

/// A key: an event's time (non-negative ms) and item, ordered as the queue hands them
/// out, or [`IDLE`](Key::IDLE).
pub(crate) trait Key: Copy + Ord {
    /// "Nothing pending": a client that has finished, or a padding leaf; above every key.
    const IDLE: Self;
    /// Whether [`new`](Key::new) uses `seq`.
    const SEQUENCED: bool;
    /// The key of `item`'s event at `t_ms`, the `seq`-th scheduled.
    fn new(t_ms: f64, seq: u64, item: u32) -> Self;
    /// The item a key names.
    fn item(self) -> u32;
    /// The key as a `u128` of the same order.
    fn wide(self) -> u128;
}

/// The key of an event at `t_ms`, the `seq`-th scheduled: ordered by time exactly
/// (non-negative `f64`s order as their bits do), then by `seq`. `seq` must be below 2^48,
/// which at one event a nanosecond takes three days to reach.
pub(crate) type Exact = u128;

impl Key for Exact {
    const IDLE: Self = u128::MAX;
    const SEQUENCED: bool = true;

    #[inline]
    fn new(t_ms: f64, seq: u64, item: u32) -> Self {
        debug_assert!(item < MAX_ITEMS && seq < 1 << (64 - ITEM_BITS));
        (u128::from(t_ms.to_bits()) << 64) | u128::from(seq << ITEM_BITS) | u128::from(item)
    }

    #[inline]
    fn item(self) -> u32 {
        (self as u32) & ((1 << ITEM_BITS) - 1)
    }

    #[inline]
    fn wide(self) -> u128 {
        self
    }
}

/// The key of an event at `t_ms`: ordered by the time rounded down to 39 mantissa bits,
/// then by item; `seq` is not used.
pub(crate) type Fine = u64;

impl Key for Fine {
    const IDLE: Self = u64::MAX;
    const SEQUENCED: bool = false;

    #[inline]
    fn new(t_ms: f64, _seq: u64, item: u32) -> Self {
        debug_assert!(item < MAX_ITEMS && t_ms >= 0.0);
        (t_ms.to_bits() & !u64::from(MAX_ITEMS - 1)) | u64::from(item)
    }

    #[inline]
    fn item(self) -> u32 {
        (self as u32) & (MAX_ITEMS - 1)
    }

    #[inline]
    fn wide(self) -> u128 {
        u128::from(self)
    }
}

pub(crate) struct Tourney<K> {
    /// Node `n` (children `2n`, `2n + 1`) holds the least key below it; item `i`'s leaf is
    /// node `leaves + i`. Node 0 is unused.
    nodes: Vec<K>,
    /// The walk from a leaf to the root, for this many nodes.
    walk: Walk<K>,
}

/// A walk from `item`'s leaf (given `key`) to the root of a tree of `nodes`.
type Walk<K> = fn(nodes: &mut [K], item: u32, key: K);

impl<K: Key> Tourney<K> {
    /// Leaves for `items` (at most [`MAX_ITEMS`]), all idle.
    pub(crate) fn new(items: u32) -> Self {
        let leaves = (items.min(MAX_ITEMS) as usize).next_power_of_two().max(2);
        Tourney {
            nodes: vec![K::IDLE; 2 * leaves],
            walk: walk_for(2 * leaves),
        }
    }

    /// The earliest key ([`IDLE`](Key::IDLE) when nothing is pending).
    #[inline]
    pub(crate) fn first(&self) -> K {
        self.nodes[1]
    }

    /// Gives `item` a new key (one that names it, or [`IDLE`](Key::IDLE)) and replays
    /// its path to the root.
    #[inline]
    pub(crate) fn set(&mut self, item: u32, key: K) {
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
/// advance), a compare and a conditional move per word of the key. Wasm has `select` and
/// no such pass, so there the plain loop ([`walk_loop`], smaller: the package has a size
/// bar) does the same.
fn walk_for<K: Key>(nodes: usize) -> Walk<K> {
    #[cfg(not(target_arch = "wasm32"))]
    {
        macro_rules! sizes {
            ($($n:literal)*) => {
                match nodes {
                    $($n => return walk::<K, $n>,)*
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
fn walk<K: Key, const N: usize>(nodes: &mut [K], item: u32, key: K) {
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
fn walk_loop<K: Key>(nodes: &mut [K], item: u32, key: K) {
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
    fn first_is_the_least<K: Key + std::fmt::Debug>() {
        let mut rng = crate::seeded(7);
        for items in [1u32, 2, 3, 5, 8, 13, 190, 256, 5000] {
            let mut t = Tourney::<K>::new(items);
            let mut keys = vec![K::IDLE; items as usize];
            assert_eq!(t.first(), K::IDLE);
            let mut seq = 0;
            for _ in 0..2000 {
                let i = rng.random_range(0..items);
                seq += 1;
                let k = if rng.random_range(0..10) == 0 {
                    K::IDLE
                } else {
                    K::new(f64::from(rng.random_range(0..20u32)), seq, i)
                };
                keys[i as usize] = k;
                t.set(i, k);
                let least = *keys.iter().min().unwrap();
                assert_eq!(t.first(), least);
                if least != K::IDLE {
                    assert_eq!(keys[least.item() as usize], least);
                }
            }
        }
    }

    #[test]
    fn first_is_the_least_key_under_any_updates() {
        first_is_the_least::<Exact>();
        first_is_the_least::<Fine>();
    }

    #[test]
    fn exact_keys_order_by_time_then_sequence() {
        let key = Exact::new;
        assert!(key(1.0, 9, 0) < key(1.5, 1, 0));
        assert!(key(2.0, 1, 7) < key(2.0, 2, 3));
        assert!(key(0.0, (1 << 48) - 1, 5) < key(f64::MIN_POSITIVE, 0, 0));
        assert!(key(1e300, 0, MAX_ITEMS - 1) < Exact::IDLE);
        assert_eq!(key(12.25, 3, 4999).item(), 4999);
        assert!(key(3.0, 1, 2).wide() < key(3.0, 2, 1).wide());
    }

    /// Fine keys order by time down to 2^-39 of it, then by item; their order as `u128`
    /// is the same.
    #[test]
    fn fine_keys_order_by_time_then_item() {
        let key = |t, item| Fine::new(t, 0, item);
        assert!(key(1.0, 9) < key(1.5, 1));
        assert!(key(2.0, 3) < key(2.0, 7));
        assert!(key(0.0, MAX_ITEMS - 1) < key(f64::MIN_POSITIVE * 1e10, 0));
        assert!(key(1e300, MAX_ITEMS - 1) < Fine::IDLE);
        assert_eq!(key(12.25, 4999).item(), 4999);
        // 4,000 ms and a picosecond later are one time to a fine key; a nanosecond later
        // is a later one.
        let t = 4000.0;
        assert!(key(t + 1e-9, 1) < key(t, 2));
        assert!(key(t, 2) < key(t + 1e-6, 1));
        assert!(key(t, 2).wide() < key(t + 1e-6, 1).wide());
        // An integer time (an `advance` limit, at item 0) comes before every event at
        // or after it and after every event before it.
        assert!(key(t - 1e-6, MAX_ITEMS - 1) < key(t, 0));
        assert!(key(t, 0) <= key(t, 0) && key(t, 0) < key(t, 1));
    }
}
