//! The simulated clients' safety nets: a budget (of any school), a breaker and a throttle,
//! one set per client or one shared by all ([`BudgetScope`]).
//!
//! A bucket alone keeps today's storage (a [`TokenBucket`] per client, 48 bytes); any
//! other net takes a [`Guard`] per client (see its docs for its size). Either way the
//! [`Policy`] decides; this file only finds the client's nets.

use rand::Rng;

use super::{BudgetScope, SimSettings};
use crate::budget::TokenBucket;
use crate::classify::Verdict;
use crate::error::{ConfigError, Expected, Field, Got, WorkBound};
use crate::hedge::{Hedge, HedgeStep};
use crate::nets::{Blocked, BudgetKind, Guard, GuardSettings};
use crate::nets::{Breaker, Throttle};
use crate::policy::{Attempt, Decision, Policy};

/// The most memory per-client nets may take: a million clients with a breaker and a
/// throttle each would take about 600 MB, more than a browser tab should be asked for.
pub const MAX_NETS_BYTES: f64 = 128.0 * 1024.0 * 1024.0;

/// What one client's nets take, in bytes (heap parts included).
fn bytes_per_client(n: &GuardSettings) -> f64 {
    let mut b = size_of::<Guard>();
    if n.breaker.is_some() {
        b += size_of::<Breaker>();
    }
    if n.throttle.is_some() {
        b += size_of::<Throttle>();
    }
    b as f64
}

/// What the nets of `clients` clients take, in bytes (as [`Nets::new`] builds them).
pub(crate) fn held_bytes(
    settings: Option<&GuardSettings>,
    scope: BudgetScope,
    clients: u32,
) -> usize {
    let Some(n) = settings else { return 0 };
    let each = if bucket_only(n) {
        size_of::<TokenBucket>()
    } else {
        bytes_per_client(n) as usize
    };
    each * sets(scope, clients)
}

/// How many sets of nets `clients` clients have: one for all, or one each.
fn sets(scope: BudgetScope, clients: u32) -> usize {
    match scope {
        BudgetScope::Shared => 1,
        BudgetScope::Client => clients as usize,
    }
}

/// Whether `n` is a token bucket alone: kept as a plain bucket, with no guard, and bounded
/// as none (in memory here, in work in `work.rs`).
pub(crate) fn bucket_only(n: &GuardSettings) -> bool {
    n.breaker.is_none() && n.throttle.is_none() && matches!(n.budget, Some(BudgetKind::Bucket(_)))
}

/// Refuses per-client nets past [`MAX_NETS_BYTES`], naming `clients` with the most that
/// fit. A bucket alone keeps today's 48 bytes and today's bound (none).
pub(crate) fn check_clients(
    s: &SimSettings,
    nets: Option<&GuardSettings>,
) -> Result<(), ConfigError> {
    let Some(n) = nets else { return Ok(()) };
    if s.budget_scope == BudgetScope::Shared || bucket_only(n) {
        return Ok(());
    }
    let max = (MAX_NETS_BYTES / bytes_per_client(n)).floor();
    if f64::from(s.clients) <= max {
        return Ok(());
    }
    Err(ConfigError::new(
        Field::Clients,
        Expected::Work {
            max,
            bound: WorkBound::NetsClients,
        },
        Got::Number(f64::from(s.clients)),
    ))
}

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
        let n = sets(scope, clients);
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

    /// The bucket of `client`, if the nets are a bucket alone.
    #[inline]
    fn bucket(&mut self, client: u32) -> Option<&mut TokenBucket> {
        match self {
            Nets::Buckets(scope, v) => v.get_mut(Self::index(*scope, client)),
            _ => None,
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
        if let Nets::Guards(scope, v) = self {
            return policy.admit_guarded(v.get_mut(Self::index(*scope, client)), t, rng);
        }
        policy
            .admit(self.bucket(client), t)
            .map_err(Blocked::Budget)
    }

    /// The policy's decision for `client` after an attempt ended at `now`. Two calls of
    /// the policy, not three: no net and a bucket share one (the wasm build is smaller).
    /// Always inlined into the engine's one caller: left to LLVM it stayed out of line,
    /// and the call cost 4% of a 10k burst's instructions (callgrind, `burst_time 3`:
    /// 364.6M with it, 351.9M inlined; 342.6M before issue #12's nets).
    #[inline(always)]
    pub(crate) fn decide<R: Rng + ?Sized>(
        &mut self,
        policy: &Policy,
        client: u32,
        attempt: &mut Attempt,
        verdict: &Verdict,
        now: f64,
        rng: &mut R,
    ) -> Decision {
        if let Nets::Guards(scope, v) = self {
            let g = v.get_mut(Self::index(*scope, client));
            return policy.decide_verdict_guarded(attempt, verdict, now, g, rng);
        }
        policy.decide_verdict(attempt, verdict, now, self.bucket(client), rng)
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
    fn nets_beyond_a_bucket_divide_the_attempts_bound() {
        use crate::backoff::{BackoffSettings, Strategy};
        use crate::error::Expected;
        use crate::policy::PolicySettings;
        let breaker = GuardSettings {
            breaker: Some(BreakerSettings::default()),
            ..GuardSettings::default()
        };
        let run = |clients: u32, attempts: u32, scope: BudgetScope| SimSettings {
            clients,
            policy: PolicySettings::new(
                BackoffSettings::new(Strategy::Full, 1000.0, 30_000.0),
                attempts,
            ),
            nets: breaker,
            budget_scope: scope,
            ..SimSettings::default()
        };
        // The most attempts that fit, if the run is refused.
        let most = |s: SimSettings| match s.validate() {
            Ok(()) => None,
            Err(e) => match e.expected {
                Expected::Work { max, .. } => Some(max),
                _ => panic!("{e}"),
            },
        };
        // 100,000 clients with a breaker each (16.8 MB of guards, out of cache): a fifth of
        // the bound, 4,000,000 attempts, so 40 each.
        assert_eq!(most(run(100_000, 41, BudgetScope::Client)), Some(40.0));
        assert_eq!(most(run(100_000, 40, BudgetScope::Client)), None);
        // One breaker for all (in cache): half, 10,000,000: 50 each for 200,000 clients.
        assert_eq!(most(run(200_000, 51, BudgetScope::Shared)), Some(50.0));
        assert_eq!(most(run(200_000, 50, BudgetScope::Shared)), None);
        // 10,000 clients with one each (1.7 MB, in cache): half. A steady run of 2,000,000
        // requests: 5 attempts each.
        let steady = SimSettings {
            scenario: Scenario::Steady,
            rate_per_client: 1.0,
            duration_ms: 200_000.0,
            ..run(10_000, 6, BudgetScope::Client)
        };
        assert_eq!(most(steady), Some(5.0));
        // A token bucket alone costs next to nothing while the clients' buckets stay in
        // cache (50,000 of 48 bytes: the whole bound, 100 each); past it (200,000: 9.6 MB)
        // half, 10,000,000 attempts: 50 each.
        let bucket = |clients, attempts| SimSettings {
            budget: Some(BudgetSettings::default()),
            nets: GuardSettings::default(),
            ..run(clients, attempts, BudgetScope::Client)
        };
        assert_eq!(most(bucket(50_000, 100)), None);
        assert_eq!(most(bucket(200_000, 51)), Some(50.0));
        assert_eq!(most(bucket(200_000, 50)), None);
        // One bucket for all: in cache whatever the clients.
        let shared = SimSettings {
            budget_scope: BudgetScope::Shared,
            ..bucket(200_000, 100)
        };
        assert_eq!(most(shared), None);
    }

    #[test]
    fn per_client_nets_are_bounded_in_memory_shared_ones_are_not() {
        use crate::error::Code;
        let nets = GuardSettings {
            breaker: Some(BreakerSettings::default()),
            throttle: Some(ThrottleSettings::default()),
            ..GuardSettings::default()
        };
        let s = SimSettings {
            clients: 1_000_000,
            nets,
            ..SimSettings::default()
        };
        let e = s.validate().unwrap_err();
        assert_eq!((e.field, e.code()), (Field::Clients, Code::TooMuchWork));
        let crate::error::Expected::Work { max, .. } = e.expected else {
            panic!("{e:?}")
        };
        // The largest that fits is accepted, one more is not.
        let fits = SimSettings {
            clients: max as u32,
            ..s.clone()
        };
        assert_eq!(fits.validate(), Ok(()));
        assert!(max > 100_000.0 && max < 300_000.0, "{max}");
        let shared = SimSettings {
            budget_scope: BudgetScope::Shared,
            ..s.clone()
        };
        assert_eq!(shared.validate(), Ok(()));
        // A bucket alone: today's bound, none.
        let bucket = SimSettings {
            budget: Some(BudgetSettings::default()),
            nets: GuardSettings::default(),
            ..s
        };
        assert_eq!(bucket.validate(), Ok(()));
    }

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

    /// Without retries (one attempt, no hedging) the nets that act only on retries are not
    /// made: a million clients with a per-client ratio budget are accepted with one attempt,
    /// and refused at the nets' memory bound with two; a breaker on every attempt still is.
    #[test]
    fn nets_that_act_only_on_retries_are_not_made_without_retries() {
        use crate::backoff::{BackoffSettings, Strategy};
        use crate::error::Expected;
        use crate::nets::BreakerMode;
        use crate::policy::PolicySettings;
        use crate::work_bound::WorkBound;
        let million = |attempts: u32, nets: GuardSettings| SimSettings {
            clients: 1_000_000,
            policy: PolicySettings::new(
                BackoffSettings::new(Strategy::Full, 100.0, 1000.0),
                attempts,
            ),
            nets,
            ..SimSettings::default()
        };
        let ratio = GuardSettings {
            budget: Some(BudgetKind::Ratio(RatioSettings::default())),
            ..GuardSettings::default()
        };
        assert!(million(1, ratio).validate().is_ok());
        let e = million(2, ratio).validate().unwrap_err();
        assert!(
            matches!(
                e.expected,
                Expected::Work {
                    bound: WorkBound::NetsClients,
                    ..
                }
            ),
            "{e}"
        );
        let breaker = |mode| GuardSettings {
            breaker: Some(BreakerSettings {
                mode,
                ..BreakerSettings::default()
            }),
            ..GuardSettings::default()
        };
        assert!(million(1, breaker(BreakerMode::Retries)).validate().is_ok());
        assert!(million(1, breaker(BreakerMode::All)).validate().is_err());
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
            // A client of one request never sees 20 outcomes, nor more failures than the
            // throttle's protection (5) before its last attempt: only shared nets act.
            assert_eq!(m.throttled > 0.0, scope == BudgetScope::Shared, "{m:?}");
            assert_eq!(
                m.breaker_rejected > 0.0,
                scope == BudgetScope::Shared,
                "{m:?}"
            );
            assert_eq!(run(), m, "{scope:?}: the seed decides the run");
        }
    }
}

#[cfg(test)]
mod size {
    use crate::nets::{Breaker, Guard, Throttle};

    /// What a client's nets cost (the memory paragraph of the module docs quotes these).
    #[test]
    fn a_guard_is_small_and_its_breaker_and_throttle_live_apart() {
        // 168, 232 and 200 bytes when written.
        assert!(size_of::<Guard>() <= 192);
        assert!(size_of::<Breaker>() <= 256);
        assert!(size_of::<Throttle>() <= 256);
    }
}
