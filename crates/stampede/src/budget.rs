//! Retry budgets: a token bucket per call site.
//!
//! # Why budgets beat attempt limits
//!
//! "At most 6 attempts" bounds what one request can do, not what a fleet does. When a
//! dependency goes down, *every* request fails, and every one of them spends its full
//! allowance at once: six times the traffic, aimed at the service least able to take it.
//! The storm outlives the outage — a 30 s blip becomes minutes of overload. A budget
//! bounds the *sum*: retries draw tokens from a bucket shared by a call site, the bucket
//! refills at a fixed rate, and when it is empty the call site stops retrying and fails
//! fast with a deterministic [`BudgetExhausted`] error, sending nothing downstream, until
//! tokens come back. Then retries cost at most `refill_per_sec` extra requests per second,
//! however bad things get. (Compare gRPC's retry throttling, the AWS SDK's retry quota,
//! Finagle's and Envoy's budgets; Envoy's bug #30205 is why a retry is charged when it is
//! *decided*, not when it is sent: retries waiting in backoff count.)
//!
//! Time is an argument: the bucket refills from the `now_ms` each call passes, so the
//! same bucket works in a simulation, a browser and a server.
//!
//! ```
//! use stampede::budget::{BudgetSettings, TokenBucket};
//! let mut b = BudgetSettings::new(2.0, 1.0).build(0.0)?; // 2 tokens, +1 per second
//! assert!(b.try_retry(0.0).is_ok());
//! assert!(b.try_retry(0.0).is_ok());
//! assert!(b.try_retry(0.0).is_err()); // empty: the circuit is open
//! assert!(b.admit(500.0).is_err());   // new calls fail fast too
//! assert!(b.try_retry(1000.0).is_ok()); // a second later, one token is back
//! # Ok::<(), stampede::ConfigError>(())
//! ```

use crate::error::{ConfigError, Expected, Field, Got, fmt_num};
use core::fmt;

/// The largest capacity and refill rate accepted.
pub const MAX_TOKENS: f64 = 1e9;

/// The most call sites one [`BudgetRegistry`] holds.
///
/// A call site is a place in the code (`"GET /api/orders"`), not a URL with ids in it; a
/// registry that grew without bound would be a leak, and evicting the oldest would
/// silently hand a busy call site a fresh, full budget. So a registry that is full refuses
/// new names (existing ones keep working).
pub const MAX_CALL_SITES: usize = 1000;

/// Unvalidated budget settings.
///
/// # Default
/// 10 tokens, one more per second, a retry costs 1, a success refunds nothing: the budget
/// a call site gets when none is configured.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BudgetSettings {
    /// Tokens the bucket holds when full (and at the start).
    pub capacity: f64,
    /// Tokens added per second, up to `capacity`.
    pub refill_per_sec: f64,
    /// Tokens one retry costs. Default 1.
    pub retry_cost: f64,
    /// Tokens a success puts back (gRPC's `tokenRatio`). Default 0.
    pub success_refund: f64,
}

impl Default for BudgetSettings {
    fn default() -> Self {
        BudgetSettings::new(10.0, 1.0)
    }
}

impl BudgetSettings {
    /// A bucket of `capacity` tokens refilled at `refill_per_sec`; a retry costs 1, a
    /// success refunds nothing.
    pub const fn new(capacity: f64, refill_per_sec: f64) -> Self {
        BudgetSettings {
            capacity,
            refill_per_sec,
            retry_cost: 1.0,
            success_refund: 0.0,
        }
    }

    /// The same settings with another cost per retry.
    pub const fn with_retry_cost(mut self, cost: f64) -> Self {
        self.retry_cost = cost;
        self
    }

    /// The same settings with a refund per success.
    pub const fn with_success_refund(mut self, refund: f64) -> Self {
        self.success_refund = refund;
        self
    }

    /// Validates: capacity in `[0, 1e9]`, refill in `[0, 1e9]`, cost in `(0, 1e9]`, refund
    /// in `[0, 1e9]`.
    pub fn validate(self) -> Result<Self, ConfigError> {
        Field::Capacity.check(self.capacity)?;
        Field::RefillPerSec.check(self.refill_per_sec)?;
        Field::RetryCost.check(self.retry_cost)?;
        Field::SuccessRefund.check(self.success_refund)?;
        Ok(self)
    }

    /// Validates and makes a full bucket at `now_ms`.
    pub fn build(self, now_ms: f64) -> Result<TokenBucket, ConfigError> {
        Ok(TokenBucket::new(self.validate()?, now_ms))
    }
}

/// The error of a call site whose budget is spent: deterministic, and sent nowhere.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetExhausted {
    /// Tokens left (less than one retry's cost).
    pub tokens: f64,
    /// How long until a retry could be afforded again, in ms (infinite without refill, or
    /// when the bucket holds less than a retry's cost).
    pub retry_in_ms: f64,
}

impl fmt::Display for BudgetExhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.retry_in_ms.is_finite() {
            write!(
                f,
                "retry budget exhausted: failing fast for {} ms instead of calling downstream",
                fmt_num(self.retry_in_ms.ceil())
            )
        } else {
            f.write_str("retry budget exhausted and it does not refill: failing fast")
        }
    }
}

impl std::error::Error for BudgetExhausted {}

/// A token bucket of retries. See the [module docs](self).
///
/// The circuit is *open* while the bucket holds less than one retry's cost: then
/// [`try_retry`](Self::try_retry) refuses, and so does [`admit`](Self::admit), the gate
/// for new calls.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TokenBucket {
    settings: BudgetSettings,
    tokens: f64,
    updated_ms: f64,
}

impl TokenBucket {
    /// A full bucket at `now_ms`. `settings` must be validated (see [`BudgetSettings::build`]).
    fn new(settings: BudgetSettings, now_ms: f64) -> Self {
        TokenBucket {
            settings,
            tokens: settings.capacity,
            updated_ms: now_ms,
        }
    }

    /// A full bucket at `now_ms` from settings already validated.
    pub(crate) fn from_valid(settings: BudgetSettings, now_ms: f64) -> Self {
        Self::new(settings, now_ms)
    }

    /// The settings.
    pub const fn settings(&self) -> BudgetSettings {
        self.settings
    }

    fn refill(&mut self, now_ms: f64) {
        let dt = now_ms - self.updated_ms;
        if dt > 0.0 {
            let s = self.settings;
            self.tokens = (self.tokens + dt * s.refill_per_sec / 1000.0).min(s.capacity);
            self.updated_ms = now_ms;
        } else if crate::nets::went_back(now_ms, self.updated_ms) {
            // Another clock, or one bad reading far ahead: nothing earned for it, and the
            // bucket refills again from here, rather than never.
            self.updated_ms = now_ms;
        }
        // A clock a little behind (events taken out of order) is ignored.
    }

    /// The tokens in the bucket at `now_ms`.
    pub fn tokens(&mut self, now_ms: f64) -> f64 {
        self.refill(now_ms);
        self.tokens
    }

    fn exhausted(&self) -> BudgetExhausted {
        let missing = self.settings.retry_cost - self.tokens;
        BudgetExhausted {
            tokens: self.tokens,
            // A bucket that holds less than a retry's cost never opens again.
            retry_in_ms: if self.settings.refill_per_sec > 0.0
                && self.settings.capacity >= self.settings.retry_cost
            {
                missing * 1000.0 / self.settings.refill_per_sec
            } else {
                f64::INFINITY
            },
        }
    }

    /// Whether the circuit is open at `now_ms`.
    pub fn is_open(&mut self, now_ms: f64) -> bool {
        self.tokens(now_ms) < self.settings.retry_cost
    }

    /// Gate for a new call: refused while the circuit is open. Costs nothing.
    pub fn admit(&mut self, now_ms: f64) -> Result<(), BudgetExhausted> {
        if self.is_open(now_ms) {
            Err(self.exhausted())
        } else {
            Ok(())
        }
    }

    /// Charges one retry at the moment it is decided, or refuses it.
    pub fn try_retry(&mut self, now_ms: f64) -> Result<(), BudgetExhausted> {
        self.admit(now_ms)?;
        self.tokens -= self.settings.retry_cost;
        Ok(())
    }

    /// Records a success: puts `success_refund` tokens back.
    pub fn on_success(&mut self, now_ms: f64) {
        self.refill(now_ms);
        self.tokens = (self.tokens + self.settings.success_refund).min(self.settings.capacity);
    }

    /// Switches to new settings at `now_ms`, keeping the tokens: the bucket refills under
    /// the old settings up to `now_ms`, then holds at most the new capacity (a smaller
    /// capacity clamps the tokens; a larger one does not fill the bucket).
    pub fn reconfigure(
        &mut self,
        settings: BudgetSettings,
        now_ms: f64,
    ) -> Result<(), ConfigError> {
        let settings = settings.validate()?;
        self.refill(now_ms);
        self.settings = settings;
        self.tokens = self.tokens.min(settings.capacity);
        Ok(())
    }

    /// Fills the bucket to its capacity, as of `now_ms`.
    pub fn reset(&mut self, now_ms: f64) {
        self.tokens = self.settings.capacity;
        self.updated_ms = self.updated_ms.max(now_ms);
    }
}

/// Token buckets keyed by call-site name (`"GET /api/orders"`), made on first use; at most
/// [`MAX_CALL_SITES`] of them.
///
/// The rule for settings: [`get_or_insert`](Self::get_or_insert) (a caller that names a
/// call site without settings) gets the existing bucket as it is, or a new full one of the
/// given defaults; [`configure`](Self::configure) (a caller that passes settings) makes
/// them the call site's settings, keeping an existing bucket's tokens, clamped to the new
/// capacity. Either way one call site has one bucket, whatever handles point at it.
///
/// A program has a handful of call sites, so a vector searched in order beats a map (and
/// keeps the WebAssembly build small).
#[derive(Debug, Clone, Default)]
pub struct BudgetRegistry {
    buckets: Vec<(String, TokenBucket)>,
}

impl BudgetRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bucket of `call_site`, made full at `now_ms` with `settings` if it does not
    /// exist yet. An existing bucket keeps its tokens and its settings.
    ///
    /// Fails on invalid `settings` (for a new bucket) and, with the field `call_site`, when
    /// the registry already holds [`MAX_CALL_SITES`] other call sites.
    pub fn get_or_insert(
        &mut self,
        call_site: &str,
        settings: BudgetSettings,
        now_ms: f64,
    ) -> Result<&mut TokenBucket, ConfigError> {
        let i = match self.position(call_site) {
            Some(i) => i,
            None => self.insert(call_site, settings.build(now_ms)?)?,
        };
        Ok(&mut self.buckets[i].1)
    }

    fn position(&self, call_site: &str) -> Option<usize> {
        self.buckets.iter().position(|(name, _)| name == call_site)
    }

    fn insert(&mut self, call_site: &str, bucket: TokenBucket) -> Result<usize, ConfigError> {
        if self.buckets.len() >= MAX_CALL_SITES {
            return Err(ConfigError::new(
                Field::CallSite,
                Expected::RegistryFull {
                    max: MAX_CALL_SITES as u32,
                },
                Got::Text(call_site.to_owned()),
            ));
        }
        self.buckets.push((call_site.to_owned(), bucket));
        Ok(self.buckets.len() - 1)
    }

    /// Makes `settings` the settings of `call_site`'s bucket at `now_ms`: a new bucket
    /// starts full; an existing one keeps its tokens, clamped to the new capacity (see
    /// [`TokenBucket::reconfigure`]). Fails like [`get_or_insert`](Self::get_or_insert).
    pub fn configure(
        &mut self,
        call_site: &str,
        settings: BudgetSettings,
        now_ms: f64,
    ) -> Result<&mut TokenBucket, ConfigError> {
        let i = match self.position(call_site) {
            Some(i) => {
                self.buckets[i].1.reconfigure(settings, now_ms)?;
                i
            }
            None => self.insert(call_site, settings.build(now_ms)?)?,
        };
        Ok(&mut self.buckets[i].1)
    }

    /// The bucket of `call_site`, if any.
    pub fn get_mut(&mut self, call_site: &str) -> Option<&mut TokenBucket> {
        let i = self.position(call_site)?;
        Some(&mut self.buckets[i].1)
    }

    /// Removes every bucket.
    pub fn clear(&mut self) {
        self.buckets.clear();
    }

    /// The number of call sites.
    pub fn len(&self) -> usize {
        self.buckets.len()
    }

    /// Whether there are no call sites.
    pub fn is_empty(&self) -> bool {
        self.buckets.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bucket(cap: f64, refill: f64) -> TokenBucket {
        BudgetSettings::new(cap, refill).build(0.0).unwrap()
    }

    #[test]
    fn timeline_drain_open_refill_close() {
        let mut b = bucket(3.0, 2.0); // 3 tokens, +2/s: one token every 500 ms
        // drain
        for t in [0.0, 10.0, 20.0] {
            assert!(b.try_retry(t).is_ok(), "retry at {t}");
        }
        // open: retries and new calls fail fast
        let e = b.try_retry(30.0).unwrap_err();
        assert!((e.tokens - 0.06).abs() < 1e-9, "{e:?}");
        assert!((e.retry_in_ms - 470.0).abs() < 1e-6, "{e:?}");
        assert!(b.admit(400.0).is_err());
        assert!(b.is_open(499.0));
        // refill: 500 ms after draining (at 20 ms) one token is back: closed again
        assert!(!b.is_open(520.0));
        assert!(b.try_retry(520.0).is_ok());
        assert!(b.is_open(521.0));
        // long quiet: full again, never beyond capacity
        assert_eq!(b.tokens(60_000.0), 3.0);
    }

    #[test]
    fn refund_on_success_and_never_above_capacity() {
        let mut b = BudgetSettings::new(2.0, 0.0)
            .with_success_refund(0.5)
            .build(0.0)
            .unwrap();
        b.try_retry(0.0).unwrap();
        b.try_retry(0.0).unwrap();
        assert!(b.admit(0.0).is_err());
        b.on_success(1.0);
        assert!(b.admit(1.0).is_err(), "0.5 tokens cannot pay for a retry");
        b.on_success(2.0);
        assert!(b.try_retry(2.0).is_ok());
        for _ in 0..10 {
            b.on_success(3.0);
        }
        assert_eq!(b.tokens(3.0), 2.0);
        // no refill: exhaustion is permanent and says so
        b.try_retry(3.0).unwrap();
        b.try_retry(3.0).unwrap();
        assert_eq!(b.try_retry(3.0).unwrap_err().retry_in_ms, f64::INFINITY);
    }

    /// A bucket smaller than a retry's cost refuses for good, and says so (it said the
    /// time to refill to the cost, which the capacity never lets it reach).
    #[test]
    fn a_bucket_smaller_than_the_cost_never_reopens() {
        for (capacity, cost) in [(0.5, 1.0), (10.0, 11.0), (0.0, 1.0)] {
            let mut b = BudgetSettings::new(capacity, 1.0)
                .with_retry_cost(cost)
                .build(0.0)
                .unwrap();
            let e = b.admit(1e6).unwrap_err();
            assert_eq!(e.retry_in_ms, f64::INFINITY, "{capacity}/{cost}");
            assert_eq!(e.tokens, capacity);
        }
        // At the cost exactly it reopens, in the time the refill takes.
        let mut b = BudgetSettings::new(2.0, 1.0)
            .with_retry_cost(2.0)
            .build(0.0)
            .unwrap();
        b.try_retry(0.0).unwrap();
        assert_eq!(b.admit(500.0).unwrap_err().retry_in_ms, 1500.0);
    }

    #[test]
    fn clock_running_backwards_adds_nothing_and_freezes_nothing() {
        let mut b = bucket(1.0, 1.0);
        b.try_retry(10_000.0).unwrap();
        assert_eq!(b.tokens(0.0), 0.0);
        // A clock a little behind is ignored: the bucket refills from 10 s on.
        assert_eq!(b.tokens(9_500.0), 0.0);
        assert_eq!(b.tokens(10_500.0), 0.5);
        // One time far ahead (a bad nowMs) spends the bucket's state there, not its future.
        b.try_retry(1e300).unwrap();
        assert_eq!(b.tokens(2_000.0), 0.0);
        assert_eq!(b.tokens(3_000.0), 1.0);
    }

    #[test]
    fn cost_and_validation() {
        let mut b = BudgetSettings::new(10.0, 0.0)
            .with_retry_cost(5.0)
            .build(0.0)
            .unwrap();
        assert!(b.try_retry(0.0).is_ok());
        assert!(b.try_retry(0.0).is_ok());
        assert!(b.try_retry(0.0).is_err());
        for bad in [
            BudgetSettings::new(f64::NAN, 1.0),
            BudgetSettings::new(-1.0, 1.0),
            BudgetSettings::new(1.0, f64::INFINITY),
            BudgetSettings::new(1.0, 1.0).with_retry_cost(0.0),
            BudgetSettings::new(1.0, 1.0).with_success_refund(-0.1),
        ] {
            assert!(bad.build(0.0).is_err(), "{bad:?}");
        }
        assert_eq!(
            BudgetSettings::new(-1.0, 1.0).build(0.0).unwrap_err().field,
            "capacity"
        );
    }

    #[test]
    fn registry_keys_call_sites() {
        let mut r = BudgetRegistry::new();
        let s = BudgetSettings::new(1.0, 0.0);
        r.get_or_insert("GET /a", s, 0.0)
            .unwrap()
            .try_retry(0.0)
            .unwrap();
        assert!(
            r.get_or_insert("GET /a", s, 0.0)
                .unwrap()
                .try_retry(0.0)
                .is_err()
        );
        assert!(
            r.get_or_insert("GET /b", s, 0.0)
                .unwrap()
                .try_retry(0.0)
                .is_ok()
        );
        assert_eq!(r.len(), 2);
        assert!(
            r.get_or_insert("x", BudgetSettings::new(f64::NAN, 0.0), 0.0)
                .is_err()
        );
        assert_eq!(r.len(), 2, "an invalid new bucket is not added");
    }

    #[test]
    fn registry_settings_rule_reconfigure_keeps_tokens_clamped() {
        let mut r = BudgetRegistry::new();
        let b = r
            .configure("GET /a", BudgetSettings::new(3.0, 0.0), 0.0)
            .unwrap();
        assert_eq!(b.tokens(0.0), 3.0, "a new bucket starts full");
        b.try_retry(0.0).unwrap();
        b.try_retry(0.0).unwrap();
        // Larger capacity and a refill rate: the tokens stay (no refill to full), and the
        // new rate applies from now on.
        let b = r
            .configure("GET /a", BudgetSettings::new(10.0, 2.0), 1000.0)
            .unwrap();
        assert_eq!(b.tokens(1000.0), 1.0);
        assert_eq!(b.settings().capacity, 10.0);
        assert_eq!(b.tokens(2000.0), 3.0);
        // Without settings: the existing bucket as it is, whatever defaults are offered.
        let b = r
            .get_or_insert("GET /a", BudgetSettings::new(99.0, 99.0), 2000.0)
            .unwrap();
        assert_eq!(b.settings(), BudgetSettings::new(10.0, 2.0));
        assert_eq!(b.tokens(2000.0), 3.0);
        // A smaller capacity clamps.
        let b = r
            .configure("GET /a", BudgetSettings::new(0.5, 0.0), 2000.0)
            .unwrap();
        assert_eq!(b.tokens(2000.0), 0.5);
        assert!(b.try_retry(2000.0).is_err());
        // Invalid settings change nothing.
        let e = r
            .configure("GET /a", BudgetSettings::new(-1.0, 0.0), 3000.0)
            .unwrap_err();
        assert_eq!(e.field, "capacity");
        let b = r.get_mut("GET /a").unwrap();
        assert_eq!(b.settings().capacity, 0.5);
        // reset fills to the current settings' capacity.
        b.reset(3000.0);
        assert_eq!(b.tokens(3000.0), 0.5);
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn reset_fills_and_refill_resumes_from_then() {
        let mut b = bucket(4.0, 1.0);
        for _ in 0..4 {
            b.try_retry(0.0).unwrap();
        }
        b.reset(500.0);
        assert_eq!(b.tokens(500.0), 4.0);
        b.try_retry(500.0).unwrap();
        assert_eq!(b.tokens(1500.0), 4.0, "one second refills one token");
    }

    #[test]
    fn registry_is_bounded() {
        let mut r = BudgetRegistry::new();
        let s = BudgetSettings::new(1.0, 0.0);
        for i in 0..MAX_CALL_SITES {
            r.get_or_insert(&format!("site {i}"), s, 0.0).unwrap();
        }
        let e = r.get_or_insert("one too many", s, 0.0).unwrap_err();
        assert_eq!(e.field, "call_site");
        assert_eq!(e.expected, Expected::RegistryFull { max: 1000 });
        assert!(r.configure("one too many", s, 0.0).is_err());
        assert_eq!(r.len(), MAX_CALL_SITES);
        // Existing call sites keep working, with or without settings.
        assert!(r.get_or_insert("site 0", s, 0.0).is_ok());
        assert!(
            r.configure("site 999", BudgetSettings::new(2.0, 0.0), 0.0)
                .is_ok()
        );
        r.clear();
        assert!(r.get_or_insert("one too many", s, 0.0).is_ok());
    }
}
