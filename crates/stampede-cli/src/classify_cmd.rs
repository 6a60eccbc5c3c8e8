//! `stampede classify`: is this outcome retried, and why?

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use clap::Args as ClapArgs;
use serde_json::json;
use stampede::Field;
use stampede::classify::DEFAULT_MAX_RETRY_AFTER_MS;
use stampede::classify::{
    Action, HttpStatus, Method, Outcome, Request, RetryRules, StatusSet, TransportError,
    is_field_value, is_token,
};
use stampede_cli::args::{config_error, duration, duration_text, shown, whole};
use stampede_cli::json::num;

use crate::UsageError;
use crate::output::Failure;

/// `stampede classify --status 503 --header 'Retry-After: 120' --json`
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// The HTTP status (100 to 599).
    #[arg(long, value_parser = parse_status, allow_hyphen_values = true, conflicts_with = "error", required_unless_present = "error")]
    status: Option<u16>,
    /// The request method; POST, PATCH and extension methods (PURGE, LOCK…) are retried only
    /// with --idempotent.
    #[arg(long, default_value = "GET", value_parser = parse_method)]
    method: Method,
    /// A response header, 'Name: value' (repeatable). Retry-After and grpc-retry-pushback-ms are read.
    #[arg(long = "header", value_name = "NAME: VALUE", value_parser = parse_header)]
    headers: Vec<(String, String)>,
    /// "Now" in ms since the Unix epoch, for Retry-After dates (default: the system clock).
    #[arg(long, value_parser = parse_now, allow_hyphen_values = true)]
    now_ms: Option<f64>,
    /// A transport error instead of a status: timeout, connect, reset, dns or abort.
    #[arg(long, value_parser = parse_error)]
    error: Option<TransportError>,
    /// The caller vouches that repeating the request is safe.
    #[arg(long)]
    idempotent: bool,
    /// The longest server hint honoured; past it the request gives up.
    #[arg(long, default_value = duration_text(DEFAULT_MAX_RETRY_AFTER_MS), value_parser = duration(Field::MaxRetryAfter), value_name = "DURATION", allow_hyphen_values = true)]
    max_retry_after: f64,
    /// The statuses retried, e.g. "5xx,408,429" (the default), "502-504", or "" for none
    /// (transport errors only).
    #[arg(long, value_parser = parse_statuses)]
    retry_on: Option<StatusSet>,
    /// Print JSON: {"retryable","reason","retry_after_ms",…}.
    #[arg(long)]
    json: bool,
}

fn parse_status(s: &str) -> Result<u16, String> {
    // The core's range (100 to 599) fits a u16.
    whole(Field::Status)(s).map(|c| c as u16)
}

fn parse_method(s: &str) -> Result<Method, String> {
    s.parse()
        .map_err(|e: stampede::ConfigError| format!("expected {}", e.expected))
}

fn parse_error(s: &str) -> Result<TransportError, String> {
    s.parse()
        .map_err(|e: stampede::ConfigError| format!("expected {}", e.expected))
}

fn parse_statuses(s: &str) -> Result<StatusSet, String> {
    StatusSet::parse(s).map_err(|e| format!("expected {}, got {}", e.expected, e.got))
}

/// Parses `--header`: `Name: value`, the name a token and the value free of control
/// characters (HTTP's syntax, from the core), so that nothing a server could not send is
/// read as if it had been.
fn parse_header(s: &str) -> Result<(String, String), String> {
    const EXPECTED: &str = "expected 'Name: value', such as 'Retry-After: 120'";
    let Some((name, value)) = s.split_once(':') else {
        return Err(EXPECTED.to_owned());
    };
    let (name, value) = (
        name.trim_matches([' ', '\t']),
        value.trim_matches([' ', '\t']),
    );
    if name.is_empty() {
        return Err(format!("{EXPECTED}; the name is empty"));
    }
    if !is_token(name) {
        return Err(format!(
            "{EXPECTED}; the name must be ASCII letters, digits and !#$%&'*+-.^_`|~, got {}",
            shown(name)
        ));
    }
    if !is_field_value(value) {
        return Err(format!(
            "{EXPECTED}; the value cannot hold a line break or other control character, got {}",
            shown(value)
        ));
    }
    Ok((name.to_owned(), value.to_owned()))
}

/// The last millisecond of the year 9999 (9999-12-31T23:59:59.999Z): the last instant an
/// HTTP-date can name, to its millisecond.
const LAST_MS: f64 = 253_402_300_799_999.0;

fn parse_now(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if (0.0..=LAST_MS).contains(&v) => Ok(v),
        _ => Err(format!(
            "expected milliseconds since the Unix epoch, from 0 to {LAST_MS} (the end of the year 9999)"
        )),
    }
}

pub fn run(a: Args, out: &mut impl Write) -> Result<(), Failure> {
    let now_ms = a.now_ms.unwrap_or_else(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0.0, |d| d.as_millis() as f64)
    });
    let mut rules = RetryRules::default()
        .with_max_retry_after_ms(a.max_retry_after)
        .map_err(|e| UsageError(config_error(&e)))?;
    if let Some(set) = a.retry_on {
        rules = rules.with_statuses(set);
    }
    let outcome = match (a.status, a.error) {
        (Some(code), None) => {
            let status = HttpStatus::new(code).map_err(|e| UsageError(config_error(&e)))?;
            Outcome::with_headers(
                status,
                a.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())),
            )
        }
        (None, Some(e)) => Outcome::Transport(e),
        _ => return Err(UsageError("give either --status or --error".to_owned()).into()),
    };
    let request = Request::new(a.method).idempotent(a.idempotent);
    let v = rules.classify(request, &outcome, now_ms);
    let action = match v.action {
        Action::Success => "success",
        Action::Retry => "retry",
        Action::DoNotRetry => "do-not-retry",
    };
    if a.json {
        let report = json!({
            "retryable": v.is_retryable(),
            "reason": v.reason.to_string(),
            "retry_after_ms": v.hint_ms().map(num),
            "action": action,
            "ignored_hint": v.ignored_hint.map(|h| h.to_string()),
        });
        writeln!(out, "{report}")?;
    } else {
        writeln!(out, "{action}: {}", v.reason)?;
        if let Some(ms) = v.hint_ms() {
            // A hint of 1e23 ms is written so, not in 24 digits (or 309 for the largest).
            if ms < 1e15 {
                writeln!(out, "server hint: {ms} ms")?;
            } else {
                writeln!(out, "server hint: {ms:e} ms")?;
            }
        }
        if let Some(h) = v.ignored_hint {
            writeln!(out, "ignored: {h}")?;
        }
    }
    Ok(())
}
