//! `equal` jitter: `v/2 + random(0, v/2)` with `v = min(cap, base · multiplier^n)`.
//!
//! Half the delay is fixed, half random: no retry comes sooner than `v/2`, at the price
//! of a narrower spread (and, in the AWS experiment, slightly more work and a longer
//! completion than full jitter).

use rand::Rng;

use super::{Backoff, uniform};

/// The delay: uniform in `[v/2, v)`.
#[inline]
pub(crate) fn delay<R: Rng + ?Sized>(b: &Backoff, n: u32, rng: &mut R) -> f64 {
    let v = b.ceiling_ms(n);
    let half = v / 2.0;
    uniform(rng, half, v)
}
