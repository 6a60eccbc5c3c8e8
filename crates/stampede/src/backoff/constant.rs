//! `constant`: wait `base` before every retry.
//!
//! The article's opening scene: a thousand clients that all wait exactly 2 s come back
//! together at T+2 s. A constant delay keeps a herd together forever.

use super::Backoff;

/// The delay: `base`.
#[inline]
pub(crate) fn delay(b: &Backoff) -> f64 {
    b.base
}
