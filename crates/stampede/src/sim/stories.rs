//! The published storm stories, as settings: what the tests reproduce, the benchmarks
//! time, and the page's presets show (the page keeps its own copy of these numbers in
//! `www/src/logic/presets.ts`, checked against these by its tests).
//!
//! 1. **Timeouts turn a spike into a collapse** (Marc Brooker's `simple_collapse_sim`):
//!    [`collapse`], and [`collapse_jittered`] which recovers.
//! 2. **A short crash of one server of two keeps a fleet down**: [`crash`] with immediate
//!    retries, [`crash_without_retries`] and [`crash_with_jitter_and_budget`], which
//!    recover.
//! 3. **LIFO or a queue timeout keeps goodput up** under story 2's overload:
//!    [`crash_lifo`], [`crash_queue_timeout`].

use super::model::{LatencyDist, QueueOrder, ServiceDist};
use super::{Scenario, SimSettings};
use crate::backoff::{BackoffSettings, Strategy};
use crate::budget::BudgetSettings;
use crate::policy::PolicySettings;

fn immediate(attempts: u32) -> PolicySettings {
    PolicySettings::new(BackoffSettings::new(Strategy::None, 0.0, 0.0), attempts)
}

/// Story 1: Poisson arrivals at 40/s (1000 clients at 0.04/s), ×2 from t = 20 s for 5 s;
/// unlimited workers whose service takes 1 s + 10 ms per request already in service;
/// network legs exponential with mean 100 ms; a 3 s timeout; 3 attempts, retried at once;
/// an 80 s run. After the spike, goodput stays near zero while the server is busy with
/// abandoned work: in this seed, and in 145 of seeds 1 to 200 (the other 55 recover: the
/// system is bistable, and a storm is likely, not certain).
pub fn collapse() -> SimSettings {
    SimSettings {
        scenario: Scenario::Spike,
        clients: 1000,
        rate_per_client: 0.04,
        duration_ms: 80_000.0,
        spike_start_ms: 20_000.0,
        spike_length_ms: 5_000.0,
        spike_factor: 2.0,
        outage_ms: 0.0,
        workers: Some(0),
        service_ms: 1000.0,
        service_dist: ServiceDist::Constant,
        service_slope_ms: 10.0,
        latency_ms: 200.0,
        latency_dist: LatencyDist::Exponential,
        timeout_ms: Some(3000.0),
        policy: immediate(3),
        slot_ms: 1000.0,
        ..SimSettings::default()
    }
}

/// Story 1 with full jitter (base 20 s, cap 60 s) instead of immediate retries.
pub fn collapse_jittered() -> SimSettings {
    SimSettings {
        policy: PolicySettings::new(BackoffSettings::new(Strategy::Full, 20_000.0, 60_000.0), 3),
        ..collapse()
    }
}

/// Story 2: Poisson arrivals at 70/s (1000 clients at 0.07/s); 2 servers of 5 workers,
/// exponential service with mean 100 ms (70% busy), queues of 1000; a 1 s timeout; 3
/// immediate retries; one server fails fast for 5 s from t = 10 s; a 60 s run. Goodput
/// goes to zero and stays there.
pub fn crash() -> SimSettings {
    SimSettings {
        scenario: Scenario::Steady,
        clients: 1000,
        rate_per_client: 0.07,
        duration_ms: 60_000.0,
        servers: 2,
        workers: Some(5),
        service_ms: 100.0,
        service_dist: ServiceDist::Exponential,
        queue: Some(1000),
        timeout_ms: Some(1000.0),
        outage_start_ms: 10_000.0,
        outage_ms: 5_000.0,
        outage_servers: Some(1),
        policy: immediate(4),
        slot_ms: 1000.0,
        ..SimSettings::default()
    }
}

/// Story 2 without retries: goodput returns to 70/s as soon as the server is back.
pub fn crash_without_retries() -> SimSettings {
    SimSettings {
        policy: immediate(1),
        ..crash()
    }
}

/// Story 2 with Stampede's advice: full jitter (base 100 ms, cap 5 s) and a retry budget
/// per client (1 token, 0.04 a second): it recovers. The fleet's refill, 1000 × 0.04 = 40
/// retries a second, is well inside the servers' spare capacity; a refill of 0.1 a second
/// each (100 a second, the whole capacity) recovered on only some seeds.
pub fn crash_with_jitter_and_budget() -> SimSettings {
    SimSettings {
        policy: PolicySettings::new(BackoffSettings::new(Strategy::Full, 100.0, 5_000.0), 4),
        budget: Some(BudgetSettings::new(1.0, 0.04)),
        ..crash()
    }
}

/// Story 3: story 2's overload with the newest request served first.
pub fn crash_lifo() -> SimSettings {
    SimSettings {
        queue_order: QueueOrder::Lifo,
        ..crash()
    }
}

/// Story 3: story 2's overload with a queue timeout of 300 ms, well inside the clients'
/// 1 s timeout (a queue timeout at or past the clients' timeout drops only requests
/// whose clients have given up anyway).
pub fn crash_queue_timeout() -> SimSettings {
    SimSettings {
        queue_timeout_ms: Some(300.0),
        ..crash()
    }
}

/// `s` with `k` times the clients and the servers: the same story at scale (the
/// benchmarks run story 2 at 100×: 7,000/s, 200 servers, 100,000 clients).
pub fn scaled(s: &SimSettings, k: u32) -> SimSettings {
    SimSettings {
        clients: s.clients * k,
        servers: s.servers * k,
        outage_servers: s.outage_servers.map(|o| o * k),
        ..s.clone()
    }
}
