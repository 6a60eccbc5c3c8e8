//! The ratio budget: retries as a fraction of requests, plus a floor of retries per second.
//!
//! # Source
//!
//! Finagle's `RetryBudget(ttl, minRetriesPerSec, percentCanRetry)` (defaults 10 s, 10,
//! 0.2), tower's `TpsBudget::new(ttl, min_per_sec, retry_percent)`, and Linkerd's
//! `retryRatio 0.2, minRetriesPerSecond 10, ttl 10s` are one design: every request
//! *deposits* `ratio` of a token, every retry *withdraws* a whole one, deposits and
//! withdrawals expire after the window (`ttl`), and a reserve of `min_per_sec × window`
//! retries is always there, so that a quiet client can still retry. Retries then stay
//! under `ratio` of the requests (plus the floor), whatever the failure rate: the budget
//! scales with traffic, where a bucket refilled per second does not.
//!
//! Brooker's "adaptive" client ("Fixing retries with token buckets and circuit breakers",
//! 2022) is the same budget with its own numbers: deposit 0.1 per call, at most 5 held,
//! no floor, no expiry to speak of. `cap` is its "at most 5": a deposit that would take
//! the balance past `cap` is cut to fit, and the balance never reads above `cap`.
//!
//! # Where ours differs, and why
//!
//! - Ten slots per window, as tower (Finagle's leaky bucket is the same idea): a count
//!   lives 9/10 to 10/10 of the window.
//! - A retry needs a balance of at least 1 (Finagle, tower). Brooker's needs *more* than
//!   1; with deposits of 0.1 the two differ by one deposit, and "at least" keeps ten
//!   deposits of 0.1 worth one retry despite rounding (we compare with 1 − 1e-9).
//! - The balance starts at the reserve alone, as in Finagle and tower; Brooker's bucket
//!   starts (we assume) empty too, since he gives no starting level.
//! - First attempts are never refused by this budget (none of the sources refuses them);
//!   only retries are.

use super::window::Window;
use crate::budget::{BudgetExhausted, MAX_TOKENS};
use crate::error::{ConfigError, Field};

/// What a balance must reach for one retry, rounding aside.
const ONE: f64 = 1.0 - 1e-9;

/// Unvalidated ratio-budget settings.
///
/// # Default
/// Finagle's: deposit 0.2 per request, no cap, 10 retries per second, a 10 s window.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RatioSettings {
    /// Tokens each request deposits (a retry costs 1): 0 to 1000.
    pub ratio: f64,
    /// The most tokens held; `None`: no cap.
    pub cap: Option<f64>,
    /// Retries per second always allowed (the reserve is this × the window).
    pub min_per_sec: f64,
    /// How long deposits and withdrawals count (ms).
    pub window_ms: f64,
}

impl Default for RatioSettings {
    fn default() -> Self {
        RatioSettings {
            ratio: 0.2,
            cap: None,
            min_per_sec: 10.0,
            window_ms: 10_000.0,
        }
    }
}

impl RatioSettings {
    /// Brooker's adaptive client: 0.1 per call, at most 5, no floor, and deposits that
    /// last a minute (Finagle's longest ttl; his bucket has no expiry at all, and over a
    /// minute the cap, not the expiry, is what bounds it).
    pub const BROOKER: RatioSettings = RatioSettings {
        ratio: 0.1,
        cap: Some(5.0),
        min_per_sec: 0.0,
        window_ms: 60_000.0,
    };

    /// Validates every field.
    pub fn validate(self) -> Result<Self, ConfigError> {
        Field::Ratio.check(self.ratio)?;
        if let Some(c) = self.cap {
            Field::RatioCap.check(c)?;
        }
        Field::MinPerSec.check(self.min_per_sec)?;
        Field::Window.check(self.window_ms)?;
        Ok(self)
    }

    /// The retries always allowed per window.
    pub fn reserve(&self) -> f64 {
        (self.min_per_sec * self.window_ms / 1000.0).min(MAX_TOKENS)
    }
}

/// A ratio budget. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RatioBudget {
    settings: RatioSettings,
    reserve: f64,
    window: Window<1>,
}

impl RatioBudget {
    /// A budget holding its reserve at `now_ms`; `settings` validated.
    pub(crate) fn new(settings: RatioSettings, now_ms: f64) -> Self {
        RatioBudget {
            settings,
            reserve: settings.reserve(),
            window: Window::new(settings.window_ms, now_ms),
        }
    }

    /// The settings.
    pub const fn settings(&self) -> RatioSettings {
        self.settings
    }

    /// Tokens available at `now_ms`: the reserve plus the live deposits, less the live
    /// withdrawals, at most the cap. (A withdrawal that expires gives its token back; the
    /// cap holds then too, not only when depositing.)
    pub fn balance(&mut self, now_ms: f64) -> f64 {
        let raw = self.reserve + self.window.sums(now_ms)[0];
        match self.settings.cap {
            Some(cap) => raw.min(cap),
            None => raw,
        }
    }

    /// A request starts at `now_ms`: it deposits `ratio` (cut to the cap).
    pub fn deposit(&mut self, now_ms: f64) {
        let mut amount = self.settings.ratio;
        if let Some(cap) = self.settings.cap {
            amount = amount.min((cap - self.balance(now_ms)).max(0.0));
        }
        if amount > 0.0 {
            self.window.add(now_ms, 0, amount);
        }
    }

    /// A retry is decided at `now_ms`: withdraws one token, or refuses.
    pub fn try_withdraw(&mut self, now_ms: f64) -> Result<(), BudgetExhausted> {
        let balance = self.balance(now_ms);
        if balance >= ONE {
            self.window.add(now_ms, 0, -1.0);
            Ok(())
        } else {
            Err(BudgetExhausted {
                tokens: balance.max(0.0),
                // Time alone helps only when withdrawals expire; deposits come with requests.
                retry_in_ms: self.window.next_expiry_ms(now_ms),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(s: RatioSettings) -> RatioBudget {
        RatioBudget::new(s.validate().unwrap(), 0.0)
    }

    #[test]
    fn ten_deposits_of_a_tenth_pay_one_retry() {
        let mut b = budget(RatioSettings::BROOKER);
        assert!(b.try_withdraw(0.0).is_err(), "starts empty without a floor");
        for i in 0..10 {
            b.deposit(f64::from(i));
        }
        assert!(b.try_withdraw(10.0).is_ok());
        assert!(b.try_withdraw(10.0).is_err());
    }

    #[test]
    fn the_cap_holds_and_deposits_expire() {
        let mut b = budget(RatioSettings::BROOKER);
        for i in 0..1000 {
            b.deposit(f64::from(i));
        }
        assert!((b.balance(1000.0) - 5.0).abs() < 1e-9);
        // A minute later every deposit has expired.
        assert_eq!(b.balance(61_000.0), 0.0);
    }

    #[test]
    fn the_floor_is_min_per_sec_times_the_window() {
        let mut b = budget(RatioSettings {
            ratio: 0.0,
            cap: None,
            min_per_sec: 2.0,
            window_ms: 1000.0,
        });
        assert!(b.try_withdraw(0.0).is_ok());
        assert!(b.try_withdraw(0.0).is_ok());
        let e = b.try_withdraw(0.0).unwrap_err();
        assert_eq!(e.tokens, 0.0);
        assert_eq!(e.retry_in_ms, 100.0);
        // Once the withdrawals' slot falls out, the floor is back.
        assert!(b.try_withdraw(1000.0).is_ok());
    }

    #[test]
    fn validation_names_the_field() {
        let bad = RatioSettings {
            ratio: -0.1,
            ..RatioSettings::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, Field::Ratio);
        let bad = RatioSettings {
            window_ms: 0.0,
            ..RatioSettings::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, Field::Window);
    }
}
