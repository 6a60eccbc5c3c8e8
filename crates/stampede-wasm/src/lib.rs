//! Stampede for JavaScript: the core's retry policy, simulator and a `fetch` that retries
//! under it, compiled to WebAssembly.
//!
//! This crate is glue. Every rule — backoff, what to retry, Retry-After, budgets, the
//! simulation — lives in the `stampede` core crate; here JavaScript values become core
//! settings (with `RangeError`/`TypeError` naming the field, never a panic, which would
//! kill the module) and core results become JavaScript values.
//!
//! ```js
//! import init, { RetryPolicy, Budget, Simulation, classify, parseRetryAfter, retryFetch } from "stampede";
//! await init();
//! new RetryPolicy({ strategy: "full", baseMs: 200, capMs: 30000, maxAttempts: 6, seed: 42 }).delays();
//! ```

#![deny(missing_docs)]

mod budget;
mod fetch;
mod opts;
mod policy;
mod sim;

pub use budget::Budget;
pub use fetch::retry_fetch;
pub use policy::{RetryPolicy, classify, parse_retry_after};
pub use sim::Simulation;
