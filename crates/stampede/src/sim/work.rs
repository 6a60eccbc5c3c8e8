//! How much work one run may do, bounded when the settings are checked.
//!
//! A run's time and memory grow with the attempts it makes, and settings that are each in
//! range can multiply into far too many: a `steady` run of 2,000,000 requests with a long
//! outage and 100 attempts each makes 200 million attempts. A caller that runs it (a
//! browser tab, a CLI sweep) would be blocked for many seconds and, in wasm, keep the
//! memory for good. So a run is refused up front, before it allocates anything, when an
//! upper estimate of its attempts passes [`MAX_RUN_ATTEMPTS`]: requests × `max_attempts`,
//! the most its clients can make whatever the server does. The error names what to lower.
//! With a chain of layers, the attempts of every layer count (each is an event like a
//! client's): requests × (`a + a² + … + a^layers`) when every layer retries `a` times.
//!
//! `aws-occ` has no attempt limit (its clients retry until they win); its work is bounded
//! by [`MAX_OCC_CLIENTS`] instead: `n` clients make at most
//! `n(n+1)/2` writes, since each win can fail each other contender's write at most once.
//!
//! Runs averaged in one call ([`run_many`](super::run_many), so `simulate --runs`) are
//! bounded together by the same figure as one run ([`check_runs`]): each run passing its own
//! bound is not enough when `runs` multiplies a 2 s run into an hour. (A sweep is a batch
//! job as long as its grid: its runs are bounded one at a time.)

use super::herd::layers::attempts_per_request;
use super::{Checked, MAX_OCC_CLIENTS, MAX_STEADY_REQUESTS, Scenario, SimSettings};
use crate::error::{ConfigError, Expected, Field, Got, WorkBound};
use crate::policy::PolicySettings;

/// The most attempts a `burst` or `steady` run may make, estimated from its settings as
/// requests × `max_attempts` (for `steady`, requests = clients × rate × duration).
///
/// One attempt, its answer and its decision take ~90 ns natively (the 200 million
/// attempts in 18 s) and up to ~290 ns on a busy shared machine, so a run at the bound
/// takes about 2 s, 6 s at worst (measured: a `steady` run of 19,974,500 attempts in
/// 5.8 s, with 7 other builds sharing 2 cores). The 1,000,000-client burst with 6 attempts
/// each (6,000,000) is well inside it.
///
/// With a client timeout an attempt can make a third event (its arrival, its finish, its
/// timeout), and the work a timed-out attempt leaves at the server stays pending while its
/// retries go out, so the bound is then a third of this: a million clients with 6 attempts
/// and a 1 ms timeout against unlimited workers, the worst case, take 3.4 s natively (13
/// attempts took 9.4 s, most of it cache misses over 7 million pending events).
pub const MAX_RUN_ATTEMPTS: f64 = 20_000_000.0;

/// The attempts a run may make: [`MAX_RUN_ATTEMPTS`], a third of it with a timeout, a
/// sixth with hedging, an eighth with both; half or a fifth of that with safety nets (a
/// per-client token bucket only once the clients' buckets pass the cache:
/// [`nets_divisor`]), a quarter through layers ([`layers_divisor`]), a third when an event
/// can lie more than 10 minutes ahead ([`far_divisor`]), and half when a request's whole
/// life fits within a millisecond ([`crowd_divisor`]). A hedged attempt costs more than a
/// timed one: its hedge timer is an event too, and its request keeps a slot of its own (measured
/// natively with another build sharing the 2 cores: a million clients with `0ms:5`,
/// 5,000,000 hedged attempts, 4.1–6.4 s, 6.8 s with a 10 ms timeout too; both are now
/// refused, and a million at `0ms:3`, the most accepted, take about as long as the
/// unhedged runs at the bound).
pub(crate) fn max_run_attempts(c: &Checked) -> f64 {
    let divisor = match (c.s.timeout_ms.is_some(), c.hedging.is_some()) {
        (false, false) => 1.0,
        (true, false) => 3.0,
        (false, true) => 6.0,
        (true, true) => 8.0,
    };
    let divisor = divisor * nets_divisor(c) * layers_divisor(c) * far_divisor(c) * crowd_divisor(c);
    (MAX_RUN_ATTEMPTS / divisor).floor()
}

/// Waits longer than this (10 minutes) before an attempt divide a run's bound by 3 (see
/// [`far_divisor`]).
const FAR_WAIT_MS: f64 = 600_000.0;

/// Waits of more than [`FAR_WAIT_MS`] divide the bound by 3: such events go through the
/// coarse wheel (past the fine wheel's 32.8 s: two more copies) and, spread over minutes to
/// a day, reach memory cold every time. Measured in wasm (Node 20), 20,000,000 attempts of a
/// million failing clients: 3.1–4.9 s with full jitter capped at 30 s, 60 s or 2 minutes,
/// 5.1 s at 5 minutes, 5.3–7.4 s capped at 10 minutes to a day, and 11.4 s for a fresh
/// module's first run capped at a day (its memory grown for ~150 MB of coarse wheel);
/// 200,000 clients with 100 attempts capped at 10 minutes, 9.5 s. Natively 1.6 s against
/// 3.4 s.
///
/// Not only a retry's wait: any event that far ahead goes the same way, so the timeout's
/// timer, a service time and the burst's window count too (in wasm, a million clients
/// queued for a day's service with a day's timeout and their first attempts spread over a
/// day took 8–12 s, with browser tests sharing the 2 cores). A trip is at most a minute.
fn far_divisor(c: &Checked) -> f64 {
    let s = &c.s;
    let ahead = [
        longest_wait_ms(c),
        s.timeout_ms.unwrap_or(0.0),
        c.fleet.service_ms,
        s.burst_window_ms,
    ];
    if ahead.into_iter().fold(0.0, f64::max) > FAR_WAIT_MS {
        3.0
    } else {
        1.0
    }
}

/// A request whose whole life fits within a millisecond (a trip of the network and the
/// wait before its first retry under 1 ms) divides the bound by 2: its events crowd the millisecond
/// being handed out, which the wheel orders through its late queue and finer buckets
/// rather than its buckets (measured natively: 200,000 clients retrying 100 times with no
/// delay over 0.01 ms trips, 4.6–5.0 s for 20 million attempts against 2.3 s for a
/// million clients' 20).
///
/// Told from the latency and the first wait alone (the base delay, the hedge delay, or the
/// outage's Retry-After), not from the attempts: the error that names `max_attempts` says
/// how many fit, and that must hold for the count it names.
fn crowd_divisor(c: &Checked) -> f64 {
    if c.s.latency_ms < 1.0 && first_wait_ms(c) < 1.0 {
        2.0
    } else {
        1.0
    }
}

/// The shortest a request's first retry waits, whatever the attempts: the hedge delay with
/// hedging, else the backoff's base (full jitter draws its first delay below it: the base
/// is its spread) or the outage's Retry-After when the policy honours it.
fn first_wait_ms(c: &Checked) -> f64 {
    use crate::backoff::Strategy;
    if let Some(h) = c.hedging {
        return h.delay_ms();
    }
    let b = c.policy.backoff();
    let backoff = match b.strategy() {
        Strategy::None => 0.0,
        _ => b.base_ms(),
    };
    backoff.max(honoured_hint_ms(c))
}

/// The longest a request can wait before an attempt: with hedging (which replaces the
/// policy's retries), the hedge delay; otherwise, when it retries at all, its backoff's
/// longest delay (the ceiling of its last retry, or the cap for the decorrelated
/// strategies) or the outage's Retry-After (sent in whole seconds), unless that is longer
/// than the policy waits (it then stops instead).
fn longest_wait_ms(c: &Checked) -> f64 {
    use crate::backoff::Strategy;
    if let Some(h) = c.hedging {
        return h.delay_ms();
    }
    let b = c.policy.backoff();
    let retries = c.policy.max_attempts().saturating_sub(1);
    if retries == 0 {
        return 0.0;
    }
    let backoff = match b.strategy() {
        Strategy::None => 0.0,
        Strategy::Constant => b.base_ms(),
        Strategy::Exponential | Strategy::Full | Strategy::Equal => b.ceiling_ms(retries - 1),
        Strategy::Decorrelated | Strategy::DecorrelatedV2 => b.cap_ms(),
    };
    backoff.max(honoured_hint_ms(c))
}

/// The outage's hint as the policy reads it: a retry waits for it, unless it is longer than
/// the policy waits (the answer is then not retried: 0).
fn honoured_hint_ms(c: &Checked) -> f64 {
    let outage = super::herd::outage_verdict(c);
    if outage.is_retryable() {
        outage.hint_ms().unwrap_or(0.0)
    } else {
        0.0
    }
}

/// A chain of layers divides the bound by 4: each layer's call is a trip down and an
/// answer up, with its caller's frame parked meanwhile, about four plain attempts' work
/// and more memory (measured natively: a million clients, 2 attempts at the top of 10
/// layers, 20,000,000 calls, 6.1 s and 608 MB; 7.8 s and 851 MB with 60 s of latency; a
/// plain run of 20,000,000 attempts, 1.2 s).
fn layers_divisor(c: &Checked) -> f64 {
    if c.s.layers > 1 { 4.0 } else { 1.0 }
}

/// Per-client guards' state past this many bytes no longer stays in cache.
const GUARDS_IN_CACHE: f64 = 4_000_000.0;

/// What the safety nets divide the bound by. Beyond a plain token bucket (a breaker, a
/// throttle, another school of budget: a [`Guard`](crate::nets::Guard) each): 2 for their
/// own work on every attempt (a breaker's window, measured 2.5× a run without nets at
/// 20,000 clients), 5 once one guard per client no longer fits in cache (168 bytes each; a
/// random client's guard is then a cache miss twice an attempt: 100,000 clients, 6×;
/// 335,544 clients at the former bound, 9.5 s against 1.0 s). A plain bucket costs next to
/// nothing while the clients' buckets fit in cache, and 2 once they do not (48 bytes each:
/// a million clients retrying 20 times with no delay, 5.2–7.4 s against 2.3–2.8 s without
/// it, 12–14 s in Node).
fn nets_divisor(c: &Checked) -> f64 {
    let Some(n) = &c.nets else { return 1.0 };
    let per_client = c.s.budget_scope == crate::sim::BudgetScope::Client;
    let (each, in_cache, out) = if super::nets::bucket_only(n) {
        (size_of::<crate::budget::TokenBucket>(), 1.0, 2.0)
    } else {
        (size_of::<crate::nets::Guard>(), 2.0, 5.0)
    };
    if per_client && f64::from(c.s.clients) * each as f64 > GUARDS_IN_CACHE {
        out
    } else {
        in_cache
    }
}

/// The most attempts one request can make: at every layer together, or, with hedging
/// (which replaces the policy's retries and is refused with more than one layer), the
/// hedging's attempts.
fn per_request(s: &SimSettings) -> f64 {
    match s.hedging {
        Some(h) => f64::from(h.max_attempts.max(1)),
        None => attempts_per_request(s.policy.max_attempts.max(1), s.layers.max(1), s.retry_at),
    }
}

/// The most attempts `c`'s run can make: requests × `max_attempts` (at every layer, see
/// [`per_request`]); `None` for `aws-occ`, which [`MAX_OCC_CLIENTS`]
/// bounds.
pub(crate) fn attempts_bound(c: &Checked) -> Option<f64> {
    let s = &c.s;
    let attempts = per_request(s);
    match s.scenario {
        Scenario::Burst => Some(f64::from(s.clients) * attempts),
        Scenario::Steady | Scenario::Spike => Some(steady_requests(s) * attempts),
        Scenario::Closed => Some(closed_requests(c) * attempts),
        Scenario::AwsOcc => None,
    }
}

/// The most attempts one request makes at one layer, and the setting that says so: the
/// hedging's attempts with hedging (which replaces the policy's retries), else the policy's.
fn attempts_of_one(c: &Checked) -> (Field, u32) {
    match c.hedging {
        Some(h) => (Field::HedgeMaxAttempts, h.max_attempts()),
        None => (Field::MaxAttempts, c.policy.max_attempts()),
    }
}

/// The expected requests of a `steady` or `spike` run: clients × rate × duration, the
/// spike's part of the duration counted `spike_factor` times.
pub(crate) fn steady_requests(s: &SimSettings) -> f64 {
    f64::from(s.clients) * s.rate_per_client * effective_duration(s) / 1000.0
}

/// The duration with the spike's overlap counted `spike_factor` times (ms).
fn effective_duration(s: &SimSettings) -> f64 {
    s.duration_ms + spike_overlap(s) * (s.spike_factor - 1.0)
}

/// How much of the duration the spike covers (ms; 0 for a run that is no spike).
fn spike_overlap(s: &SimSettings) -> f64 {
    if s.scenario != Scenario::Spike {
        return 0.0;
    }
    let from = s.spike_start_ms.min(s.duration_ms);
    let to = (s.spike_start_ms + s.spike_length_ms).min(s.duration_ms);
    to - from
}

/// A closed-loop client's shortest mean cycle: think, the round trip and a service time
/// (ms), without the service when requests can fail at once (an outage during the run, or
/// a breaker or throttle that refuses before sending): those never wait for a server, and a
/// loop with no think and no latency then cycles in no time at all (a link of such settings
/// with a 10-minute outage was accepted at 100,000 ms, then cut at its bound after seconds
/// of work, and the duration it then named, 0 ms, was none the page could take).
pub(crate) fn closed_cycle_ms(c: &Checked) -> f64 {
    let s = &c.s;
    let outage = s.outage_ms > 0.0 && s.outage_start_ms < s.duration_ms;
    let refusing = c
        .nets
        .as_ref()
        .is_some_and(|n| n.breaker.is_some() || n.throttle.is_some());
    let service = if outage || refusing {
        0.0
    } else {
        c.fleet.service_ms
    };
    s.think_ms + s.latency_ms + service
}

/// The expected requests of a `closed` run: clients × duration / cycle, and at least one
/// a client (every client sends its first at once, however short the run). The engine
/// also stops issuing at [`MAX_STEADY_REQUESTS`] × 2, so a run of unlucky draws cannot go
/// on.
pub(crate) fn closed_requests(c: &Checked) -> f64 {
    f64::from(c.s.clients) * (c.s.duration_ms / closed_cycle_ms(c)).max(1.0)
}

/// Refuses a `closed` run whose expected requests pass [`MAX_STEADY_REQUESTS`], or whose
/// attempts pass the run's bound ([`max_run_attempts`]: less with a timeout, hedging,
/// safety nets or layers), naming `duration` with the longest that fits. When not even the
/// shortest duration fits (a cycle of almost nothing: no think, no latency, a tiny service
/// time), it names `think` with the least that fits there instead: naming the duration
/// would ask for less than it takes, and a front end that falls back to the named field's
/// default (the page, from a link) would still be refused. When the clients' first
/// requests alone pass the bound (many attempts, or many layers), it names the attempts
/// or the layers instead, with the most that fit one request a client.
pub(crate) fn check_closed_requests(c: &Checked) -> Result<(), ConfigError> {
    if c.s.scenario != Scenario::Closed {
        return Ok(());
    }
    let run_max = max_run_attempts(c);
    let max_requests = MAX_STEADY_REQUESTS.min(run_max / per_request(&c.s));
    if closed_requests(c) <= max_requests {
        return Ok(());
    }
    let clients = f64::from(c.s.clients);
    if clients > max_requests {
        // Each client's first request alone is too many at these attempts: no duration or
        // think fixes that (one request at all may be too many, at ten layers).
        return Err(too_many_attempts(c, clients, run_max));
    }
    let max = (max_requests * closed_cycle_ms(c) / clients).floor();
    let shortest = Field::Duration.limit().map_or(1.0, |l| l.min);
    if max < shortest {
        // clients × shortest / (think + latency + service) ≤ max_requests, rounded up to
        // a whole ms: at most a million clients' 1 ms over one request, 1,000,000 ms,
        // within think's range.
        let least = clients * shortest / max_requests - (closed_cycle_ms(c) - c.s.think_ms);
        return Err(ConfigError::new(
            Field::Think,
            Expected::WorkAtLeast {
                min: least.max(0.0).ceil(),
                bound: WorkBound::ClosedThink,
            },
            Got::Number(c.s.think_ms),
        ));
    }
    let expected = Expected::Work {
        max,
        bound: WorkBound::ClosedRequests,
    };
    Err(ConfigError::new(
        Field::Duration,
        expected,
        Got::Number(c.s.duration_ms),
    ))
}

/// Refuses a run whose attempts could pass [`MAX_RUN_ATTEMPTS`]. The error names
/// `max_attempts` with the largest value that fits the other settings (always at least 1:
/// the clients and [`MAX_STEADY_REQUESTS`] are bounded well
/// below the bound), and its wording says what else to lower.
pub(crate) fn check(c: &Checked) -> Result<(), ConfigError> {
    let Some(bound) = attempts_bound(c) else {
        return Ok(());
    };
    let max = max_run_attempts(c);
    if bound <= max {
        return Ok(());
    }
    Err(too_many_attempts(c, bound / per_request(&c.s), max))
}

/// The error for `requests` whose attempts pass `max`: the attempts (per layer, or the
/// layers) with the most that fit.
fn too_many_attempts(c: &Checked, requests: f64, max: f64) -> ConfigError {
    if c.s.layers > 1 {
        return too_many_layer_attempts(c, requests, max);
    }
    let (field, attempts) = attempts_of_one(c);
    let fit = (max / requests).floor();
    let fewest = field.limit().map_or(1.0, |l| l.min.max(1.0));
    if fit < fewest {
        // Not even the fewest attempts a request may make fit: the requests are too many,
        // and naming the attempts would ask for fewer than the field takes.
        return too_many_requests(c, requests, max / fewest);
    }
    ConfigError::new(
        field,
        Expected::Work {
            max: fit,
            bound: WorkBound::RunAttempts,
        },
        Got::Number(f64::from(attempts)),
    )
}

/// The error for `requests` that pass a run's bound even at the fewest attempts each, when
/// `max_requests` fit: a steady load's rate (or its clients, when no rate fits), else the
/// clients, with the most that fit.
#[cold]
#[inline(never)]
fn too_many_requests(c: &Checked, requests: f64, max_requests: f64) -> ConfigError {
    if matches!(c.s.scenario, Scenario::Steady | Scenario::Spike) {
        return steady_refusal(&c.s, max_requests);
    }
    let clients = f64::from(c.s.clients);
    let per_client = requests / clients;
    ConfigError::new(
        Field::Clients,
        Expected::Work {
            max: (max_requests / per_client).floor().max(1.0),
            bound: WorkBound::RunClients,
        },
        Got::Number(clients),
    )
}

/// The error for a chain of layers whose attempts pass `max` for `requests`: `max_attempts`
/// with the most attempts per layer that fit, or, when not even one does, `layers` with
/// the most layers that fit at one attempt each (at least 1: `requests` fit the bound).
#[cold]
#[inline(never)]
fn too_many_layer_attempts(c: &Checked, requests: f64, max: f64) -> ConfigError {
    let s = &c.s;
    let fits = |a: u32, l: u32| requests * attempts_per_request(a, l, s.retry_at) <= max;
    // The layers changed and the attempts their default: the layers are named, with the
    // most that fit at these attempts (`--layers 10` named `--attempts`, never set), when a
    // chain fits at all (else the attempts or the layers at one attempt each, below). Not in
    // a closed loop, whose requests depend on the layers (each adds to a request's time).
    let default_attempts = PolicySettings::default().max_attempts;
    if s.policy.max_attempts == default_attempts
        && s.scenario != Scenario::Closed
        && let Some(layers) = (2..s.layers).rev().find(|&l| fits(default_attempts, l))
    {
        let expected = Expected::Work {
            max: f64::from(layers),
            bound: WorkBound::LayersAtAttempts,
        };
        return ConfigError::new(Field::Layers, expected, Got::Number(f64::from(s.layers)));
    }
    let attempts = (1..s.policy.max_attempts)
        .rev()
        .find(|&a| fits(a, s.layers));
    let (field, max, bound, got) = match attempts {
        Some(a) => (
            Field::MaxAttempts,
            a,
            WorkBound::LayerAttempts,
            s.policy.max_attempts,
        ),
        None => {
            let layers = (1..s.layers).rev().find(|&l| fits(1, l)).unwrap_or(1);
            (Field::Layers, layers, WorkBound::Layers, s.layers)
        }
    };
    let expected = Expected::Work {
        max: f64::from(max),
        bound,
    };
    ConfigError::new(field, expected, Got::Number(f64::from(got)))
}

/// The most writes (estimated as `n(n+1)/2` a run) the `aws-occ` runs of one call may make
/// together. The estimate is three times what a run without backoff makes (about `n²/6`),
/// and a write costs a fraction of a `burst` attempt (34–41 M writes a second on 2 threads),
/// so this is about as long as [`MAX_RUN_ATTEMPTS`]: eight runs at
/// [`MAX_OCC_CLIENTS`], 5,500 at the AWS experiment's 190 clients.
pub const MAX_OCC_WRITES: f64 = 100_000_000.0;

/// What a run costs however few attempts it makes, in attempts' worth of time (~100 ns
/// each): setting up its wheel and recorder, ~11 µs natively (100,000 runs of one client
/// in 1.1 s).
const RUN_SETUP_ATTEMPTS: f64 = 110.0;

/// What each server adds to that: its state and its place in the balancer, ~20 ns
/// (100,000 runs of two clients and 10,000 servers took 21 s).
const SERVER_SETUP_ATTEMPTS: f64 = 0.2;

/// Refuses `runs` runs of `c` that together could do more than the largest single run
/// may ([`MAX_RUN_ATTEMPTS`], less with a timeout or hedging; [`MAX_OCC_WRITES`] for
/// `aws-occ`), naming `runs` with the most that fit (at least 1: one run passed its own
/// bound). Each run is bounded on its own; without this, `runs` would multiply a run of a
/// few seconds into hours (a 100,000-client burst 100,000 times). A run's setup counts
/// too ([`RUN_SETUP_ATTEMPTS`], [`SERVER_SETUP_ATTEMPTS`]): 100,000 runs of two clients
/// make few attempts, but set up 100,000 runs.
pub(crate) fn check_runs(c: &Checked, runs: u32) -> Result<(), ConfigError> {
    let setup = RUN_SETUP_ATTEMPTS + SERVER_SETUP_ATTEMPTS * f64::from(c.s.servers);
    let (each, max) = match attempts_bound(c) {
        Some(attempts) => (attempts + setup, max_run_attempts(c)),
        None => {
            let n = f64::from(c.s.clients);
            (n * (n + 1.0) / 2.0, MAX_OCC_WRITES)
        }
    };
    // One run passed its own bound (its setup is part of what that bound allows).
    if runs <= 1 || each * f64::from(runs) <= max {
        return Ok(());
    }
    let expected = Expected::Work {
        max: (max / each).floor().max(1.0),
        bound: WorkBound::Runs,
    };
    Err(ConfigError::new(
        Field::Runs,
        expected,
        Got::Number(f64::from(runs)),
    ))
}

/// Refuses an `aws-occ` run of more than [`MAX_OCC_CLIENTS`], naming `clients`.
pub(crate) fn check_occ_clients(s: &SimSettings) -> Result<(), ConfigError> {
    if s.scenario != Scenario::AwsOcc || s.clients <= MAX_OCC_CLIENTS {
        return Ok(());
    }
    let expected = Expected::Work {
        max: f64::from(MAX_OCC_CLIENTS),
        bound: WorkBound::OccClients,
    };
    Err(ConfigError::new(
        Field::Clients,
        expected,
        Got::Number(f64::from(s.clients)),
    ))
}

/// Refuses a `steady` run of more than [`MAX_STEADY_REQUESTS`], naming the setting most
/// likely changed (see [`steady_refusal`]) with its largest value that fits, so a front end
/// can say what would work: within the request bound, and within the run's attempts
/// ([`max_run_attempts`]: less with a timeout, hedging, nets or layers) at these attempts
/// (with [`MAX_RUN_ATTEMPTS`] instead, the rate it named with a timeout was then refused
/// for its attempts, a value the user never set).
pub(crate) fn check_steady_requests(c: &Checked) -> Result<(), ConfigError> {
    let s = &c.s;
    if steady_requests(s) <= MAX_STEADY_REQUESTS {
        return Ok(());
    }
    let attempts = per_request(s);
    Err(steady_refusal(
        s,
        MAX_STEADY_REQUESTS.min(max_run_attempts(c) / attempts),
    ))
}

/// The error for a steady load of more than `max_requests`. Requests are clients × rate ×
/// duration, so any of the three could be named; the one named is the one most likely
/// changed, read from the defaults: the rate, with the largest rate that fits, unless the
/// rate is its default: then the duration, with the longest that fits, unless that too is
/// its default: then a spike's factor, with the largest that fits, unless that too is its
/// default: then the clients (a day of load at the default rate blamed the rate, which the
/// user never set; a spike × 1000 blamed the clients). When the named setting has no value its field takes that fits (a
/// million clients over a day with a long spike), the most clients that fit at this rate.
fn steady_refusal(s: &SimSettings, max_requests: f64) -> ConfigError {
    let defaults = SimSettings::default();
    let least = |field: Field| field.limit().map_or(0.0, |l| l.min);
    let max_rate = max_requests * 1000.0 / (f64::from(s.clients) * effective_duration(s));
    if s.rate_per_client != defaults.rate_per_client && max_rate >= least(Field::Rate) {
        return work_error(
            Field::Rate,
            max_rate,
            WorkBound::SteadyRequests,
            s.rate_per_client,
        );
    }
    if s.rate_per_client == defaults.rate_per_client && s.duration_ms != defaults.duration_ms {
        let max_effective = max_requests * 1000.0 / (f64::from(s.clients) * s.rate_per_client);
        let max_duration = longest_duration(s, max_effective).floor();
        if max_duration >= least(Field::Duration) {
            return work_error(
                Field::Duration,
                max_duration,
                WorkBound::SteadyDuration,
                s.duration_ms,
            );
        }
    }
    if s.rate_per_client == defaults.rate_per_client && s.spike_factor != defaults.spike_factor {
        // A spike's factor, the setting left: effective = duration + overlap × (factor − 1).
        let max_effective = max_requests * 1000.0 / (f64::from(s.clients) * s.rate_per_client);
        let overlap = spike_overlap(s);
        let max_factor = 1.0 + (max_effective - s.duration_ms) / overlap;
        if overlap > 0.0 && max_factor >= least(Field::SpikeFactor) {
            return work_error(
                Field::SpikeFactor,
                max_factor,
                WorkBound::SteadySpike,
                s.spike_factor,
            );
        }
    }
    let max_clients = (max_requests * 1000.0 / (s.rate_per_client * effective_duration(s))).floor();
    work_error(
        Field::Clients,
        max_clients.max(1.0),
        WorkBound::SteadyClients,
        f64::from(s.clients),
    )
}

/// A refusal of `field`'s value `got` at a work bound, whose largest value that fits is `max`.
fn work_error(field: Field, max: f64, bound: WorkBound, got: f64) -> ConfigError {
    ConfigError::new(field, Expected::Work { max, bound }, Got::Number(got))
}

/// The longest duration (ms) whose effective duration (see [`effective_duration`]) is at
/// most `effective`: the inverse of that piecewise-linear, increasing function.
fn longest_duration(s: &SimSettings, effective: f64) -> f64 {
    if s.scenario != Scenario::Spike || effective <= s.spike_start_ms {
        return effective;
    }
    let (start, factor) = (s.spike_start_ms, s.spike_factor);
    // Ending within the spike: effective = d + (d − start)(factor − 1).
    let within = (effective + start * (factor - 1.0)) / factor;
    if within <= start + s.spike_length_ms {
        within
    } else {
        effective - s.spike_length_ms * (factor - 1.0)
    }
}

#[cfg(test)]
#[path = "work_run_tests.rs"]
mod run_tests;
#[cfg(test)]
#[path = "work_tests.rs"]
mod tests;
