//! The engine's one event: an attempt of a logical request (where it is: reaching a
//! server, being served, its client's timeout) or an arrival process's tick, 64 bytes, one
//! cache line. A child of `herd.rs`, whose parts (and `layers.rs`, `hedged.rs`) read its
//! fields directly.

use crate::policy::Attempt;
use crate::sim::queue::Timed;

/// What an event is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kind {
    /// The attempt reaches the load balancer.
    Arrive,
    /// A server finishes serving it.
    Finish,
    /// Its client's timeout fires.
    Timeout,
    /// The arrival process's next tick (see `load.rs`).
    Tick,
    /// A hedged request's hedge timer (see `hedged.rs`).
    Hedge,
}

/// One event: an attempt of a logical request, where it is, or a tick. 64 bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ev {
    /// When it happens (ms). In a queue: when it arrived there.
    pub(super) at: f64,
    /// When the client gives this attempt up (ms); infinite without a timeout.
    pub(super) deadline: f64,
    pub(super) attempt: Attempt,
    pub(super) client: u32,
    /// The request's slot in the tickets (with timeouts).
    pub(super) slot: u32,
    /// The slot's ticket when this attempt was sent: it is live while they match.
    pub(super) ticket: u32,
    pub(super) server: u16,
    pub(super) kind: Kind,
    /// [`LOGGED`], [`ARMED`], [`HEDGED`](super::hedged::HEDGED), and from bit [`DEPTH_SHIFT`] on the call's depth
    /// or, for a hedged attempt, its index.
    pub(super) flags: u8,
}

/// The client's attempts go into the log.
pub(super) const LOGGED: u8 = 1;
/// The attempt's timer is in the wheel: its ticket decides which copy settles it.
pub(super) const ARMED: u8 = 2;
/// The rest of the flags is the call's depth: 0 for a client's call to layer 1, `k` for
/// layer `k`'s call to layer `k + 1` (see `layers.rs`); for a hedged attempt, its index
/// in its request instead (see `hedged.rs`). The two never meet: hedging is refused with
/// more than one layer, so a hedged attempt is a client's (depth 0). An event is one cache
/// line, with no byte to spare for either.
pub(super) const DEPTH_SHIFT: u8 = 3;
const _: () = assert!(crate::sim::MAX_LAYERS < 1 << (8 - DEPTH_SHIFT));
const _: () = assert!(super::hedged::HEDGED < 1 << DEPTH_SHIFT && super::hedged::HEDGED > ARMED);

impl Ev {
    #[inline]
    pub(super) fn logged(&self) -> bool {
        self.flags & LOGGED != 0
    }
    #[inline]
    pub(super) fn armed(&self) -> bool {
        self.flags & ARMED != 0
    }
    #[inline]
    pub(super) fn depth(&self) -> u8 {
        if self.hedged() {
            0
        } else {
            self.flags >> DEPTH_SHIFT
        }
    }
    #[inline]
    pub(super) fn hedged(&self) -> bool {
        self.flags & super::hedged::HEDGED != 0
    }
    /// The attempt's number in its request, from 1, for the log. Without a branch: a
    /// hedged attempt's policy state never counts an attempt (its rules are the hedge's),
    /// and any other attempt has no index in its flags, so one of the two terms is 0.
    #[inline]
    pub(super) fn number(&self) -> u32 {
        self.attempt.made() + super::hedged::index(self) + 1
    }
}

const _: () = assert!(size_of::<Ev>() == 64);

impl Timed for Ev {
    #[inline]
    fn time(&self) -> f64 {
        self.at
    }
}
