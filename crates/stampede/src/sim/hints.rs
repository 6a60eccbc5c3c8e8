//! Hints to the memory system, for the event wheel and the servers' queues: which lines
//! will be needed next (prefetches), and that the wheel's big pool wants huge pages. The
//! one `unsafe` in the core (the crate denies it everywhere else).
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
//! Huge pages. A million clients' events are 64–80 MB of the pool, reached at random: with
//! 4 KB pages that is 20,000 pages, ten times what the CPU's address cache (the TLB)
//! holds, so most of those misses also walk the page tables. 2 MB pages make it 40. Linux
//! gives them to a region whose owner asks (`madvise(MADV_HUGEPAGE)`; the kernel's
//! default setting is `madvise`, some distributions' is `always`), so the wheel asks for
//! its pool when it reserves 16 MB or more (below that the pool fits the TLB's reach, and
//! a huge page would be zeroed whole for a run that touches a corner of it). Measured, a
//! million-client burst, interleaved with the build before: see README.md, "Figures".
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

/// Asks the kernel to back `v`'s allocation (its whole capacity, reserved or not) with
/// huge pages, once the pages are touched. Advice only: the memory's contents and the
/// program's results do not change, and where it is refused (or not Linux) nothing does.
pub(super) fn huge_pages<T>(v: &mut Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let from = v.as_mut_ptr() as usize;
        let bytes = v.capacity() * size_of::<T>();
        // madvise takes whole pages: the pages that lie inside the allocation.
        let start = from.next_multiple_of(PAGE);
        let end = (from + bytes) / PAGE * PAGE;
        if end > start {
            // SAFETY: `[start, end)` lies inside `v`'s allocation, which `v` owns for the
            // duration of the call. MADV_HUGEPAGE changes how the kernel backs the pages,
            // never their contents or access; its result is ignored (advice).
            unsafe {
                libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_pages_is_advice_only() {
        // Empty and tiny vectors: nothing to advise, nothing happens.
        huge_pages(&mut Vec::<u64>::new());
        huge_pages(&mut vec![1u8; 3]);
        // 8 MB, partly filled: the contents, length and capacity stay as they were, and
        // the reserved part can still be filled.
        let mut v: Vec<u64> = Vec::with_capacity(1 << 20);
        v.extend((0..1000).map(|i| i * 7));
        let capacity = v.capacity();
        huge_pages(&mut v);
        assert_eq!((v.len(), v.capacity()), (1000, capacity));
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u64 * 7));
        v.resize(1 << 20, 5);
        assert_eq!(v[(1 << 20) - 1], 5);
    }
}
