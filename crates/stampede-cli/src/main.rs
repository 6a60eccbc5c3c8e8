//! `stampede`: retry strategies on the command line.
//!
//! Every retry rule comes from the `stampede` core crate; this binary parses flags,
//! calls it, and prints. Bad input exits with status 2 and one line on stderr that names
//! the flag; a failed write exits 1 with one line, a closed pipe 0 (see [`output`]).
//! Nothing here panics, whatever the arguments or the state of stdout.

use std::io::Write;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use crate::output::Failure;

mod classify_cmd;
mod delays_cmd;
mod hedge_flags;
mod layer_flags;
mod model_flags;
mod net_flags;
mod non_utf8;
mod output;
mod serve_cmd;
mod sim_output;
mod simulate_cmd;
mod sweep_grid;
mod sweep_memory;

/// Retry strategies that do not stampede: backoff and jitter, what to retry,
/// Retry-After, retry budgets, and a thundering-herd simulator.
#[derive(Parser, Debug)]
#[command(name = "stampede", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Every subcommand takes a value that looks like a negative number (`--strategy -1`,
// `--max-connections -1`) as the flag's value, so the flag's own check refuses it, naming
// the flag; otherwise clap read it as an unknown flag, "unexpected argument '-1' found".
#[derive(Subcommand, Debug)]
enum Command {
    /// Print the delays a backoff strategy draws, one sequence per sample.
    #[command(allow_negative_numbers = true)]
    Delays(delays_cmd::Args),
    /// Say whether an outcome (a status with headers, or a transport error) is retried, and why.
    #[command(allow_negative_numbers = true)]
    Classify(classify_cmd::Args),
    /// Simulate thousands of clients against a server that fails and recovers.
    #[command(allow_negative_numbers = true)]
    Simulate(simulate_cmd::SimulateArgs),
    /// Run the simulator over a grid of strategies and client counts, in parallel; CSV out.
    #[command(allow_negative_numbers = true)]
    Sweep(simulate_cmd::SweepArgs),
    /// Serve the playground page and the flaky demo API.
    #[command(allow_negative_numbers = true)]
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
        Command::Delays(a) => output::to_stdout(|out| delays_cmd::run(a, out)),
        Command::Classify(a) => output::to_stdout(|out| classify_cmd::run(a, out)),
        Command::Simulate(a) => output::to_stdout(|out| simulate_cmd::simulate(a, out)),
        Command::Sweep(a) => output::to_stdout(|out| simulate_cmd::sweep(a, out)),
        // A server that logs as it goes, from any thread: it must not find stdout locked.
        Command::Serve(a) => serve_cmd::run(a).map_err(Failure::from),
    };
    output::exit(result)
}

/// Help and version print as clap prints them, through the same exit path as any output;
/// every other error becomes one line.
fn clap_error(e: clap::Error) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let printed = e.print().and_then(|()| std::io::stdout().flush());
            return output::exit(printed.map_err(Failure::from));
        }
        // The help goes to stderr, and the status says the command was incomplete.
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return ExitCode::from(2);
        }
        ErrorKind::InvalidUtf8 => {
            let args: Vec<_> = std::env::args_os().collect();
            if let Some(line) = non_utf8::describe(&Cli::command(), &args) {
                return output::exit(Err(Failure::Usage(line)));
            }
        }
        _ => {}
    }
    let mut rendered = e.render().to_string();
    // clap echoes a refused value whole, in single quotes: a 5,000-character `--header`
    // made a 5 KB line. It is cut as the CLI's own messages cut a culprit (`args::shown`).
    if let Some(ContextValue::String(v)) = e.get(ContextKind::InvalidValue) {
        let echoed = format!("'{v}'");
        if v.chars().count() > 40 && rendered.contains(&echoed) {
            rendered = rendered.replacen(&echoed, &stampede_cli::args::shown(v), 1);
        }
    }
    let line = rendered
        .lines()
        .map(str::trim)
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect::<Vec<_>>()
        .join(" ")
        // clap quotes the value as it was given: a carriage return in it would send the
        // terminal's cursor back over the start of the line.
        .replace('\r', "\\r");
    output::exit(Err(Failure::Usage(
        line.trim_start_matches("error: ").to_owned(),
    )))
}
