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
//! - [`policy`]: the state machine that composes them into *retry in D* or *stop*;
//! - [`sim`]: thousands to a million seeded clients against a server that fails and
//!   recovers, driven by that same policy.
//!
//! Time and randomness are arguments. Every function takes `now` (milliseconds, as `f64`:
//! the unit of JavaScript's `Date.now()` and of the simulator's clock) and an RNG the
//! caller seeded. Use [`SeededRng`], a generator named after its algorithm, and a seed
//! gives the same numbers on every platform, wasm32 included.
//!
//! Settings are validated once, at construction, into a [`ConfigError`]: data, not prose —
//! the [`Field`], what it [`Expected`] and what it [`Got`] — so that every front end maps it
//! with an exhaustive `match`. Every range lives here ([`Field::limit`]), and every
//! default (`Default` of each settings type); nothing after validation can panic on a
//! value that came from a slider.

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod backoff;
pub mod budget;
pub mod classify;
mod error;
mod field;
pub mod policy;
pub mod retry_after;
pub mod sim;

pub use error::{
    Code, ConfigError, Expected, Field, Got, Limit, MAX_DURATION_MS, MAX_TEXT_CHARS, Unit,
    WorkBound,
};

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

/// Pinned values for one seed, shared by the native tests and the wasm build's tests:
/// the same seed must give these numbers on every platform. Not API: it exists only in
/// this crate's tests and with the `golden` feature, which the workspace's other crates
/// turn on for their tests alone.
#[cfg(any(test, feature = "golden"))]
#[doc(hidden)]
pub mod golden {
    /// `full`, base 200 ms, cap 30 s, seed 42: the first five delays, rounded to µs.
    pub const FULL_200_30000_SEED_42: [f64; 5] = [155.986, 393.457, 517.283, 521.423, 797.735];
    /// `decorrelated`, base 200 ms, cap 30 s, seed 42.
    pub const DECORRELATED_200_30000_SEED_42: [f64; 5] =
        [511.971, 1514.06, 3007.672, 3075.325, 2450.106];
    /// `decorrelated-v2`, base 200 ms, cap 30 s, seed 42.
    pub const V2_200_30000_SEED_42: [f64; 5] = [231.359, 329.601, 330.933, 538.662, 1284.874];

    /// The golden simulation: 2000 clients, full jitter, base 1 s, 6 attempts, a 2 s
    /// outage, capacity 500, a shared budget, seed 7.
    pub fn sim_settings() -> crate::sim::SimSettings {
        use crate::backoff::{BackoffSettings, Strategy};
        use crate::budget::BudgetSettings;
        use crate::policy::PolicySettings;
        use crate::sim::{BudgetScope, SimSettings};
        SimSettings {
            clients: 2000,
            policy: PolicySettings::new(BackoffSettings::new(Strategy::Full, 1000.0, 30_000.0), 6),
            budget: Some(BudgetSettings::new(3000.0, 200.0)),
            budget_scope: BudgetScope::Shared,
            seed: 7,
            ..SimSettings::default()
        }
    }

    /// Its total attempts, successes, completion time and p99 latency (ms).
    pub const SIM_TOTAL_SUCCESS_COMPLETION_P99: [f64; 4] =
        [5399.0, 435.0, 8885.055112805647, 7542.46630859375];
}
