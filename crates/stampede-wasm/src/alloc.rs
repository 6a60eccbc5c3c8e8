//! The module's allocator: Talc, with its memory grown a quarter at a time.
//!
//! Talc's own wasm source grows the memory by exactly what each allocation that does not
//! fit needs: a simulation that builds up hundreds of megabytes (a million clients with
//! waits of up to a day: ~350 MB natively, most of it the coarse wheel's thousands of
//! growing blocks) grew it thousands of times. In V8 each grow makes a new `ArrayBuffer`
//! for the memory and tells the garbage collector about it: such a run took 4.9–5.2 s the
//! first time in a fresh module against 2.0–2.2 s once the memory was there (the collector
//! alone 0.7 s of it). Growing by at least a quarter of the memory's size makes the grows
//! a few dozen, at the cost of up to a quarter more memory than the peak.
//!
//! This is [`talc::wasm::WasmGrowAndExtend`] with that one change (its heap extended when
//! the new pages follow it, a new heap claimed otherwise).

#![allow(unsafe_code)]

use core::alloc::Layout;
use core::arch::wasm32::{memory_grow, memory_size};
use core::ptr::NonNull;

use talc::base::Talc;
use talc::base::binning::Binning;

const PAGE: usize = 64 * 1024;
/// Talc's unit of chunk overhead (`talc::base::chunk::CHUNK_UNIT`).
const CHUNK_UNIT: usize = 4 * size_of::<usize>();

/// Grows the wasm memory by at least a quarter of its size, else by what `layout` needs.
#[derive(Debug, Default)]
pub struct GrowByQuarter {
    end: Option<NonNull<u8>>,
}

impl GrowByQuarter {
    pub const fn new() -> Self {
        GrowByQuarter { end: None }
    }
}

// SAFETY: uses no allocator and nothing but the `talc` it is given (Source's contract).
unsafe impl talc::source::Source for GrowByQuarter {
    fn acquire<B: Binning>(talc: &mut Talc<Self, B>, layout: Layout) -> Result<(), ()> {
        // What the allocation needs, with room for Talc's chunk overhead and alignment
        // (more than talc's own estimate; too little would loop).
        let needed = (layout.size() + layout.align() + 4 * CHUNK_UNIT).div_ceil(PAGE);
        let want = needed.max(memory_size::<0>() / 4);
        // Past the memory's maximum, the quarter may not fit where the need still does.
        let (prev, pages) = match memory_grow::<0>(want) {
            usize::MAX => match memory_grow::<0>(needed) {
                usize::MAX => return Err(()),
                prev => (prev, needed),
            },
            prev => (prev, want),
        };
        let base = (prev * PAGE) as *mut u8;
        // Memory grown to exactly 4 GiB ends at an address wasm32 cannot hold: the last one
        // stands for it (as talc's own source does), not 0, which talc would ignore.
        let end = (prev * PAGE).saturating_add(pages * PAGE) as *mut u8;
        if let Some(old_end) = talc.source.end.take()
            && old_end.as_ptr() == base
        {
            // SAFETY: the pages from `old_end` to `end` were just added to the memory, right
            // after the heap that ends at `old_end`.
            talc.source.end = Some(unsafe { talc.extend(old_end, end) });
            return Ok(());
        }
        // SAFETY: the pages from `base` were just added to the memory, and are no heap yet.
        talc.source.end = unsafe { talc.claim(base, pages * PAGE) };
        Ok(())
    }
}
