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

// The two entries share the settings readers (`call_settings`, `nets`), the call sites'
// registry and a call's nets, written against `opts::Opts` and `errors::Fail`. The full
// entry's `Opts` reads JavaScript objects and fails with the JavaScript error; the slim
// entry's (`slim/opts.rs`) reads the numbers and strings its JavaScript staged, and fails
// with the core's error kept for JavaScript to build (`slim/errors.rs`): no JavaScript
// object crosses into the slim wasm (issue #14's 25 KB bar).
mod call_nets;
mod call_settings;
mod error_parts;
#[cfg_attr(not(feature = "sim"), path = "slim/errors.rs")]
mod errors;
mod fields;
mod in_flight;
mod nets;
#[cfg_attr(not(feature = "sim"), path = "slim/opts.rs")]
mod opts;
mod registry;

// The full entry: JavaScript values in, JavaScript values out; retryFetch's driver is
// Rust (`fetch`, async).
#[cfg(feature = "sim")]
mod budget;
#[cfg(feature = "sim")]
mod call_errors;
#[cfg(feature = "sim")]
mod clock;
mod deadline;
#[cfg(feature = "sim")]
mod fetch;
#[cfg(feature = "sim")]
mod policy;
#[cfg(feature = "sim")]
mod settings;
#[cfg(feature = "sim")]
mod sim;

// The slim entry: numbers and strings in and out, under `js/slim/`; retryFetch's driver is
// JavaScript (`js/slim/retry.js`) over `call`'s synchronous decisions.
#[cfg(not(feature = "sim"))]
#[path = "slim/api.rs"]
mod api;
#[cfg(not(feature = "sim"))]
mod call;
// Its exports: plain functions over numbers, for js/slim/wasm.js (no wasm-bindgen).
#[cfg(not(feature = "sim"))]
#[path = "slim/abi.rs"]
mod abi;

/// The allocator: Talc instead of std's default dlmalloc: about 7 KB less wasm (measured
/// after wasm-opt), and no slower in the simulator benchmark. Single-threaded wasm (no
/// `atomics`), as this package is built. With the simulator, its memory grows a quarter at
/// a time (`alloc.rs`); the slim entry, which allocates little, keeps Talc's own growth.
#[cfg(all(
    target_arch = "wasm32",
    not(target_feature = "atomics"),
    feature = "sim"
))]
#[global_allocator]
static ALLOCATOR: talc::cell::TalcSyncCell<alloc::GrowByQuarter, talc::wasm::WasmBinning> =
    talc::cell::TalcSyncCell::new_wasm(alloc::GrowByQuarter::new());
#[cfg(all(
    target_arch = "wasm32",
    not(target_feature = "atomics"),
    feature = "sim"
))]
mod alloc;
#[cfg(all(
    target_arch = "wasm32",
    not(target_feature = "atomics"),
    not(feature = "sim")
))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(feature = "sim")]
pub use budget::Budget;
#[cfg(not(feature = "sim"))]
pub use call::FetchCall;
#[cfg(feature = "sim")]
pub use fetch::retry_fetch;
#[cfg(feature = "sim")]
pub use policy::{RetryPolicy, classify, parse_retry_after};
#[cfg(feature = "sim")]
pub use settings::{choices, defaults, limits, scenarios, strategies};
#[cfg(feature = "sim")]
pub use sim::Simulation;
