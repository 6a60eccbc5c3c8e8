//! The module's registry of call sites: each one's safety nets (a budget of any kind, a
//! circuit breaker, an adaptive throttle: the core's `Guard`), shared by every
//! `retryFetch` and `Budget` handle that names it.
//!
//! The rule, part by part (budget, breaker, throttle): naming a call site *with* settings
//! for a part makes them that part's settings. Settings equal to the current ones keep its
//! state (its tokens, its window, whether the circuit is open); a bucket given new bucket
//! settings keeps its tokens, clamped to the new capacity (today's rule for buckets, the
//! core's `TokenBucket::reconfigure`); anything else starts afresh (the state of one kind
//! of budget means nothing to another). A part named without settings is used as it is. A
//! new call site starts with today's default bucket unless a budget is given.
//!
//! At most [`MAX_CALL_SITES`] call sites (the core's bound for its `BudgetRegistry`): a
//! new name past that is a `RangeError` naming the call-site argument. A program has a
//! handful of call sites, so a vector searched in order beats a map (and keeps the wasm
//! small).

use std::cell::RefCell;

use stampede::budget::MAX_CALL_SITES;
use stampede::nets::{Budget, BudgetKind, Guard, GuardSettings};
use stampede::{ConfigError, Expected, Field, Got};

use crate::errors::{Fail, config_error, config_error_as};
use crate::fields::{Group, prefix_of};
use crate::nets::default_budget;

/// One call site: its settings (every part set) and its nets.
struct Site {
    name: String,
    settings: GuardSettings,
    guard: Guard,
}

thread_local! {
    /// One registry per module instance (per page, per worker).
    static SITES: RefCell<Vec<Site>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on the nets of `call_site` at `now_ms`, after making `given`'s parts its
/// settings (see the module docs). `name_field` names the call-site argument in errors.
pub(crate) fn with_site<T>(
    call_site: &str,
    given: GuardSettings,
    now_ms: f64,
    name_field: &'static str,
    f: impl FnOnce(&mut Guard, &GuardSettings) -> T,
) -> Result<T, Fail> {
    let mut f = Some(f);
    let mut out = None;
    site_dyn(call_site, given, now_ms, name_field, &mut |g, s| {
        out = f.take().map(|f| f(g, s));
    })?;
    // `site_dyn` calls back exactly once when it succeeds.
    out.ok_or_else(crate::errors::unreachable)
}

/// The one, non-generic body of [`with_site`] (one copy in the wasm, not one per use).
#[inline(never)]
fn site_dyn(
    call_site: &str,
    given: GuardSettings,
    now_ms: f64,
    name_field: &'static str,
    f: &mut dyn FnMut(&mut Guard, &GuardSettings),
) -> Result<(), Fail> {
    SITES.with(|sites| {
        let mut sites = sites.borrow_mut();
        let i = match sites.iter().position(|s| s.name == call_site) {
            Some(i) => {
                if !given.is_empty() {
                    let site = &mut sites[i];
                    let (settings, guard) = configure(site, given, now_ms)?;
                    site.settings = settings;
                    site.guard = guard;
                }
                i
            }
            None => {
                if sites.len() >= MAX_CALL_SITES {
                    let e = ConfigError::new(
                        Field::CallSite,
                        Expected::RegistryFull {
                            max: MAX_CALL_SITES as u32,
                        },
                        Got::Text(call_site.to_owned()),
                    );
                    return Err(config_error_as("", name_field, &e));
                }
                let settings = GuardSettings {
                    budget: given.budget.or(Some(default_budget())),
                    ..given
                };
                let guard = build(settings, now_ms)?;
                sites.push(Site {
                    name: call_site.to_owned(),
                    settings,
                    guard,
                });
                sites.len() - 1
            }
        };
        let site = &mut sites[i];
        f(&mut site.guard, &site.settings);
        Ok(())
    })
}

fn build(settings: GuardSettings, now_ms: f64) -> Result<Guard, Fail> {
    settings.build(now_ms).map_err(|e| {
        // Every part was validated when read; this names the part's group if not.
        let group = crate::fields::group(e.field);
        config_error(prefix_of(group), &e)
    })
}

/// The site's new settings and nets once `given` is applied: the parts not given, or
/// given unchanged, keep their state.
fn configure(
    site: &mut Site,
    given: GuardSettings,
    now_ms: f64,
) -> Result<(GuardSettings, Guard), Fail> {
    let old = site.settings;
    let settings = GuardSettings {
        budget: given.budget.or(old.budget),
        breaker: given.breaker.or(old.breaker),
        throttle: given.throttle.or(old.throttle),
    };
    let mut guard = build(settings, now_ms)?;
    if let (Some(new), Some(prev)) = (guard.budget(), site.guard.budget()) {
        match (given.budget, *prev) {
            (g, _) if keep(g, old.budget) => *new = *prev,
            (Some(BudgetKind::Bucket(s)), Budget::Bucket(mut bucket)) => {
                bucket
                    .reconfigure(s, now_ms)
                    .map_err(|e| config_error(prefix_of(Group::Budget), &e))?;
                *new = Budget::Bucket(bucket);
            }
            _ => {}
        }
    }
    if keep(given.breaker, old.breaker)
        && let (Some(new), Some(prev)) = (guard.breaker(), site.guard.breaker())
    {
        *new = *prev;
    }
    if keep(given.throttle, old.throttle)
        && let (Some(new), Some(prev)) = (guard.throttle(), site.guard.throttle())
    {
        *new = *prev;
    }
    Ok((settings, guard))
}

/// Whether a part keeps its state: not given, or given its current settings.
fn keep<T: PartialEq>(given: Option<T>, current: Option<T>) -> bool {
    given.is_none() || given == current
}
