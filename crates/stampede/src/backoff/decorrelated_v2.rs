//! `decorrelated-v2`: Polly's smooth decorrelated jitter, clamped to `cap`.
//!
//! AWS's decorrelated jitter clamps at the cap, which piles delays up there and spreads
//! them unevenly. Polly (App-vNext/Polly issue #530, Polly.Contrib.WaitAndRetry) replaced it
//! with a formula whose delays have a smooth distribution: the first two retries have
//! medians close to `base` (there: the *median first retry delay*; measured 0.9× and
//! 1.1×), and from the third on the medians double, 2×, 4×, 8× …:
//!
//! ```text
//! t    = n + random(0, 1)
//! f(t) = 2^t · tanh(sqrt(4 t))
//! d_n  = (f(t_n) − f(t_{n−1})) · base / 1.4        (f(t_{−1}) = 0)
//! ```
//!
//! Consecutive `t` never decrease, so every delay is ≥ 0. The formula has no cap: this
//! crate clamps it to `cap`, and a delay that would overflow is `cap` as well. `pow` and
//! `tanh` come from `libm`, one implementation on every target, so a seed gives the same
//! delays natively and in wasm; `sqrt` is IEEE 754's, correctly rounded everywhere (one
//! instruction natively and in wasm, where `libm::sqrt` was 0.4 KB of code).

use rand::Rng;

use super::{Backoff, uniform};

const P_FACTOR: f64 = 4.0;
const RP_SCALING: f64 = 1.0 / 1.4;

/// The delay for retry `n`; `prev` carries `f(t_{n−1})`.
#[inline]
pub(crate) fn delay<R: Rng + ?Sized>(b: &Backoff, n: u32, prev: &mut f64, rng: &mut R) -> f64 {
    let t = f64::from(n) + uniform(rng, 0.0, 1.0);
    let next = libm::pow(2.0, t) * libm::tanh((P_FACTOR * t).sqrt());
    let d = (next - *prev) * RP_SCALING * b.base;
    *prev = next;
    // NaN (∞ − ∞ far past the cap) and ∞ both land here.
    if d < b.cap { d.max(0.0) } else { b.cap }
}
