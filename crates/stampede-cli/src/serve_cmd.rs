//! `stampede serve`: the playground and the demo API.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args as ClapArgs;
use clap::builder::TypedValueParser;
use stampede_cli::args::{duration_ms, duration_string};
use stampede_cli::serve::{
    HEADER_TIMEOUT, HEADER_TIMEOUT_RANGE, Limits, MAX_CONNECTIONS, MAX_CONNECTIONS_RANGE,
    ServeOptions, run as serve,
};

use crate::UsageError;

/// `stampede serve [--addr 127.0.0.1:8080] [--static www/dist] [--header-timeout 5s]
/// [--max-connections 512]`
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The address to listen on: a loopback one (127.0.0.1, ::1 or localhost, any port).
    #[arg(long, default_value = "127.0.0.1:8080", value_parser = loopback_addr)]
    addr: SocketAddr,
    /// The built page to serve: an existing directory (`make dist` builds it) [default:
    /// www/dist; where there is none, the demo API alone, with a "not built yet" page at /]
    #[arg(long = "static", value_name = "DIR", value_parser = clap::builder::OsStringValueParser::new().try_map(existing_dir))]
    static_dir: Option<PathBuf>,
    /// Close a connection that has not sent a whole request header this long
    /// after it opened, or after its previous answer (idle keep-alive).
    #[arg(long, value_name = "DURATION", default_value_t = Timeout(HEADER_TIMEOUT), value_parser = header_timeout, allow_hyphen_values = true)]
    header_timeout: Timeout,
    /// Serve at most this many connections at once; past it, up to 64 more at a
    /// time get a 503 with Retry-After: 1 and are closed, and the rest are closed
    /// at once, unanswered.
    #[arg(long, value_name = "N", default_value_t = MAX_CONNECTIONS, value_parser = max_connections, allow_hyphen_values = true)]
    max_connections: usize,
}

pub fn run(a: Args) -> Result<(), UsageError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| UsageError(format!("cannot start the async runtime: {e}")))?;
    let limits = Limits {
        header_timeout: a.header_timeout.0,
        max_connections: a.max_connections,
        ..Limits::default()
    };
    runtime
        .block_on(serve(ServeOptions {
            addr: a.addr,
            // Without --static, www/dist where it is; where it is not (run outside the
            // repository, for the demo API), the same path serves the "not built yet"
            // page at `/` and logs why, and the API works.
            static_dir: a
                .static_dir
                .unwrap_or_else(|| PathBuf::from(DEFAULT_STATIC)),
            limits,
        }))
        .map_err(|e| UsageError(format!("--addr {}: {e}", a.addr)))
}

/// Parses `--addr`: a socket address on the loopback interface. The demo API answers
/// anyone who asks with whatever failure they ask for, and the page serves no secrets
/// but no checks either: it is for this machine, not the network.
fn loopback_addr(s: &str) -> Result<SocketAddr, String> {
    let expected = "expected a loopback address and port, such as 127.0.0.1:8080 or [::1]:8080";
    let s = s.trim();
    // `localhost:PORT` as most people write it: the IPv4 loopback.
    let parsed = match s.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}").parse::<SocketAddr>(),
        None => s.parse::<SocketAddr>(),
    };
    match parsed {
        Ok(addr) if addr.ip().is_loopback() => Ok(addr),
        Ok(_) => Err(format!(
            "{expected}: the server listens on this machine only"
        )),
        Err(_) => Err(expected.to_owned()),
    }
}

/// Where the built page is when `--static` is not given (the repository's `make dist`).
const DEFAULT_STATIC: &str = "www/dist";

/// Parses `--static`: a directory that exists. A missing or mistyped one would
/// serve nothing but the "not built yet" page, hiding the mistake, so it is
/// refused before anything is bound. Any bytes, as a file name may be (a `&str` parser
/// made clap refuse a non-UTF-8 directory without naming the flag).
fn existing_dir(s: std::ffi::OsString) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    match std::fs::metadata(&path) {
        Ok(meta) if meta.is_dir() => Ok(path),
        Ok(_) => Err("not a directory; expected the directory holding the built page".to_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(
            "no such directory; build the page with `make dist`, or name the directory holding it"
                .to_owned(),
        ),
        Err(e) => Err(format!("cannot read it: {e}")),
    }
}

/// A header timeout, shown in help as the flag takes it (`5s`, `250ms`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Timeout(Duration);

impl fmt::Display for Timeout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Whole milliseconds (the parser rounds to them), exact in an f64.
        f.write_str(&duration_string(self.0.as_millis() as f64))
    }
}

/// Parses `--header-timeout`: a duration in [`HEADER_TIMEOUT_RANGE`].
fn header_timeout(s: &str) -> Result<Timeout, String> {
    let (min, max) = (
        Timeout(*HEADER_TIMEOUT_RANGE.start()),
        Timeout(*HEADER_TIMEOUT_RANGE.end()),
    );
    let expected = || format!("expected a duration from {min} to {max}, such as 5s or 500ms");
    let ms = duration_ms(s).ok_or_else(expected)?;
    // Whole milliseconds: `duration_ms` allows fractions, hyper's timer does not need them.
    let timeout = Duration::from_millis(ms.round() as u64);
    if HEADER_TIMEOUT_RANGE.contains(&timeout) {
        Ok(Timeout(timeout))
    } else {
        Err(expected())
    }
}

/// Parses `--max-connections`: a whole number in [`MAX_CONNECTIONS_RANGE`].
fn max_connections(s: &str) -> Result<usize, String> {
    let (min, max) = (*MAX_CONNECTIONS_RANGE.start(), *MAX_CONNECTIONS_RANGE.end());
    match s.trim().parse::<usize>() {
        Ok(n) if MAX_CONNECTIONS_RANGE.contains(&n) => Ok(n),
        _ => Err(format!("expected a whole number from {min} to {max}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_are_accepted() {
        assert_eq!(
            loopback_addr("127.0.0.1:8080"),
            Ok("127.0.0.1:8080".parse().unwrap())
        );
        assert_eq!(loopback_addr("[::1]:0"), Ok("[::1]:0".parse().unwrap()));
        assert_eq!(
            loopback_addr("localhost:9000"),
            Ok("127.0.0.1:9000".parse().unwrap())
        );
        for other in [
            "0.0.0.0:8080",
            "192.0.2.1:80",
            "[::]:8080",
            "localhost:x",
            "8080",
            "",
        ] {
            let e = loopback_addr(other).unwrap_err();
            assert!(e.starts_with("expected a loopback address"), "{other}: {e}");
        }
    }

    #[test]
    fn header_timeouts_are_durations_in_range() {
        assert_eq!(header_timeout("5s"), Ok(Timeout(Duration::from_secs(5))));
        assert_eq!(
            header_timeout("250ms"),
            Ok(Timeout(Duration::from_millis(250)))
        );
        assert_eq!(header_timeout("10m"), Ok(Timeout(Duration::from_secs(600))));
        for bad in ["0", "9ms", "11m", "-1s", "soon", ""] {
            let error = header_timeout(bad).unwrap_err();
            assert_eq!(
                error, "expected a duration from 10ms to 600s, such as 5s or 500ms",
                "{bad:?}"
            );
        }
        assert_eq!(Timeout(HEADER_TIMEOUT).to_string(), "5s");
    }

    /// The flag's help states the refusals' bound as a number (a doc comment cannot
    /// name the constant): it must be the server's.
    #[test]
    fn the_connection_caps_help_states_the_refusals_bound() {
        use clap::Args as _;
        let command = Args::augment_args(clap::Command::new("serve"));
        let arg = command
            .get_arguments()
            .find(|a| a.get_id() == "max_connections")
            .expect("--max-connections");
        let help = arg.get_help().expect("a help text").to_string();
        let bound = format!("up to {} more", stampede_cli::serve::MAX_REFUSING);
        assert!(help.contains(&bound), "{help}");
    }

    #[test]
    fn connection_caps_are_whole_numbers_in_range() {
        assert_eq!(max_connections("1"), Ok(1));
        assert_eq!(max_connections("100000"), Ok(100_000));
        for bad in ["0", "100001", "-1", "1.5", "many"] {
            assert!(max_connections(bad).is_err(), "{bad:?}");
        }
    }
}
