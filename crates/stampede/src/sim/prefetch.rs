//! Cache hints for the event wheel: the one `unsafe` in the core (the crate denies it
//! everywhere else).
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

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn hint<const KIND: i32, T>(r: &T) {
    // SAFETY: prefetching is a hint that never accesses the memory or faults, whatever
    // the address; SSE is part of the x86-64 baseline, so the instruction exists.
    unsafe { std::arch::x86_64::_mm_prefetch::<KIND>((r as *const T).cast()) }
}
