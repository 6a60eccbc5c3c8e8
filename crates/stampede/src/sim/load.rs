//! Where new requests come from: a burst at the start, an open Poisson stream (steady, or
//! with a spike), or a closed loop of clients that each wait for one request to end, pause,
//! and send the next.

use rand::RngExt;

use super::normal::exponential;
use super::{Checked, MAX_STEADY_REQUESTS, Scenario};
use crate::SeededRng;

/// A closed loop stops issuing after this many requests, whatever its draws: its work is
/// checked up front from the mean cycle, and this keeps a run of unlucky draws (or of
/// requests refused at once by a budget, with no pause) bounded too.
const MAX_CLOSED_REQUESTS: u64 = 2 * MAX_STEADY_REQUESTS as u64;

#[derive(Debug, Clone, Copy)]
enum Shape {
    /// Every client sends one request at the start.
    Burst,
    /// A Poisson stream over all clients: `rate` per ms, `factor` times that in
    /// `[spike_from, spike_to)`, until `until`.
    Open {
        rate: f64,
        factor: f64,
        spike_from: f64,
        spike_to: f64,
        until: f64,
    },
    /// Each client: a request, then an exponential pause of mean `think` ms, until `until`.
    Closed { think: f64, until: f64 },
}

/// What a tick of the arrival process does.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Tick {
    /// The client that sends a new request now.
    pub(crate) issue: Option<u32>,
    /// When the open stream's next tick is.
    pub(crate) next: Option<f64>,
}

#[derive(Debug, Clone)]
pub(crate) struct Load {
    shape: Shape,
    clients: u32,
    issued: u64,
    /// A closed loop stops issuing once the run has made this many attempts (the bound the
    /// settings were checked against): its requests may end much faster than the mean
    /// cycle the check assumed (failed at once in an outage, refused by a net).
    max_attempts: u64,
    /// When a closed loop stopped issuing before its end, at a bound.
    cut_at: Option<f64>,
    /// When it passed half its bounds (the duration a cut run names as the most that fits:
    /// a run of any duration goes on past it while its requests in flight end, and that
    /// tail, in a loop whose requests make many attempts, had taken the run past the
    /// bound that the time of the cut named).
    half_at: Option<f64>,
    /// The arrivals' own draws (the open stream's gaps and clients, the closed loop's
    /// pauses), apart from the run's: for an open stream (steady, spike) the same seed brings
    /// the same requests at the same times whatever the policy draws, so that policies
    /// compare on one offered load (on one stream, 100 clients' 10 s at 10 rps made 9,940
    /// requests with one attempt and 10,055 with four). A closed loop's next request waits
    /// for the last to end, which the policy decides: its pauses come in another order.
    rng: SeededRng,
}

/// Offsets the arrivals' seed from the run's (see [`Load`]'s `rng`).
const ARRIVALS_SEED: u64 = 0x9E37_79B9_7F4A_7C15;

impl Load {
    pub(crate) fn new(c: &Checked) -> Self {
        let s = &c.s;
        let shape = match s.scenario {
            Scenario::Steady | Scenario::Spike => {
                let spike = s.has_spike();
                Shape::Open {
                    rate: f64::from(s.clients) * s.rate_per_client / 1000.0,
                    factor: if spike { s.spike_factor } else { 1.0 },
                    spike_from: if spike { s.spike_start_ms } else { 0.0 },
                    spike_to: if spike {
                        s.spike_start_ms + s.spike_length_ms
                    } else {
                        0.0
                    },
                    until: s.duration_ms,
                }
            }
            Scenario::Closed => Shape::Closed {
                think: s.think_ms,
                until: s.duration_ms,
            },
            _ => Shape::Burst,
        };
        Load {
            shape,
            clients: s.clients,
            issued: 0,
            max_attempts: super::work::max_run_attempts(c) as u64,
            cut_at: None,
            half_at: None,
            rng: crate::seeded(s.seed.wrapping_add(ARRIVALS_SEED)),
        }
    }

    pub(crate) fn is_burst(&self) -> bool {
        matches!(self.shape, Shape::Burst)
    }

    /// Whether a client has at most one request at a time (so its number can name the
    /// request).
    pub(crate) fn slot_per_client(&self) -> bool {
        !matches!(self.shape, Shape::Open { .. })
    }

    /// The first ticks: the open stream's first arrival, or each closed-loop client's
    /// first request (after a pause drawn like the others), as (time, client).
    pub(crate) fn first_ticks(&mut self) -> Vec<(f64, u32)> {
        let rng = &mut self.rng;
        match self.shape {
            Shape::Burst => Vec::new(),
            shape @ Shape::Open { .. } => next_arrival(shape, 0.0, rng)
                .map(|t| (t, 0))
                .into_iter()
                .collect(),
            Shape::Closed { think, until } => (0..self.clients)
                .map(|client| (pause(think, rng), client))
                .filter(|&(t, _)| t < until)
                .collect(),
        }
    }

    /// A tick at `t` (of `client`, for a closed loop).
    pub(crate) fn tick(&mut self, client: u32, t: f64) -> Tick {
        match self.shape {
            Shape::Burst => Tick {
                issue: None,
                next: None,
            },
            shape @ Shape::Open { .. } => Tick {
                issue: Some(self.rng.random_range(0..self.clients)),
                next: next_arrival(shape, t, &mut self.rng),
            },
            Shape::Closed { .. } => {
                if self.issued >= MAX_CLOSED_REQUESTS {
                    self.cut_at.get_or_insert(t);
                    return Tick {
                        issue: None,
                        next: None,
                    };
                }
                self.issued += 1;
                if self.issued >= MAX_CLOSED_REQUESTS / 2 {
                    self.half_at.get_or_insert(t);
                }
                Tick {
                    issue: Some(client),
                    next: None,
                }
            }
        }
    }

    /// When a client whose request ended at `t` sends its next one (closed loop only), the
    /// run having made `attempts` so far.
    pub(crate) fn next_of(&mut self, t: f64, attempts: u64) -> Option<f64> {
        match self.shape {
            Shape::Closed { think, until } => {
                let next = t + pause(think, &mut self.rng);
                if next >= until {
                    return None;
                }
                if attempts >= self.max_attempts / 2 {
                    self.half_at.get_or_insert(t);
                }
                if self.issued >= MAX_CLOSED_REQUESTS || attempts >= self.max_attempts {
                    self.cut_at.get_or_insert(t);
                    return None;
                }
                Some(next)
            }
            _ => None,
        }
    }

    /// Whether a closed loop must stop the whole run at `t`, having made `attempts`: past
    /// its bound on attempts (checked as the run goes, not only when a request ends: every
    /// client's request in flight may have many attempts still to make, and a loop of
    /// 200,000 clients with 100 attempts each once made half a bound again before its first
    /// request ended), or once it stopped issuing (the run is refused: what is in flight is
    /// wasted work).
    pub(crate) fn stops(&mut self, t: f64, attempts: u64) -> bool {
        if !matches!(self.shape, Shape::Closed { .. }) {
            return false;
        }
        if attempts >= self.max_attempts / 2 {
            self.half_at.get_or_insert(t);
        }
        if attempts >= self.max_attempts {
            self.cut_at.get_or_insert(t);
        }
        self.cut_at.is_some()
    }

    /// Lowers the attempts a closed loop may make (a test's bound, far below a run's).
    #[cfg(test)]
    pub(crate) fn cap_attempts(&mut self, max: u64) {
        self.max_attempts = max;
    }

    /// When a closed loop stopped issuing at a bound before its end, when it had passed
    /// half its bounds (its time if it never had: checked every so many steps), and the
    /// duration it was set to run for (see
    /// [`Simulation::check_work`](super::Simulation::check_work)).
    pub(crate) fn cut_at(&self) -> Option<(f64, f64, f64)> {
        match self.shape {
            Shape::Closed { until, .. } => self
                .cut_at
                .map(|at| (at, self.half_at.unwrap_or(at).min(at), until)),
            _ => None,
        }
    }

    /// A closed loop's think (ms); 0 for other loads.
    pub(crate) fn think_ms(&self) -> f64 {
        match self.shape {
            Shape::Closed { think, .. } => think,
            _ => 0.0,
        }
    }

    /// For a closed loop cut at a bound: the least think (whole ms, more than it had) that
    /// keeps it within half its bounds for its whole duration, at `per_request` attempts a
    /// request (the most its policy makes), estimated from how fast it went. Each client's
    /// cycle took `clients × at / issued` ms, its think included, so the rest of it was that
    /// less the think; half the bound (the margin the check before the run keeps) leaves room
    /// for the draws and for requests still in flight when it was cut. For the error of a loop
    /// cut before even the shortest duration ended, where naming the duration would ask for
    /// what it already had.
    pub(crate) fn least_think(&self, per_request: f64) -> Option<f64> {
        let (Shape::Closed { think, until }, Some(at)) = (self.shape, self.cut_at) else {
            return None;
        };
        let issued = self.issued.max(1) as f64;
        let most =
            (MAX_CLOSED_REQUESTS as f64).min(self.max_attempts as f64 / per_request.max(1.0)) / 2.0;
        let clients = f64::from(self.clients);
        let busy = (clients * at / issued - think).max(0.0);
        let least = (clients * until / most - busy).ceil().max(1.0);
        Some(if least > think {
            least
        } else {
            think.floor() + 1.0
        })
    }
}

/// The open stream's next arrival after `t`, if before its end. The rate is piecewise
/// constant, and a Poisson process is memoryless, so a gap that crosses a change of rate is
/// drawn again from the change.
fn next_arrival(shape: Shape, mut t: f64, rng: &mut SeededRng) -> Option<f64> {
    let Shape::Open {
        rate,
        factor,
        spike_from,
        spike_to,
        until,
    } = shape
    else {
        return None;
    };
    loop {
        let in_spike = t >= spike_from && t < spike_to;
        let boundary = if t < spike_from {
            spike_from
        } else if in_spike {
            spike_to
        } else {
            f64::INFINITY
        };
        let r = if in_spike { rate * factor } else { rate };
        let next = if r > 0.0 {
            t + exponential(rng, r)
        } else {
            f64::INFINITY
        };
        if next < boundary {
            return (next < until).then_some(next);
        }
        if boundary >= until {
            return None;
        }
        t = boundary;
    }
}

/// A closed-loop pause: exponential with mean `think` ms (0: none).
fn pause(think: f64, rng: &mut SeededRng) -> f64 {
    if think > 0.0 {
        exponential(rng, 1.0 / think)
    } else {
        0.0
    }
}
