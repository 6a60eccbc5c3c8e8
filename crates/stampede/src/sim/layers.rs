//! Where to retry: a chain of services, each calling the next.
//!
//! With `layers = L`, a client calls the service at layer 1, whose server calls layer 2,
//! and so on down to layer L, the servers of the rest of the model: the outage, the fail
//! rate, the slowdown, the workers and their queues all apply to the last layer alone.
//! The layers above it only pass calls on. Each hop between layers is a network trip like
//! the client's (one leg down, one back, drawn from the same distribution), and an upper
//! layer costs nothing else: no service time, no queue, no capacity. That is the simplest
//! model in which the arithmetic of the SRE book and the Amazon Builders' Library shows,
//! and it isolates the one effect this module is about, the multiplication of attempts;
//! a slow or full middle tier is a different story (put it at the bottom).
//!
//! [`RetryAt`] says who retries:
//! - `every`: each layer retries its call to the next with the run's policy (the same
//!   attempts, backoff and rules, asked through the same [`Policy`](crate::policy::Policy)
//!   as the clients), and when it stops passes the last answer up: 200 if a try
//!   succeeded, else the failure of its last try (a 503 stays a 503, with its
//!   `Retry-After`; a 500 stays a 500), which the layer above classifies as it would the
//!   bottom's own. With the bottom always failing, `a` attempts per layer make `a^L`
//!   attempts at the bottom per request: 4 at 3 layers make 64 (Google SRE book,
//!   "Handling Overload"), 3 at 5 layers make 243 (Amazon Builders' Library, "Timeouts,
//!   retries, and backoff with jitter").
//! - `top`: only the clients retry; every inner layer makes one attempt and passes its
//!   answer (the bottom's 503 or 500, retryable) up as is: `a` attempts at the bottom,
//!   the SRE book's advice to retry only at the layer immediately above the one failing
//!   (here, the client stands for it).
//!
//! What differs from a real chain, and why:
//! - A client's timeout applies to its own attempt only (the inner layers wait as long as
//!   it takes). A call the client gave up on is not cancelled below: the inner layers
//!   finish it, retries included, and a late success counts as `wasted`, as at one layer.
//! - The retry budget (and any other guard of the call site) is the client's: inner
//!   layers retry without one. A budget per inner service would be a setting of its own.
//!
//! Metrics: `total_attempts` and `amplification` count attempts at layer 1 (what the
//! clients send), `bottom_attempts` attempts that reached layer L; the series, the peaks,
//! `served`, the queue and `recovery_ms` describe the servers of layer L, where the load
//! lands. With one layer the two counts are the same.
//!
//! # The arithmetic, for a bottom that fails each attempt with probability `p`
//!
//! Let `g₁ = p` be the chance that a call to the last layer fails, and `gₖ₊₁ = gₖ^a`
//! the chance that a call to the layer above fails: that layer, retrying `a` times, fails
//! only when every try does. A caller whose calls fail with chance `g` makes
//! `S(g) = 1 + g + … + g^(a−1)` tries on average (try `j` happens when the first `j − 1`
//! failed). By Wald's identity (whether try `j` happens depends only on the tries before
//! it) the attempts at the bottom per request are the product of the tries at each
//! layer, `S(g₁) · S(g₂) · … · S(g_L)` with `every`, and `S(p)` with `top` (a client's try
//! fails exactly when the bottom's single attempt does). [`bottom_attempts_per_request`]
//! computes it; at `p = 1` it is `a^L` and `a`.

use super::{DEPTH_SHIFT, Ev, Herd, Kind};
use crate::policy::Decision;
use crate::sim::model::RetryAt;

/// Services a run's requests may go through, the last included.
pub const MAX_LAYERS: u32 = 10;

/// The expected attempts at the last layer per request (see the module's docs), for
/// `attempts` per layer, `layers` layers, a bottom failing each attempt independently with
/// probability `p`, and no other limit (no budget, deadline or timeout).
pub fn bottom_attempts_per_request(p: f64, attempts: u32, layers: u32, retry_at: RetryAt) -> f64 {
    // S(g) = 1 + g + … + g^(a−1).
    let tries = |g: f64| (0..attempts).map(|j| g.powi(j as i32)).sum::<f64>();
    match retry_at {
        RetryAt::Top => tries(p),
        _ => {
            let mut g = p;
            let mut product = 1.0;
            for _ in 0..layers {
                product *= tries(g);
                g = g.powi(attempts as i32);
            }
            product
        }
    }
}

/// The most attempts a request can make at all layers together, its share of the run's
/// work bound: `a + a² + … + a^L` when every layer retries `a` times, `a · L` when only
/// the clients do. Not inlined: the checks call it in several places, and the
/// WebAssembly build is held to a size bar.
#[inline(never)]
pub(crate) fn attempts_per_request(attempts: u32, layers: u32, retry_at: RetryAt) -> f64 {
    let a = f64::from(attempts);
    match retry_at {
        RetryAt::Top => a * f64::from(layers),
        _ => (1..=layers as i32).map(|k| a.powi(k)).sum(),
    }
}

/// The calls waiting for an answer from the layer below, parked while their own calls
/// go on: one per upper layer of each chain in flight. Each chain is a stack (a layer has
/// one call below it at a time, since inner layers have no timeout and do not hedge), so
/// an index into this arena, carried by the call below, is all a chain needs.
#[derive(Debug, Clone)]
pub(crate) struct Frames<T> {
    parked: Vec<T>,
    free: Vec<u32>,
}

impl<T: Copy> Frames<T> {
    pub(crate) fn new() -> Self {
        Frames {
            parked: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Parks `call` and returns where.
    pub(crate) fn park(&mut self, call: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.parked[i as usize] = call;
                i
            }
            None => {
                self.parked.push(call);
                (self.parked.len() - 1) as u32
            }
        }
    }

    /// Takes the call parked at `i` back (its place is reused).
    pub(crate) fn unpark(&mut self, i: u32) -> T {
        self.free.push(i);
        self.parked[i as usize]
    }

    /// Calls parked now: events the run holds, counted against its bounds on pending
    /// events (`pending.rs`) beside the wheel's and the queues'.
    pub(crate) fn len(&self) -> usize {
        self.parked.len() - self.free.len()
    }
}

impl Herd {
    /// A call reaches an upper layer at `ev.at`: the layer parks it and sends a call of
    /// its own, with an attempt of its own, to the layer below.
    #[inline(never)]
    pub(super) fn pass_down(&mut self, mut ev: Ev) {
        let t = ev.at;
        self.events += 1;
        let depth = ev.depth();
        if depth == 0 {
            self.counts.attempts += 1;
            // Its answer now waits on the layers below: the client's timer must be in
            // the wheel before the deadline passes.
            self.arm(&mut ev);
        }
        let call = Ev {
            at: t,
            deadline: f64::INFINITY,
            attempt: self.policy.start(t),
            client: ev.client,
            slot: self.frames.park(ev),
            ticket: 0,
            server: 0,
            kind: Kind::Arrive,
            flags: (depth + 1) << DEPTH_SHIFT,
        };
        self.send_down(call, t);
    }

    /// Sends an upper layer's call at `t`: it reaches the layer below a trip later. No
    /// timer: only clients give attempts up. (One copy of the wheel's push for both
    /// callers: the WebAssembly build is held to a size bar.)
    #[inline(never)]
    fn send_down(&mut self, mut call: Ev, t: f64) {
        call.at = t + self.one_way();
        self.wheel.push(call.at, call);
    }

    /// The layer below answered `call` at `t` with `code`; the answer reaches the layer
    /// that made the call a trip later. With `every` it asks the policy (no budget: it is
    /// the client's); once it stops, or at once with `top`, it answers the call parked at
    /// it with the same code: that call, and when, are returned for the caller to answer
    /// (a loop, not a recursion, keeps one copy of the client's answer in the engine).
    #[inline(never)]
    pub(super) fn answer_inner(&mut self, mut call: Ev, code: u8, t: f64) -> Option<(Ev, f64)> {
        let now = t + self.one_way();
        self.events += 1;
        if self.retry_at == RetryAt::Every {
            let verdict = &self.verdicts[usize::from(code)];
            let decision =
                self.policy
                    .decide_verdict(&mut call.attempt, verdict, now, None, &mut self.rng);
            if let Decision::Retry { delay_ms, .. } = decision {
                self.events += 1;
                self.send_down(call, now + delay_ms);
                return None;
            }
        }
        Some((self.frames.unpark(call.slot), now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Code, Expected, Field, Got, WorkBound};
    use crate::policy::PolicySettings;
    use crate::sim::SimSettings;

    #[test]
    fn the_published_products() {
        let every = |p, a, l| bottom_attempts_per_request(p, a, l, RetryAt::Every);
        let top = |p, a, l| bottom_attempts_per_request(p, a, l, RetryAt::Top);
        assert_eq!(every(1.0, 4, 3), 64.0);
        assert_eq!(every(1.0, 3, 5), 243.0);
        assert_eq!(top(1.0, 4, 3), 4.0);
        assert_eq!(top(1.0, 3, 5), 3.0);
        assert_eq!(every(0.0, 4, 3), 1.0);
        // One layer: the familiar 1 + p + … + p^(a−1), whoever retries.
        let one = 1.0 + 0.5 + 0.25 + 0.125;
        assert_eq!(every(0.5, 4, 1), one);
        assert_eq!(top(0.5, 4, 1), one);
        // Two layers at p = 0.5, a = 2: S(0.5) · S(0.25) = 1.5 · 1.25.
        assert_eq!(every(0.5, 2, 2), 1.875);
    }

    #[test]
    fn the_work_counts_every_layer() {
        assert_eq!(
            attempts_per_request(4, 3, RetryAt::Every),
            4.0 + 16.0 + 64.0
        );
        assert_eq!(attempts_per_request(4, 3, RetryAt::Top), 12.0);
        assert_eq!(attempts_per_request(6, 1, RetryAt::Every), 6.0);
        assert_eq!(attempts_per_request(6, 1, RetryAt::Top), 6.0);
    }

    /// A burst of `clients` with `attempts` per layer at `layers` layers, every one
    /// retrying.
    fn burst(clients: u32, attempts: u32, layers: u32) -> SimSettings {
        SimSettings {
            clients,
            policy: PolicySettings {
                max_attempts: attempts,
                ..PolicySettings::default()
            },
            layers,
            ..SimSettings::default()
        }
    }

    #[test]
    fn the_work_bound_counts_every_layer_and_names_what_to_lower() {
        // With layers the bound is a quarter: 5,000,000 calls counted at every layer.
        // 50,000 requests × (4 + 16 + 64) = 4.2 million: accepted; 100,000 (8.4) are not.
        assert_eq!(burst(50_000, 4, 3).validate(), Ok(()));
        assert!(burst(100_000, 4, 3).validate().is_err());
        // A million: 84 million, refused; 1 attempt per layer (3 million) fits, 2 (14
        // million) do not.
        let e = burst(1_000_000, 4, 3).validate().unwrap_err();
        assert_eq!((e.field, e.code()), (Field::MaxAttempts, Code::TooMuchWork));
        let Expected::Work { max, bound } = e.expected else {
            panic!("{e:?}")
        };
        assert_eq!((max, bound), (1.0, WorkBound::LayerAttempts));
        assert_eq!(burst(1_000_000, 1, 3).validate(), Ok(()));
        // Only the clients retrying: 400,000 × 4 × 3 = 4.8 million, accepted.
        let top = SimSettings {
            retry_at: RetryAt::Top,
            ..burst(400_000, 4, 3)
        };
        assert_eq!(top.validate(), Ok(()));
        // With a timeout (a third of that) not even one attempt at 10 layers fits 200,000
        // clients: the layers are named, 8 of them fit (1.6 million of 1,666,666).
        let timed = SimSettings {
            timeout_ms: Some(1000.0),
            ..burst(200_000, 4, MAX_LAYERS)
        };
        let e = timed.validate().unwrap_err();
        assert_eq!((e.field, e.code()), (Field::Layers, Code::TooMuchWork));
        assert!(
            matches!(e.expected, Expected::Work { max, bound: WorkBound::Layers } if max == 8.0),
            "{e:?}"
        );
        assert_eq!(e.got, Got::Number(10.0));
        // Out of range, named.
        for bad in [0, MAX_LAYERS + 1] {
            let e = burst(10, 1, bad).validate().unwrap_err();
            assert_eq!((e.field, e.code()), (Field::Layers, Code::OutOfRange));
        }
    }

    #[test]
    fn frames_reuse_their_places() {
        let mut f = Frames::new();
        let a = f.park(1u8);
        let b = f.park(2);
        assert_eq!(f.unpark(a), 1);
        let c = f.park(3);
        assert_eq!((c, f.len()), (a, 2));
        assert_eq!((f.unpark(b), f.unpark(c), f.len()), (2, 3, 0));
    }
}
