//! Cache hints for the event wheel and the servers' queues: the one `unsafe` in the core
//! (the crate denies it everywhere else).
//!
//! At a million clients the wheel's pending events are 64 MB, so a push into a bucket's
//! tail and the walk of a bucket's chunks miss the cache at nearly every event. A missed
//! store is worse than it looks: stores reach the cache in order, and the engine builds
//! each event in narrow stores and then copies it whole, a copy that must wait until
//! those stores are in the cache (store-to-load forwarding fails), so every push waited
//! for the previous push's miss (perf put a third of a 1M-client run there). Asking for
//! the line a bucket's next push will write, and for the chunks a walk will read next,
//! before they are needed takes the wait off the path (measured: a 1M-client burst
//! 16–23% faster, see README.md, "Figures").
//!
//! In a storm every server's queue is full, and the request a worker takes next was
//! queued seconds before, so it is no longer cached: the event loop, when the wheel
//! takes a millisecond's events, asks for the next request of each server finishing in
//! it (`Herd::advance`; story 2 at 100×: that load was 17% of the run, 2.5% since).
//!
//! A prefetch is a hint: it never reads or writes the memory, cannot fault, and changes
//! no result. It is unsafe in Rust only because `_mm_prefetch` is a `#[target_feature]`
//! function (SSE, part of every x86-64). The hints take references, so they can only name
//! memory the caller owns. Elsewhere (WebAssembly has no prefetch; aarch64's is unstable)
//! they compile to nothing.
#![allow(unsafe_code)]

/// Hints that `r`'s cache line will be written soon.
#[inline(always)]
pub(super) fn for_write<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    hint::<{ std::arch::x86_64::_MM_HINT_ET0 }, T>(r);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// Hints that `r`'s cache line will be read soon.
#[inline(always)]
pub(super) fn for_read<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    hint::<{ std::arch::x86_64::_MM_HINT_T0 }, T>(r);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// Hints that all of `r` will be read soon: both lines it spans when it straddles two
/// (a 64-byte event in a buffer aligned to 8 bytes, such as a server's queue, usually
/// does). At most 64 bytes.
#[inline(always)]
pub(super) fn all_for_read<T>(r: &T) {
    const { assert!(size_of::<T>() <= 64) };
    #[cfg(target_arch = "x86_64")]
    {
        let first = (r as *const T).cast::<u8>();
        hint_at::<{ std::arch::x86_64::_MM_HINT_T0 }>(first);
        hint_at::<{ std::arch::x86_64::_MM_HINT_T0 }>(first.wrapping_add(size_of::<T>() - 1));
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn hint<const KIND: i32, T>(r: &T) {
    hint_at::<KIND>((r as *const T).cast());
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn hint_at<const KIND: i32>(p: *const u8) {
    // SAFETY: prefetching is a hint that never accesses the memory or faults, whatever
    // the address; SSE is part of the x86-64 baseline, so the instruction exists.
    unsafe { std::arch::x86_64::_mm_prefetch::<KIND>(p.cast()) }
}
