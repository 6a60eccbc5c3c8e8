//! The engine of every scenario but `aws-occ`: clients under a [`Policy`] that send
//! requests over a network to [`Servers`] that queue, and that give attempts up at their
//! timeout.
//!
//! One event type, [`Ev`], travels through one timing wheel: an attempt reaching a server,
//! a server finishing one, a client's timeout firing, and the arrival processes' own ticks.
//!
//! Timeouts. An attempt whose fate is known before its deadline needs no timer: one that
//! is answered at once, or started at once and finished, with the answer back in time.
//! So the timer is armed only when the engine cannot tell yet (the attempt waits in a
//! queue) or knows it will be late (a slow trip, a long service, a late answer); it is
//! always armed before the deadline passes. An armed attempt has two copies, the one at
//! the server and the timer; the first to resolve it (the answer, if it reaches the client
//! before the deadline, else the timeout) moves the request's ticket on, and the other then
//! finds its ticket stale and does nothing (a late answer to an attempt its client gave up
//! is wasted work). In a healthy run almost no timer is armed. (The slots, tickets and
//! timers: `timers.rs`, a child module.)
//!
//! Layers (see `layers.rs`, a child module so that it works on the engine's own state): a
//! call to an upper layer is parked there while that layer's own call goes down, and the
//! answer climbs back through the parked calls.
//! Hedged requests (`hedged.rs`) keep several attempts in flight; their attempts are the
//! same events, told apart by a flag, and their hedge timers are [`Kind::Hedge`] events.

use super::load::{Load, Tick};
use super::model::RetryAt;
use super::nets::Nets;
use super::pending::{CHECK_EVERY, Pending};
use super::queue::{Line, Wheel};
use super::record::{Recorder, outcome};
use super::server::{Arrival, Servers};
use super::{Checked, Metrics, log_stride};
use crate::SeededRng;
use crate::backoff::uniform;
use crate::classify::{HttpStatus, Method, Outcome, Request, TransportError, Verdict};
use crate::error::WorkBound;
use crate::policy::Policy;

#[path = "layers.rs"]
pub(super) mod layers;
use layers::Frames;
// Hedged requests: their logic lives in `sim/hedged.rs`, a child of this module so that it
// drives the same engine (the same wheel, servers and sends) through the hooks below.
#[path = "hedged.rs"]
mod hedged;
use hedged::Hedged;
// The event every part of the engine moves: `sim/event.rs`.
#[path = "event.rs"]
mod event;
use event::{ARMED, DEPTH_SHIFT, Ev, Kind, LOGGED};
// What a client does with an answer: its policy's decision, and the request's end:
// `sim/client.rs`.
#[path = "client.rs"]
mod client;
// The clients' timeouts: request slots, tickets, timers armed and settled: `sim/timers.rs`.
#[path = "timers.rs"]
mod timers;
// What the engine counts, and the run's metrics from it: `sim/counts.rs`.
#[path = "counts.rs"]
mod counts;
use counts::Counts;
// How long a trip over the network takes: `sim/trip.rs`.
#[path = "trip.rs"]
mod trip;
use trip::Trip;

const GET: Request = Request::new(Method::Get);

/// From this many waiting requests (256 KB of events) the event loop looks ahead for the
/// servers about to take their next one (see [`look_ahead`]).
const LOOK_AHEAD_QUEUED: u32 = 4096;

/// While thousands of requests wait (a storm's full queues: each was written seconds
/// before a worker takes it, and is long out of the cache), asks for the requests that the
/// servers finishing among `batch` (a millisecond's events, about to run) will take next,
/// so they have arrived when those events run. Measured on story 2 at 100× (`perf`):
/// loading that request was 17% of the run, 2.5% with the look-ahead.
#[inline]
fn look_ahead(servers: &Servers<Ev>, batch: &[Line<Ev>]) {
    if servers.queued >= LOOK_AHEAD_QUEUED {
        for e in batch.iter().filter(|e| e.kind == Kind::Finish) {
            servers.prefetch_next(usize::from(e.server));
        }
    }
}

/// The `Retry-After` the servers send during the outage, if any: the setting in whole
/// seconds (delta-seconds), rounded up.
pub(super) fn outage_retry_after(s: &super::SimSettings) -> Option<String> {
    s.retry_after_ms
        .map(|ms| format!("{}", (ms / 1000.0).ceil() as u64))
}

/// The core's verdict on the outage's answer (503 with its `Retry-After`), as a client of
/// `c` classifies it.
pub(super) fn outage_verdict(c: &Checked) -> Verdict {
    let retry_after = outage_retry_after(&c.s);
    let outage = Outcome::Response {
        status: HttpStatus::SERVICE_UNAVAILABLE,
        retry_after: retry_after.as_deref(),
        pushback_ms: None,
    };
    c.policy.rules().classify(GET, &outage, 0.0)
}

/// Outcome codes the classifier's verdicts are kept for, indexed by code.
const VERDICTS: usize = outcome::TIMEOUT as usize + 1;

pub(crate) struct Herd {
    policy: Policy,
    nets: Nets,
    /// How one trip's latency is drawn (see [`Herd::one_way`]).
    trip: Trip,
    timeout: f64,
    /// The classifier's verdict on each answer a server gives and on a timeout, by outcome
    /// code. The answers are always the same (200; 503 with the outage's `Retry-After` in
    /// delta-seconds, which does not depend on the time; 503; 500; the transport error
    /// `timeout`), so each is classified once, by the core's rules, when the run is set up.
    verdicts: [Verdict; VERDICTS],
    rng: SeededRng,
    wheel: Wheel<Ev>,
    servers: Servers<Ev>,
    load: Load,
    /// Per request slot, the ticket of its live attempt (only with a timeout).
    tickets: Vec<u32>,
    free_slots: Vec<u32>,
    /// The depth of a call to the last layer: `layers − 1`.
    bottom: u8,
    retry_at: RetryAt,
    /// Calls parked at upper layers (empty with one layer).
    frames: Frames<Ev>,
    pub(crate) rec: Recorder,
    pub(crate) log_stride: u32,
    pub(crate) log_rows: u32,
    counts: Counts,
    now: f64,
    /// Events of the model so far: a request created, a retry sent, an attempt reaching a
    /// server, a service started, a service finished, a waiting request dropped, an answer
    /// reaching its client (in time or late), a timeout. Several are handled in one step of
    /// the wheel (a server that answers at once does so in its arrival's step).
    pub(crate) events: u64,
    /// Events taken from the wheel (stale timers included).
    pub(crate) steps: u64,
    /// The hedged requests' state (empty without hedging).
    hedged: Hedged,
    /// The bounds on what the run holds pending (see `sim/pending.rs`).
    pending: Pending,
    /// What its nets take (bytes).
    nets_bytes: usize,
}

impl Herd {
    pub(crate) fn new(c: Checked) -> Self {
        let worst_pending = super::pending::worst_events(&c);
        let s = &c.s;
        let nets = Nets::new(c.nets, s.budget_scope, s.clients);
        let nets_bytes = super::nets::held_bytes(c.nets.as_ref(), s.budget_scope, s.clients);
        // Recovery is measured from the outage's end; with no outage (none long, or none
        // of the servers down), from the start: every setup without one counts the same.
        let outage_end = if s.has_outage() {
            s.outage_start_ms + s.outage_ms
        } else {
            0.0
        };
        let stride = log_stride(s.clients, s.log_clients);
        let timeout = s.timeout_ms.unwrap_or(f64::INFINITY);
        let rng = crate::seeded(s.seed);
        let mut load = Load::new(&c);
        let first_ticks = load.first_ticks();
        let per_client_slots = load.slot_per_client();
        let mut h = Herd {
            policy: c.policy,
            nets,
            trip: Trip::new(s.latency_dist, s.latency_ms / 2.0, c.latency_sd),
            timeout,
            verdicts: Self::verdicts(&c),
            rng,
            wheel: Wheel::new(),
            servers: Servers::new(&c),
            load,
            tickets: if timeout.is_finite() && per_client_slots {
                vec![0; s.clients as usize]
            } else {
                Vec::new()
            },
            free_slots: Vec::new(),
            bottom: (s.layers - 1) as u8,
            retry_at: s.retry_at,
            frames: Frames::new(),
            rec: Recorder::new(s.slot_ms, outage_end),
            log_stride: stride,
            log_rows: s.log_clients.min(s.clients),
            counts: Counts::default(),
            now: 0.0,
            events: 0,
            steps: 0,
            hedged: Hedged::new(c.hedging),
            pending: Pending::new(s.clients, worst_pending),
            nets_bytes,
        };
        for (t, client) in first_ticks {
            let mut tick = h.tick(t);
            tick.client = client;
            h.wheel.push(t, tick);
        }
        // A burst's first attempts are pending from the start: they count against the
        // bounds before their memory is reserved, so that simulations built and not yet run
        // count too (49 of a million clients, alive at once, ran a wasm module out of
        // memory in their constructors). Refused, the run holds nothing, and says why when
        // it is run (see `Pending`).
        if h.load.is_burst() {
            // Every buffer a burst fills is sized up front (no reallocation while it runs),
            // so its memory is known before it is reserved.
            let (log_entries, successes) = (
                h.log_rows as usize * h.policy.max_attempts() as usize,
                s.clients as usize,
            );
            let other = h.other_bytes() + Recorder::reserved_bytes(log_entries, successes);
            if h.pending.over(s.clients as usize, other) {
                h.pending.released();
            } else {
                h.rec.reserve(log_entries, successes);
                h.wheel.reserve(s.clients as usize);
                for client in 0..s.clients {
                    let start = uniform(&mut h.rng, 0.0, s.burst_window_ms);
                    h.issue(client, start);
                }
            }
        }
        h.wheel.fence();
        h
    }

    fn verdicts(c: &Checked) -> [Verdict; VERDICTS] {
        let rules = c.policy.rules();
        let unavailable = Outcome::response(HttpStatus::SERVICE_UNAVAILABLE);
        let error = Outcome::response(HttpStatus::INTERNAL_SERVER_ERROR);
        let timeout = Outcome::Transport(TransportError::Timeout);
        let mut v = [rules.classify(GET, &unavailable, 0.0); VERDICTS];
        for (code, answer) in [
            (outcome::SERVED, Outcome::response(HttpStatus::OK)),
            (outcome::OVERLOAD, unavailable),
            (outcome::ERROR, error),
            (outcome::TIMEOUT, timeout),
        ] {
            v[usize::from(code)] = rules.classify(GET, &answer, 0.0);
        }
        v[usize::from(outcome::OUTAGE)] = outage_verdict(c);
        v
    }

    /// A tick of the arrival process at `t`.
    fn tick(&self, t: f64) -> Ev {
        Ev {
            at: t,
            deadline: f64::INFINITY,
            attempt: self.policy.start(t),
            client: 0,
            slot: 0,
            ticket: 0,
            server: 0,
            kind: Kind::Tick,
            flags: 0,
        }
    }

    /// One trip's latency (see [`Trip`]).
    #[inline(always)]
    fn one_way(&mut self) -> f64 {
        self.trip.draw(&mut self.rng)
    }

    fn is_logged(&self, client: u32) -> bool {
        // With a stride of 1 (no more clients than rows, as in the page's runs), no
        // division: two per request otherwise, each some tens of cycles.
        if self.log_stride == 1 {
            return client < self.log_rows;
        }
        client % self.log_stride == 0 && client / self.log_stride < self.log_rows
    }

    /// A new logical request of `client` at `t`: through the budget's gate, then sent.
    fn issue(&mut self, client: u32, t: f64) {
        self.counts.requests += 1;
        self.events += 1;
        let logged = self.is_logged(client);
        if let Err(e) = self.nets.admit(&self.policy, client, t, &mut self.rng) {
            let code = self.count_blocked(e.into(), t);
            if logged {
                self.rec.log(t, client, 1, code);
            }
            self.ended(client, t);
            return;
        }
        if let Some(hedging) = self.hedged.hedging {
            return self.issue_hedged(hedging, client, t, logged);
        }
        let slot = self.take_slot(client);
        let mut ev = Ev {
            at: t,
            deadline: f64::INFINITY,
            attempt: self.policy.start(t),
            client,
            slot,
            ticket: 0,
            server: 0,
            kind: Kind::Arrive,
            flags: if logged { LOGGED } else { 0 },
        };
        self.send(&mut ev, t);
    }

    /// Sends an attempt of `ev` at `t`: it reaches a server a trip later, and with a
    /// timeout its client gives it up at `t + timeout`.
    #[inline(always)]
    fn send(&mut self, ev: &mut Ev, t: f64) {
        let trip = self.one_way();
        // The kind and flags are written only when they change: the event is copied into
        // the wheel right after, and a wide load of memory just written in narrower stores
        // stalls until those stores reach the cache (store-to-load forwarding fails). The
        // two times are such stores (LLVM writes them as two 8-byte stores, read back by
        // one 16-byte load: the hottest spot of a 100,000-client burst in `perf
        // annotate`). Building the wheel's copy from the times as values instead (tried
        // 2026-12-04) was no faster: the stall moved to the policy's state just updated.
        let [at, deadline] = [t + trip, t + self.timeout];
        ev.at = at;
        ev.deadline = deadline;
        if ev.kind != Kind::Arrive {
            ev.kind = Kind::Arrive;
        }
        if ev.flags & ARMED != 0 {
            ev.flags &= !ARMED;
        }
        if at >= deadline {
            self.arm(ev);
        }
        self.wheel.push(at, *ev);
    }

    /// The attempt reaches the load balancer at `ev.at` (of the last layer; an upper one
    /// passes it on).
    #[inline]
    fn arrive(&mut self, mut ev: Ev) {
        // With one layer every call is a client's (depth 0): no need to read the flags.
        if self.bottom != 0 && ev.depth() != self.bottom {
            return self.pass_down(ev);
        }
        let t = ev.at;
        self.events += 1;
        self.counts.bottom_attempts += 1;
        let k = self.servers.pick(&mut self.rng);
        if self.servers.has_queue_timeout() {
            self.drop_stale(k, t);
        }
        match self.servers.arrive(k, t, &mut self.rng) {
            // The server is not written into `ev` on this path: a narrow store into it
            // just before `answer` copies it whole stalls the copy (store forwarding).
            Arrival::Answered(code) => {
                self.rec.attempt(t, code);
                self.answer(&mut ev, code, t);
            }
            Arrival::Started(service) => {
                ev.server = k as u16;
                self.events += 1;
                self.rec.arrival(t);
                self.started(&mut ev, t + service);
            }
            Arrival::Queue => {
                ev.server = k as u16;
                self.rec.arrival(t);
                // Its wait is unknown: the timer must be in the wheel before the deadline.
                self.arm(&mut ev);
                self.servers.enqueue(k, ev);
                self.rec.queue_level(t, self.servers.queued);
            }
        }
    }

    /// Drops requests that waited at `k` past the queue timeout, answering them with 503.
    #[inline]
    fn drop_stale(&mut self, k: usize, t: f64) {
        let before = self.servers.queued;
        while let Some(mut old) = self.servers.drop_stale(k, t) {
            self.events += 1;
            self.rec.answer(t, outcome::OVERLOAD);
            self.answer(&mut old, outcome::OVERLOAD, t);
        }
        if self.servers.queued != before {
            self.rec.queue_level(t, self.servers.queued);
        }
    }

    #[inline]
    fn started(&mut self, ev: &mut Ev, finish: f64) {
        ev.kind = Kind::Finish;
        ev.at = finish;
        if finish >= ev.deadline {
            self.arm(ev);
        }
        self.wheel.push(finish, *ev);
    }

    /// A server finishes `ev` at `ev.at` and starts its next waiting request.
    #[inline]
    fn finish(&mut self, mut ev: Ev) {
        let t = ev.at;
        let k = usize::from(ev.server);
        self.counts.served += 1;
        self.counts.served_until = t;
        self.rec.answer(t, outcome::SERVED);
        self.answer(&mut ev, outcome::SERVED, t);
        if self.servers.has_queue_timeout() {
            self.drop_stale(k, t);
        }
        let before = self.servers.queued;
        self.events += 1;
        if let Some((mut next, service)) = self.servers.finish(k, t, &mut self.rng) {
            self.events += 1;
            self.started(&mut next, t + service);
        }
        if self.servers.queued != before {
            self.rec.queue_level(t, self.servers.queued);
        }
    }

    #[inline]
    fn on_tick(&mut self, ev: Ev) {
        let t = ev.at;
        let Tick { issue, next } = self.load.tick(ev.client, t);
        if let Some(next) = next {
            self.wheel.push(next, self.tick(next));
        }
        if let Some(client) = issue {
            self.issue(client, t);
        }
    }

    /// Runs the events before `limit` (an absolute ms), looking ahead at each millisecond's
    /// events as the wheel takes them (see [`look_ahead`]).
    pub(crate) fn advance(&mut self, limit: u64) {
        if self.pending.is_cut() {
            return;
        }
        while let Some(ev) = {
            let servers = &self.servers;
            self.wheel
                .pop_with(limit, |batch| look_ahead(servers, batch))
        } {
            self.steps += 1;
            if self.steps % CHECK_EVERY == 0 && self.past_a_bound(ev.at) {
                break;
            }
            match ev.kind {
                Kind::Arrive => self.arrive(ev),
                Kind::Finish => self.finish(ev),
                Kind::Timeout => self.timeout(ev),
                Kind::Tick => self.on_tick(ev),
                Kind::Hedge => self.on_hedge_timer(ev),
            }
        }
        self.wheel.fence();
        self.rec.settle_queued();
        self.now = self.now.max(self.wheel.bucket() as f64);
        if self.wheel.is_empty() {
            self.now = self.now.max(self.counts.completion);
        } else if limit != u64::MAX {
            self.now = self.now.max(limit as f64);
        }
    }

    /// Whether the run, at `t`, must stop at a bound on its work: what it holds pending, or
    /// a closed loop's attempts. Refused, its events go, and their memory with them. Out of
    /// the event loop (cold): every 1,024 steps, and its code would only crowd the loop's.
    #[cold]
    #[inline(never)]
    fn past_a_bound(&mut self, t: f64) -> bool {
        let over = self.pending.over(self.held(), self.other_bytes());
        if !over && !self.load.stops(t, self.counts.bottom_attempts) {
            return false;
        }
        self.wheel = Wheel::new();
        self.frames = Frames::new();
        if over {
            self.pending.released();
        }
        true
    }

    /// The events the run holds now: in the wheel, waiting in the servers' queues, and the
    /// calls parked at upper layers (each an event kept until the layer below answers:
    /// uncounted, five layers of a million clients held 3.8 GB of a wasm module and the
    /// eighth such simulation alive killed it).
    fn held(&self) -> usize {
        self.wheel.pending() + self.servers.queued as usize + self.frames.len()
    }

    /// The run's memory other than its events, in bytes: its nets, its tickets and free
    /// slots, its recorder's buffers (see `Pending::over`).
    fn other_bytes(&self) -> usize {
        self.nets_bytes
            + (self.tickets.capacity() + self.free_slots.capacity()) * 4
            + self.rec.bytes()
    }

    pub(crate) fn is_done(&self) -> bool {
        self.wheel.is_empty() || self.pending.is_cut()
    }

    /// When the run stopped at a bound on what it holds pending: which, the most clients
    /// that fit for sure, and its clients.
    pub(crate) fn pending_cut(&self) -> Option<(WorkBound, f64, u32)> {
        self.pending.cut()
    }

    #[cfg(test)]
    pub(crate) fn cap_pending(&mut self, max: usize, max_alive: usize) {
        self.pending.cap(max, max_alive);
    }

    #[cfg(test)]
    pub(crate) fn pending_peak(&self) -> (usize, usize) {
        self.pending.peak()
    }

    #[cfg(test)]
    pub(crate) fn cap_attempts(&mut self, max: u64) {
        self.load.cap_attempts(max);
    }

    /// When a closed loop stopped issuing at a work bound, before its end.
    pub(crate) fn cut_at(&self) -> Option<(f64, f64, f64)> {
        self.load.cut_at()
    }

    /// For a closed loop cut at a bound: the least think that would fit (see
    /// `Load::least_think`).
    pub(crate) fn least_think(&self) -> Option<f64> {
        // The most a request makes at the bottom, as the bound counts them: every layer
        // retrying each call below it (the worst case).
        let per_request = f64::from(self.policy.max_attempts()).powi(i32::from(self.bottom) + 1);
        self.load.least_think(per_request)
    }

    /// A closed loop's think (ms); 0 for other loads.
    pub(crate) fn think_ms(&self) -> f64 {
        self.load.think_ms()
    }

    pub(crate) fn now_ms(&self) -> f64 {
        self.now
    }

    pub(crate) fn metrics(&mut self) -> Metrics {
        self.counts
            .metrics(self.bottom == 0, &mut self.rec, self.servers.max_queued)
    }
}
