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
// Without the `sim` feature (the slim `stampede/fetch` build) some helpers shared with the
// simulator's glue go unused; the default build still checks them all.
#![cfg_attr(not(feature = "sim"), allow(dead_code))]

mod budget;
mod call_errors;
mod call_nets;
mod call_settings;
// retryFetch: the full entry's driver is Rust (`fetch`, async); the slim entry's is
// JavaScript (js/retry.js) over `call`'s synchronous decisions.
#[cfg(not(feature = "sim"))]
mod call;
mod clock;
mod errors;
#[cfg(feature = "sim")]
mod fetch;
mod fields;
mod nets;
mod opts;
mod policy;
mod registry;
#[cfg(feature = "sim")]
mod settings;
#[cfg(feature = "sim")]
mod sim;

/// The allocator: Talc instead of std's default dlmalloc: about 7 KB less wasm (measured
/// after wasm-opt), and no slower in the simulator benchmark. Single-threaded wasm (no
/// `atomics`), as this package is built.
#[cfg(all(target_family = "wasm", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

pub use budget::Budget;
#[cfg(not(feature = "sim"))]
pub use call::FetchCall;
#[cfg(not(feature = "sim"))]
pub(crate) use call::named;
#[cfg(feature = "sim")]
pub(crate) use fetch::named;
#[cfg(feature = "sim")]
pub use fetch::retry_fetch;
pub use policy::{RetryPolicy, classify, parse_retry_after};
#[cfg(feature = "sim")]
pub use settings::{choices, defaults, limits, scenarios, strategies};
#[cfg(feature = "sim")]
pub use sim::Simulation;
