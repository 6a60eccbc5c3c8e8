//! `full` jitter: `random(0, min(cap, base · multiplier^n))`.
//!
//! The recommended default. Each retry lands anywhere in `[0, v)`, so a herd of `N`
//! clients becomes a uniform spread of `N / v` retries per millisecond. In the AWS
//! contention experiment it does the least work of all strategies.

use rand::Rng;

use super::{Backoff, uniform};

/// The delay: uniform in `[0, ceiling)`.
#[inline]
pub(crate) fn delay<R: Rng + ?Sized>(b: &Backoff, n: u32, rng: &mut R) -> f64 {
    uniform(rng, 0.0, b.ceiling_ms(n))
}
