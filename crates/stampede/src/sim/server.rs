//! The servers: a load balancer in front of identical servers, each with workers and a
//! waiting queue, failing fast during an outage, at random at the fail rate, and slowly in
//! a slowdown.
//!
//! A request that reaches a server is, in this order: failed at once with 503 if the
//! outage has that server; failed at once with 500 with probability `fail_rate`; started
//! if a worker is free (or workers are unlimited); queued if the queue has room; otherwise
//! rejected at once with 503, and the rejection costs the server `reject_cost` of a mean
//! service time, paid before it starts its next request (at most one mean service time per
//! worker is owed). When a worker frees up it takes the oldest waiting request (`fifo`) or
//! the newest (`lifo`); with a queue timeout, a request that waited longer is dropped with
//! 503 instead, and so is one at the head of a full queue when a new one arrives.
//!
//! Why a queue timeout and LIFO help: under overload a FIFO queue serves the requests that
//! waited longest, the very ones whose clients have most likely given up, so the server
//! can run at full throughput and still deliver nothing (all of it wasted). Dropping what
//! waited past a bound (CoDel's idea) keeps the queue's wait below the clients' timeout;
//! serving the newest first (Facebook's adaptive LIFO) serves the requests whose clients
//! are still there, and lets the old ones time out in the queue.

use std::collections::VecDeque;

use rand::RngExt;

use super::balancer::Balancer;
use super::model::{QueueOrder, ServiceDist, Slowdown};
use super::normal::{Normal, exponential};
use super::queue::Timed;
use super::record::outcome;
use super::{Checked, Fleet};
use crate::error::MAX_DURATION_MS;
use crate::{SeededRng, float};

/// What became of a request that reached a server.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Arrival {
    /// Answered at once with this outcome code.
    Answered(u8),
    /// A worker started it; it finishes after this many ms.
    Started(f64),
    /// There is room in the queue: [`enqueue`](Servers::enqueue) it.
    Queue,
}

#[derive(Debug, Clone)]
struct Server<T> {
    /// Requests in service.
    busy: u32,
    waiting: VecDeque<T>,
    /// Rejection work owed, paid by the next request to start (ms).
    debt_ms: f64,
}

pub(crate) struct Servers<T> {
    servers: Vec<Server<T>>,
    workers: u32,
    queue: usize,
    order: QueueOrder,
    queue_timeout: f64,
    service: f64,
    dist: ServiceDist,
    /// For `lognormal`: the log's mean and standard deviation.
    log_mu: f64,
    log_sigma: f64,
    slope: f64,
    slowdown: Option<Slowdown>,
    reject_debt: f64,
    max_debt: f64,
    fail_rate: f64,
    down_from: f64,
    down_until: f64,
    down_servers: usize,
    balancer: Balancer,
    normal: Normal,
    /// Requests waiting, all servers together, and the most there ever were.
    pub(crate) queued: u32,
    pub(crate) max_queued: u32,
}

impl<T: Copy + Timed> Servers<T> {
    pub(crate) fn new(c: &Checked) -> Self {
        let s = &c.s;
        let f: Fleet = c.fleet;
        let sigma = s.service_spread;
        Servers {
            servers: vec![
                Server {
                    busy: 0,
                    waiting: VecDeque::new(),
                    debt_ms: 0.0,
                };
                f.servers as usize
            ],
            workers: f.workers,
            queue: f.queue as usize,
            order: s.queue_order,
            queue_timeout: s.queue_timeout_ms.unwrap_or(f64::INFINITY),
            service: f.service_ms,
            dist: s.service_dist,
            log_mu: libm::log(f.service_ms) - sigma * sigma / 2.0,
            log_sigma: sigma,
            slope: s.service_slope_ms,
            slowdown: s.slowdown,
            reject_debt: s.reject_cost * f.service_ms,
            max_debt: f.service_ms * f64::from(f.workers.max(1)),
            fail_rate: s.fail_rate,
            down_from: s.outage_start_ms,
            down_until: s.outage_start_ms + s.outage_ms,
            down_servers: s.outage_servers.unwrap_or(f.servers) as usize,
            balancer: Balancer::new(s.balance, f.servers as usize),
            normal: Normal::default(),
            queued: 0,
            max_queued: 0,
        }
    }

    /// The server the load balancer sends the next request to.
    #[inline]
    pub(crate) fn pick(&mut self, rng: &mut SeededRng) -> usize {
        self.balancer.pick(rng)
    }

    /// Tells the balancer server `k`'s load.
    #[inline]
    fn loaded(&mut self, k: usize) {
        let s = &self.servers[k];
        self.balancer.loaded(k, s.busy as usize + s.waiting.len());
    }

    /// A request reaches server `k` at `t`.
    #[inline]
    pub(crate) fn arrive(&mut self, k: usize, t: f64, rng: &mut SeededRng) -> Arrival {
        if k < self.down_servers && t >= self.down_from && t < self.down_until {
            return Arrival::Answered(outcome::OUTAGE);
        }
        if self.fail_rate > 0.0 && rng.random::<f64>() < self.fail_rate {
            return Arrival::Answered(outcome::ERROR);
        }
        if self.workers == 0 || self.servers[k].busy < self.workers {
            return Arrival::Started(self.start(k, t, rng));
        }
        if self.servers[k].waiting.len() < self.queue {
            return Arrival::Queue;
        }
        let server = &mut self.servers[k];
        server.debt_ms = float::min(server.debt_ms + self.reject_debt, self.max_debt);
        Arrival::Answered(outcome::OVERLOAD)
    }

    /// `item` waits at server `k` (after [`Arrival::Queue`]).
    #[inline]
    pub(crate) fn enqueue(&mut self, k: usize, item: T) {
        self.servers[k].waiting.push_back(item);
        self.queued += 1;
        self.max_queued = self.max_queued.max(self.queued);
        self.loaded(k);
    }

    /// Whether waiting requests can time out.
    #[inline]
    pub(crate) fn has_queue_timeout(&self) -> bool {
        self.queue_timeout != f64::INFINITY
    }

    /// Whether the oldest request waiting at `k` waited longer than the queue timeout at
    /// `t`; if so it leaves the queue and is returned, to be answered with 503.
    #[inline]
    pub(crate) fn drop_stale(&mut self, k: usize, t: f64) -> Option<T> {
        let waiting = &mut self.servers[k].waiting;
        let oldest = waiting.front()?;
        if t - oldest.time() <= self.queue_timeout {
            return None;
        }
        self.queued -= 1;
        let old = waiting.pop_front();
        self.loaded(k);
        old
    }

    /// Hints that server `k` will soon take its next waiting request (see `hints.rs`):
    /// under overload a queue's next request was written long ago and is no longer cached.
    #[inline(always)]
    pub(crate) fn prefetch_next(&self, k: usize) {
        let Some(server) = self.servers.get(k) else {
            return;
        };
        let next = match self.order {
            QueueOrder::Lifo => server.waiting.back(),
            _ => server.waiting.front(),
        };
        if let Some(next) = next {
            super::hints::all_for_read(next);
        }
    }

    /// A request finished at `k` at `t`; the worker takes the next waiting request, which
    /// is returned with its service time. Stale requests must be dropped first
    /// ([`drop_stale`](Self::drop_stale)).
    #[inline]
    pub(crate) fn finish(&mut self, k: usize, t: f64, rng: &mut SeededRng) -> Option<(T, f64)> {
        let server = &mut self.servers[k];
        server.busy -= 1;
        let next = match self.order {
            QueueOrder::Lifo => server.waiting.pop_back(),
            _ => server.waiting.pop_front(),
        };
        let Some(next) = next else {
            self.loaded(k);
            return None;
        };
        self.queued -= 1;
        Some((next, self.start(k, t, rng)))
    }

    /// Starts a request at `k` at `t` and returns its service time: drawn from the
    /// distribution, longer by the slope for each request already in service and by the
    /// slowdown's factor, plus the rejection work owed; at most a day.
    #[inline]
    fn start(&mut self, k: usize, t: f64, rng: &mut SeededRng) -> f64 {
        let drawn = match self.dist {
            ServiceDist::Exponential => exponential(rng, 1.0 / self.service),
            ServiceDist::Lognormal => {
                libm::exp(self.log_mu + self.log_sigma * self.normal.standard(rng))
            }
            _ => self.service,
        };
        let server = &mut self.servers[k];
        let mut ms = drawn + self.slope * f64::from(server.busy);
        if let Some(sd) = self.slowdown {
            if sd.covers(t) {
                ms *= sd.factor;
            }
        }
        ms = float::min(ms + server.debt_ms, MAX_DURATION_MS);
        server.debt_ms = 0.0;
        server.busy += 1;
        self.loaded(k);
        ms
    }
}
