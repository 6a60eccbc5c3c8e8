//! The `burst` and `steady` scenarios: clients under a [`Policy`] against a server that
//! fails, then serves a bounded capacity.

use rand::RngExt;

use super::normal::exponential;
use super::queue::{Timed, Wheel};
use super::record::{Recorder, outcome};
use super::{BudgetScope, Checked, Metrics, SERVER_BURST_S, Scenario, log_stride};
use crate::SeededRng;
use crate::backoff::uniform;
use crate::budget::TokenBucket;
use crate::classify::{HttpStatus, Method, Outcome, Request, Verdict};
use crate::policy::{Attempt, Decision, Policy, StopReason};

/// The client of the `steady` scenario's request generator, an event like the others.
const GENERATOR: u32 = u32::MAX;
const GET: Request = Request::new(Method::Get);

/// One logical request in flight: the event the wheel carries. 48 bytes.
#[derive(Debug, Clone, Copy)]
struct Req {
    /// When its next attempt reaches the server (ms).
    at: f64,
    attempt: Attempt,
    client: u32,
    logged: bool,
}

const _: () = assert!(size_of::<Req>() == 48);

impl Timed for Req {
    #[inline]
    fn time(&self) -> f64 {
        self.at
    }
}

/// The server: down during the outage, else a credit of capacity.
#[derive(Debug, Clone, Copy)]
struct Server {
    down_from: f64,
    down_until: f64,
    per_ms: f64,
    burst: f64,
    reject_cost: f64,
    credit: f64,
    updated: f64,
}

impl Server {
    #[inline]
    fn answer(&mut self, t: f64) -> u8 {
        if t >= self.down_from && t < self.down_until {
            return outcome::OUTAGE;
        }
        if t > self.updated {
            self.credit = (self.credit + (t - self.updated) * self.per_ms).min(self.burst);
            self.updated = t;
        }
        if self.credit >= 1.0 {
            self.credit -= 1.0;
            outcome::SERVED
        } else {
            self.credit = (self.credit - self.reject_cost).max(-self.burst);
            outcome::OVERLOAD
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Counts {
    requests: u64,
    attempts: u64,
    successes: u64,
    gave_up: u64,
    budget_rejected: u64,
    completion: f64,
}

pub(crate) struct Herd {
    policy: Policy,
    scope: Option<BudgetScope>,
    budgets: Vec<TokenBucket>,
    half_latency: f64,
    /// Half the width of the uniform jitter of one trip: `sqrt(3) · sd/sqrt(2)`, so that a
    /// round trip (two trips) has standard deviation `sd`.
    jitter_halfwidth: f64,
    /// The classifier's verdict on each answer the server gives, by outcome code. The
    /// server's answers are always the same three (200; 503 with the outage's
    /// `Retry-After` in delta-seconds, which does not depend on the time; 503), so each is
    /// classified once, by the core's rules, when the run is set up.
    verdicts: [Verdict; 3],
    rng: SeededRng,
    wheel: Wheel<Req>,
    server: Server,
    pub(crate) rec: Recorder,
    pub(crate) log_stride: u32,
    pub(crate) log_rows: u32,
    counts: Counts,
    /// `steady`: arrivals per ms, over all clients, and when they stop.
    gen_rate: f64,
    gen_until: f64,
    clients: u32,
    now: f64,
}

impl Herd {
    pub(crate) fn new(c: Checked) -> Self {
        let s = &c.s;
        let now0 = 0.0;
        let budgets = match (c.budget, s.budget_scope) {
            (None, _) => Vec::new(),
            (Some(b), BudgetScope::Shared) => vec![TokenBucket::from_valid(b, now0)],
            (Some(b), BudgetScope::Client) => {
                vec![TokenBucket::from_valid(b, now0); s.clients as usize]
            }
        };
        let scope = c.budget.map(|_| s.budget_scope);
        let outage_end = s.outage_start_ms + s.outage_ms;
        let burst_credit = (s.capacity_rps * SERVER_BURST_S).max(1.0);
        let stride = log_stride(s.clients, s.log_clients);
        let mut h = Herd {
            policy: c.policy,
            scope,
            budgets,
            half_latency: s.latency_ms / 2.0,
            jitter_halfwidth: 1.5f64.sqrt() * c.latency_sd,
            verdicts: {
                let rules = c.policy.rules();
                let retry_after = s
                    .retry_after_ms
                    .map(|ms| format!("{}", (ms / 1000.0).ceil() as u64));
                // Indexed by outcome code.
                const _: () =
                    assert!(outcome::SERVED == 0 && outcome::OUTAGE == 1 && outcome::OVERLOAD == 2);
                let unavailable = Outcome::response(HttpStatus::SERVICE_UNAVAILABLE);
                let outage = Outcome::Response {
                    status: HttpStatus::SERVICE_UNAVAILABLE,
                    retry_after: retry_after.as_deref(),
                    pushback_ms: None,
                };
                [Outcome::response(HttpStatus::OK), outage, unavailable]
                    .map(|answer| rules.classify(GET, &answer, 0.0))
            },
            rng: crate::seeded(s.seed),
            wheel: Wheel::new(),
            server: Server {
                down_from: s.outage_start_ms,
                down_until: outage_end,
                per_ms: s.capacity_rps / 1000.0,
                burst: burst_credit,
                reject_cost: s.reject_cost,
                credit: burst_credit,
                updated: 0.0,
            },
            rec: Recorder::new(s.slot_ms, outage_end),
            log_stride: stride,
            log_rows: s.log_clients.min(s.clients),
            counts: Counts::default(),
            gen_rate: 0.0,
            gen_until: 0.0,
            clients: s.clients,
            now: 0.0,
        };
        match s.scenario {
            Scenario::Steady => {
                h.gen_rate = f64::from(s.clients) * s.rate_per_client / 1000.0;
                h.gen_until = s.duration_ms;
                let first = exponential(&mut h.rng, h.gen_rate);
                if first < h.gen_until {
                    let generator = Req {
                        at: first,
                        attempt: h.policy.start(0.0),
                        client: GENERATOR,
                        logged: false,
                    };
                    h.wheel.push(first, generator);
                }
            }
            _ => {
                // Every buffer a burst fills, sized up front: no reallocation while it runs.
                let attempts = h.policy.max_attempts() as usize;
                h.rec
                    .reserve(h.log_rows as usize * attempts, s.clients as usize);
                h.wheel.reserve(s.clients as usize);
                for client in 0..s.clients {
                    let start = uniform(&mut h.rng, 0.0, s.burst_window_ms);
                    h.issue(client, start);
                }
            }
        }
        h
    }

    /// One trip's latency: `latency/2` plus uniform jitter of standard deviation
    /// `sd/sqrt(2)`, never negative. (A uniform draw costs a tenth of a normal one, and the herd's shape
    /// does not depend on the jitter's; `aws-occ` keeps the AWS model's normal delays.)
    #[inline]
    fn one_way(&mut self) -> f64 {
        if self.jitter_halfwidth == 0.0 {
            return self.half_latency;
        }
        uniform(
            &mut self.rng,
            self.half_latency - self.jitter_halfwidth,
            self.half_latency + self.jitter_halfwidth,
        )
        .max(0.0)
    }

    #[inline]
    fn budget(
        budgets: &mut [TokenBucket],
        scope: Option<BudgetScope>,
        client: u32,
    ) -> Option<&mut TokenBucket> {
        match scope {
            None => None,
            Some(BudgetScope::Shared) => budgets.first_mut(),
            Some(BudgetScope::Client) => budgets.get_mut(client as usize),
        }
    }

    fn is_logged(&self, client: u32) -> bool {
        client % self.log_stride == 0 && client / self.log_stride < self.log_rows
    }

    /// A new logical request of `client` at `t`: through the budget's gate, then sent.
    fn issue(&mut self, client: u32, t: f64) {
        self.counts.requests += 1;
        let logged = self.is_logged(client);
        if let Err(_e) = self
            .policy
            .admit(Self::budget(&mut self.budgets, self.scope, client), t)
        {
            self.counts.budget_rejected += 1;
            self.counts.completion = self.counts.completion.max(t);
            self.rec.blocked(t);
            if logged {
                self.rec.log(t, client, 1, outcome::BUDGET_BLOCKED);
            }
            return;
        }
        let at = t + self.one_way();
        let req = Req {
            at,
            attempt: self.policy.start(t),
            client,
            logged,
        };
        self.wheel.push(at, req);
    }

    fn generate(&mut self, mut generator: Req) {
        let t = generator.at;
        let client = self.rng.random_range(0..self.clients);
        self.issue(client, t);
        generator.at = t + exponential(&mut self.rng, self.gen_rate);
        if generator.at < self.gen_until {
            self.wheel.push(generator.at, generator);
        }
    }

    /// One attempt of `req` reaches the server at `req.at`.
    fn attempt(&mut self, mut req: Req) {
        let t = req.at;
        let code = self.server.answer(t);
        self.counts.attempts += 1;
        self.rec.attempt(t, code);
        let back = self.one_way();
        let now = t + back;
        let Req { client, logged, .. } = req;
        let made = req.attempt.made() + 1;
        if logged {
            self.rec.log(t, client, made, code);
        }
        let verdict = &self.verdicts[usize::from(code.min(outcome::OVERLOAD))];
        let budget = Self::budget(&mut self.budgets, self.scope, client);
        let decision =
            self.policy
                .decide_verdict(&mut req.attempt, verdict, now, budget, &mut self.rng);
        match decision {
            Decision::Retry { delay_ms, .. } => {
                req.at = now + delay_ms + self.one_way();
                self.wheel.push(req.at, req);
            }
            Decision::Stop(reason) => {
                match reason {
                    StopReason::Succeeded(_) => {
                        self.counts.successes += 1;
                        let started = req.attempt.started_ms();
                        self.rec.latencies.push((now - started) as f32);
                    }
                    StopReason::BudgetExhausted(_) => {
                        self.counts.budget_rejected += 1;
                        self.rec.blocked(now);
                        if logged {
                            self.rec.log(now, client, made + 1, outcome::BUDGET_BLOCKED);
                        }
                    }
                    _ => self.counts.gave_up += 1,
                }
                self.counts.completion = self.counts.completion.max(now);
            }
        }
    }

    pub(crate) fn advance(&mut self, limit: u64) {
        while let Some(&req) = self.wheel.pop(limit) {
            if req.client == GENERATOR {
                self.generate(req);
            } else {
                self.attempt(req);
            }
        }
        self.now = self.now.max(self.wheel.bucket() as f64);
        if self.wheel.is_empty() {
            self.now = self.now.max(self.counts.completion);
        } else if limit != u64::MAX {
            self.now = self.now.max(limit as f64);
        }
    }

    pub(crate) fn is_done(&self) -> bool {
        self.wheel.is_empty()
    }

    pub(crate) fn now_ms(&self) -> f64 {
        self.now
    }

    pub(crate) fn metrics(&mut self) -> Metrics {
        let c = self.counts;
        let (p50, p99) = self.rec.percentiles();
        let requests = c.requests as f64;
        Metrics {
            requests,
            total_attempts: c.attempts as f64,
            successes: c.successes as f64,
            gave_up: c.gave_up as f64,
            budget_rejected: c.budget_rejected as f64,
            amplification: if c.requests > 0 {
                c.attempts as f64 / requests
            } else {
                0.0
            },
            peak_rps: self.rec.peak.peak_rps(),
            peak_recovery_rps: self.rec.peak_recovery.peak_rps(),
            completion_ms: c.completion,
            recovery_ms: self.rec.recovery_ms(),
            p50_ms: p50,
            p99_ms: p99,
            calls: c.attempts as f64,
            ..Metrics::default()
        }
    }
}
