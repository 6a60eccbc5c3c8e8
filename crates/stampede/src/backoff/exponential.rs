//! `exponential`: `min(cap, base · multiplier^n)`, no jitter.
//!
//! Backing off exponentially protects a server from one client's retries, but clients that
//! failed together still retry together, at `base`, `2·base`, `4·base`, … — the textbook
//! thundering herd. Use it to see the problem, not in production.

use super::Backoff;

/// The delay: the ceiling itself.
#[inline]
pub(crate) fn delay(b: &Backoff, n: u32) -> f64 {
    b.ceiling_ms(n)
}
