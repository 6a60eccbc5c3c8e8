//! # Stampede: retries that do not stampede
//!
//! A service returns 503. A thousand clients schedule their retry for exactly 2 s later,
//! and at T+2 s a thousand requests hit the recovering server at once — the spike that
//! broke it in the first place. This crate is the cure, as a library with no runtime, no
//! clock and no global randomness of its own:
//!
//! - [`backoff`]: capped exponential backoff with jitter (full, equal, decorrelated and
//!   Polly's smooth decorrelated "V2"), so clients spread out instead of stampeding;
//! - [`classify`]: retry only what can succeed, as explicit configuration;
//! - [`retry_after`]: the server's own hints, `Retry-After` in both forms and gRPC's
//!   `grpc-retry-pushback-ms`;
//! - [`budget`]: a token bucket of retries per call site that fails fast when empty;
//! - [`hedge`]: a second attempt before the first has failed, the first success winning;
//! - [`policy`]: the state machine that composes them into *retry in D* or *stop*;
//! - [`sim`]: thousands to a million seeded clients against a server that fails and
//!   recovers, driven by that same policy.
//!
//! Time and randomness are arguments. Every function takes "now" (milliseconds, as `f64`:
//! the unit of JavaScript's `Date.now()` and of the simulator's clock) and an RNG the
//! caller seeded. "Now" is on one of two clocks: the wall clock (ms since the Unix epoch)
//! only to read a `Retry-After` HTTP-date, a monotonic clock for everything that measures
//! an interval (budgets, deadlines); [`policy::Now`] carries both. Use [`SeededRng`], a
//! generator named after its algorithm, and a seed gives the same numbers on every
//! platform, wasm32 included (pinned to the bit by `tests/golden`).
//!
//! Settings are validated once, at construction, into a [`ConfigError`]: data, not prose —
//! the [`Field`], what it [`Expected`] and what it [`Got`] — so that every front end maps it
//! with an exhaustive `match`. Every range lives here ([`Field::limit`]), and every
//! default (`Default` of each settings type); nothing after validation can panic on a
//! value that came from a slider.

#![deny(missing_docs)]
// Safe Rust throughout, but for the simulator's memory hints (`sim/hints.rs`, which
// allows it for a prefetch intrinsic, a store fence, streaming stores in assembly and
// `madvise`).
#![deny(unsafe_code)]

pub mod backoff;
pub mod budget;
pub mod classify;
mod error;
mod field;
mod float;
pub mod hedge;
mod http_date;
pub mod nets;
pub mod policy;
pub mod retry_after;
pub mod sim;
mod work_bound;

pub use error::{
    Code, ConfigError, Expected, Field, Got, Limit, MAX_DURATION_MS, MAX_TEXT_CHARS, Unit,
    WorkBound, lookup,
};
pub use work_bound::{MAX_CALLS_IN_FLIGHT, MAX_NESTED_CALLS};

/// The largest seed a JavaScript number (an `f64`) carries exactly: 2^53 − 1, the range
/// of [`Field::Seed`] for front ends that take seeds as numbers.
pub const MAX_EXACT_SEED: u64 = (1 << 53) - 1;

/// The crate's seeded generator: PCG-XSH-RR 64/32 (`rand_pcg::Pcg32`).
///
/// A generator named after its algorithm, unlike `StdRng`, never changes between
/// releases, so pinned seeds keep their numbers. It needs only 64-bit arithmetic, which
/// wasm32 has natively.
pub type SeededRng = rand_pcg::Pcg32;

/// A [`SeededRng`] from a 64-bit seed.
pub fn seeded(seed: u64) -> SeededRng {
    use rand::SeedableRng;
    SeededRng::seed_from_u64(seed)
}
