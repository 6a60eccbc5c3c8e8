//! The `aws-occ` scenario: the AWS Architecture Blog's contention experiment, after
//! `aws-samples/aws-arch-backoff-simulator` (see the [module docs](super)).
//!
//! Its clients retry until they win, so it drives the core's [`Backoff`] directly rather
//! than a [`Policy`](crate::policy::Policy) with an attempt limit; a lost write is always
//! worth retrying. Few events are pending at once (at most one per client), so a binary
//! heap is the right queue here.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::normal::Normal;
use super::record::{Recorder, outcome};
use super::{Checked, Metrics, log_stride};
use crate::SeededRng;
use crate::backoff::{Backoff, BackoffState};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Msg {
    /// A read reaches the server.
    Read,
    /// The read's answer, with the version, reaches the client.
    ReadReply(u64),
    /// A conditional write of that version reaches the server.
    Write(u64),
    /// The write's answer reaches the client.
    WriteReply(bool),
}

/// Ordered by time (non-negative f64 bits order like the values), then by sequence.
type Event = Reverse<(u64, u64, u32, Msg)>;

struct Client {
    backoff: BackoffState,
    failures: u32,
}

pub(crate) struct Occ {
    backoff: Backoff,
    mean: f64,
    sd: f64,
    rng: SeededRng,
    normal: Normal,
    queue: BinaryHeap<Event>,
    seq: u64,
    clients: Vec<Client>,
    version: u64,
    writes: u64,
    done: u64,
    last_event: f64,
    pub(crate) events: u64,
    pub(crate) rec: Recorder,
    pub(crate) log_stride: u32,
    pub(crate) log_rows: u32,
}

impl Occ {
    pub(crate) fn new(c: Checked) -> Self {
        let s = &c.s;
        let backoff = *c.policy.backoff();
        let mut o = Occ {
            backoff,
            mean: s.latency_ms,
            sd: c.latency_sd,
            rng: crate::seeded(s.seed),
            normal: Normal::default(),
            queue: BinaryHeap::with_capacity(s.clients as usize),
            seq: 0,
            clients: (0..s.clients)
                .map(|_| Client {
                    backoff: backoff.start_at(1),
                    failures: 0,
                })
                .collect(),
            version: 0,
            writes: 0,
            done: 0,
            last_event: 0.0,
            events: 0,
            rec: Recorder::new(s.slot_ms, 0.0),
            log_stride: log_stride(s.clients, s.log_clients),
            log_rows: s.log_clients.min(s.clients),
        };
        for client in 0..s.clients {
            let at = o.delay();
            o.send(at, client, Msg::Read);
        }
        o
    }

    fn delay(&mut self) -> f64 {
        self.normal.abs(&mut self.rng, self.mean, self.sd)
    }

    fn send(&mut self, at: f64, client: u32, msg: Msg) {
        self.seq += 1;
        self.queue
            .push(Reverse((at.to_bits(), self.seq, client, msg)));
    }

    fn handle(&mut self, t: f64, client: u32, msg: Msg) {
        match msg {
            Msg::Read => {
                let at = t + self.delay();
                self.send(at, client, Msg::ReadReply(self.version));
            }
            Msg::ReadReply(v) => {
                let at = t + self.delay();
                self.send(at, client, Msg::Write(v));
            }
            Msg::Write(v) => {
                self.writes += 1;
                let won = v == self.version;
                if won {
                    self.version += 1;
                }
                let code = if won {
                    outcome::SERVED
                } else {
                    outcome::CONFLICT
                };
                self.rec.attempt(t, code);
                if client % self.log_stride == 0 && client / self.log_stride < self.log_rows {
                    let n = self.clients[client as usize].failures + 1;
                    self.rec.log(t, client, n, code);
                }
                let at = t + self.delay();
                self.send(at, client, Msg::WriteReply(won));
            }
            Msg::WriteReply(true) => {
                self.done += 1;
                self.rec.latencies.push(t as f32);
            }
            Msg::WriteReply(false) => {
                let c = &mut self.clients[client as usize];
                c.failures += 1;
                let sleep = self.backoff.next_ms(&mut c.backoff, &mut self.rng);
                let at = t + self.delay() + sleep;
                self.send(at, client, Msg::Read);
            }
        }
    }

    pub(crate) fn advance(&mut self, limit: u64) {
        while let Some(&Reverse((bits, _, _, _))) = self.queue.peek() {
            let t = f64::from_bits(bits);
            if t as u64 >= limit {
                break;
            }
            let Some(Reverse((_, _, client, msg))) = self.queue.pop() else {
                break;
            };
            self.last_event = t;
            self.events += 1;
            self.handle(t, client, msg);
        }
    }

    pub(crate) fn is_done(&self) -> bool {
        self.queue.is_empty()
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
        Metrics {
            requests: n,
            total_attempts: self.writes as f64,
            successes: self.done as f64,
            gave_up: 0.0,
            budget_rejected: 0.0,
            amplification: self.writes as f64 / n,
            peak_rps: self.rec.peak.peak_rps(),
            peak_recovery_rps: self.rec.peak_recovery.peak_rps(),
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
