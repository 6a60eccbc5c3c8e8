//! Hedged requests in the herd: several attempts of one request in flight, the first
//! success winning, driven by the core's [`Hedge`] rules.
//!
//! A child of `herd.rs` (declared there with `#[path]`): the same engine, not a second
//! one. A hedged attempt is an [`Ev`] like any other, sent with `Herd::send`, served by the
//! same servers, timed out by the same timers; the hedge timer is one more event in the one
//! wheel ([`Kind::Hedge`]).
//!
//! Each hedged request has a slot here: its [`Hedge`] state, a generation and one bit per
//! attempt. Its attempts and timers carry the slot and the generation (in `Ev::ticket`),
//! and the attempt's index in `Ev::flags`. When the request ends, the generation moves on,
//! so every attempt and timer of it still in the wheel or a queue becomes stale at once;
//! an attempt's bit is set when it is settled (answered in time, or timed out), so its
//! other copy (a timeout's timer, a late answer) is stale too.
//!
//! **Cancelled losers.** When an attempt wins, the others are cancelled: the client stops
//! waiting for them. The servers are not told: an attempt still on the wire or waiting in
//! a queue is served when its turn comes, and its answer is discarded and counted as
//! `wasted`, exactly as for an attempt its client timed out. Why not remove it from the
//! queue: a real server learns of a cancellation only if the protocol carries it (HTTP/2
//! `RST_STREAM`, gRPC's cancellation) *and* the server checks before it starts the work,
//! which many do not; and one notion of wasted work for timeouts and hedges keeps the
//! model's cost of both comparable. So the load a hedge adds is counted in full — an
//! upper bound on what a server that honours cancellation would pay.
//!
//! Hedging off costs the hot path one predictable branch in `is_live`, `settle` and
//! `decide` (an `Ev` flag), and nothing else: no state is allocated. The hedged paths are
//! kept out of line (`#[inline(never)]`), so that the engine's inlined hot path (an
//! arrival that is answered at once, decided and sent again) does not grow with them, in
//! time or in WebAssembly bytes.

use super::{Ev, GET, Herd, Kind, LOGGED};
use crate::hedge::{Hedge, HedgeStep, Hedging};
use crate::policy::StopReason;

/// `Ev::flags`: the attempt belongs to a hedged request.
pub(super) const HEDGED: u8 = 4;
/// `Ev::flags`: the attempt's index in its request (0 for the first) sits above this bit,
/// where an unhedged call keeps its depth in the chain of layers.
const INDEX_SHIFT: u8 = super::DEPTH_SHIFT;
const _: () = assert!(crate::hedge::MAX_HEDGED_ATTEMPTS <= 1 << (8 - INDEX_SHIFT));

/// The index (from 0) of hedged attempt `ev` in its request.
#[inline]
pub(super) fn index(ev: &Ev) -> u32 {
    u32::from(ev.flags >> INDEX_SHIFT)
}

/// One hedged request's place.
#[derive(Debug, Clone, Copy)]
struct Slot {
    /// Moves on when the request ends: its attempts and timers still about are stale.
    generation: u32,
    /// One bit per attempt: settled (answered in time, or timed out).
    settled: u8,
    hedge: Hedge,
}

/// The hedged requests' state: the settings (`None`: no hedging, and nothing else is
/// ever allocated) and a slot per request in flight.
#[derive(Debug, Default)]
pub(super) struct Hedged {
    pub(super) hedging: Option<Hedging>,
    slots: Vec<Slot>,
    free: Vec<u32>,
}

impl Hedged {
    pub(super) fn new(hedging: Option<Hedging>) -> Self {
        Hedged {
            hedging,
            ..Hedged::default()
        }
    }
}

impl Herd {
    fn slot_of(&mut self, ev: &Ev) -> &mut Slot {
        &mut self.hedged.slots[ev.slot as usize]
    }

    /// A hedged request of `client` under `hedging`, admitted at `t`: takes a slot, sends
    /// the first attempt and sets the hedge timer.
    #[inline(never)]
    pub(super) fn issue_hedged(&mut self, hedging: Hedging, client: u32, t: f64, logged: bool) {
        let hedge = hedging.start(&self.policy, GET, t);
        let hd = &mut self.hedged;
        let slot = match hd.free.pop() {
            Some(i) => {
                let s = &mut hd.slots[i as usize];
                s.settled = 0;
                s.hedge = hedge;
                i
            }
            None => {
                hd.slots.push(Slot {
                    generation: 0,
                    settled: 0,
                    hedge,
                });
                (hd.slots.len() - 1) as u32
            }
        };
        let ev = Ev {
            at: t,
            deadline: f64::INFINITY,
            attempt: self.policy.start(t),
            client,
            slot,
            ticket: hd.slots[slot as usize].generation,
            server: 0,
            kind: Kind::Arrive,
            flags: HEDGED | if logged { LOGGED } else { 0 },
        };
        self.send_hedged(ev, t);
    }

    /// Sends hedged attempt `ev` at `t` and sets its request's hedge timer: one copy of
    /// the engine's (inlined) send for every hedged path.
    #[inline(never)]
    fn send_hedged(&mut self, ev: Ev, t: f64) {
        self.send(&mut { ev }, t);
        self.set_hedge_timer(&ev);
    }

    /// Puts the request's hedge timer in the wheel, if a hedge is due.
    #[inline(never)]
    fn set_hedge_timer(&mut self, ev: &Ev) {
        let Some(due) = self.slot_of(ev).hedge.next_due_ms() else {
            return;
        };
        let timer = Ev {
            at: due,
            kind: Kind::Hedge,
            flags: ev.flags & (HEDGED | LOGGED),
            ..*ev
        };
        self.wheel.push(due, timer);
    }

    /// Whether hedged attempt `ev` is still awaited: its request goes on and it is not
    /// settled.
    #[inline]
    pub(super) fn hedge_is_live(&self, ev: &Ev) -> bool {
        let s = &self.hedged.slots[ev.slot as usize];
        s.generation == ev.ticket && s.settled & (1 << index(ev)) == 0
    }

    /// Hedged attempt `ev` is settled: its other copy is stale.
    #[inline]
    pub(super) fn hedge_settle(&mut self, ev: &Ev) {
        self.slot_of(ev).settled |= 1 << index(ev);
    }

    /// A hedge timer fires at `ev.at`: unless stale (the request ended, or its due time
    /// moved), the next hedge is decided.
    #[inline(never)]
    pub(super) fn on_hedge_timer(&mut self, ev: Ev) {
        let s = self.slot_of(&ev);
        if s.generation != ev.ticket || s.hedge.next_due_ms() != Some(ev.at) {
            return;
        }
        let hedge = &mut self.hedged.slots[ev.slot as usize].hedge;
        let step = self.nets.hedge_due(hedge, ev.client, ev.at, &mut self.rng);
        self.hedge_step(ev, step, ev.at);
    }

    /// The client learns at `now` that hedged attempt `ev` ended with `code`.
    #[inline(never)]
    pub(super) fn decide_hedged(&mut self, ev: Ev, code: u8, now: f64) {
        let verdict = self.verdicts[usize::from(code)];
        let hedge = &mut self.hedged.slots[ev.slot as usize].hedge;
        let step = self
            .nets
            .hedge_outcome(hedge, ev.client, &verdict, now, &mut self.rng);
        self.hedge_step(ev, step, now);
    }

    /// Acts on the rules' answer for the request of `ev` at `now`.
    #[inline(never)]
    fn hedge_step(&mut self, ev: Ev, step: HedgeStep, now: f64) {
        match step {
            HedgeStep::Send => {
                let sent = self.slot_of(&ev).hedge.sent();
                self.counts.hedges += 1;
                self.events += 1;
                // The new attempt's index is `sent - 1` (at most 4: it fits above the flags).
                let index = (sent - 1) as u8;
                let hedge = Ev {
                    kind: Kind::Arrive,
                    flags: (ev.flags & (HEDGED | LOGGED)) | (index << INDEX_SHIFT),
                    ..ev
                };
                self.send_hedged(hedge, now);
            }
            HedgeStep::Wait => self.set_hedge_timer(&ev),
            HedgeStep::Done(reason) => self.end_hedged(ev, reason, now),
        }
    }

    /// The hedged request of `ev` ended at `now` for `reason`: counted, its slot freed
    /// (every attempt of it still about goes stale).
    fn end_hedged(&mut self, ev: Ev, reason: StopReason, now: f64) {
        let slot = self.slot_of(&ev);
        let (started, sent) = (slot.hedge.started_ms(), slot.hedge.sent());
        slot.generation = slot.generation.wrapping_add(1);
        self.hedged.free.push(ev.slot);
        match reason {
            StopReason::Succeeded(_) => {
                self.counts.successes += 1;
                self.rec.success(now);
                self.rec.latency(now - started);
            }
            // A net's refusal, counted apart by net as an unhedged request's is (the breaker's
            // and throttling's were counted as given up).
            StopReason::BudgetExhausted(_)
            | StopReason::CircuitOpen(_)
            | StopReason::Throttled(_) => {
                let code = self.count_blocked(reason, now);
                if ev.flags & LOGGED != 0 {
                    self.rec.log(now, ev.client, sent + 1, code);
                }
            }
            _ => self.counts.gave_up += 1,
        }
        self.ended(ev.client, now);
    }
}
