//! The `aws-occ` scenario: the AWS Architecture Blog's contention experiment, after
//! `aws-samples/aws-arch-backoff-simulator` (see the [module docs](super)).
//!
//! Its clients retry until they win, so it drives the core's [`Backoff`] directly rather
//! than a [`Policy`](crate::policy::Policy) with an attempt limit; a lost write is always
//! worth retrying.
//!
//! # Speed
//!
//! A grid of this experiment (five strategies, 10 to 190 clients, 100 runs each) is 15
//! million writes, so the loop is tuned (figures in docs/performance.md):
//! - One queue step per write, not four. Of a write cycle's four messages (read, its
//!   answer, write, its answer) only the write needs to be an event: the answers touch
//!   nothing shared, and what the read does, read the version, the write can tell for
//!   itself. A write wins when no other write won between its read and itself, so the
//!   read's time (its queue key, had it been an event) is kept with the client and the
//!   write wins exactly when the latest winning write's key is below it. Every delay of
//!   the cycle is drawn when the cycle starts. The winning write's answer stays an event,
//!   so that the run ends (and [`Occ::now_ms`] stops) when it arrives; `events` still
//!   counts every message.
//! - Each client has exactly one event pending, so the queue is a [`Tourney`]: handling
//!   the earliest event and scheduling the same client's next one is one walk up a tree.
//!   Its keys are 64-bit ([`Fine`]) when the delays are spread: events are ordered by
//!   their times to 2^-39 of them (under a nanosecond), then by client, and the exact
//!   time waits with the client. With no spread (`latency_sd` 0) every time ties and
//!   the order of sending decides, so there the keys are the 128-bit [`Exact`] ones,
//!   which carry a sequence number.
//! - The delays are normal deviates by the [`Ziggurat`], not the polar method, from one
//!   32-bit step of the generator each.
//! - The busiest 100 ms of writes are a sliding window over the writes ([`peak`]), not
//!   per-millisecond bins.
//! - A run for its metrics alone ([`Occ::quiet`]) keeps no series (and `run` asks for no
//!   attempt log).
//!
//! The model is unchanged, event for event; equal times still go in the order their
//! messages were sent (where every time ties, with no spread, the numbers are those of
//! the engine before; with spread, times tie with probability zero, and events less than
//! a nanosecond apart go by client). But the random stream is consumed in another order,
//! so a seed's run differs from the one before this design; its distribution does not.

use super::record::{Recorder, outcome};
use super::tourney::{self, Exact, Fine, Key, Tourney};
use super::ziggurat::Ziggurat;
use super::{Checked, Metrics, log_stride};
use crate::SeededRng;
use crate::backoff::{Backoff, BackoffState};
use peak::Peak;

#[path = "occ_peak.rs"]
mod peak;

// A key names its client.
const _: () = assert!(super::MAX_OCC_CLIENTS <= tourney::MAX_ITEMS);

struct Client {
    /// The exact time of its pending event.
    at: f64,
    /// The queue key its latest read reached the server with (as a `u128`).
    read: u128,
    backoff: BackoffState,
    failures: u32,
    /// Whether its write has won (its pending event is then the answer).
    won: bool,
}

pub(crate) struct Occ {
    backoff: Backoff,
    mean: f64,
    sd: f64,
    rng: SeededRng,
    normal: &'static Ziggurat,
    /// The queue when the delays are spread (`sd > 0`): empty otherwise.
    fine: Tourney<Fine>,
    /// The queue when every delay is the mean (`sd == 0`), where times tie and must keep
    /// the order their messages were sent in: empty otherwise.
    exact: Tourney<Exact>,
    seq: u64,
    clients: Vec<Client>,
    /// The key of the latest winning write, as a `u128` (0 before the first).
    last_win: u128,
    writes: u64,
    done: u64,
    last_event: f64,
    /// Whether the per-slot series are kept (not in a [`quiet`](Self::quiet) run).
    series: bool,
    /// The busiest 100 ms of writes (the recorder's own window is kept with the series).
    peak: Peak,
    pub(crate) events: u64,
    pub(crate) rec: Recorder,
    pub(crate) log_stride: u32,
    pub(crate) log_rows: u32,
}

/// A key of one of the two queues, and its queue.
trait Queued: Key {
    /// Whether this is the queue of a run whose delays are all the mean.
    const TIED: bool;
    fn queue(o: &mut Occ) -> &mut Tourney<Self>;
}

impl Queued for Fine {
    const TIED: bool = false;

    #[inline(always)]
    fn queue(o: &mut Occ) -> &mut Tourney<Self> {
        &mut o.fine
    }
}

impl Queued for Exact {
    const TIED: bool = true;

    #[inline(always)]
    fn queue(o: &mut Occ) -> &mut Tourney<Self> {
        &mut o.exact
    }
}

impl Occ {
    pub(crate) fn new(c: Checked) -> Self {
        let s = &c.s;
        let backoff = *c.policy.backoff();
        let tied = c.latency_sd == 0.0;
        let size = |used: bool| if used { s.clients } else { 0 };
        let mut o = Occ {
            backoff,
            mean: s.latency_ms,
            sd: c.latency_sd,
            rng: crate::seeded(s.seed),
            normal: Ziggurat::get(),
            fine: Tourney::new(size(!tied)),
            exact: Tourney::new(size(tied)),
            seq: 0,
            clients: (0..s.clients)
                .map(|_| Client {
                    at: 0.0,
                    read: 0,
                    backoff: backoff.start_at(1),
                    failures: 0,
                    won: false,
                })
                .collect(),
            last_win: 0,
            writes: 0,
            done: 0,
            last_event: 0.0,
            series: true,
            peak: Peak::new(),
            events: 0,
            rec: Recorder::new(s.slot_ms, 0.0),
            log_stride: log_stride(s.clients, s.log_clients),
            log_rows: s.log_clients.min(s.clients),
        };
        o.rec.reserve(0, s.clients as usize);
        for client in 0..s.clients {
            if tied {
                o.cycle::<Exact>(0.0, client);
            } else {
                o.cycle::<Fine>(0.0, client);
            }
        }
        o
    }

    /// Keeps no series from now on (the attempt log follows `log_clients`): for a run
    /// whose metrics are all anyone reads.
    pub(crate) fn quiet(&mut self) {
        self.series = false;
    }

    fn tied(&self) -> bool {
        self.sd == 0.0
    }

    /// `N` network delays, each `|Normal(mean, sd)|`, or the mean itself when `K` is
    /// the queue of constant delays (which draws nothing). Inlined natively (four per
    /// write, the loop's hottest code), with the generator's state in registers for the
    /// draws; one copy in wasm, whose package has a size bar.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    fn delays<K: Queued, const N: usize>(&mut self) -> [f64; N] {
        if K::TIED {
            return [self.mean.abs(); N];
        }
        let (normal, mean, sd) = (self.normal, self.mean, self.sd);
        let mut rng = self.rng.clone();
        let d = core::array::from_fn(|_| normal.abs(&mut rng, mean, sd));
        self.rng = rng;
        d
    }

    /// The queue key of `client`'s event at `t_ms`.
    #[inline(always)]
    fn key<K: Queued>(&mut self, t_ms: f64, client: u32) -> K {
        if K::SEQUENCED {
            self.seq += 1;
        }
        K::new(t_ms, self.seq, client)
    }

    /// Schedules `client`'s next event at `t_ms`.
    #[inline(always)]
    fn schedule<K: Queued>(&mut self, t_ms: f64, client: u32) {
        let key = self.key::<K>(t_ms, client);
        self.clients[client as usize].at = t_ms;
        K::queue(self).set(client, key);
    }

    /// `client` sends a read at `t`: it reaches the server, its answer comes back and
    /// the write goes out, each after a network delay; the write is the next event.
    fn cycle<K: Queued>(&mut self, t: f64, client: u32) {
        let [to_server, back, to_write] = self.delays::<K, 3>();
        let read_at = t + to_server;
        let read = self.key::<K>(read_at, client).wide();
        let write_at = read_at + back + to_write;
        self.clients[client as usize].read = read;
        self.schedule::<K>(write_at, client);
    }

    /// `client`'s event, of key `key`, at `t`.
    #[inline(always)]
    fn handle<K: Queued>(&mut self, t: f64, client: u32, key: K) {
        if self.clients[client as usize].won {
            // The winning write's answer reaches the client: it is done.
            self.events += 1;
            self.done += 1;
            self.rec.latency(t);
            if self.series {
                self.rec.success(t);
            }
            K::queue(self).set(client, K::IDLE);
        } else {
            self.write::<K>(t, client, key);
        }
    }

    /// `client`'s conditional write, of queue key `key`, reaches the server at `t`.
    #[inline(always)]
    fn write<K: Queued>(&mut self, t: f64, client: u32, key: K) {
        // The read, its answer and the write.
        self.events += 3;
        self.writes += 1;
        let c = &self.clients[client as usize];
        let won = self.last_win < c.read;
        let code = if won {
            outcome::SERVED
        } else {
            outcome::CONFLICT
        };
        self.peak.add(t);
        if self.series {
            self.rec.attempt(t, code);
        }
        // `log_rows` first: a run without a log skips the divisions.
        if self.log_rows > 0
            && client % self.log_stride == 0
            && client / self.log_stride < self.log_rows
        {
            let n = c.failures + 1;
            self.rec.log(t, client, n, code);
        }
        if won {
            self.last_win = key.wide();
            self.clients[client as usize].won = true;
            let [back] = self.delays::<K, 1>();
            self.schedule::<K>(t + back, client);
        } else {
            // The answer; then the client sleeps and reads again.
            self.events += 1;
            let c = &mut self.clients[client as usize];
            c.failures += 1;
            let sleep = self.backoff.next_ms(&mut c.backoff, &mut self.rng);
            let [back] = self.delays::<K, 1>();
            let at = t + back + sleep;
            self.cycle::<K>(at, client);
        }
    }

    pub(crate) fn advance(&mut self, limit: u64) {
        if self.tied() {
            self.advance_in::<Exact>(limit);
        } else {
            self.advance_in::<Fine>(limit);
        }
    }

    fn advance_in<K: Queued>(&mut self, limit: u64) {
        // An event's whole millisecond is below `limit` exactly when its key is below
        // this one: times are non-negative, and both kinds of key hold a whole number of
        // ms exactly below 2^39 ms (17 years) and at 2^64, which `u64::MAX` becomes.
        // `IDLE` is never below it.
        let end = K::new(limit as f64, 0, 0);
        loop {
            let key = K::queue(self).first();
            if key >= end {
                break;
            }
            let client = key.item();
            let t = self.clients[client as usize].at;
            self.last_event = t;
            self.handle::<K>(t, client, key);
        }
    }

    pub(crate) fn is_done(&self) -> bool {
        if self.tied() {
            self.exact.first() == Exact::IDLE
        } else {
            self.fine.first() == Fine::IDLE
        }
    }

    pub(crate) fn now_ms(&self) -> f64 {
        self.last_event
    }

    pub(crate) fn metrics(&mut self) -> Metrics {
        let (p50, p99) = self.rec.percentiles();
        let n = self.clients.len() as f64;
        // Every successful write is both goodput and the server's useful work.
        let per_s = if self.last_event > 0.0 {
            self.done as f64 * 1000.0 / self.last_event
        } else {
            0.0
        };
        // The whole run counts as recovery (there is no outage): both peaks are one.
        let peak_rps = self.peak.peak_rps();
        Metrics {
            requests: n,
            total_attempts: self.writes as f64,
            successes: self.done as f64,
            gave_up: 0.0,
            budget_rejected: 0.0,
            amplification: self.writes as f64 / n,
            peak_rps,
            peak_recovery_rps: peak_rps,
            completion_ms: self.last_event,
            recovery_ms: 0.0,
            p50_ms: p50,
            p99_ms: p99,
            calls: self.writes as f64,
            mean_ms: self.rec.mean_latency(),
            goodput_rps: per_s,
            throughput_rps: per_s,
            timeouts: 0.0,
            wasted: 0.0,
            max_queue: 0.0,
            bottom_attempts: self.writes as f64,
            breaker_rejected: 0.0,
            throttled: 0.0,
            hedges: 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::backoff::{BackoffSettings, Strategy};
    use crate::policy::PolicySettings;
    use crate::sim::{Scenario, SimSettings, run};

    /// Where every time ties (no spread, no backoff), ties go in the order the messages
    /// were sent, so the run is the textbook one: each round of four 10 ms messages, the
    /// first write wins and every other loses, so `n` clients make `n(n+1)/2` writes and
    /// finish at `40·n` ms. (The engine before the folded cycle gave the same numbers.)
    #[test]
    fn ties_go_in_sending_order() {
        for clients in [1, 2, 50] {
            let s = SimSettings {
                scenario: Scenario::AwsOcc,
                clients,
                latency_sd_ms: Some(0.0),
                policy: PolicySettings::new(BackoffSettings::new(Strategy::None, 5.0, 2000.0), 6),
                ..SimSettings::default()
            };
            let m = run(&s).unwrap();
            let n = f64::from(clients);
            assert_eq!(m.calls, n * (n + 1.0) / 2.0, "{clients}");
            assert_eq!(m.completion_ms, 40.0 * n, "{clients}");
        }
    }
}
