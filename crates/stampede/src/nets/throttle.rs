//! Client-side adaptive throttling (Google SRE book, "Handling Overload").
//!
//! # Source
//!
//! Each client keeps, over a sliding window (2 minutes in the book), `requests` (attempts
//! the application asked for, those rejected locally included) and `accepts` (those the
//! backend accepted), and rejects a new attempt locally with probability
//! `max(0, (requests − K·accepts) / (requests + 1))`, K = 2 by default. While the backend
//! accepts everything, `requests ≤ K·accepts` and nothing is rejected; when it rejects
//! everything, the probability tends to 1 and a trickle still goes out to measure the
//! backend.
//!
//! # Where ours differs, and why
//!
//! - An attempt counts as *accepted* unless the dependency failed
//!   ([`Verdict::dependency_failed`](crate::classify::Verdict::dependency_failed):
//!   overload, outage, a transport failure, a 5xx, 408 or 429, retried or not): the book
//!   counts as rejected what the backend refused for lack of capacity; the classifier is
//!   our one word on that. An attempt its caller aborted is not counted.
//! - A request counts when its fate is known: when its answer comes (accepted or not), or
//!   at once when the throttle rejects it. The book counts it when it is sent, so its
//!   attempts in flight count as requests not (yet) accepted: a client starting cold
//!   with 20 attempts in flight would reject with probability 20/21 though the backend
//!   accepts everything. Counting at the answer removes that skew and changes nothing
//!   in a steady state (the same requests, counted a round trip later).
//! - It rejects nothing until `requests` exceeds `K·accepts` by more than
//!   [`PROTECTION`] (5, go-zero's `googleBreaker`; kratos's SRE breaker waits for 100
//!   requests in its window): the book's formula alone rejects a caller's second request
//!   with probability 1/2 after its first one failed, and a window that starts empty with
//!   a few failures then tips into rejecting most of what is asked (each rejection a
//!   request without an accept) for as long as the window remembers them. In the issue's
//!   scenario (100 clients sharing one throttle, 20% of attempts failing) that cold start
//!   failed half the requests fast over 10 s, where the book's steady state rejects none
//!   below `1 − 1/K` failures. With the protection no seed of fifty tipped at 30%.
//! - The window is ten slots; the random draw comes from the caller's seeded RNG.

use core::fmt;

use rand::Rng;

use super::window::Window;
use crate::error::{ConfigError, Field, fmt_num};

/// Unvalidated throttle settings.
///
/// # Default
/// The SRE book's: K = 2 over 2 minutes.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ThrottleSettings {
    /// How many requests per accept are let through before rejecting: at least 1.
    pub k: f64,
    /// The window requests and accepts are counted over (ms).
    pub window_ms: f64,
}

impl Default for ThrottleSettings {
    fn default() -> Self {
        ThrottleSettings {
            k: 2.0,
            window_ms: 120_000.0,
        }
    }
}

impl ThrottleSettings {
    /// Validates every field.
    pub fn validate(self) -> Result<Self, ConfigError> {
        Field::K.check(self.k)?;
        Field::ThrottleWindow.check(self.window_ms)?;
        Ok(self)
    }
}

/// Requests the window may hold beyond `K·accepts` before the throttle rejects anything
/// (go-zero's `googleBreaker`: `protection = 5`).
pub const PROTECTION: f64 = 5.0;

/// The probability of rejecting an attempt, given the window's counts:
/// `max(0, (requests − K·accepts − PROTECTION) / (requests + 1))`.
pub fn reject_probability(requests: f64, accepts: f64, k: f64) -> f64 {
    ((requests - k * accepts - PROTECTION) / (requests + 1.0)).max(0.0)
}

/// The error of an attempt the throttle rejected locally.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Throttled {
    /// The probability it was rejected with.
    pub probability: f64,
}

impl fmt::Display for Throttled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // fmt_num, not `{:.2}`: core's float formatting would add ~20 KB of wasm.
        write!(
            f,
            "throttled: rejected locally (probability {}) because the backend has been refusing requests",
            fmt_num((self.probability * 100.0).round() / 100.0)
        )
    }
}

impl std::error::Error for Throttled {}

/// An adaptive throttle. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Throttle {
    settings: ThrottleSettings,
    window: Window<2>,
}

const REQUESTS: usize = 0;
const ACCEPTS: usize = 1;

impl Throttle {
    /// A throttle with empty counts at `now_ms`; `settings` validated.
    pub(crate) fn new(settings: ThrottleSettings, now_ms: f64) -> Self {
        Throttle {
            settings,
            window: Window::new(settings.window_ms, now_ms),
        }
    }

    /// The settings.
    pub const fn settings(&self) -> ThrottleSettings {
        self.settings
    }

    /// The probability a new attempt would be rejected at `now_ms`.
    pub fn probability(&mut self, now_ms: f64) -> f64 {
        let [requests, accepts] = self.window.sums(now_ms);
        reject_probability(requests, accepts, self.settings.k)
    }

    /// An attempt is asked for at `now_ms`: rejected with the
    /// [probability](Self::probability) of the counts so far, and then counted as a
    /// request at once; one let through counts when its answer comes ([`record`](Self::record)).
    /// Draws from `rng` only when that probability is above 0.
    pub fn allow<R: Rng + ?Sized>(&mut self, now_ms: f64, rng: &mut R) -> Result<(), Throttled> {
        let p = self.probability(now_ms);
        if p > 0.0 && crate::backoff::uniform(rng, 0.0, 1.0) < p {
            self.window.add(now_ms, REQUESTS, 1.0);
            Err(Throttled { probability: p })
        } else {
            Ok(())
        }
    }

    /// An attempt's answer reached the client at `now_ms`: a request, `accepted` unless the
    /// dependency failed.
    pub fn record(&mut self, now_ms: f64, accepted: bool) {
        self.window.add(now_ms, REQUESTS, 1.0);
        if accepted {
            self.window.add(now_ms, ACCEPTS, 1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_formula() {
        assert_eq!(reject_probability(0.0, 0.0, 2.0), 0.0);
        assert_eq!(reject_probability(10.0, 5.0, 2.0), 0.0);
        assert_eq!(reject_probability(10.0, 0.0, 2.0), 5.0 / 11.0);
        assert_eq!(reject_probability(100.0, 20.0, 2.0), 55.0 / 101.0);
        // The protection: a first failure (or five) rejects nothing; the sixth does.
        assert_eq!(reject_probability(1.0, 0.0, 2.0), 0.0);
        assert_eq!(reject_probability(5.0, 0.0, 2.0), 0.0);
        assert_eq!(reject_probability(6.0, 0.0, 2.0), 1.0 / 7.0);
        assert_eq!(reject_probability(25.0, 10.0, 2.0), 0.0);
        assert_eq!(reject_probability(26.0, 10.0, 2.0), 1.0 / 27.0);
    }

    #[test]
    fn healthy_backend_nothing_rejected_dead_backend_mostly_rejected() {
        let mut rng = crate::seeded(7);
        let mut t = Throttle::new(ThrottleSettings::default(), 0.0);
        for i in 0..1000 {
            let now = f64::from(i);
            assert!(t.allow(now, &mut rng).is_ok());
            t.record(now, true);
        }
        let mut rejected = 0;
        for i in 1000..3000 {
            let now = f64::from(i);
            if t.allow(now, &mut rng).is_err() {
                rejected += 1;
            } else {
                t.record(now, false);
            }
        }
        // With 1000 accepts the probability is 0 up to 2005 requests, then grows to
        // (3000 − 2000 − 5)/3001 ≈ 1/3: Σ max(0, (i − 2005)/(i + 1)) over i = 1000..2999
        // ≈ 186.8 rejections expected, standard deviation 12.0 (counting each rejection as a
        // request is what the sum's i does); 140 to 235 is four deviations either side.
        assert!((140..=235).contains(&rejected), "{rejected}");
        assert!((t.probability(3000.0) - 995.0 / 3001.0).abs() < 1e-12);
    }
}
