//! `stampede`: retry strategies on the command line.
//!
//! Every retry rule comes from the `stampede` core crate; this binary parses flags,
//! calls it, and prints. Bad input exits with status 2 and one line on stderr that names
//! the flag.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod classify_cmd;
mod delays_cmd;
mod serve_cmd;
mod simulate_cmd;

/// Retry strategies that do not stampede: backoff and jitter, what to retry,
/// Retry-After, retry budgets, and a thundering-herd simulator.
#[derive(Parser, Debug)]
#[command(name = "stampede", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Print the delays a backoff strategy draws, one sequence per sample.
    Delays(delays_cmd::Args),
    /// Say whether an outcome (a status with headers, or a transport error) is retried, and why.
    Classify(classify_cmd::Args),
    /// Simulate thousands of clients against a server that fails and recovers.
    Simulate(simulate_cmd::SimulateArgs),
    /// Run the simulator over a grid of strategies and client counts, in parallel; CSV out.
    Sweep(simulate_cmd::SweepArgs),
    /// Serve the playground page and the flaky demo API.
    Serve(serve_cmd::Args),
}

/// A failure to report: one line, exit status 2.
pub struct UsageError(pub String);

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_error(e),
    };
    let result = match cli.command {
        Command::Delays(a) => delays_cmd::run(a),
        Command::Classify(a) => classify_cmd::run(a),
        Command::Simulate(a) => simulate_cmd::simulate(a),
        Command::Sweep(a) => simulate_cmd::sweep(a),
        Command::Serve(a) => serve_cmd::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(UsageError(msg)) => {
            eprintln!("stampede: {msg}");
            ExitCode::from(2)
        }
    }
}

/// Help and version print as clap prints them; every other error becomes one line.
fn clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::from(2)
        } else {
            ExitCode::SUCCESS
        };
    }
    let rendered = e.render().to_string();
    let line = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect::<Vec<_>>()
        .join(" ");
    eprintln!("stampede: {}", line.trim_start_matches("error: "));
    ExitCode::from(2)
}
