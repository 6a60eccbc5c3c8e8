//! gRPC retry throttling (gRFC A6, "Retry Throttling").
//!
//! # Source
//!
//! Per server (per channel target), `token_count` starts at `maxTokens`; every failed
//! attempt (a retryable status, a non-fatal hedge status, or pushback) takes 1, every
//! success gives back `tokenRatio`, never above `maxTokens` nor below 0; retries and hedges
//! are allowed only while `token_count > maxTokens / 2`. grpc-go's `retryThrottler`
//! takes the token and checks the threshold in one step when an attempt fails; so do we
//! (the failure is recorded, then the retry decided on).
//!
//! With (10, 0.1), a stream of calls failing at rate `f` moves the tokens by
//! `0.1·(1 − f) − f` per call: they drift down, and retries stop, once `f > 0.1/1.1 ≈ 9%`.
//!
//! # Where ours differs, and why
//!
//! - A failure the classifier does not retry (a 404) neither takes nor gives a token: gRFC
//!   A6 counts only retryable failures and successes.
//! - First attempts are never throttled, as in gRPC.

use crate::budget::BudgetExhausted;
use crate::error::{ConfigError, Field};

/// The most `maxTokens` gRPC accepts.
pub const MAX_GRPC_TOKENS: f64 = 1000.0;

/// Unvalidated gRPC throttling settings.
///
/// # Default
/// gRFC A6's example: 10 tokens, 0.1 back per success.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct GrpcSettings {
    /// Tokens at the start, and the most held: more than 0, at most 1000.
    pub max_tokens: f64,
    /// Tokens a success gives back: more than 0.
    pub token_ratio: f64,
}

impl Default for GrpcSettings {
    fn default() -> Self {
        GrpcSettings {
            max_tokens: 10.0,
            token_ratio: 0.1,
        }
    }
}

impl GrpcSettings {
    /// Validates every field.
    pub fn validate(self) -> Result<Self, ConfigError> {
        Field::MaxTokens.check(self.max_tokens)?;
        Field::TokenRatio.check(self.token_ratio)?;
        Ok(self)
    }
}

/// gRPC's retry throttle. See the [module docs](self).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GrpcThrottle {
    settings: GrpcSettings,
    tokens: f64,
}

impl GrpcThrottle {
    /// A full throttle; `settings` validated.
    pub(crate) fn new(settings: GrpcSettings) -> Self {
        GrpcThrottle {
            settings,
            tokens: settings.max_tokens,
        }
    }

    /// The settings.
    pub const fn settings(&self) -> GrpcSettings {
        self.settings
    }

    /// The tokens now.
    pub const fn tokens(&self) -> f64 {
        self.tokens
    }

    /// An attempt failed in a way that would be retried: one token less.
    pub fn on_failure(&mut self) {
        self.tokens = (self.tokens - 1.0).max(0.0);
    }

    /// An attempt succeeded: `token_ratio` back.
    pub fn on_success(&mut self) {
        self.tokens = (self.tokens + self.settings.token_ratio).min(self.settings.max_tokens);
    }

    /// Whether a retry (or hedge) may go: tokens above half the maximum. Costs nothing:
    /// the failure already took its token.
    pub fn check(&self) -> Result<(), BudgetExhausted> {
        if self.tokens > self.settings.max_tokens / 2.0 {
            Ok(())
        } else {
            Err(BudgetExhausted {
                tokens: self.tokens,
                // Only successes bring tokens back; time does not.
                retry_in_ms: f64::INFINITY,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_failures_in_a_row_stop_retries_at_ten() {
        let mut t = GrpcThrottle::new(GrpcSettings::default());
        for _ in 0..4 {
            t.on_failure();
            assert!(t.check().is_ok());
        }
        t.on_failure(); // 5 = 10 / 2: not above half
        assert!(t.check().is_err());
        for _ in 0..10 {
            t.on_success();
        }
        assert!((t.tokens() - 6.0).abs() < 1e-9);
        assert!(t.check().is_ok());
        for _ in 0..100 {
            t.on_failure();
        }
        assert_eq!(t.tokens(), 0.0);
        for _ in 0..1000 {
            t.on_success();
        }
        assert_eq!(t.tokens(), 10.0);
    }

    #[test]
    fn validation() {
        let bad = GrpcSettings {
            max_tokens: 0.0,
            ..GrpcSettings::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, Field::MaxTokens);
        let bad = GrpcSettings {
            token_ratio: f64::NAN,
            ..GrpcSettings::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, Field::TokenRatio);
    }
}
