//! HTTP methods, and the request being retried: whether it may be repeated.

use core::fmt;
use core::str::FromStr;

use crate::error::{ConfigError, Expected, Field, Got};

/// An HTTP request method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Method {
    /// GET
    #[default]
    Get,
    /// HEAD
    Head,
    /// PUT
    Put,
    /// DELETE
    Delete,
    /// OPTIONS
    Options,
    /// TRACE
    Trace,
    /// POST
    Post,
    /// PATCH
    Patch,
    /// CONNECT
    Connect,
    /// Any other (extension) method; treated as not idempotent.
    Other,
}

impl Method {
    /// Every method with a name of its own (all but [`Method::Other`]).
    pub const KNOWN: [Method; 9] = [
        Method::Get,
        Method::Head,
        Method::Put,
        Method::Delete,
        Method::Options,
        Method::Trace,
        Method::Post,
        Method::Patch,
        Method::Connect,
    ];

    /// Whether RFC 9110 defines the method as idempotent (GET, HEAD, PUT, DELETE,
    /// OPTIONS, TRACE).
    pub const fn is_idempotent(self) -> bool {
        matches!(
            self,
            Method::Get
                | Method::Head
                | Method::Put
                | Method::Delete
                | Method::Options
                | Method::Trace
        )
    }

    /// The method's name; `"OTHER"` for extension methods.
    pub const fn name(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Head => "HEAD",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
            Method::Options => "OPTIONS",
            Method::Trace => "TRACE",
            Method::Post => "POST",
            Method::Patch => "PATCH",
            Method::Connect => "CONNECT",
            Method::Other => "OTHER",
        }
    }
}

/// The method's name; an extension method has none of its own here (the classifier keeps
/// no string), so it is written as what it is: "an extension method" (a reason read
/// "OTHER is not idempotent" for a PROPFIND).
impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Method::Other => "an extension method",
            m => m.name(),
        })
    }
}

impl FromStr for Method {
    type Err = ConfigError;

    /// Case-insensitive. Any other token is [`Method::Other`]; an empty or non-token
    /// string is an error.
    fn from_str(s: &str) -> Result<Self, ConfigError> {
        let known = Method::KNOWN;
        let names = known.map(Method::name);
        if let Some(i) = crate::error::find_name(&names, s) {
            return Ok(known[i]);
        }
        if super::is_token(s) {
            Ok(Method::Other)
        } else {
            Err(ConfigError::new(
                Field::Method,
                Expected::Syntax("an HTTP method such as GET or POST"),
                Got::Text(s.to_owned()),
            ))
        }
    }
}

/// The methods the Fetch standard forbids (`new Request(url, { method: "TRACE" })`
/// throws): a fetch of one fails before anything is sent, every time.
pub const FETCH_FORBIDDEN: [&str; 3] = ["CONNECT", "TRACE", "TRACK"];

impl Method {
    /// `s` as the method of a request that fetch will send: as [`Method::from_str`], and
    /// an error naming the method for one of [`FETCH_FORBIDDEN`] (retrying it would only
    /// repeat fetch's refusal, which looks like a network failure).
    ///
    /// ```
    /// use stampede::classify::Method;
    /// use stampede::{Code, Field};
    /// assert_eq!(Method::for_fetch("put"), Ok(Method::Put));
    /// assert_eq!(Method::for_fetch("PROPFIND"), Ok(Method::Other));
    /// for forbidden in ["TRACE", "connect", "Track"] {
    ///     let e = Method::for_fetch(forbidden).unwrap_err();
    ///     assert_eq!((e.field, e.code()), (Field::Method, Code::BadSyntax));
    /// }
    /// // The classifier still knows TRACE (RFC 9110: idempotent).
    /// assert_eq!("TRACE".parse(), Ok(Method::Trace));
    /// ```
    pub fn for_fetch(s: &str) -> Result<Method, ConfigError> {
        let m = s.parse::<Method>()?;
        if crate::error::find_name(&FETCH_FORBIDDEN, s).is_some() {
            return Err(ConfigError::new(
                Field::Method,
                Expected::Syntax("a method fetch sends (not CONNECT, TRACE or TRACK)"),
                Got::Text(s.to_owned()),
            ));
        }
        Ok(m)
    }
}

/// What is being retried: its method, and whether the caller vouches that repeating it is
/// safe (an idempotency key, a conditional write…).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Request {
    /// The method.
    pub method: Method,
    /// `true` lets POST and PATCH be retried.
    pub idempotent: bool,
}

impl Request {
    /// A request of `method`, not marked idempotent.
    pub const fn new(method: Method) -> Self {
        Request {
            method,
            idempotent: false,
        }
    }

    /// The same request, marked idempotent (or not).
    pub const fn idempotent(mut self, yes: bool) -> Self {
        self.idempotent = yes;
        self
    }

    pub(super) const fn may_repeat(self) -> bool {
        self.idempotent || self.method.is_idempotent()
    }
}
