//! `decorrelated` jitter (AWS): `min(cap, random(base, 3 · prev))`, `prev` starting at `base`.
//!
//! Each delay is drawn from a window that depends on the previous delay rather than on the
//! retry number, so sequences drift apart and grow organically. The formula follows the
//! AWS simulator (`random(base, …)`, not `random(0, …)` as some copies of the blog post
//! write). Clamping at `cap` piles delays up there; `decorrelated-v2` was made to fix that.

use rand::Rng;

use super::{Backoff, uniform};

/// The delay: uniform in `[base, max(base, 3 · prev))`, clamped to `cap`; updates `prev`.
#[inline]
pub(crate) fn delay<R: Rng + ?Sized>(b: &Backoff, prev: &mut f64, rng: &mut R) -> f64 {
    let hi = *prev * 3.0;
    let d = uniform(rng, b.base, hi).min(b.cap);
    *prev = d;
    d
}
