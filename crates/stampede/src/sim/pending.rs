//! The bound on the events a run holds pending at once: its memory.
//!
//! The attempt bound (`work.rs`) caps a run's time, not its memory. Attempts a client gave
//! up on stay at the server, so with a short timeout, a long service and unlimited workers
//! (or a long latency) every attempt of a run can be pending at once: a million clients
//! with 6 attempts, a 1 ms timeout, 60 s of latency and a day of service held 6 million
//! events and took 1.4 GB natively and about 3 GB of a WebAssembly module's 4 GB (its
//! buffers grow by doubling, and wasm memory never shrinks), so a second such simulation
//! alive killed the module (`RuntimeError: unreachable`).
//!
//! Two bounds, checked as the run goes (every [`CHECK_EVERY`] steps):
//! - One run holds at most [`MAX_PENDING`] events. Past it, it stops and is refused.
//! - The runs alive on one thread (in wasm: in the module) together held at most
//!   [`MAX_PENDING_ALIVE`] at their peaks: each keeps the memory of its peak until it is
//!   dropped (`free()` in JavaScript). Past it, the run that goes over stops and is refused,
//!   and its error says to free the others. A run that stops gives its memory back at once.
//!   A run's other memory counts here too, as the events it would hold
//!   ([`event_equivalents`]): its per-client nets, its attempt log, its latencies and series.
//!   Uncounted, twenty simulations of 226,000 clients, each with a breaker, a throttle and
//!   an AWS quota per client and every client logged (about 200 MB each, but 226,000
//!   events), filled a wasm module's 4 GB and the next constructor trapped.
//!
//! Both are deterministic for one sequence of calls on one thread, so a seeded run is
//! refused (or not) the same way every time; runs on other threads (a sweep's) do not
//! count against each other.

use std::cell::Cell;

use crate::error::WorkBound;

/// The most events one run may hold pending at once (in the wheel, and waiting in the
/// servers' queues). 4 million events are at most ~320 MB of events natively (~900 MB of
/// a wasm module's memory, with its buffers' growth); the million-client burst holds one
/// per client (two with a timeout: its timer), and a steady or closed run far fewer.
pub const MAX_PENDING: usize = 4_000_000;

/// The most events the runs alive on one thread may have held at their peaks, together:
/// in wasm, ~220 bytes of the module's memory each (a run cut at 4 million grew it by 870
/// MB), so 10 million stay within ~2.5 GB of its 4 GB.
pub const MAX_PENDING_ALIVE: usize = 10_000_000;

/// Bytes of a wasm module's memory one pending event takes (see [`MAX_PENDING_ALIVE`]).
const EVENT_BYTES: usize = 220;

/// A run's memory other than its events, in the events that would take as much of a wasm
/// module's memory: twice its bytes (a buffer that grows holds its old copy while it moves),
/// at [`EVENT_BYTES`] an event.
pub(crate) fn event_equivalents(bytes: usize) -> usize {
    bytes.saturating_mul(2) / EVENT_BYTES
}

/// Bytes of memory one pending event takes natively at most, the wheel's chunks and batch
/// included: a million clients' 3 attempts with a 2 ms timeout against unlimited workers and
/// a minute's service (4 million events at the bound) peaked at 666 MB.
const NATIVE_EVENT_BYTES: f64 = 170.0;

/// An upper estimate of the memory one [`run`](super::run) of `settings` (metrics only: no
/// log, no series) takes natively at its peak, in bytes: its pending events at most (each
/// attempt in flight and its timer, bounded by [`MAX_PENDING`]), its nets, its tickets and
/// its latencies. What a caller running many at once budgets by: `stampede sweep` runs as
/// many together as its memory allows, not one a core. The settings' errors are
/// [`Simulation::new`](super::Simulation::new)'s.
pub fn peak_bytes(settings: &super::SimSettings) -> Result<f64, crate::ConfigError> {
    let c = settings.check()?;
    let clients = f64::from(c.s.clients);
    let Some(attempts) = super::work::attempts_bound(&c) else {
        // aws-occ: a client's state and its one message in flight.
        return Ok(clients * 2.0 * NATIVE_EVENT_BYTES);
    };
    // A burst's client without a timer, hedges or layers has one attempt out at a time.
    let one_each = c.s.scenario == super::Scenario::Burst
        && c.s.timeout_ms.is_none()
        && c.hedging.is_none()
        && c.s.layers <= 1;
    let events = if one_each {
        clients
    } else {
        worst_events(&c).min(MAX_PENDING as f64)
    };
    let nets = super::nets::held_bytes(c.nets.as_ref(), c.s.budget_scope, c.s.clients) as f64;
    // A ticket per client, a latency per success (at most one a request: fewer than attempts).
    Ok(events * NATIVE_EVENT_BYTES + nets + clients * 4.0 + attempts * 4.0)
}

/// The most events `c`'s run could ever hold: each attempt in flight and its timer, every
/// attempt of every request at once, and each client's tick.
pub(crate) fn worst_events(c: &super::Checked) -> f64 {
    super::work::attempts_bound(c).unwrap_or(f64::INFINITY) * 2.0 + f64::from(c.s.clients)
}

/// A run checks what it holds pending every this many steps: between two checks a step
/// adds at most a few events, so a run stops a few thousand past a bound at most.
pub(crate) const CHECK_EVERY: u64 = 1024;

thread_local! {
    /// The peaks of the runs alive on this thread, summed.
    static HELD: Cell<usize> = const { Cell::new(0) };
}

/// One run's side of the bounds.
#[derive(Debug)]
pub(crate) struct Pending {
    max: usize,
    max_alive: usize,
    /// The most this run has held (counted in `HELD` while it is alive).
    peak: usize,
    /// Its other memory when last checked, in events ([`event_equivalents`]).
    other: usize,
    /// Why the run stopped, if it did.
    cut: Option<WorkBound>,
    /// What the bound's error says fits: the run's clients, and the most events it could
    /// ever hold (each attempt in flight and its timer, every attempt of every request at
    /// once, and each client's tick).
    clients: u32,
    worst: f64,
}

impl Pending {
    pub(crate) fn new(clients: u32, worst: f64) -> Self {
        Pending {
            max: MAX_PENDING,
            max_alive: MAX_PENDING_ALIVE,
            peak: 0,
            other: 0,
            cut: None,
            clients,
            worst,
        }
    }

    /// The run holds `events` events and `other_bytes` of other memory: whether it must stop
    /// (it has passed a bound, now or before). The caller then releases the memory and calls
    /// [`released`](Self::released). One run's bound counts its events alone; the bound on
    /// the runs alive counts its other memory too.
    #[cold]
    pub(crate) fn over(&mut self, events: usize, other_bytes: usize) -> bool {
        if self.cut.is_some() {
            return true;
        }
        self.other = event_equivalents(other_bytes);
        let now = events.saturating_add(self.other);
        if now > self.peak {
            HELD.set(HELD.get() + (now - self.peak));
            self.peak = now;
        }
        if events > self.max {
            self.cut = Some(WorkBound::Pending);
        } else if HELD.get() > self.max_alive {
            self.cut = Some(WorkBound::PendingAlive);
        }
        self.cut.is_some()
    }

    /// The run stopped and gave its memory back: its peak no longer counts.
    pub(crate) fn released(&mut self) {
        HELD.set(HELD.get().saturating_sub(self.peak));
        self.peak = 0;
    }

    pub(crate) fn is_cut(&self) -> bool {
        self.cut.is_some()
    }

    /// When the run stopped at a bound: which, the most clients that fit for sure (the
    /// clients scaled by what the bound leaves over the most the run could hold), and the
    /// run's clients.
    pub(crate) fn cut(&self) -> Option<(WorkBound, f64, u32)> {
        let bound = self.cut?;
        // Beside the runs alive, what is left when this one's peak is given back; none may be
        // (the error then says 0: free the others first). A run's other memory grows with
        // its clients as its events do.
        let (room, most, least) = match bound {
            WorkBound::PendingAlive => (
                self.max_alive
                    .saturating_sub(HELD.get().saturating_sub(self.peak))
                    .min(self.max),
                self.worst + self.other as f64,
                0.0,
            ),
            _ => (self.max, self.worst, 1.0),
        };
        let fits = (f64::from(self.clients) * room as f64 / most)
            .floor()
            .max(least);
        Some((bound, fits, self.clients))
    }

    /// Its peak, and its other memory when last checked (both in events).
    #[cfg(test)]
    pub(crate) fn peak(&self) -> (usize, usize) {
        (self.peak, self.other)
    }

    /// Lowers the bounds, so that a test reaches them cheaply.
    #[cfg(test)]
    pub(crate) fn cap(&mut self, max: usize, max_alive: usize) {
        self.max = max;
        self.max_alive = max_alive;
    }
}

/// Counts `n` events as held by runs alive on this thread until the guard is dropped, so
/// that a test reaches the bound on them without building those runs.
#[cfg(test)]
pub(crate) fn preload(n: usize) -> impl Drop {
    struct Held(usize);
    impl Drop for Held {
        fn drop(&mut self) {
            HELD.set(HELD.get().saturating_sub(self.0));
        }
    }
    HELD.set(HELD.get() + n);
    Held(n)
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.released();
    }
}
