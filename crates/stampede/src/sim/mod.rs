//! The thundering-herd simulator: seeded clients against a server that fails and recovers.
//!
//! In `burst` and `steady`, every client decides *whether and when* to retry by asking the
//! crate's own [`Policy`](crate::policy::Policy) — the same code the browser's `retryFetch` runs — so what the
//! simulator shows is what the library does. `aws-occ` is the exception: it reproduces a
//! published experiment whose clients retry until they win, so they draw their waits from
//! the policy's [`Backoff`](crate::backoff::Backoff) directly, and `max_attempts`,
//! `max_elapsed`, the rules and the budget do not apply to it.
//!
//! # Model
//!
//! Discrete events in simulated time (ms; never a clock), one seeded
//! [`SeededRng`](crate::SeededRng), one event per attempt. Events happen in the order of
//! their exact times (ties, which need equal `f64` times, in the order they were
//! scheduled), so the server serves whoever arrives first, whatever the age of the request:
//!
//! - **Scenarios.** [`Scenario::Burst`]: every client sends one request at t = 0 (or
//!   uniformly within `burst_window_ms`). [`Scenario::Steady`]: clients send new requests as
//!   a Poisson process of `rate_per_client` per second each, for `duration_ms`.
//!   [`Scenario::Spike`]: the same, `spike_factor` times as fast for `spike_length_ms` from
//!   `spike_start_ms`. [`Scenario::Closed`]: each client sends a request, waits for it to
//!   end, pauses (exponential, mean `think_ms`) and sends the next, for `duration_ms`.
//!   [`Scenario::AwsOcc`]: the AWS Architecture Blog's contention experiment (see
//!   [`occ`](self#the-aws-contention-experiment) below).
//! - **Servers** (see `server.rs`). `servers` identical servers behind a load balancer
//!   ([`Balance`]), each with `workers` concurrent slots and a queue of at most `queue`
//!   waiting requests served [`QueueOrder::Fifo`] or [`QueueOrder::Lifo`]; [`Fleet`] sizes
//!   them from `capacity_rps` when no workers are given. A request that finds the queue full
//!   is rejected at once with 503, and the rejection costs `reject_cost` of a service time,
//!   so once rejections come fast enough, goodput falls to zero — the metastable failure
//!   in which a retry storm keeps a recovered server down. Service times are
//!   [`ServiceDist`]-distributed around `service_ms`, grow by `service_slope_ms` per
//!   request already in service, and by the [`Slowdown`]'s factor in its window; a queue
//!   timeout drops what waited too long. During the outage, `[outage_start_ms,
//!   outage_start_ms + outage_ms)`, every attempt at the first `outage_servers` servers
//!   fails at once with 503 (and `Retry-After` when `retry_after_ms` is set, in whole
//!   seconds, rounded up); `fail_rate` fails any other with 500 at random.
//! - **Clients.** With `timeout_ms`, a client gives an attempt up that long after sending
//!   it: the policy sees the transport error `timeout` (so backoff, budget and attempt
//!   limits apply as to any failure), the server still finishes the work, and its late
//!   answer is discarded (counted as `wasted`). An answer that reaches the client exactly
//!   at the deadline is late.
//! - **Network.** Each one-way trip ([`LatencyDist::Normal`]) takes `latency/2` ms plus
//!   uniform jitter, never less than 0, so that a round trip has mean `latency` and
//!   standard deviation `sd` (`latency_sd_ms`, defaulting to `latency/5`);
//!   ([`LatencyDist::Exponential`]) exponential with mean `latency/2`. The client decides
//!   when the answer arrives, and its budget is charged then. Answers can arrive in
//!   another order than their attempts reached the server, by up to the spread of one
//!   trip, so a bucket can be asked about a time somewhat earlier than one it has already
//!   seen; it then answers as of the later time (a bucket never runs backwards), which
//!   can give the earlier decision at most `refill_per_sec` × that spread / 1000 extra
//!   tokens.
//! - **Layers** (see `layers.rs`). With `layers` above 1, clients call a chain of
//!   services and the servers above are its last layer; the layers between pass calls
//!   on at the cost of a network trip each way, and retry too or not ([`RetryAt`]).
//! - **Budgets.** A [`TokenBucket`](crate::budget::TokenBucket) per client, or one shared by
//!   all ([`BudgetScope`]). While it is empty, new requests and retries fail fast and
//!   count as `budget_rejected`.
//! - **Safety nets** ([`crate::nets`], `SimSettings::nets`): a budget of another school
//!   (ratio, gRPC, AWS), a circuit breaker, adaptive throttling, per client or shared by
//!   the same `budget_scope`. What they refuse fails fast and counts apart:
//!   `budget_rejected` (any budget), `breaker_rejected`, `throttled`.
//! - **Hedging** (`hedging`; the rules are [`crate::hedge`]'s). A request sends another
//!   attempt whenever none has answered `delay_ms` after the last one was sent (at once
//!   after a non-fatal failure), up to `max_attempts` in all, instead of retrying; the
//!   first success wins. The losers are cancelled by their client only: a server still
//!   serves them, and that work is `wasted`, as for a timed-out attempt (see `hedged.rs`
//!   for why). The hedge timer is an event in the same wheel. `hedges` counts the extra
//!   attempts, so without a budget `total_attempts = requests + hedges`.
//!
//! # Metrics
//!
//! See [`Metrics`]. Two need a precise definition:
//! - `peak_rps` is the most attempts that reached the server in any 100 consecutive whole
//!   milliseconds, ×10; `peak_recovery_rps` counts only attempts at or after the outage's end:
//!   the spike that hits the recovering server.
//! - `recovery_ms` is the time from the outage's end to the end of the last 100 ms window
//!   (windows aligned to the outage's end) in which the server rejected an attempt for
//!   overload: from then on, it serves everything offered. 0 when it never rejected one.
//!
//! Conservation: every request ends exactly once, so
//! `successes + gave_up + budget_rejected + breaker_rejected + throttled = requests`; every attempt that reaches a
//! server is served, rejected or failed exactly once; served = successes + wasted.
//!
//! # Series and the attempt log
//!
//! Per slot of `slot_ms` (default 10 ms), as flat `u32` buffers (see [`Series`]): attempts
//! offered, served (finished by a server), rejected for overload, failed by the outage or
//! the fail rate, requests blocked by the budget, successes reaching their clients
//! (goodput), attempts timed out, work wasted, and the queue length at the slot's end. The
//! attempt log holds `[t_ms, client, attempt, outcome]` as four `f32`s per attempt (the
//! time the server answered it, or the client's deadline for a timeout), for the
//! clients `0, stride, 2·stride, …` (at most `log_clients` of them), so a page can draw every
//! attempt of thousands of clients; [`record::outcome`] lists the codes.
//!
//! # Speed and memory
//!
//! A timing wheel of 1 ms buckets keeps each event O(1) with nothing allocated per event.
//! It carries the events themselves, in chunks of eight, so that taking a bucket reads
//! memory in order instead of chasing a million scattered records; a bucket is put in time
//! order when the wheel reaches it, in time linear in its events. A server's finish, a
//! client's timeout and a tick of the arrival process are events like an attempt's
//! arrival, of the same 64 bytes, in the same wheel: no heap. Memory per client: its
//! request record in the wheel (64 bytes, twice with a timeout; chunks are 8 · 64 + 8
//! bytes, and the pool is reserved for the worst case, one chunk per pending request up to
//! 32,768 partly filled ones, touched only as used), with a timeout a 4-byte ticket per
//! request in flight, and, with a per-client budget, one bucket (48 bytes), or with any other
//! safety net a guard (168 bytes, plus 232 for a breaker and 200 for a throttle on the heap:
//! about 600 bytes a client with every net, so per-client nets are bounded to
//! [`MAX_NETS_BYTES`] in all); the wheel
//! itself is 256 KiB; a waiting request sits in its server's queue (64 bytes). The series
//! grow with simulated time (36 bytes per slot, at most 2^20 slots), the log with logged
//! attempts (16 bytes each, at most 2,000,000 entries), the latencies with successes (4
//! bytes each).
//!
//! The work is bounded before a run starts: requests × `max_attempts` may not pass
//! [`MAX_RUN_ATTEMPTS`], nor a `steady` or `spike` run's requests [`MAX_STEADY_REQUESTS`],
//! nor a `closed` run's expected requests (clients × duration / mean cycle), nor an
//! `aws-occ` run's clients [`MAX_OCC_CLIENTS`], so every run that is accepted ends within
//! a few seconds and bounded memory. An attempt makes at most three events (its arrival,
//! its finish, its timeout).
//!
//! # The AWS contention experiment
//!
//! As in `aws-samples/aws-arch-backoff-simulator`: one row with a version number; `clients`
//! clients start at t = 0 and each must make exactly one successful conditional write. A
//! client reads the version, then writes with it; the write succeeds only if the version is
//! unchanged (and bumps it). On failure the client sleeps `backoff(attempt)`, `attempt`
//! counting its failed writes from 1, and reads again. Every message takes
//! `|Normal(latency, sd)|` (10 ms, 2 ms by default). No attempt limit: clients retry until
//! they win. `calls` counts writes; `completion_ms` is the time of the last event.

mod balancer;
mod herd;
mod hints;
mod load;
mod metrics;
pub mod model;
mod nets;
mod normal;
mod occ;
mod pending;
mod queue;
pub mod record;
mod runs;
mod server;
mod settings;
pub mod stories;
mod tourney;
mod work;
mod ziggurat;
mod ziggurat_exp;
mod ziggurat_layers;

#[cfg(test)]
mod tests;

use core::fmt;
use core::str::FromStr;

use crate::backoff::{BackoffSettings, Strategy};
use crate::error::{ConfigError, Expected, Field, Got, WorkBound};

pub use herd::layers::{MAX_LAYERS, bottom_attempts_per_request};
pub use metrics::{Metrics, Series};
pub use model::{Balance, LatencyDist, QueueOrder, RetryAt, ServiceDist, Slowdown};
pub use nets::MAX_NETS_BYTES;
pub use pending::{MAX_PENDING, MAX_PENDING_ALIVE, peak_bytes};
#[cfg(test)]
pub(crate) use runs::run_many_within;
pub use runs::{check_runs, run, run_many, run_many_seeing_first, run_seed};
pub(crate) use settings::Checked;
pub use settings::{DEFAULT_QUEUE_S, DEFAULT_SERVICE_MS, Fleet, SimSettings};
pub use work::{MAX_OCC_WRITES, MAX_RUN_ATTEMPTS};

/// The server can absorb this many seconds of capacity at once (and owe as much).
pub const SERVER_BURST_S: f64 = 0.1;
/// The most clients a simulation accepts.
pub const MAX_CLIENTS: u32 = 1_000_000;
/// The most clients an `aws-occ` run accepts. Every write contends with every other, so
/// its work grows with the square of the clients: `n` clients make at most `n(n+1)/2`
/// writes, and without backoff (`none`) about `n²/6`. Measured with `none`: 5,000 clients
/// make 4.1 million writes, 0.3 s of CPU on a loaded machine (2.1 s before the engine was
/// tuned for the AWS grid; jittered strategies make a twentieth of the writes).
pub const MAX_OCC_CLIENTS: u32 = 5_000;
/// The most requests a `steady` run may generate (clients × rate × duration). Each costs
/// memory until the run is dropped (its latency, and its record while it waits), and in
/// wasm that memory is never given back, so this is lower than
/// [`MAX_RUN_ATTEMPTS`] alone would allow: 5,000,000 single-attempt requests take about a
/// second natively.
pub const MAX_STEADY_REQUESTS: f64 = 5_000_000.0;
/// The least server capacity (requests per second).
pub const MIN_CAPACITY_RPS: f64 = 0.001;
/// The most server capacity (requests per second).
pub const MAX_CAPACITY_RPS: f64 = 1e9;
/// The longest mean latency, and latency standard deviation (ms).
pub const MAX_LATENCY_MS: f64 = 60_000.0;
/// The widest series slot (ms).
pub const MAX_SLOT_MS: f64 = 60_000.0;
/// The least `steady` rate (requests per client per second).
pub const MIN_RATE: f64 = 1e-6;
/// The most `steady` rate (requests per client per second).
pub const MAX_RATE: f64 = 1000.0;
/// The most runs [`run_many`] averages.
pub const MAX_RUNS: u32 = 100_000;
/// The most servers.
pub const MAX_SERVERS: u32 = 10_000;
/// The most workers per server.
pub const MAX_WORKERS: u32 = 100_000;
/// The longest queue per server.
pub const MAX_QUEUE: u32 = 1_000_000;
/// The widest log-normal spread (standard deviation of the logarithm): at 3 the mean is
/// 90 times the median.
pub const MAX_SPREAD: f64 = 3.0;
/// The largest slowdown or spike factor.
pub const MAX_FACTOR: f64 = 1000.0;

/// What the clients do.
///
/// `#[non_exhaustive]`: new models (queues, timeouts, hedging) add scenarios. Front ends
/// name them through [`Scenario::name`] and [`FromStr`], never by matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum Scenario {
    /// Every client sends one request at t = 0; the server is down at first.
    Burst,
    /// Requests arrive steadily; an outage strikes in the middle.
    Steady,
    /// The AWS Architecture Blog's optimistic-concurrency contention experiment.
    AwsOcc,
    /// Requests arrive steadily, and for a while `spike_factor` times as fast.
    Spike,
    /// A closed loop: each client has one request at a time and pauses `think_ms` between
    /// one request's end and the next.
    Closed,
}

impl Scenario {
    /// Every scenario.
    pub const ALL: [Scenario; 5] = [
        Scenario::Burst,
        Scenario::Steady,
        Scenario::AwsOcc,
        Scenario::Spike,
        Scenario::Closed,
    ];

    /// Every scenario's [`name`](Self::name), in the order of [`ALL`](Self::ALL).
    pub const NAMES: [&'static str; 5] = ["burst", "steady", "aws-occ", "spike", "closed"];

    /// `burst`, `steady`, `aws-occ`, `spike`, `closed`.
    pub const fn name(self) -> &'static str {
        Scenario::NAMES[self as usize]
    }

    /// The backoff a run of this scenario uses when none is given: the AWS experiment's
    /// 5 ms base and 2 s cap for `aws-occ`, the article's 2 s and 30 s otherwise; both
    /// exponential without jitter, the scene the article starts from.
    pub const fn default_backoff(self) -> BackoffSettings {
        match self {
            Scenario::AwsOcc => BackoffSettings::new(Strategy::Exponential, 5.0, 2000.0),
            Scenario::Burst | Scenario::Steady | Scenario::Spike | Scenario::Closed => {
                BackoffSettings::new(Strategy::Exponential, 2000.0, 30_000.0)
            }
        }
    }
}

impl Scenario {
    /// Whether a run of this scenario reads `field`'s setting, for the settings that only
    /// some scenarios read: each load shape its own (`rate` steady and spike, `duration`
    /// those and closed, `burst_window` burst, the spike's three spike, `think` closed), and
    /// `aws-occ`, which models contending writes, none of the outage's, the fleet's or the
    /// budget's. Every other setting is read by every scenario that accepts it (`aws-occ`
    /// refuses the rest in [`SimSettings::validate`]). A front end that sets one a scenario
    /// does not read changes nothing: the CLI says so in a note, naming the scenarios that
    /// read it.
    pub const fn reads(self, field: Field) -> bool {
        use Scenario::{AwsOcc, Burst, Closed, Spike, Steady};
        match field {
            Field::Rate => matches!(self, Steady | Spike),
            Field::Duration => matches!(self, Steady | Spike | Closed),
            Field::BurstWindow => matches!(self, Burst),
            Field::SpikeStart | Field::SpikeLength | Field::SpikeFactor => matches!(self, Spike),
            Field::Think => matches!(self, Closed),
            Field::Outage
            | Field::OutageStart
            | Field::CapacityRps
            | Field::RejectCost
            | Field::RetryAfter
            | Field::BudgetScope => !matches!(self, AwsOcc),
            _ => true,
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scenario {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        crate::error::lookup(Field::Scenario, &Scenario::NAMES, s).map(|i| Scenario::ALL[i])
    }
}

/// Who shares a retry budget.
///
/// `#[non_exhaustive]`: other sharings (per server, per call site) may come; front ends
/// parse the names with [`FromStr`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum BudgetScope {
    /// Each client has its own bucket (many processes).
    #[default]
    Client,
    /// One bucket for all (one process, many requests).
    Shared,
}

impl BudgetScope {
    /// `client`, `shared`.
    pub const NAMES: [&'static str; 2] = ["client", "shared"];

    /// The scope's name.
    pub const fn name(self) -> &'static str {
        BudgetScope::NAMES[self as usize]
    }
}

impl FromStr for BudgetScope {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        const ALL: [BudgetScope; 2] = [BudgetScope::Client, BudgetScope::Shared];
        crate::error::lookup(Field::BudgetScope, &BudgetScope::NAMES, s).map(|i| ALL[i])
    }
}

enum Engine {
    Herd(Box<herd::Herd>),
    Occ(Box<occ::Occ>),
}

/// A simulation that can be run to the end or advanced step by step.
///
/// ```
/// use stampede::sim::{SimSettings, Simulation};
/// let mut sim = Simulation::new(&SimSettings::default())?;
/// sim.advance_to(1000.0);
/// assert!(!sim.is_done());
/// sim.run();
/// let m = sim.metrics();
/// assert_eq!(m.successes + m.gave_up + m.budget_rejected, m.requests);
/// # Ok::<(), stampede::ConfigError>(())
/// ```
pub struct Simulation {
    engine: Engine,
}

impl fmt::Debug for Simulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Simulation")
            .field("now_ms", &self.now_ms())
            .finish_non_exhaustive()
    }
}

impl Simulation {
    /// Validates `settings` and sets the run up at t = 0.
    pub fn new(settings: &SimSettings) -> Result<Self, ConfigError> {
        let c = settings.check()?;
        let engine = match c.s.scenario {
            Scenario::AwsOcc => Engine::Occ(Box::new(occ::Occ::new(c))),
            _ => Engine::Herd(Box::new(herd::Herd::new(c))),
        };
        Ok(Simulation { engine })
    }

    /// Processes every event before `t_ms` (whole milliseconds: events in the bucket of
    /// `floor(t_ms)` and later wait). Time never goes back: an earlier `t_ms` does nothing.
    pub fn advance_to(&mut self, t_ms: f64) {
        let limit = if t_ms.is_finite() {
            t_ms.max(0.0) as u64
        } else if t_ms > 0.0 {
            u64::MAX
        } else {
            0
        };
        match &mut self.engine {
            Engine::Herd(h) => h.advance(limit),
            Engine::Occ(o) => o.advance(limit),
        }
    }

    /// Runs to the end.
    pub fn run(&mut self) -> &mut Self {
        self.advance_to(f64::INFINITY);
        self
    }

    /// `Err` when the run stopped early at a bound on its work: a `closed` loop whose
    /// requests end much faster than the check of its settings foresees
    /// (failed at once in an outage, refused by a net) stops issuing once it has made a
    /// run's most attempts ([`MAX_RUN_ATTEMPTS`], less with a
    /// timeout, hedging, layers or nets) or requests. Its metrics would then cover only
    /// part of the duration asked for, so front ends refuse it: the error names `duration`,
    /// with the time the loop had made half its bounds as the most that fits, or, when it was cut before
    /// even the shortest duration ended, `think`, with the least that fits.
    ///
    /// Likewise a run that held more than [`MAX_PENDING`] events at once (attempts their
    /// clients gave up on piling up at the servers), or more than the other runs alive on
    /// its thread leave of [`MAX_PENDING_ALIVE`], stops there (see `sim/pending.rs`): the
    /// error names `clients`, with the most that fit for sure.
    pub fn check_work(&self) -> Result<(), ConfigError> {
        let Engine::Herd(h) = &self.engine else {
            return Ok(());
        };
        if let Some((bound, max, clients)) = h.pending_cut() {
            return Err(ConfigError::new(
                Field::Clients,
                Expected::Work { max, bound },
                Got::Number(f64::from(clients)),
            ));
        }
        let shortest = Field::Duration.limit().map_or(1.0, |l| l.min);
        // The duration named: when it had passed half its bounds, and below the duration
        // asked for (the loop may pass them in the tail after it, its requests ending).
        let named = |half: f64, duration: f64| half.floor().min(duration - 1.0);
        match (h.cut_at(), h.least_think()) {
            (None, _) => Ok(()),
            // Cut before even the shortest duration ended, or with no shorter duration to
            // name: no duration fits (naming the shortest asked for what the run already
            // had: "at most 1 ms, got 1"), a longer think does.
            (Some((at, half, duration)), Some(least))
                if at < shortest || named(half, duration) < shortest =>
            {
                Err(ConfigError::new(
                    Field::Think,
                    Expected::WorkAtLeast {
                        min: least,
                        bound: WorkBound::ClosedCutThink,
                    },
                    Got::Number(h.think_ms()),
                ))
            }
            // The time it had passed half its bounds, not that of the cut: a run of the
            // cut's duration went on past it, its requests in flight ending, and a loop
            // whose requests make many attempts was refused at the duration it was told
            // fits. Half: the margin the check before the run keeps, and `least_think`'s.
            (Some((_, half, duration)), _) => Err(ConfigError::new(
                Field::Duration,
                Expected::Work {
                    max: named(half, duration).max(shortest),
                    bound: WorkBound::ClosedAttempts,
                },
                Got::Number(duration),
            )),
        }
    }

    /// Lowers a closed loop's bound on attempts, so that a test reaches it cheaply.
    #[cfg(test)]
    pub(crate) fn cap_attempts(&mut self, max: u64) {
        if let Engine::Herd(h) = &mut self.engine {
            h.cap_attempts(max);
        }
    }

    /// Lowers the bounds on pending events, so that a test reaches them cheaply.
    #[cfg(test)]
    pub(crate) fn cap_pending(&mut self, max: usize, max_alive: usize) {
        if let Engine::Herd(h) = &mut self.engine {
            h.cap_pending(max, max_alive);
        }
    }

    /// What the run has held at its peak, counted against the bound on the runs alive
    /// (events and the events of as much other memory), and of that its other memory when
    /// last checked.
    #[cfg(test)]
    pub(crate) fn pending_peak(&self) -> (usize, usize) {
        match &self.engine {
            Engine::Herd(h) => h.pending_peak(),
            _ => (0, 0),
        }
    }

    /// Whether every request has finished.
    pub fn is_done(&self) -> bool {
        match &self.engine {
            Engine::Herd(h) => h.is_done(),
            Engine::Occ(o) => o.is_done(),
        }
    }

    /// How far the simulation has got (ms).
    pub fn now_ms(&self) -> f64 {
        match &self.engine {
            Engine::Herd(h) => h.now_ms(),
            Engine::Occ(o) => o.now_ms(),
        }
    }

    /// The model's events so far, the unit of the simulator's speed: each request
    /// created, retry sent, attempt reaching a server, service started and finished,
    /// waiting request dropped, answer reaching its client (in time or late) and timeout
    /// that fired — the events a simulator with one queue entry per event would process
    /// (`aws-occ`: its messages). This engine handles several in one step of its queue
    /// ([`steps`](Self::steps)).
    pub fn events(&self) -> u64 {
        match &self.engine {
            Engine::Herd(h) => h.events,
            Engine::Occ(o) => o.events,
        }
    }

    /// The entries taken from the engine's event queue so far (timers that had nothing
    /// left to do included).
    pub fn steps(&self) -> u64 {
        match &self.engine {
            Engine::Herd(h) => h.steps,
            Engine::Occ(o) => o.events,
        }
    }

    /// The metrics so far (final once [`is_done`](Self::is_done)).
    pub fn metrics(&mut self) -> Metrics {
        match &mut self.engine {
            Engine::Herd(h) => h.metrics(),
            Engine::Occ(o) => o.metrics(),
        }
    }

    fn recorder(&self) -> &record::Recorder {
        match &self.engine {
            Engine::Herd(h) => &h.rec,
            Engine::Occ(o) => &o.rec,
        }
    }

    /// The per-slot series so far.
    pub fn series(&self) -> Series<'_> {
        let r = self.recorder();
        Series {
            slot_ms: r.slot_ms(),
            offered: &r.offered,
            served: &r.served,
            rejected: &r.rejected,
            failed: &r.failed,
            blocked: &r.blocked,
            goodput: &r.goodput,
            timed_out: &r.timed_out,
            wasted: &r.wasted,
            queued: &r.queued,
        }
    }

    /// The attempt log so far: `[t_ms, client, attempt, outcome]` per entry.
    pub fn attempt_log(&self) -> &[f32] {
        &self.recorder().log
    }

    /// Logged clients are `0, stride, 2·stride, …`.
    pub fn log_stride(&self) -> u32 {
        match &self.engine {
            Engine::Herd(h) => h.log_stride,
            Engine::Occ(o) => o.log_stride,
        }
    }

    /// How many clients the log keeps (rows of a timeline: `client / stride`).
    pub fn log_rows(&self) -> u32 {
        match &self.engine {
            Engine::Herd(h) => h.log_rows,
            Engine::Occ(o) => o.log_rows,
        }
    }

    /// Whether the log or the series hit their bounds and stopped growing.
    pub fn truncated(&self) -> bool {
        let r = self.recorder();
        r.log_truncated || r.series_truncated
    }
}

/// Which clients the log keeps: every `stride`-th, at most `max` of them.
pub(crate) fn log_stride(clients: u32, max: u32) -> u32 {
    if max == 0 {
        u32::MAX
    } else {
        clients.div_ceil(max).max(1)
    }
}
