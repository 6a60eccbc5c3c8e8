//! The settings of one `retryFetch` call that both drivers read alike (the full entry's
//! `fetch.rs` and the slim entry's `call.rs`): the policy with the call's `deadlineMs`,
//! the call site, the nets, hedging and the per-attempt timeout. Each driver reads the rest
//! itself (`idempotent`; the full entry's `signal` and `onAttempt`). Also `PolicyOptions`,
//! which `RetryPolicy` reads too.
//!
//! Written against `opts::Opts`: the full entry's reads JavaScript objects, the slim
//! entry's what its JavaScript staged (see `lib.rs`).

use stampede::Field;
use stampede::backoff::{BackoffSettings, Strategy};
use stampede::classify::{RetryRules, StatusSet};
use stampede::hedge::Hedging;
use stampede::nets::GuardSettings;
use stampede::policy::{Policy, PolicySettings};
use stampede::{SeededRng, seeded};

use crate::errors::{Fail, config_error};
use crate::fields::{Group, prefix_of};
use crate::nets::{guard_settings, hedging, nested};
use crate::opts::Opts;

pub(crate) struct CallSettings {
    pub(crate) policy: Policy,
    pub(crate) rng: SeededRng,
    pub(crate) call_site: Option<String>,
    /// The nets this call gives (`budget`, `breaker`, `throttle`): they configure the call
    /// site's, or, without a call site, are the call's own.
    pub(crate) nets: GuardSettings,
    pub(crate) hedging: Option<Hedging>,
    pub(crate) attempt_timeout_ms: Option<f64>,
    /// `deadlineMs`: no attempt runs past it (the policy's `max_elapsed` holds the nearer
    /// of it and `policy.maxElapsedMs`, which only stops retries from starting).
    pub(crate) deadline_ms: Option<f64>,
}

/// Reads `o`, the call's options: a bad one fails naming the field (full entry: every getter
/// or Proxy trap the readers run names its field if it throws, `named`).
pub(crate) fn read_call_settings(o: &Opts) -> Result<CallSettings, Fail> {
    let policy_opts = o
        .group("policy", Group::Policy)?
        .unwrap_or_else(|| Opts::empty(prefix_of(Group::Policy)));
    let mut settings = policy_settings(&policy_opts)?;
    let deadline_ms = o.checked(Field::Deadline)?;
    if let Some(deadline) = deadline_ms {
        // Whichever limit is nearer: the policy's maxElapsedMs or this call's deadline.
        let limit = settings
            .max_elapsed_ms
            .map_or(deadline, |m| m.min(deadline));
        settings = settings.with_max_elapsed_ms(Some(limit));
    }
    let policy = settings.build().map_err(|e| config_error("policy.", &e))?;
    let call_site = o.text(Field::CallSite)?;
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
        deadline_ms,
    })
}

/// Reads `PolicyOptions` into validated core settings; missing fields take the core's
/// defaults (`PolicySettings::default()`).
pub(crate) fn policy_settings(opts: &Opts) -> Result<PolicySettings, Fail> {
    let p = opts.prefix();
    let mut settings = PolicySettings::default();
    let backoff = &mut settings.backoff;
    if let Some(s) = opts.choice(Field::Strategy, &Strategy::NAMES, &Strategy::ALL)? {
        backoff.strategy = s;
    }
    let (base, cap) = (opts.number(Field::Base)?, opts.number(Field::Cap)?);
    (backoff.base_ms, backoff.cap_ms) = BackoffSettings::base_cap_for(
        backoff.strategy,
        (backoff.base_ms, backoff.cap_ms),
        base,
        cap,
    );
    if let Some(v) = opts.number(Field::Multiplier)? {
        backoff.multiplier = v;
    }
    if let Some(v) = opts.checked(Field::MaxAttempts)? {
        settings.max_attempts = v as u32;
    }
    let mut rules = RetryRules::default();
    if let Some(v) = opts.number(Field::MaxRetryAfter)? {
        rules = rules
            .with_max_retry_after_ms(v)
            .map_err(|e| config_error(p, &e))?;
    }
    if let Some(spec) = opts.text(Field::RetryOn)? {
        rules = rules.with_statuses(StatusSet::parse(&spec).map_err(|e| config_error(p, &e))?);
    }
    let settings = settings
        .with_max_elapsed_ms(opts.number(Field::MaxElapsed)?)
        .with_rules(rules);
    settings.build().map_err(|e| config_error(p, &e))?;
    Ok(settings)
}
