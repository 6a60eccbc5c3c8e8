//! The clients' timeouts, a child of `herd.rs` working on the engine's own state: each
//! request's slot and ticket, the timer armed when an attempt's fate is not known before
//! its deadline, which of an armed attempt's two copies settles it, and the timeout
//! firing. (Why timers are armed only then: `herd.rs`'s module comment.)

use super::Herd;
use super::event::{ARMED, Ev, Kind};
use super::hedged::HEDGED;
use crate::sim::record::outcome;

impl Herd {
    /// A slot for a new request of `client`: the client's own when a client has one
    /// request at a time, else a free one. Only with a timeout.
    pub(super) fn take_slot(&mut self, client: u32) -> u32 {
        if !self.timeout.is_finite() || self.load.slot_per_client() {
            return client;
        }
        match self.free_slots.pop() {
            Some(slot) => slot,
            None => {
                self.tickets.push(0);
                (self.tickets.len() - 1) as u32
            }
        }
    }

    /// Puts `ev`'s timer in the wheel, at its deadline (not yet passed), and marks `ev`
    /// armed: from now on its ticket decides which copy settles it.
    #[inline]
    pub(super) fn arm(&mut self, ev: &mut Ev) {
        if ev.armed() || ev.deadline == f64::INFINITY {
            return;
        }
        ev.flags |= ARMED;
        if !ev.hedged() {
            ev.ticket = self.tickets[ev.slot as usize];
        }
        let timer = Ev {
            at: ev.deadline,
            kind: Kind::Timeout,
            ..*ev
        };
        self.wheel.push(timer.at, timer);
    }

    /// Whether `ev`'s attempt is still awaited by its client: always, unless its timer
    /// (or an answer, if its timer fired first) settled it.
    #[inline]
    pub(super) fn is_live(&self, ev: &Ev) -> bool {
        if ev.flags & (ARMED | HEDGED) == 0 {
            return true;
        }
        if ev.hedged() {
            return self.hedge_is_live(ev);
        }
        self.tickets[ev.slot as usize] == ev.ticket
    }

    /// `ev`'s attempt is settled (answered in time, or timed out): its other copy is stale.
    #[inline]
    pub(super) fn settle(&mut self, ev: &Ev) {
        if ev.flags & (ARMED | HEDGED) == 0 {
            return;
        }
        if ev.hedged() {
            self.hedge_settle(ev);
        } else {
            let t = &mut self.tickets[ev.slot as usize];
            *t = t.wrapping_add(1);
        }
    }

    /// The client's timeout fires at `ev.at`: if the attempt is still awaited, it failed
    /// with the transport error `timeout`.
    #[inline]
    pub(super) fn timeout(&mut self, mut ev: Ev) {
        if !self.is_live(&ev) {
            return;
        }
        let t = ev.at;
        self.settle(&ev);
        self.events += 1;
        self.counts.timeouts += 1;
        self.rec.timed_out(t);
        if ev.logged() {
            self.rec.log(t, ev.client, ev.number(), outcome::TIMEOUT);
        }
        self.decide(&mut ev, outcome::TIMEOUT, t);
    }
}
