//! A client hearing its attempt's fate, a child of `herd.rs` working on the engine's own
//! state: the answer climbing back (through the layers, if any) and the trip home, the
//! policy's decision (a retry sent, or the request's end, counted by why), and the next
//! request of a client whose last one ended.

use super::Herd;
use super::event::Ev;
use crate::float;
use crate::policy::{Decision, StopReason};
use crate::sim::record::outcome;

impl Herd {
    /// A server answered `ev` at `t` with `code`; the answer reaches the client a trip
    /// later, unless the client gave the attempt up first. (A call from an upper layer
    /// reaches that layer instead.)
    #[inline(always)]
    pub(super) fn answer(&mut self, ev: &mut Ev, code: u8, mut t: f64) {
        // Up the chain, one layer at a time, until a layer retries or the client hears.
        while self.bottom != 0 && ev.depth() != 0 {
            match self.answer_inner(*ev, code, t) {
                Some((caller, at)) => (*ev, t) = (caller, at),
                None => return,
            }
        }
        let now = t + self.one_way();
        self.events += 1;
        if !self.is_live(ev) || now >= ev.deadline {
            if code == outcome::SERVED {
                self.counts.wasted += 1;
                self.rec.wasted(t);
            }
            // Late: the client gives up at the deadline, which has not passed if it was
            // not armed (it would have been, before).
            self.arm(ev);
            return;
        }
        self.settle(ev);
        if ev.logged() {
            self.rec.log(t, ev.client, ev.number(), code);
        }
        self.decide(ev, code, now);
    }

    /// The client learns at `now` that its attempt ended with `code`, and asks the policy.
    #[inline(always)]
    pub(super) fn decide(&mut self, ev: &mut Ev, code: u8, now: f64) {
        if ev.hedged() {
            return self.decide_hedged(*ev, code, now);
        }
        let client = ev.client;
        let verdict = &self.verdicts[usize::from(code)];
        let decision = self.nets.decide(
            &self.policy,
            client,
            &mut ev.attempt,
            verdict,
            now,
            &mut self.rng,
        );
        match decision {
            Decision::Retry { delay_ms, .. } => {
                self.events += 1;
                self.send(ev, now + delay_ms)
            }
            Decision::Stop(reason) => {
                match reason {
                    StopReason::Succeeded(_) => {
                        self.counts.successes += 1;
                        self.rec.success(now);
                        let started = ev.attempt.started_ms();
                        self.rec.latency(now - started);
                    }
                    StopReason::BudgetExhausted(_)
                    | StopReason::CircuitOpen(_)
                    | StopReason::Throttled(_) => {
                        let code = self.count_blocked(reason, now);
                        if ev.logged() {
                            let next = ev.attempt.made() + 1;
                            self.rec.log(now, client, next, code);
                        }
                    }
                    _ => self.counts.gave_up += 1,
                }
                if self.timeout.is_finite() && !self.load.slot_per_client() {
                    self.free_slots.push(ev.slot);
                }
                self.ended(client, now);
            }
        }
    }

    /// A net refused a request or a retry at `t`, for `reason` (one of the nets'): counted
    /// apart by net; returns the log's code.
    pub(super) fn count_blocked(&mut self, reason: StopReason, t: f64) -> u8 {
        self.rec.blocked(t);
        match reason {
            StopReason::CircuitOpen(_) => {
                self.counts.breaker_rejected += 1;
                outcome::BREAKER_BLOCKED
            }
            StopReason::Throttled(_) => {
                self.counts.throttled += 1;
                outcome::THROTTLED
            }
            _ => {
                self.counts.budget_rejected += 1;
                outcome::BUDGET_BLOCKED
            }
        }
    }

    /// `client`'s request ended at `t`.
    #[inline]
    pub(super) fn ended(&mut self, client: u32, t: f64) {
        self.counts.completion = float::max(self.counts.completion, t);
        let attempts = self.counts.bottom_attempts;
        if let Some(next) = self.load.next_of(t, attempts) {
            let mut tick = self.tick(next);
            tick.client = client;
            self.wheel.push(next, tick);
        }
    }
}
