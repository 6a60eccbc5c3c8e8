//! Everything a run depends on, and its validation.

use super::model::{Balance, LatencyDist, QueueOrder, RetryAt, ServiceDist, Slowdown};
use super::{BudgetScope, Scenario, work};
use crate::budget::BudgetSettings;
use crate::error::{ConfigError, Expected, Field, Got, MAX_DURATION_MS};
use crate::hedge::{Hedging, HedgingSettings};
use crate::nets::GuardSettings;
use crate::policy::{Policy, PolicySettings};

/// The mean service time when none is given (ms): with the default capacity of 500
/// requests per second, 5 workers.
pub const DEFAULT_SERVICE_MS: f64 = 10.0;
/// How much work a server keeps waiting when no queue length is given, in seconds of its
/// capacity: 100 ms, the burst the fluid server of earlier versions absorbed.
pub const DEFAULT_QUEUE_S: f64 = 0.1;

/// Everything a run depends on. `Default` is the article's scene: 1000 clients, a 2 s
/// outage, exponential backoff from 2 s without jitter.
#[derive(Debug, Clone, PartialEq)]
pub struct SimSettings {
    /// What the clients do.
    pub scenario: Scenario,
    /// Clients, 1 to 1,000,000.
    pub clients: u32,
    /// The retry policy every client follows.
    pub policy: PolicySettings,
    /// How long the server is down (ms).
    pub outage_ms: f64,
    /// When the outage starts (ms); `burst` normally 0.
    pub outage_start_ms: f64,
    /// Requests per second the whole fleet serves when up. Used to size the servers when
    /// `workers` is `None`; ignored otherwise (capacity then follows from the workers and
    /// the service time). See [`Fleet`].
    pub capacity_rps: f64,
    /// What one rejection for a full queue costs, as a fraction of a mean service time
    /// (0 to 1): the server pays it before it starts its next request.
    pub reject_cost: f64,
    /// Identical servers behind the load balancer, 1 to [`MAX_SERVERS`](super::MAX_SERVERS).
    pub servers: u32,
    /// How the load balancer picks a server.
    pub balance: Balance,
    /// Concurrent requests per server (0: unlimited); `None`: as many as `capacity_rps`
    /// needs at this service time.
    pub workers: Option<u32>,
    /// Requests each server keeps waiting when every worker is busy; one more is rejected
    /// with 503. `None`: [`DEFAULT_QUEUE_S`] of the server's capacity.
    pub queue: Option<u32>,
    /// Which waiting request is served next.
    pub queue_order: QueueOrder,
    /// A waiting request that waited longer than this is dropped with 503 instead of
    /// being served (ms); `None`: never.
    pub queue_timeout_ms: Option<f64>,
    /// Mean service time (ms, above 0).
    pub service_ms: f64,
    /// How service times are distributed.
    pub service_dist: ServiceDist,
    /// For `lognormal`: the standard deviation of the service time's logarithm.
    pub service_spread: f64,
    /// Each request's service time grows by this for every request already in service on
    /// its server when it starts (ms; Brooker's load-dependent latency).
    pub service_slope_ms: f64,
    /// The chance (0 to 1) that an attempt a working server receives fails at once with
    /// 500, whatever the load.
    pub fail_rate: f64,
    /// How many servers the outage takes down (the first ones); `None`: all.
    pub outage_servers: Option<u32>,
    /// A window that multiplies service times; `None`: none.
    pub slowdown: Option<Slowdown>,
    /// A client gives an attempt up this long after sending it (ms): it counts as the
    /// transport error `timeout`, and the server still finishes the work. `None`: never.
    pub timeout_ms: Option<f64>,
    /// How one network leg's delay is distributed.
    pub latency_dist: LatencyDist,
    /// `spike`: when the arrival rate jumps (ms).
    pub spike_start_ms: f64,
    /// `spike`: how long it stays up (ms).
    pub spike_length_ms: f64,
    /// `spike`: what the arrival rate is multiplied by meanwhile.
    pub spike_factor: f64,
    /// `closed`: a client's mean pause between the end of one request and the next (ms,
    /// exponentially distributed).
    pub think_ms: f64,
    /// Mean round trip (ms); for `aws-occ`, each message's mean delay.
    pub latency_ms: f64,
    /// The latency's standard deviation (ms); `None`: `latency_ms / 5`.
    pub latency_sd_ms: Option<f64>,
    /// `steady`, `spike`: new requests per client per second.
    pub rate_per_client: f64,
    /// `steady`, `spike`, `closed`: how long new requests keep coming (ms).
    pub duration_ms: f64,
    /// `burst`: first requests spread uniformly over this window (ms); 0: all at t = 0.
    pub burst_window_ms: f64,
    /// The server's `Retry-After` during the outage (ms, sent in whole seconds); `None`: none.
    pub retry_after_ms: Option<f64>,
    /// A retry budget; `None`: none.
    pub budget: Option<BudgetSettings>,
    /// Who shares the budget (and every other net).
    pub budget_scope: BudgetScope,
    /// Safety nets (issue #12, [`crate::nets`]): a budget of any school, a circuit breaker,
    /// adaptive throttling. At most one budget in all: `budget` (a bucket) or
    /// `nets.budget`.
    pub nets: GuardSettings,
    /// The seed.
    pub seed: u64,
    /// Width of the series' slots (ms), 1 to 60,000.
    pub slot_ms: f64,
    /// The most clients whose attempts the log keeps.
    pub log_clients: u32,
    /// Services in the chain each request goes through, 1 to
    /// [`MAX_LAYERS`](super::MAX_LAYERS); the last one is the servers above.
    pub layers: u32,
    /// Which layers retry.
    pub retry_at: RetryAt,
    /// Hedging (see [`crate::hedge`]): each request sends another attempt every
    /// `delay_ms` without an answer, and the first success wins; it then runs under these
    /// rules instead of the policy's backoff and attempts. `None`: no hedging.
    pub hedging: Option<HedgingSettings>,
}

impl Default for SimSettings {
    fn default() -> Self {
        SimSettings {
            scenario: Scenario::Burst,
            clients: 1000,
            policy: PolicySettings::new(
                Scenario::Burst.default_backoff(),
                crate::policy::DEFAULT_MAX_ATTEMPTS,
            ),
            outage_ms: 2000.0,
            outage_start_ms: 0.0,
            capacity_rps: 500.0,
            reject_cost: 0.1,
            servers: 1,
            balance: Balance::RoundRobin,
            workers: None,
            queue: None,
            queue_order: QueueOrder::Fifo,
            queue_timeout_ms: None,
            service_ms: DEFAULT_SERVICE_MS,
            service_dist: ServiceDist::Constant,
            service_spread: 1.0,
            service_slope_ms: 0.0,
            fail_rate: 0.0,
            outage_servers: None,
            slowdown: None,
            timeout_ms: None,
            latency_dist: LatencyDist::Normal,
            spike_start_ms: 20_000.0,
            spike_length_ms: 5_000.0,
            spike_factor: 2.0,
            think_ms: 1000.0,
            latency_ms: 10.0,
            latency_sd_ms: None,
            rate_per_client: 1.0,
            duration_ms: 60_000.0,
            burst_window_ms: 0.0,
            retry_after_ms: None,
            budget: None,
            budget_scope: BudgetScope::Client,
            nets: GuardSettings::default(),
            seed: 1,
            slot_ms: 10.0,
            log_clients: 10_000,
            layers: 1,
            retry_at: RetryAt::Every,
            hedging: None,
        }
    }
}

/// Settings after validation.
#[derive(Debug, Clone)]
pub(crate) struct Checked {
    pub(crate) s: SimSettings,
    pub(crate) policy: Policy,
    pub(crate) latency_sd: f64,
    /// Every net, the bucket included; `None`: none.
    pub(crate) nets: Option<GuardSettings>,
    pub(crate) fleet: Fleet,
    pub(crate) hedging: Option<Hedging>,
}

/// The servers a run simulates, as sized from its settings.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Fleet {
    /// Servers.
    pub servers: u32,
    /// Workers per server (0: unlimited).
    pub workers: u32,
    /// Mean service time (ms).
    pub service_ms: f64,
    /// Requests each server keeps waiting.
    pub queue: u32,
    /// Requests per second the fleet serves at the mean service time, without slope or
    /// slowdown (infinite with unlimited workers).
    pub capacity_rps: f64,
}

impl Fleet {
    /// Sizes the fleet. Given `workers`, capacity follows: servers × workers × 1000 /
    /// service. Otherwise the workers are `capacity × service / 1000` per server, rounded
    /// (at least 1), and the service time is then scaled so that the fleet serves exactly
    /// `capacity_rps`: 500 requests per second at the default 10 ms is 5 workers of 10 ms;
    /// 50 per second is 1 worker of 20 ms.
    pub fn of(s: &SimSettings) -> Fleet {
        let servers = s.servers.max(1);
        let per_server = s.capacity_rps / f64::from(servers);
        let (workers, service_ms) = match s.workers {
            Some(w) => (w, s.service_ms),
            None => {
                let w = (per_server * s.service_ms / 1000.0)
                    .round()
                    .clamp(1.0, f64::from(super::MAX_WORKERS));
                (w as u32, w * 1000.0 / per_server)
            }
        };
        let capacity_rps = if workers == 0 {
            f64::INFINITY
        } else {
            f64::from(servers) * f64::from(workers) * 1000.0 / service_ms
        };
        let queue = s.queue.unwrap_or_else(|| {
            let per_server = capacity_rps / f64::from(servers);
            (per_server * DEFAULT_QUEUE_S)
                .ceil()
                .clamp(1.0, f64::from(super::MAX_QUEUE)) as u32
        });
        Fleet {
            servers,
            workers,
            service_ms,
            queue,
            capacity_rps,
        }
    }
}

impl SimSettings {
    /// Whether the run has an outage: one that lasts, and takes a server down. Without one,
    /// the figures measured from its end (`peak_recovery_rps`, `recovery_ms`) count from
    /// the run's start, and `--outage-start` and `--retry-after` change nothing.
    pub fn has_outage(&self) -> bool {
        self.outage_ms > 0.0 && self.outage_servers != Some(0)
    }

    /// Whether the run's rate changes for a spike: a `spike` run whose spike lasts and
    /// multiplies the rate by other than 1. A flat one is no spike: its start would still
    /// redraw the arrival gap that crosses it (the same process, another sample), so
    /// `--spike-start` changed a run it could not change.
    pub fn has_spike(&self) -> bool {
        self.scenario == Scenario::Spike && self.spike_length_ms > 0.0 && self.spike_factor != 1.0
    }

    /// When the outage's `Retry-After` (as its servers send it: whole seconds, rounded up) is
    /// longer than the clients' rules honour, what it asks and the most they honour (ms):
    /// each client then gives its request up at the outage's first answer.
    pub fn outage_hint_too_long(&self) -> Option<(f64, f64)> {
        use crate::classify::{HttpStatus, Method, Outcome, Reason, Request};
        let hint = super::herd::outage_retry_after(self)?;
        let outage = Outcome::Response {
            status: HttpStatus::SERVICE_UNAVAILABLE,
            retry_after: Some(&hint),
            pushback_ms: None,
        };
        match self
            .policy
            .rules
            .classify(Request::new(Method::Get), &outage, 0.0)
            .reason
        {
            Reason::HintTooLong { asked_ms, max_ms } => Some((asked_ms, max_ms)),
            _ => None,
        }
    }

    /// Checks every setting, as [`Simulation::new`](super::Simulation::new) does, without setting a run up.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.check().map(|_| ())
    }

    pub(crate) fn check(&self) -> Result<Checked, ConfigError> {
        let s = self;
        Field::Clients.check(f64::from(s.clients))?;
        work::check_occ_clients(s)?;
        let policy = s.policy.build()?;
        Field::Outage.check(s.outage_ms)?;
        Field::OutageStart.check(s.outage_start_ms)?;
        Field::CapacityRps.check(s.capacity_rps)?;
        Field::RejectCost.check(s.reject_cost)?;
        self.check_servers()?;
        Field::Latency.check(s.latency_ms)?;
        if s.scenario == Scenario::AwsOcc && s.latency_ms == 0.0 {
            // Every message would land at the instant it left: no write ever overlaps
            // another, the run ends at 0 ms, and its rates divide by nothing.
            return Err(ConfigError::new(
                Field::Latency,
                Expected::Above {
                    min: 0.0,
                    max: super::MAX_LATENCY_MS,
                    unit: crate::error::Unit::Ms,
                },
                Got::Number(s.latency_ms),
            ));
        }
        let latency_sd = match s.latency_sd_ms {
            // An exponential leg's spread is its mean: a standard deviation beside it would
            // be ignored (aws-occ's messages are normal whatever the law says).
            Some(sd)
                if s.latency_dist == LatencyDist::Exponential && s.scenario != Scenario::AwsOcc =>
            {
                return Err(ConfigError::new(
                    Field::LatencySd,
                    Expected::Syntax(
                        "none with exponential latency, whose legs' standard \
                         deviation is their mean",
                    ),
                    Got::Number(sd),
                ));
            }
            Some(sd) => Field::LatencySd.check(sd)?,
            None => s.latency_ms / 5.0,
        };
        Field::BurstWindow.check(s.burst_window_ms)?;
        if let Some(ra) = s.retry_after_ms {
            Field::RetryAfter.check(ra)?;
        }
        Field::Slot.check(s.slot_ms)?;
        Field::Layers.check(f64::from(s.layers))?;
        let nets = s.nets.with_bucket(s.budget)?.validate()?;
        // With one attempt a request and no hedging nothing retries: the nets that act only
        // on retries change nothing, so they are not made (nor counted against the bounds on
        // a run's memory and work, which refused a million clients for a ratio budget that
        // could never refuse a request).
        let nets = if s.policy.max_attempts <= 1 && s.hedging.is_none() {
            nets.without_retries()
        } else {
            nets
        };
        let nets = (!nets.is_empty()).then_some(nets);
        if let Some(t) = s.timeout_ms {
            Field::Timeout.check(t)?;
        }
        let hedging = match s.hedging {
            Some(h) => Some(h.build()?),
            None => None,
        };
        if hedging.is_some() && s.layers > 1 {
            // A hedged call is a client's: hedging inside a chain is not modelled.
            return Err(ConfigError::new(
                Field::Layers,
                Expected::Syntax("1 with hedging (only clients hedge)"),
                Got::Number(f64::from(s.layers)),
            ));
        }
        // Every scenario's settings are checked in every scenario, as `burst_window_ms` is:
        // a NaN `duration_ms` given to a burst is a mistake too, though the burst ignores it.
        Field::Rate.check(s.rate_per_client)?;
        Field::Duration.check(s.duration_ms)?;
        Field::SpikeStart.check(s.spike_start_ms)?;
        Field::SpikeLength.check(s.spike_length_ms)?;
        Field::SpikeFactor.check(s.spike_factor)?;
        Field::Think.check(s.think_ms)?;
        debug_assert!(s.outage_start_ms + s.outage_ms <= 2.0 * MAX_DURATION_MS);
        let fleet = Fleet::of(s);
        let checked = Checked {
            s: s.clone(),
            policy,
            latency_sd,
            nets,
            fleet,
            hedging,
        };
        if matches!(s.scenario, Scenario::Steady | Scenario::Spike) {
            work::check_steady_requests(&checked)?;
        }
        // After the steady load's bound, which names fewer clients when both are passed (a
        // million clients with a breaker each named 335,544 for the nets' memory, then
        // 11,111 for the load).
        super::nets::check_clients(s, checked.nets.as_ref())?;
        work::check_closed_requests(&checked)?;
        work::check(&checked)?;
        Ok(checked)
    }
}

impl SimSettings {
    /// The servers' settings: each in range, and no more servers down than there are.
    fn check_servers(&self) -> Result<(), ConfigError> {
        let s = self;
        Field::Servers.check(f64::from(s.servers))?;
        if let Some(w) = s.workers {
            Field::Workers.check(f64::from(w))?;
        }
        if let Some(q) = s.queue {
            Field::Queue.check(f64::from(q))?;
        }
        if let Some(t) = s.queue_timeout_ms {
            Field::QueueTimeout.check(t)?;
        }
        Field::Service.check(s.service_ms)?;
        Field::ServiceSpread.check(s.service_spread)?;
        Field::ServiceSlope.check(s.service_slope_ms)?;
        Field::FailRate.check(s.fail_rate)?;
        if let Some(k) = s.outage_servers {
            Field::OutageServers.check(f64::from(k))?;
            if k > s.servers {
                return Err(ConfigError::range(
                    Field::OutageServers,
                    crate::error::Limit::whole(
                        0.0,
                        f64::from(s.servers),
                        crate::error::Unit::Count,
                    ),
                    f64::from(k),
                ));
            }
        }
        if let Some(sd) = s.slowdown {
            sd.validate()?;
        }
        // With workers derived from the capacity, the scaled service time must stay in
        // range: at least one request per server per day.
        let fleet = Fleet::of(s);
        if Field::Service.check(fleet.service_ms).is_err() {
            let min = f64::from(s.servers) * 1000.0 / MAX_DURATION_MS;
            let limit = crate::error::Limit::new(
                min,
                super::MAX_CAPACITY_RPS,
                crate::error::Unit::PerSecond,
            );
            return Err(ConfigError::range(
                Field::CapacityRps,
                limit,
                s.capacity_rps,
            ));
        }
        Ok(())
    }

    /// The servers these settings simulate.
    pub fn fleet(&self) -> Fleet {
        Fleet::of(self)
    }
}

#[cfg(test)]
#[path = "settings_tests.rs"]
mod tests;
