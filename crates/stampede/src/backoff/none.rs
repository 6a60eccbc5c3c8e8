//! `none`: retry at once.
//!
//! Zero delay is what naive retry loops do. In a simulation it is the storm generator:
//! every failure is answered by another request within one round trip.

/// The delay: always 0.
#[inline]
pub(crate) fn delay() -> f64 {
    0.0
}
