//! Where one `retryFetch` call's safety nets live, for both drivers: the full entry's
//! (`fetch.rs`, Rust) and the slim entry's (`call.rs`, under `js/retry.js`).

use stampede::nets::{Guard, GuardSettings};
use wasm_bindgen::JsValue;

use crate::budget::tokens_of;
use crate::errors::config_error;
use crate::fields::{group, prefix_of};
use crate::registry::with_site;

/// Where a call's safety nets live.
pub(crate) enum Nets {
    /// No call site and no nets given: nothing limits the call.
    None,
    /// No call site: the call's own nets, which no other call sees.
    Own(Box<Guard>),
    /// The call site's, in the module's registry (see `registry`).
    Site(String),
}

impl Nets {
    /// The call's nets at `now_ms`: a call site's is configured with what the call gives.
    pub(crate) fn new(
        call_site: Option<String>,
        given: GuardSettings,
        now_ms: f64,
    ) -> Result<Nets, JsValue> {
        Ok(match call_site {
            Some(cs) => {
                with_site(&cs, given, now_ms, "callSite", |_, _| ())?;
                Nets::Site(cs)
            }
            None if given.is_empty() => Nets::None,
            // Validated when read.
            None => Nets::Own(Box::new(
                given
                    .build(now_ms)
                    .map_err(|e| config_error(prefix_of(group(e.field)), &e))?,
            )),
        })
    }

    /// Runs `f` on the nets at `now_ms`.
    pub(crate) fn with<T>(
        &mut self,
        now_ms: f64,
        f: impl FnOnce(Option<&mut Guard>) -> T,
    ) -> Result<T, JsValue> {
        match self {
            Nets::None => Ok(f(None)),
            Nets::Own(g) => Ok(f(Some(g))),
            Nets::Site(cs) => {
                with_site(cs, GuardSettings::default(), now_ms, "callSite", |g, _| {
                    f(Some(g))
                })
            }
        }
    }

    pub(crate) fn call_site(&self) -> Option<&str> {
        match self {
            Nets::Site(cs) => Some(cs),
            _ => None,
        }
    }

    /// The budget's tokens at `now_ms`, for `onAttempt`.
    pub(crate) fn tokens(&mut self, now_ms: f64) -> Result<Option<f64>, JsValue> {
        self.with(now_ms, |g| g.and_then(|g| tokens_of(g, now_ms)))
    }
}
