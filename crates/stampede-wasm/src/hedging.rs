//! `HedgingOptions` (`{ delayMs, maxAttempts }`) into the core's `HedgingSettings`: for
//! `Simulation` now, and for `retryFetch`'s `hedging` option (one reader, one set of names
//! and errors for both).

use stampede::Field;
use stampede::hedge::HedgingSettings;
use wasm_bindgen::prelude::*;

use crate::errors::config_error;
use crate::fields::{Group, prefix_of};
use crate::opts::Opts;

/// Reads the `hedging` option of `opts`: absent or `null` is no hedging; an object's missing
/// fields take the core's defaults (`HedgingSettings::default()`, Polly v8's). A value of
/// the wrong type is a `TypeError`, one out of range a `RangeError`, each naming the field
/// as `hedging.delayMs`, `hedging.maxAttempts`.
pub(crate) fn hedging_option(opts: &Opts<'_>) -> Result<Option<HedgingSettings>, JsValue> {
    let Some(v) = opts.raw("hedging")? else {
        return Ok(None);
    };
    let h = Opts::new(&v, "hedging", prefix_of(Group::Hedging))?;
    let mut s = HedgingSettings::default();
    if let Some(d) = h.number(Field::HedgeDelay)? {
        s.delay_ms = d;
    }
    if let Some(n) = h.whole(Field::HedgeMaxAttempts)? {
        s.max_attempts = n;
    }
    s.validate()
        .map(Some)
        .map_err(|e| config_error(h.prefix(), &e))
}
