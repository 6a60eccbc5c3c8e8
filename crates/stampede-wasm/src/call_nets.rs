//! Where one `retryFetch` call's safety nets live, for both drivers: the full entry's
//! (`fetch.rs`, Rust) and the slim entry's (`call.rs`, under `js/slim/retry.js`); with the budget helpers
//! both entries' `Budget` use.

use stampede::nets::{BreakerMode, BreakerState, Budget, Guard, GuardSettings};

use crate::errors::{Fail, config_error};
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
    ) -> Result<Nets, Fail> {
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
    ) -> Result<T, Fail> {
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
    pub(crate) fn tokens(&mut self, now_ms: f64) -> Result<Option<f64>, Fail> {
        self.with(now_ms, |g| g.and_then(|g| tokens_of(g, now_ms)))
    }
}

/// The tokens a budget holds at `now_ms`, whatever its kind: a bucket's tokens, a ratio
/// budget's balance, gRPC's token count, the AWS quota's available tokens.
pub(crate) fn tokens_of(guard: &mut Guard, now_ms: f64) -> Option<f64> {
    Some(match guard.budget()? {
        Budget::Bucket(b) => b.tokens(now_ms),
        Budget::Ratio(r) => r.balance(now_ms),
        Budget::Grpc(g) => g.tokens(),
        Budget::Aws(q) => q.available(),
    })
}

/// Whether a first attempt would fail fast at `now_ms`: an empty bucket, or a breaker that
/// blocks every attempt (mode `all`) while open or while its half-open probe is out.
pub(crate) fn is_open(guard: &mut Guard, now_ms: f64) -> bool {
    if let Some(Budget::Bucket(b)) = guard.budget()
        && b.is_open(now_ms)
    {
        return true;
    }
    guard.breaker().is_some_and(|b| {
        let blocks_all = b.settings().mode == BreakerMode::All;
        blocks_all
            && match b.state() {
                BreakerState::Closed => false,
                BreakerState::Open { until_ms } => now_ms < until_ms,
                BreakerState::HalfOpen { blocked_until_ms } => now_ms < blocked_until_ms,
            }
    })
}
