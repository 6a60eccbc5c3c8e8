//! The simulated clients' safety nets: a budget (of any school), a breaker and a throttle,
//! one set per client or one shared by all ([`BudgetScope`]).
//!
//! A bucket alone keeps today's storage (a [`TokenBucket`] per client, 48 bytes); any
//! other net takes a [`Guard`] per client (see its docs for its size). Either way the
//! [`Policy`] decides; this file only finds the client's nets.

use rand::Rng;

use super::BudgetScope;
use crate::budget::TokenBucket;
use crate::classify::Verdict;
use crate::hedge::{Hedge, HedgeStep};
use crate::nets::{Blocked, BudgetKind, Guard, GuardSettings};
use crate::policy::{Attempt, Decision, Policy};

/// The nets of every client.
#[derive(Debug, Clone)]
pub(crate) enum Nets {
    /// No net.
    None,
    /// Only a bucket: per client, or one.
    Buckets(BudgetScope, Vec<TokenBucket>),
    /// Anything else.
    Guards(BudgetScope, Vec<Guard>),
}

impl Nets {
    /// The nets of `clients` clients from validated `settings`, at time 0.
    pub(crate) fn new(settings: Option<GuardSettings>, scope: BudgetScope, clients: u32) -> Self {
        let n = match scope {
            BudgetScope::Shared => 1,
            BudgetScope::Client => clients as usize,
        };
        match settings {
            None => Nets::None,
            Some(GuardSettings {
                budget: Some(BudgetKind::Bucket(b)),
                breaker: None,
                throttle: None,
            }) => Nets::Buckets(scope, vec![TokenBucket::from_valid(b, 0.0); n]),
            Some(g) => Nets::Guards(scope, vec![Guard::from_valid(g, 0.0); n]),
        }
    }

    #[inline]
    fn index(scope: BudgetScope, client: u32) -> usize {
        match scope {
            BudgetScope::Shared => 0,
            BudgetScope::Client => client as usize,
        }
    }

    /// The gate before `client`'s new request at `t`.
    #[inline]
    pub(crate) fn admit<R: Rng + ?Sized>(
        &mut self,
        policy: &Policy,
        client: u32,
        t: f64,
        rng: &mut R,
    ) -> Result<(), Blocked> {
        match self {
            Nets::None => Ok(()),
            Nets::Buckets(scope, v) => policy
                .admit(v.get_mut(Self::index(*scope, client)), t)
                .map_err(Blocked::Budget),
            Nets::Guards(scope, v) => {
                policy.admit_guarded(v.get_mut(Self::index(*scope, client)), t, rng)
            }
        }
    }

    /// The policy's decision for `client` after an attempt ended at `now`.
    #[inline]
    pub(crate) fn decide<R: Rng + ?Sized>(
        &mut self,
        policy: &Policy,
        client: u32,
        attempt: &mut Attempt,
        verdict: &Verdict,
        now: f64,
        rng: &mut R,
    ) -> Decision {
        match self {
            Nets::None => policy.decide_verdict(attempt, verdict, now, None, rng),
            Nets::Buckets(scope, v) => {
                let b = v.get_mut(Self::index(*scope, client));
                policy.decide_verdict(attempt, verdict, now, b, rng)
            }
            Nets::Guards(scope, v) => {
                let g = v.get_mut(Self::index(*scope, client));
                policy.decide_verdict_guarded(attempt, verdict, now, g, rng)
            }
        }
    }
}

impl Nets {
    /// `client`'s hedge timer fires at `now`: the next hedge of `hedge`, through the nets.
    #[inline]
    pub(crate) fn hedge_due<R: Rng + ?Sized>(
        &mut self,
        hedge: &mut Hedge,
        client: u32,
        now: f64,
        rng: &mut R,
    ) -> HedgeStep {
        match self {
            Nets::None => hedge.on_due(now, None::<&mut TokenBucket>, rng),
            Nets::Buckets(scope, v) => {
                hedge.on_due(now, v.get_mut(Self::index(*scope, client)), rng)
            }
            Nets::Guards(scope, v) => {
                hedge.on_due(now, v.get_mut(Self::index(*scope, client)), rng)
            }
        }
    }

    /// An attempt of `client`'s hedged request ended at `now` with `verdict`: the nets
    /// learn of it, and the rules say what next.
    #[inline]
    pub(crate) fn hedge_outcome<R: Rng + ?Sized>(
        &mut self,
        hedge: &mut Hedge,
        client: u32,
        verdict: &Verdict,
        now: f64,
        rng: &mut R,
    ) -> HedgeStep {
        match self {
            Nets::None => hedge.on_outcome(verdict, now, None::<&mut TokenBucket>, rng),
            Nets::Buckets(scope, v) => {
                hedge.on_outcome(verdict, now, v.get_mut(Self::index(*scope, client)), rng)
            }
            Nets::Guards(scope, v) => {
                hedge.on_outcome(verdict, now, v.get_mut(Self::index(*scope, client)), rng)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Field;
    use crate::budget::BudgetSettings;
    use crate::nets::{
        BreakerSettings, BudgetKind, GuardSettings, RatioSettings, ThrottleSettings,
    };
    use crate::sim::{BudgetScope, Scenario, SimSettings, Simulation};

    #[test]
    fn two_budgets_are_refused_naming_the_kind() {
        let s = SimSettings {
            budget: Some(BudgetSettings::default()),
            nets: GuardSettings {
                budget: Some(BudgetKind::Ratio(RatioSettings::default())),
                ..GuardSettings::default()
            },
            ..SimSettings::default()
        };
        let e = s.validate().unwrap_err();
        assert_eq!(e.field, Field::BudgetKind);
        assert_eq!(
            e.to_string(),
            "budget_kind: expected at most one budget, got \"a bucket and a ratio budget\""
        );
    }

    /// Every net at once, in a storm: every request ends once, each refusal counted by its
    /// net, in either scope; and the same seed gives the same run.
    #[test]
    fn every_request_ends_once_with_every_net() {
        for scope in [BudgetScope::Client, BudgetScope::Shared] {
            let s = SimSettings {
                scenario: Scenario::Burst,
                clients: 2000,
                capacity_rps: 500.0,
                outage_ms: 1000.0,
                budget_scope: scope,
                nets: GuardSettings {
                    budget: Some(BudgetKind::Ratio(RatioSettings::default())),
                    breaker: Some(BreakerSettings {
                        min_throughput: 20,
                        ..BreakerSettings::default()
                    }),
                    throttle: Some(ThrottleSettings::default()),
                },
                ..SimSettings::default()
            };
            let run = || {
                let mut sim = Simulation::new(&s).unwrap();
                sim.run();
                sim.metrics()
            };
            let m = run();
            assert_eq!(
                m.successes + m.gave_up + m.budget_rejected + m.breaker_rejected + m.throttled,
                m.requests,
                "{scope:?}: {m:?}"
            );
            assert!(m.throttled > 0.0, "{scope:?}: {m:?}");
            // A client of one request never sees 20 outcomes: only a shared breaker trips.
            assert_eq!(
                m.breaker_rejected > 0.0,
                scope == BudgetScope::Shared,
                "{m:?}"
            );
            assert_eq!(run(), m, "{scope:?}: the seed decides the run");
        }
    }
}
