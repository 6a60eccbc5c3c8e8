//! `stampede delays`: the delays a strategy draws.

use std::io::Write;

use clap::Args as ClapArgs;
use serde_json::json;
use stampede::Field;
use stampede::backoff::{BackoffSettings, Strategy, check_samples};
use stampede::policy::{DEFAULT_MAX_ATTEMPTS, PolicySettings};
use stampede_cli::args::{
    config_error, duration, duration_text, number, parse_seed, ranged, unread_backoff, whole,
};
use stampede_cli::json::num;

use crate::UsageError;
use crate::output::{Failure, counted};

/// `stampede delays --strategy full --base 200ms --cap 30s --attempts 6 --json`
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// none, constant, exponential, full, equal, decorrelated or decorrelated-v2.
    #[arg(long, default_value = defaults().strategy.name(), value_parser = parse_strategy)]
    strategy: Strategy,
    #[arg(long, help = format!("The first delay (for decorrelated-v2, Polly's median first retry delay): 200ms, 1.5s, 2m [default: {}; the cap when shorter]", duration_text(defaults().base_ms)),
          value_parser = duration(Field::Base), value_name = "DURATION", allow_hyphen_values = true)]
    base: Option<f64>,
    #[arg(long, help = format!("No delay is longer than this [default: {}, or the base when longer]", duration_text(defaults().cap_ms)),
          value_parser = duration(Field::Cap), value_name = "DURATION", allow_hyphen_values = true)]
    cap: Option<f64>,
    #[arg(long, help = ranged("Attempts in all, the first included: each sequence has attempts-1 delays", Field::MaxAttempts),
          default_value_t = DEFAULT_MAX_ATTEMPTS, value_parser = whole(Field::MaxAttempts), allow_hyphen_values = true)]
    attempts: u32,
    #[arg(long, help = format!("{} [default: {}]", ranged("Growth per retry (exponential, full, equal)", Field::Multiplier), defaults().multiplier), value_parser = number(Field::Multiplier), allow_hyphen_values = true)]
    multiplier: Option<f64>,
    /// The seed: the same seed prints the same numbers, on every platform.
    #[arg(long, default_value_t = 42, value_parser = parse_seed, allow_hyphen_values = true)]
    seed: u64,
    /// How many sequences to draw (1 to 1,000,000, and at most 10,000,000 delays in all).
    #[arg(long, default_value_t = 1, value_parser = parse_samples, allow_hyphen_values = true)]
    samples: u32,
    /// Print JSON: {"strategy","base_ms","cap_ms","attempts","multiplier","seed","sequences"}.
    #[arg(long)]
    json: bool,
}

/// The core's default backoff, which the flags' defaults are.
fn defaults() -> BackoffSettings {
    BackoffSettings::default()
}

/// At least one sequence (an empty draw is no command), within the core's range; the
/// bound on delays in all needs `--attempts` too, so `run` checks it.
fn parse_samples(s: &str) -> Result<u32, String> {
    // The core's range starts at 0 (an empty sample for the JS API); the CLI's at 1, and
    // its message says so whichever end is passed.
    let max = Field::Samples.limit().map_or(0.0, |l| l.max);
    let expected = || format!("expected a whole number from 1 to {max}");
    match whole(Field::Samples)(s) {
        Ok(0) | Err(_) => Err(expected()),
        Ok(n) => Ok(n),
    }
}

fn parse_strategy(s: &str) -> Result<Strategy, String> {
    s.parse::<Strategy>()
        .map_err(|e| format!("expected {}", e.expected))
}

pub fn run(a: Args, out: &mut impl Write) -> Result<(), Failure> {
    let d = defaults();
    let (base, cap) =
        BackoffSettings::base_cap_for(a.strategy, (d.base_ms, d.cap_ms), a.base, a.cap);
    let multiplier = a.multiplier.unwrap_or(d.multiplier);
    let settings = BackoffSettings::new(a.strategy, base, cap).with_multiplier(multiplier);
    let policy = PolicySettings::new(settings, a.attempts)
        .build()
        .map_err(|e| UsageError(config_error(&e)))?;
    let given = [
        (a.base.is_some(), Field::Base),
        (a.cap.is_some(), Field::Cap),
        (a.multiplier.is_some(), Field::Multiplier),
    ];
    for note in unread_backoff(&given, &[a.strategy]) {
        crate::output::say(&note);
    }
    let backoff = policy.backoff();
    let mut rng = stampede::seeded(a.seed);
    let per = (a.attempts - 1) as usize;
    check_samples(f64::from(a.samples), a.attempts - 1)
        .map_err(|e| UsageError(config_error(&e)))?;
    if a.json {
        // Streamed, one sequence at a time: memory stays that of one sequence.
        let head = json!({
            "strategy": a.strategy.name(),
            "base_ms": num(base),
            "cap_ms": num(cap),
            "attempts": a.attempts,
            "multiplier": num(multiplier),
            "seed": a.seed,
        })
        .to_string();
        write!(out, "{},\"sequences\":[", &head[..head.len() - 1])?;
        for i in 0..a.samples {
            let seq: Vec<serde_json::Value> =
                backoff.delays_ms(&mut rng).take(per).map(num).collect();
            let sep = if i == 0 { "" } else { "," };
            write!(out, "{sep}{}", serde_json::Value::Array(seq))?;
        }
        writeln!(out, "]}}")?;
        return Ok(());
    }
    let sequences: Vec<Vec<f64>> = (0..a.samples)
        .map(|_| backoff.delays_ms(&mut rng).take(per).collect())
        .collect();
    writeln!(
        out,
        "{} backoff, base {} ms, cap {} ms, multiplier {}, {} ({}), seed {}",
        a.strategy,
        base,
        cap,
        multiplier,
        counted(u64::from(a.attempts), "attempt", "attempts"),
        counted(per as u64, "retry", "retries"),
        a.seed
    )?;
    if per == 0 {
        writeln!(out, "one attempt: no retries, no delays")?;
        return Ok(());
    }
    if sequences.len() <= 20 {
        for s in &sequences {
            let cells: Vec<String> = s.iter().map(|d| format!("{d:>9.1}")).collect();
            writeln!(out, "{} ms", cells.join(" "))?;
        }
        return Ok(());
    }
    writeln!(
        out,
        "{:>5} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "retry", "min", "p50", "p90", "max", "mean"
    )?;
    for n in 0..per {
        let mut col: Vec<f64> = sequences.iter().map(|s| s[n]).collect();
        col.sort_by(f64::total_cmp);
        let q = |p: f64| col[((col.len() - 1) as f64 * p).round() as usize];
        let mean = col.iter().sum::<f64>() / col.len() as f64;
        writeln!(
            out,
            "{:>5} {:>10.1} {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
            n + 1,
            col[0],
            q(0.5),
            q(0.9),
            col[col.len() - 1],
            mean
        )?;
    }
    Ok(())
}
