//! The demo API under `/api`: endpoints that fail the way production fails.
//!
//! Every endpoint answers JSON, every bad parameter is a `400` whose `{"error":...}`
//! starts with the parameter's name, and every response carries open CORS
//! headers (see [`router()`]) and `Cache-Control: no-store`. See the
//! [module docs](super) for the endpoints.
//!
//! One concern per file: the router and its layers ([`mod@router`]), the error
//! answer ([`error`]), query parameters ([`params`]) and retry hints
//! ([`hints`]), the endpoints ([`handlers`]) and the body limit
//! ([`body_limit`]).

mod body_limit;
mod error;
mod handlers;
mod hints;
mod params;
mod router;

pub(crate) use self::error::no_tunnels;
pub(crate) use self::router::router;
