//! The calls of `retryFetch` in flight, counted, and how deep they nest.
//!
//! In flight: at most the core's [`MAX_CALLS_IN_FLIGHT`] at once. Each holds its state until
//! it settles (the full entry's about 3.4 KB of wasm memory and 26 slots of wasm-bindgen's
//! table of JavaScript references; the slim entry's 0.8 KB): about 325,000 of the full
//! entry's filled V8's table (10 million slots), and growing it trapped, which kills the
//! module.
//!
//! Nested: a call made while another's `fetch` runs is one level deeper than that call (the
//! depth its `fetch` is called at, [`Flight::fetching`]); at most [`MAX_NESTED_CALLS`]. A
//! `fetch` that calls `retryFetch` in turn recurses without end; in the slim entry, where the
//! recursion is synchronous, JavaScript's stack overflowed inside the wasm and left its
//! memory corrupt.
//!
//! Past either bound a call is refused with a `RangeError` (`code: "too_much_work"`; `field`
//! `"input"` for the calls in flight, `"fetch"` for the nesting), which the calling loop, if
//! any, does not retry: it is the caller's mistake, not the network's (js/fetch-env.js,
//! `mistake`). Both entries count the same way: the full entry's driver holds a [`Flight`]
//! for its call, the slim entry's `FetchCall` holds one.

use std::cell::Cell;

use stampede::{
    ConfigError, Expected, Field, Got, MAX_CALLS_IN_FLIGHT, MAX_NESTED_CALLS, WorkBound,
};

use crate::errors::{Fail, config_error_as};

thread_local! {
    static IN_FLIGHT: Cell<u32> = const { Cell::new(0) };
    /// The depth of the `fetch` running now: 0 outside any.
    static FETCHING_AT: Cell<u32> = const { Cell::new(0) };
}

/// One call in flight: counted while it lives, at its depth.
#[derive(Debug)]
pub(crate) struct Flight {
    depth: u32,
}

impl Flight {
    /// A new call in flight, or the error naming the bound it would pass.
    pub(crate) fn enter() -> Result<Flight, Fail> {
        let (n, depth) = (IN_FLIGHT.get(), FETCHING_AT.get());
        if n >= MAX_CALLS_IN_FLIGHT {
            return Err(refusal(
                "input",
                MAX_CALLS_IN_FLIGHT,
                n,
                WorkBound::CallsInFlight,
            ));
        }
        if depth >= MAX_NESTED_CALLS {
            return Err(nested(depth));
        }
        IN_FLIGHT.set(n + 1);
        Ok(Flight { depth })
    }

    /// This call's depth.
    pub(crate) fn depth(&self) -> u32 {
        self.depth
    }

    /// The same call, known to be at `depth` at least (from the signal it was made with, an
    /// attempt's of another call: a fetch that awaited something before it called), or the
    /// error naming the bound on nesting.
    pub(crate) fn below(&mut self, depth: u32) -> Result<(), Fail> {
        if depth >= MAX_NESTED_CALLS {
            return Err(nested(depth));
        }
        self.depth = self.depth.max(depth);
        Ok(())
    }

    /// Runs `fetch` (the caller's, which may call `retryFetch` in turn) one level below this
    /// call.
    #[cfg(feature = "sim")]
    pub(crate) fn fetching<R>(&self, fetch: impl FnOnce() -> R) -> R {
        let outer = self.enter_fetch();
        let r = fetch();
        leave_fetch(outer);
        r
    }

    /// Enters this call's `fetch`: a call made until [`leave_fetch`] is one level below it.
    /// Returns the depth to restore.
    pub(crate) fn enter_fetch(&self) -> u32 {
        FETCHING_AT.replace(self.depth + 1)
    }
}

/// The depth of the `fetch` running now (0 outside any).
#[cfg(not(feature = "sim"))]
pub(crate) fn fetching_at() -> u32 {
    FETCHING_AT.get()
}

/// Leaves a call's `fetch`, back at depth `outer` (what [`Flight::enter_fetch`] returned).
pub(crate) fn leave_fetch(outer: u32) {
    FETCHING_AT.set(outer);
}

/// The refusal of a call nested `depth` deep already.
fn nested(depth: u32) -> Fail {
    refusal("fetch", MAX_NESTED_CALLS, depth, WorkBound::NestedCalls)
}

/// The `RangeError` (`too_much_work`) naming `field` (the call itself, which no option of it
/// causes), past `max` with `had` already.
fn refusal(field: &'static str, max: u32, had: u32, bound: WorkBound) -> Fail {
    let e = ConfigError::new(
        Field::CallSite,
        Expected::Work {
            max: f64::from(max),
            bound,
        },
        Got::Number(f64::from(had) + 1.0),
    );
    config_error_as("", field, &e)
}

impl Drop for Flight {
    fn drop(&mut self) {
        IN_FLIGHT.set(IN_FLIGHT.get().saturating_sub(1));
    }
}
