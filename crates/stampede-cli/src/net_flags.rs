//! The safety nets' flags, shared by `simulate` and `sweep` (issue #12): a budget of
//! another school than `--budget`'s bucket, a circuit breaker, adaptive throttling. Each
//! value's parts default to their source's numbers (the core's `Default`s), and every
//! range is the core's. `--budget-scope` applies to all of them.

use clap::Args as ClapArgs;
use stampede::Field;
use stampede::nets::{
    AwsSettings, BreakerMode, BreakerSettings, BudgetKind, GrpcSettings, GuardSettings,
    RatioSettings, ThrottleSettings,
};
use stampede_cli::args::{duration, number, whole_in};

use crate::UsageError;

const NETS: &str = "Safety nets";

/// The nets' flags. `None`: not given.
#[derive(ClapArgs, Debug, Clone, Default)]
pub struct Nets {
    /// A ratio budget (Finagle, tower, Linkerd): each request deposits P tokens, a retry
    /// takes 1, at most CAP are held, MIN_PER_S retries per second are always allowed,
    /// deposits expire after WINDOW [defaults: no cap, 10, 10s]. Brooker's adaptive
    /// client is 0.1:5:0:60s. First attempts are never refused.
    #[arg(long, value_name = "P[:CAP[:MIN_PER_S[:WINDOW]]]", value_parser = parse_ratio,
          allow_hyphen_values = true, help_heading = NETS)]
    retry_ratio: Option<RatioSettings>,
    /// gRPC retry throttling (gRFC A6): MAX tokens at the start, -1 per failure,
    /// +RATIO per success; no retry while tokens <= MAX/2. gRFC's example is 10:0.1.
    #[arg(long, value_name = "MAX:RATIO", value_parser = parse_grpc, allow_hyphen_values = true,
          help_heading = NETS)]
    grpc_throttle: Option<GrpcSettings>,
    /// The AWS SDKs' retry quota: TOKENS at the start [default: 500]; a retry costs 5, 10
    /// after a timeout; a success refunds its retry's cost, or 1 at the first try.
    #[arg(long, value_name = "TOKENS", num_args = 0..=1, value_parser = number(Field::Tokens),
          allow_negative_numbers = true,
          help_heading = NETS)]
    aws_quota: Option<Option<f64>>,
    /// A circuit breaker (Polly v8): opens at a failure when at least MIN outcomes in the
    /// last WINDOW failed at RATIO or more, stays open for BREAK, then lets one probe
    /// through [defaults: 30s, 100, 5s].
    #[arg(long, value_name = "RATIO[:WINDOW[:MIN[:BREAK]]]", value_parser = parse_breaker,
          allow_hyphen_values = true, help_heading = NETS)]
    breaker: Option<BreakerSettings>,
    /// What an open breaker blocks: all (Polly) or retries (Brooker: first attempts still
    /// go) [default: all].
    #[arg(long, value_name = "MODE", value_parser = parse_mode, help_heading = NETS)]
    breaker_mode: Option<BreakerMode>,
    /// Adaptive throttling (Google SRE book): reject locally with probability
    /// max(0, (requests - K·accepts - 5)/(requests + 1)) over WINDOW [default: 2m]. K = 2 is
    /// the book's; the 5 (go-zero's protection) keeps a window's first failures from tipping it.
    #[arg(long, value_name = "K[:WINDOW]", value_parser = parse_throttle,
          allow_hyphen_values = true, help_heading = NETS)]
    adaptive_throttle: Option<ThrottleSettings>,
}

impl Nets {
    /// The flags given, in the order `--help` lists them.
    pub fn given(&self) -> impl Iterator<Item = &'static str> {
        [
            (self.retry_ratio.is_some(), "--retry-ratio"),
            (self.grpc_throttle.is_some(), "--grpc-throttle"),
            (self.aws_quota.is_some(), "--aws-quota"),
            (self.breaker.is_some(), "--breaker"),
            (self.breaker_mode.is_some(), "--breaker-mode"),
            (self.adaptive_throttle.is_some(), "--adaptive-throttle"),
        ]
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
    }

    /// The first flag given; `None` if none was (`aws-occ` refuses them all).
    pub fn first_given(&self) -> Option<&'static str> {
        self.given().next()
    }

    /// The nets the flags ask for. `bucket` tells whether `--budget` was given too: at
    /// most one budget in all, and two are refused naming both.
    pub fn settings(&self, bucket: bool) -> Result<GuardSettings, UsageError> {
        let budgets: Vec<&str> = bucket
            .then_some("--budget")
            .into_iter()
            .chain(
                self.given()
                    .filter(|f| matches!(*f, "--retry-ratio" | "--grpc-throttle" | "--aws-quota")),
            )
            .collect();
        if let [first, second, ..] = budgets[..] {
            return Err(UsageError(format!(
                "{first} and {second}: at most one budget; drop one of them"
            )));
        }
        if self.breaker_mode.is_some() && self.breaker.is_none() {
            return Err(UsageError(
                "--breaker-mode: needs --breaker, the breaker it sets the mode of".to_owned(),
            ));
        }
        let budget = match (self.retry_ratio, self.grpc_throttle, self.aws_quota) {
            (Some(r), _, _) => Some(BudgetKind::Ratio(r)),
            (_, Some(g), _) => Some(BudgetKind::Grpc(g)),
            (_, _, Some(tokens)) => Some(BudgetKind::Aws(AwsSettings {
                tokens: tokens.unwrap_or(AwsSettings::default().tokens),
                ..AwsSettings::default()
            })),
            _ => None,
        };
        Ok(GuardSettings {
            budget,
            breaker: self.breaker.map(|b| BreakerSettings {
                mode: self.breaker_mode.unwrap_or(b.mode),
                ..b
            }),
            throttle: self.adaptive_throttle,
        })
    }
}

/// Splits `s` at `:` into at least 1 and at most `max` parts.
fn parts<'a>(s: &'a str, max: usize, form: &str) -> Result<Vec<&'a str>, String> {
    let v: Vec<&str> = s.split(':').collect();
    if v.len() > max {
        return Err(form.to_owned());
    }
    Ok(v)
}

/// `P[:CAP[:MIN_PER_S[:WINDOW]]]`; an empty CAP is no cap.
fn parse_ratio(s: &str) -> Result<RatioSettings, String> {
    const FORM: &str = "expected P[:CAP[:MIN_PER_S[:WINDOW]]], such as 0.2 or 0.1:5:0:60s";
    let v = parts(s, 4, FORM)?;
    let d = RatioSettings::default();
    let ratio = number(Field::Ratio)(v[0]).map_err(|e| format!("{FORM}; P: {e}"))?;
    let cap = match v.get(1) {
        None => d.cap,
        Some(c) if c.trim().is_empty() => None,
        Some(c) => Some(number(Field::RatioCap)(c).map_err(|e| format!("{FORM}; CAP: {e}"))?),
    };
    let min_per_sec = match v.get(2) {
        None => d.min_per_sec,
        Some(m) => number(Field::MinPerSec)(m).map_err(|e| format!("{FORM}; MIN_PER_S: {e}"))?,
    };
    let window_ms = match v.get(3) {
        None => d.window_ms,
        Some(w) => duration(Field::Window)(w).map_err(|e| format!("{FORM}; WINDOW: {e}"))?,
    };
    RatioSettings {
        ratio,
        cap,
        min_per_sec,
        window_ms,
    }
    .validate()
    .map_err(|e| format!("{FORM}; {e}"))
}

/// `MAX:RATIO`.
fn parse_grpc(s: &str) -> Result<GrpcSettings, String> {
    const FORM: &str = "expected MAX:RATIO, tokens and tokens per success, such as 10:0.1";
    let [max, ratio] = parts(s, 2, FORM)?[..] else {
        return Err(FORM.to_owned());
    };
    let max_tokens = number(Field::MaxTokens)(max).map_err(|e| format!("{FORM}; MAX: {e}"))?;
    let token_ratio =
        number(Field::TokenRatio)(ratio).map_err(|e| format!("{FORM}; RATIO: {e}"))?;
    GrpcSettings {
        max_tokens,
        token_ratio,
    }
    .validate()
    .map_err(|e| format!("{FORM}; {e}"))
}

/// `RATIO[:WINDOW[:MIN[:BREAK]]]`.
fn parse_breaker(s: &str) -> Result<BreakerSettings, String> {
    const FORM: &str = "expected RATIO[:WINDOW[:MIN[:BREAK]]], such as 0.1 or 0.5:10s:20:5s";
    let v = parts(s, 4, FORM)?;
    let d = BreakerSettings::default();
    let failure_ratio =
        number(Field::FailureRatio)(v[0]).map_err(|e| format!("{FORM}; RATIO: {e}"))?;
    let sampling_ms = match v.get(1) {
        None => d.sampling_ms,
        Some(w) => duration(Field::Sampling)(w).map_err(|e| format!("{FORM}; WINDOW: {e}"))?,
    };
    let min_throughput = match v.get(2) {
        None => d.min_throughput,
        Some(m) => whole_in(m, Field::MinThroughput).map_err(|e| format!("{FORM}; MIN: {e}"))?,
    };
    let break_ms = match v.get(3) {
        None => d.break_ms,
        Some(b) => duration(Field::BreakDuration)(b).map_err(|e| format!("{FORM}; BREAK: {e}"))?,
    };
    BreakerSettings {
        failure_ratio,
        sampling_ms,
        min_throughput,
        break_ms,
        mode: d.mode,
    }
    .validate()
    .map_err(|e| format!("{FORM}; {e}"))
}

fn parse_mode(s: &str) -> Result<BreakerMode, String> {
    s.parse()
        .map_err(|e: stampede::ConfigError| format!("expected {}", e.expected))
}

/// `K[:WINDOW]`.
fn parse_throttle(s: &str) -> Result<ThrottleSettings, String> {
    const FORM: &str = "expected K[:WINDOW], such as 2 or 2:2m";
    let v = parts(s, 2, FORM)?;
    let d = ThrottleSettings::default();
    let k = number(Field::K)(v[0]).map_err(|e| format!("{FORM}; K: {e}"))?;
    let window_ms = match v.get(1) {
        None => d.window_ms,
        Some(w) => {
            duration(Field::ThrottleWindow)(w).map_err(|e| format!("{FORM}; WINDOW: {e}"))?
        }
    };
    ThrottleSettings { k, window_ms }
        .validate()
        .map_err(|e| format!("{FORM}; {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn omitted_parts_take_the_sources_values() {
        let r = parse_ratio("0.1").unwrap();
        assert_eq!(
            r,
            RatioSettings {
                ratio: 0.1,
                ..RatioSettings::default()
            }
        );
        assert_eq!(parse_ratio("0.1:5:0:60s").unwrap(), RatioSettings::BROOKER);
        assert_eq!(parse_ratio("0.2::3").unwrap().cap, None);
        let b = parse_breaker("0.5:10s").unwrap();
        assert_eq!(
            (b.sampling_ms, b.min_throughput, b.break_ms),
            (10_000.0, 100, 5_000.0)
        );
        assert_eq!(parse_throttle("2").unwrap(), ThrottleSettings::default());
        assert_eq!(parse_grpc("10:0.1").unwrap(), GrpcSettings::default());
    }

    #[test]
    fn bad_parts_are_named() {
        assert!(parse_ratio("-1").unwrap_err().contains("; P: expected"));
        assert!(
            parse_ratio("0.1:5:0:60s:1")
                .unwrap_err()
                .starts_with("expected P[")
        );
        assert!(parse_grpc("10").is_err());
        assert!(parse_grpc("0:0.1").unwrap_err().contains("MAX"));
        assert!(parse_breaker("1.5").unwrap_err().contains("RATIO"));
        assert!(parse_breaker("0.1:0").unwrap_err().contains("WINDOW"));
        assert!(parse_breaker("0.1:1s:2.5").unwrap_err().contains("MIN"));
        assert!(parse_throttle("0.5").unwrap_err().contains("K"));
        assert!(parse_throttle("NaN").is_err());
    }
}
