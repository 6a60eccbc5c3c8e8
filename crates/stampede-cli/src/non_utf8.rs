//! Arguments that are not UTF-8: which flag they belong to.
//!
//! Every value parser here reads `&str`, so clap rejects `--base=$'\xff'` before any of
//! them runs, with `invalid UTF-8 was detected in one or more arguments`: no flag named,
//! no value shown. This walks the arguments the way clap reads them (`--flag value`,
//! `--flag=value`, subcommand names) to find the first one that is not UTF-8 and should
//! be, and names its flag. Values clap takes as paths (`--series`, `--static`) may be any
//! bytes, as file names may, and are skipped.

use std::ffi::OsString;

use clap::{Arg, Command, ValueHint};

/// The most characters of a bad value echoed back; past that, an ellipsis.
const SHOWN: usize = 40;

/// One line naming the first argument in `args` (the program name first, as in
/// `std::env::args_os`) that is not UTF-8 and is not a path, and its flag when it has one:
/// `--base: expected UTF-8 text, got "\xff"`. `None` when every argument is UTF-8 or a path.
pub fn describe(cmd: &Command, args: &[OsString]) -> Option<String> {
    let mut cmd = cmd;
    // The flag whose value the next argument is.
    let mut pending: Option<&Arg> = None;
    let mut only_values = false;
    for (i, arg) in args.iter().enumerate().skip(1) {
        let bytes = arg.as_encoded_bytes();
        let (name, value) = match pending.take() {
            Some(flag) => (Some(flag), Some(bytes)),
            None if only_values || !bytes.starts_with(b"--") => {
                if let Some(sub) = arg.to_str().and_then(|s| cmd.find_subcommand(s)) {
                    cmd = sub;
                    continue;
                }
                (None, Some(bytes))
            }
            None if bytes == b"--" => {
                only_values = true;
                continue;
            }
            None => {
                let long = &bytes[2..];
                let (long, value) = match long.iter().position(|&b| b == b'=') {
                    Some(eq) => (&long[..eq], Some(&long[eq + 1..])),
                    None => (long, None),
                };
                let flag = std::str::from_utf8(long)
                    .ok()
                    .and_then(|l| find_long(cmd, l));
                match (flag, value) {
                    (Some(f), None) if f.get_action().takes_values() => {
                        pending = Some(f);
                        continue;
                    }
                    (Some(f), Some(v)) => (Some(f), Some(v)),
                    // An unknown or valueless flag: clap names it itself, unless it is
                    // the flag's own name that is not UTF-8.
                    _ => (None, std::str::from_utf8(long).is_err().then_some(bytes)),
                }
            }
        };
        let Some(value) = value.filter(|v| std::str::from_utf8(v).is_err()) else {
            continue;
        };
        if name.is_some_and(takes_any_bytes) {
            continue;
        }
        let who = match name {
            Some(f) => format!("--{}", f.get_long().unwrap_or_else(|| f.get_id().as_str())),
            None => format!("argument {i}"),
        };
        return Some(format!(
            "{who}: expected UTF-8 text, got \"{}\"",
            shown(value)
        ));
    }
    None
}

/// The argument of `cmd` whose long name is `long`.
fn find_long<'a>(cmd: &'a Command, long: &str) -> Option<&'a Arg> {
    cmd.get_arguments().find(|a| a.get_long() == Some(long))
}

/// Whether clap hands this flag's value over as an `OsString` (a path), so any bytes do.
fn takes_any_bytes(flag: &Arg) -> bool {
    matches!(
        flag.get_value_hint(),
        ValueHint::AnyPath | ValueHint::FilePath | ValueHint::DirPath
    )
}

/// `bytes` for one line of stderr: valid text as it is (control characters escaped),
/// every invalid byte as `\xNN`; at most [`SHOWN`] characters or bytes of the original.
fn shown(bytes: &[u8]) -> String {
    let units = bytes.utf8_chunks().flat_map(|chunk| {
        let text = chunk.valid().chars().map(|c| c.escape_debug().to_string());
        text.chain(chunk.invalid().iter().map(|b| format!("\\x{b:02x}")))
    });
    let mut out = String::new();
    for (n, unit) in units.enumerate() {
        if n == SHOWN {
            out.push('…');
            break;
        }
        out.push_str(&unit);
    }
    out
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::ffi::OsStringExt;

    use clap::CommandFactory;

    use super::*;

    fn args(list: &[&[u8]]) -> Vec<OsString> {
        std::iter::once(&b"stampede"[..])
            .chain(list.iter().copied())
            .map(|a| OsString::from_vec(a.to_vec()))
            .collect()
    }

    fn describe(list: &[&[u8]]) -> Option<String> {
        super::describe(&crate::Cli::command(), &args(list))
    }

    #[test]
    fn names_the_flag_of_a_separate_or_attached_value() {
        let want = Some(r#"--base: expected UTF-8 text, got "1\xffs""#.to_owned());
        assert_eq!(describe(&[b"delays", b"--base", b"1\xffs"]), want);
        assert_eq!(describe(&[b"delays", b"--base=1\xffs"]), want);
        assert_eq!(
            describe(&[b"delays", b"--json", b"--seed", b"7", b"--cap", b"\xff"]),
            Some(r#"--cap: expected UTF-8 text, got "\xff""#.to_owned())
        );
        assert_eq!(
            describe(&[b"classify", b"--header", b"Retry-After: \xc3"]),
            Some(r#"--header: expected UTF-8 text, got "Retry-After: \xc3""#.to_owned())
        );
    }

    #[test]
    fn a_path_may_be_any_bytes() {
        assert_eq!(
            describe(&[b"simulate", b"--series", b"/tmp/\xff.csv"]),
            None
        );
        assert_eq!(
            describe(&[b"simulate", b"--series=\xff", b"--clients", b"1\xff"]),
            Some(r#"--clients: expected UTF-8 text, got "1\xff""#.to_owned())
        );
    }

    #[test]
    fn without_a_flag_names_the_position() {
        assert_eq!(
            describe(&[b"\xffdelays"]),
            Some(r#"argument 1: expected UTF-8 text, got "\xffdelays""#.to_owned())
        );
        assert_eq!(
            describe(&[b"delays", b"--\xff"]),
            Some(r#"argument 2: expected UTF-8 text, got "--\xff""#.to_owned())
        );
        assert_eq!(describe(&[b"delays", b"--base", b"1s"]), None);
    }

    #[test]
    fn long_values_are_cut_and_control_characters_escaped() {
        let long = [b'\xff'; 100];
        let line = describe(&[b"delays", b"--base", &long]).unwrap();
        let shown = format!("{}…", r"\xff".repeat(SHOWN));
        assert_eq!(
            line,
            format!(r#"--base: expected UTF-8 text, got "{shown}""#)
        );
        let line = describe(&[b"delays", b"--base", b"\n\xff"]).unwrap();
        assert_eq!(line, r#"--base: expected UTF-8 text, got "\n\xff""#);
    }
}
