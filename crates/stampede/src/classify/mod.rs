//! What to retry: from an outcome to a [`Verdict`], always with a [`Reason`].
//!
//! Timing is only half of a retry policy; the other half is knowing what can succeed on a
//! second try. A 503 or a timeout may pass a moment later. A 404, a 400 or a 403 will not:
//! the request itself is wrong, and retrying it only multiplies the traffic a client bug
//! causes. 410 Gone says so outright. Libraries that retry every non-2xx turn client bugs
//! into retry storms, so here the rule is explicit configuration, [`RetryRules`], whose
//! defaults are the article's:
//!
//! - retry: 5xx, 408 Request Timeout, 429 Too Many Requests; timeouts, refused and reset
//!   connections;
//! - do not retry: any other 4xx, 410 Gone included, and DNS failures — defaults, which
//!   [`RetryRules`] can change;
//! - never, whatever the rules: an abort by the caller (the caller asked to stop);
//! - never a non-idempotent request (POST, PATCH, CONNECT, unknown methods) unless the
//!   caller marks it idempotent, e.g. because it carries an idempotency key — a retried
//!   POST can charge a card twice.
//!
//! The server's hints are read here too: `Retry-After` and `grpc-retry-pushback-ms`
//! (see [`retry_after`](crate::retry_after)).
//!
//! ```
//! use stampede::classify::{HttpStatus, Method, Outcome, Request, RetryRules};
//! let rules = RetryRules::default();
//! let get = Request::new(Method::Get);
//! let v = rules.classify(get, &Outcome::response(HttpStatus::new(503)?), 0.0);
//! assert!(v.is_retryable());
//! let v = rules.classify(get, &Outcome::response(HttpStatus::new(404)?), 0.0);
//! assert!(!v.is_retryable());
//! assert_eq!(v.reason.to_string(), "404 Not Found is a client error: the same request would get the same answer");
//! # Ok::<(), stampede::ConfigError>(())
//! ```
mod method;
mod outcome;
mod rules;
mod status;
mod syntax;
mod transport;
mod verdict;

pub use method::{FETCH_FORBIDDEN, Method, Request};
pub use outcome::Outcome;
pub use rules::{DEFAULT_MAX_RETRY_AFTER_MS, DEFAULT_RETRY_ON, RetryRules};
pub use status::{HttpStatus, StatusSet};
pub use syntax::{is_field_value, is_token};
pub use transport::{TransportError, TransportSet};
pub use verdict::{Action, Reason, ServerHint, Verdict};

#[cfg(test)]
mod tests;
