//! Where every command's output goes, and what a failure to write it means.
//!
//! `print!` panics when stdout fails (`stampede delays … | head -c 100`, `> /dev/full`),
//! exiting 101 with a backtrace. So no command prints: each writes to the one [`Out`] that
//! [`to_stdout`] hands it and returns `Result<(), Failure>`, and [`exit`] turns that into
//! the exit status and at most one line on stderr:
//!
//! | outcome | status | stderr |
//! |---|---|---|
//! | done | 0 | nothing, or a note for each flag the run does not read (the scenario's, the strategies', `--hedge`'s, `--workers`', the service law's and the nets' rules) |
//! | the reader closed the pipe | 0 | nothing |
//! | any other write error | 1 | `stampede: cannot write output: <reason>` |
//! | bad input | 2 | `stampede: <flag>: …` |
//!
//! A closed pipe is the reader's choice (`| head` has read what it wanted), not our
//! failure. Rust's runtime ignores `SIGPIPE` before `main`, so the kernel does not kill the
//! process: the write returns `EPIPE`, which is [`io::ErrorKind::BrokenPipe`].

use std::io::{self, BufWriter, StdoutLock, Write};
use std::process::ExitCode;

use crate::UsageError;

/// A command's output: stdout, locked once and buffered, so that a million lines are a
/// few hundred writes rather than a million.
pub type Out = BufWriter<StdoutLock<'static>>;

/// Runs `command` with stdout as its [`Out`], then flushes it: the last buffered bytes
/// are written there, so their error is caught there too (a `BufWriter` dropped unflushed
/// would swallow it).
pub fn to_stdout(command: impl FnOnce(&mut Out) -> Result<(), Failure>) -> Result<(), Failure> {
    let mut out = BufWriter::new(io::stdout().lock());
    command(&mut out)?;
    out.flush().map_err(Failure::from)
}

/// Why a command did not finish.
#[derive(Debug)]
pub enum Failure {
    /// Bad input: exit 2, the message (which names the flag) on stderr.
    Usage(String),
    /// Writing the output failed: exit 0 for a closed pipe, 1 for anything else.
    Output(io::Error),
}

impl From<UsageError> for Failure {
    fn from(UsageError(msg): UsageError) -> Self {
        Failure::Usage(msg)
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Output(e)
    }
}

/// The exit status for a command's result, after one line on stderr when there is
/// something to say.
pub fn exit(result: Result<(), Failure>) -> ExitCode {
    let (status, line) = verdict(result);
    if let Some(line) = line {
        say(&line);
    }
    status
}

/// The exit status for `result`, and the line to say.
fn verdict(result: Result<(), Failure>) -> (ExitCode, Option<String>) {
    match result {
        Ok(()) => (ExitCode::SUCCESS, None),
        Err(Failure::Output(e)) if e.kind() == io::ErrorKind::BrokenPipe => {
            (ExitCode::SUCCESS, None)
        }
        Err(Failure::Output(e)) => (ExitCode::FAILURE, Some(format!("cannot write output: {e}"))),
        Err(Failure::Usage(msg)) => (ExitCode::from(2), Some(msg)),
    }
}

/// One line on stderr, `stampede: <msg>`. `eprintln!` panics when stderr fails; then
/// there is no one left to tell, so the error is dropped and the exit status speaks.
pub fn say(msg: &str) {
    let _ = writeln!(io::stderr().lock(), "stampede: {msg}");
}

/// `n` of a thing, in English: "1 attempt", "2 attempts", "0 retries".
pub(crate) fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_closed_pipe_is_success_and_other_write_errors_are_not() {
        assert_eq!(verdict(Ok(())), (ExitCode::SUCCESS, None));
        let pipe = io::Error::from(io::ErrorKind::BrokenPipe);
        assert_eq!(verdict(Err(pipe.into())), (ExitCode::SUCCESS, None));
        let full = io::Error::from_raw_os_error(28); // ENOSPC on Linux
        let (status, line) = verdict(Err(full.into()));
        assert_eq!(status, ExitCode::FAILURE);
        assert!(line.unwrap().starts_with("cannot write output: "));
        let usage = UsageError("--base: expected a duration".to_owned());
        assert_eq!(
            verdict(Err(usage.into())),
            (
                ExitCode::from(2),
                Some("--base: expected a duration".to_owned())
            )
        );
    }

    #[test]
    fn one_thing_is_singular() {
        assert_eq!(counted(1, "retry", "retries"), "1 retry");
        assert_eq!(counted(0, "retry", "retries"), "0 retries");
        assert_eq!(counted(2, "run", "runs"), "2 runs");
    }
}
