//! The settings of one `retryFetch` call that both drivers read alike (the full entry's
//! `fetch.rs` and the slim entry's `call.rs`): the policy with the call's `deadlineMs`,
//! the call site, the nets, hedging and the per-attempt timeout. Each driver reads the rest
//! itself (`idempotent`; the full entry's `signal` and `onAttempt`).

use stampede::hedge::Hedging;
use stampede::nets::GuardSettings;
use stampede::policy::Policy;
use stampede::{Field, SeededRng, seeded};
use wasm_bindgen::JsValue;

#[cfg(not(feature = "sim"))]
use crate::call::named;
use crate::errors::config_error;
#[cfg(feature = "sim")]
use crate::fetch::named;
use crate::fields::Group;
use crate::nets::{guard_settings, hedging, nested};
use crate::opts::Opts;
use crate::policy::policy_settings;

pub(crate) struct CallSettings {
    pub(crate) policy: Policy,
    pub(crate) rng: SeededRng,
    pub(crate) call_site: Option<String>,
    /// The nets this call gives (`budget`, `breaker`, `throttle`): they configure the call
    /// site's, or, without a call site, are the call's own.
    pub(crate) nets: GuardSettings,
    pub(crate) hedging: Option<Hedging>,
    pub(crate) attempt_timeout_ms: Option<f64>,
}

/// Reads `o`, the call's options (already `named`, so that every getter or Proxy trap the
/// readers run names its field if it throws): `RangeError`/`TypeError` naming the field.
pub(crate) fn read_call_settings(o: &Opts) -> Result<CallSettings, JsValue> {
    let policy_value = named(&o.raw("policy")?.unwrap_or(JsValue::UNDEFINED), "policy.");
    let policy_opts = Opts::new(&policy_value, "policy", "policy.")?;
    let mut settings = policy_settings(&policy_opts)?;
    if let Some(deadline) = o.checked(Field::Deadline)? {
        // Whichever limit is nearer: the policy's maxElapsedMs or this call's deadline.
        let limit = settings
            .max_elapsed_ms
            .map_or(deadline, |m| m.min(deadline));
        settings = settings.with_max_elapsed_ms(Some(limit));
    }
    let policy = settings.build().map_err(|e| config_error("policy.", &e))?;
    let call_site = o.string("callSite")?;
    let nets = guard_settings(o)?;
    let hedging = match nested(o, "hedging", Group::Hedging, hedging)? {
        Some(h) => Some(h.build().map_err(|e| config_error("hedging.", &e))?),
        None => None,
    };
    let attempt_timeout_ms = o.checked(Field::AttemptTimeout)?;
    Ok(CallSettings {
        policy,
        rng: seeded(policy_opts.seed()?),
        call_site,
        nets,
        hedging,
        attempt_timeout_ms,
    })
}
