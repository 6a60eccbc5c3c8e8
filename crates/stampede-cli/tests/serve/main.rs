//! Integration tests of `stampede serve`: the real app on a loopback port,
//! talked to over HTTP with reqwest (and, where the wire matters, a raw
//! socket). One module per concern; `support` holds what they share.

mod api;
mod bad_input;
mod binary;
mod body_limit;
mod bounded_state;
mod caching;
mod connections;
mod cors;
#[cfg(target_os = "linux")]
mod hostile;
mod shutdown;
mod static_files;
mod support;
