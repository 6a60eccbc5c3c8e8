//! Hints to the memory system, for the event wheel and the servers' queues: which lines
//! will be needed next (prefetches), events written past the cache (streaming stores),
//! and huge pages for the wheel's big pool. The one `unsafe` in the core (the crate
//! denies it everywhere else). None of them changes a result; all of them are off below
//! the sizes where they were measured to help, and off the platforms that have them
//! (WebAssembly has none; aarch64's prefetch is unstable): there they compile to nothing
//! or to a plain store.
//!
//! At a million clients the wheel's pending events are 64 MB, so a push into a bucket's
//! tail and the walk of a bucket's chunks miss the cache at nearly every event. A missed
//! store is worse than it looks: stores reach the cache in order, and the engine builds
//! each event in narrow stores and then copies it whole, a copy that must wait until
//! those stores are in the cache (store-to-load forwarding fails), so every push waited
//! for the previous push's miss (perf put a third of a 1M-client run there). Two remedies:
//! - The walk asks for the next chunk's lines while it copies this one (`for_read`).
//! - A push into a pool bigger than the last-level cache streams the event past the
//!   cache (`stream`): a whole aligned line, written without reading it first and without
//!   holding up the stores behind it. The event would have left the cache before the
//!   wheel reaches it anyway. (Before streaming, the wheel asked for the line its next
//!   push would write; streaming does better: see docs/performance.md.)
//!
//! In a storm every server's queue is full, and the request a worker takes next was
//! queued seconds before, so it is no longer cached: the event loop, when the wheel
//! takes a millisecond's events, asks for the next request of each server finishing in
//! it (`Herd::advance`, `all_for_read`; story 2 at 100×: that load was 17% of the run,
//! 2.5% since).
//!
//! Huge pages. A million clients' events are 64–80 MB of the pool, reached at random: with
//! 4 KB pages that is 20,000 pages, ten times what the CPU's address cache (the TLB)
//! holds, so most of those misses also walk the page tables. 2 MB pages make it 40. Linux
//! gives them to a region whose owner asks (`madvise(MADV_HUGEPAGE)`; the kernel's
//! default setting is `madvise`, some distributions' is `always`), so the wheel asks for
//! its pool when it reserves 16 MB or more (below that the pool fits the TLB's reach, and
//! a huge page would be zeroed whole for a run that touches a corner of it).
//!
//! Safety. A prefetch never reads or writes the memory and cannot fault; it is unsafe in
//! Rust only because `_mm_prefetch` is a `#[target_feature]` function (SSE, part of every
//! x86-64). The hints take references, so they can only name memory the caller owns. A
//! streaming store writes memory its caller lends mutably, and is not ordered with what
//! follows until a store fence (`fence`): the wheel fences before it reads or moves its
//! pool, and the engine at the end of every call that pushes, so no other code, on this
//! thread or another, ever sees the pool unfenced. `madvise` is given only whole pages
//! inside an allocation the caller owns, and MADV_HUGEPAGE changes how pages are backed,
//! never what they hold.
#![allow(unsafe_code)]

/// Whether [`for_read`] asks for anything on this target (x86-64; not wasm, which has no
/// prefetch): code that would only compute addresses for it can be left out.
pub(super) const PREFETCH: bool = cfg!(target_arch = "x86_64");

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

/// Writes `v` to `dst` past the cache: a streaming (non-temporal) store of one whole,
/// aligned line, for an event that will not be read again before it has left the cache
/// anyway. It needs no read of the line first, and it does not hold up the stores behind
/// it while that read misses. Not one aligned line (64 bytes at a multiple of 64): a
/// plain store.
///
/// Such a store is not ordered with later accesses until [`fence`]: the thread that
/// streamed must call it before the memory is read or written again, or handed to other
/// code (see `Wheel::fence`).
#[inline(always)]
pub(super) fn stream<T: Copy>(dst: &mut T, v: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        let d = (dst as *mut T).cast::<u8>();
        if size_of::<T>() != 64 || d as usize % 64 != 0 {
            *dst = *v;
            return;
        }
        let s = (v as *const T).cast::<u8>();
        // In assembly rather than with `_mm_loadu_si128`/`_mm_stream_si128`: an event has
        // padding, and reading its uninitialised bytes as an integer vector would be
        // undefined behaviour in Rust; assembly copies bytes, whatever they hold.
        // SAFETY: `s` and `d` each point to 64 bytes that `v` and `dst` own (`T` is 64
        // bytes); `d` is 64-aligned (checked above), as movntdq needs 16; `T: Copy`, so
        // copying its bytes is a copy of the value. SSE2 is part of x86-64. The asm uses
        // no stack and leaves the flags alone.
        unsafe {
            std::arch::asm!(
                "movdqu {a}, xmmword ptr [{s}]",
                "movdqu {b}, xmmword ptr [{s} + 16]",
                "movdqu {c}, xmmword ptr [{s} + 32]",
                "movdqu {e}, xmmword ptr [{s} + 48]",
                "movntdq xmmword ptr [{d}], {a}",
                "movntdq xmmword ptr [{d} + 16], {b}",
                "movntdq xmmword ptr [{d} + 32], {c}",
                "movntdq xmmword ptr [{d} + 48], {e}",
                s = in(reg) s,
                d = in(reg) d,
                a = out(xmm_reg) _,
                b = out(xmm_reg) _,
                c = out(xmm_reg) _,
                e = out(xmm_reg) _,
                options(nostack, preserves_flags),
            );
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        *dst = *v;
    }
}

/// Orders the streaming stores made so far before any access that follows (`sfence`).
#[inline(always)]
pub(super) fn fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a store fence has no operands and no precondition; SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_sfence();
    }
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
