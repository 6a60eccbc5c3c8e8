//! The AWS SDKs' retry quota (the "standard" retry mode).
//!
//! # Source
//!
//! The SDKs' shared specification, as in `@aws-sdk/middleware-retry` (`INITIAL_RETRY_TOKENS
//! 500`, `RETRY_COST 5`, `TIMEOUT_RETRY_COST 10`, `NO_RETRY_INCREMENT 1`), aws-sdk-rust's
//! standard retry `TokenBucket` and botocore: a quota of 500 tokens per client; a retry
//! acquires 5, or 10 when the failure was a timeout; when the request then succeeds, the
//! retry's tokens go back; a request that succeeds at its first attempt puts 1 back;
//! never above the initial 500. When the quota cannot pay for a retry, the SDK gives up
//! with the last error.
//!
//! # Where ours differs, and why
//!
//! - "A timeout" is the transport error `timeout`. The JavaScript SDK charges 10 for an
//!   error named `TimeoutError` only, the Rust SDK for timeouts and transient errors; we
//!   follow the specification's wording.
//! - First attempts are never refused by the quota, as in the SDKs.
//! - The 2026 revision of the SDKs (14 for a transient retry) is not modelled; set
//!   `retry_cost` to 14 to see it.

use crate::budget::BudgetExhausted;
use crate::error::{ConfigError, Field};

/// What a first-try success puts back (the SDKs' `NO_RETRY_INCREMENT`).
pub const NO_RETRY_INCREMENT: f64 = 1.0;

/// Unvalidated retry-quota settings.
///
/// # Default
/// The SDKs': 500 tokens, 5 per retry, 10 per retry after a timeout.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AwsSettings {
    /// Tokens at the start, and the most held.
    pub tokens: f64,
    /// Tokens a retry costs.
    pub retry_cost: f64,
    /// Tokens a retry after a timeout costs.
    pub timeout_cost: f64,
}

impl Default for AwsSettings {
    fn default() -> Self {
        AwsSettings {
            tokens: 500.0,
            retry_cost: 5.0,
            timeout_cost: 10.0,
        }
    }
}

impl AwsSettings {
    /// Validates every field.
    pub fn validate(self) -> Result<Self, ConfigError> {
        Field::Tokens.check(self.tokens)?;
        Field::RetryCost.check(self.retry_cost)?;
        Field::TimeoutCost.check(self.timeout_cost)?;
        Ok(self)
    }
}

/// The retry quota. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AwsQuota {
    settings: AwsSettings,
    available: f64,
}

impl AwsQuota {
    /// A full quota; `settings` validated.
    pub(crate) fn new(settings: AwsSettings) -> Self {
        AwsQuota {
            settings,
            available: settings.tokens,
        }
    }

    /// The settings.
    pub const fn settings(&self) -> AwsSettings {
        self.settings
    }

    /// Tokens available.
    pub const fn available(&self) -> f64 {
        self.available
    }

    /// Acquires the tokens of a retry after a failure (a timeout if `after_timeout`), and
    /// returns what it cost, or refuses.
    pub fn try_acquire(&mut self, after_timeout: bool) -> Result<f64, BudgetExhausted> {
        let cost = if after_timeout {
            self.settings.timeout_cost
        } else {
            self.settings.retry_cost
        };
        if cost > self.available {
            return Err(BudgetExhausted {
                tokens: self.available,
                // Only successes bring tokens back; time does not.
                retry_in_ms: f64::INFINITY,
            });
        }
        self.available -= cost;
        Ok(cost)
    }

    /// A request succeeded; its last retry cost `retry_cost` (`None`: it had no retry).
    pub fn on_success(&mut self, retry_cost: Option<f64>) {
        let back = retry_cost.unwrap_or(NO_RETRY_INCREMENT);
        self.available = (self.available + back).min(self.settings.tokens);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_and_refunds() {
        let mut q = AwsQuota::new(AwsSettings {
            tokens: 20.0,
            ..AwsSettings::default()
        });
        assert_eq!(q.try_acquire(false), Ok(5.0));
        assert_eq!(q.try_acquire(true), Ok(10.0));
        assert_eq!(q.available(), 5.0);
        assert!(q.try_acquire(true).is_err(), "10 > 5");
        assert_eq!(q.try_acquire(false), Ok(5.0));
        assert!(q.try_acquire(false).is_err());
        q.on_success(Some(10.0));
        assert_eq!(q.available(), 10.0);
        q.on_success(None);
        assert_eq!(q.available(), 11.0);
        for _ in 0..100 {
            q.on_success(None);
        }
        assert_eq!(q.available(), 20.0);
    }
}
