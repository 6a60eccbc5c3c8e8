//! Output that cannot be written. A reader that closes the pipe early (`| head`) ends the
//! command quietly with status 0; any other write error (`> /dev/full`) exits 1 with one
//! line, `stampede: cannot write output: <reason>`. Never a panic.

use std::io::Read;
use std::process::{Command, Output, Stdio};

use super::BIN;

/// Runs the binary with stdout's read end closed after `n` bytes were read: at once for
/// `n = 0`, before the command has computed anything to write.
fn closed_after(args: &[&str], n: usize) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdout = child.stdout.take().expect("stdout is piped");
    let mut head = vec![0; n];
    stdout
        .read_exact(&mut head)
        .expect("the first bytes arrive");
    drop(stdout);
    child.wait_with_output().expect("the binary ends")
}

#[test]
fn a_reader_that_closes_the_pipe_ends_the_command_quietly() {
    let cases: &[(&[&str], usize)] = &[
        // The text table is written after a million sequences are drawn: long after the
        // reader has gone, as in `| head -c 100`.
        (&["delays", "--samples", "1000000", "--attempts", "10"], 0),
        // About 9 MB of JSON, far more than a pipe holds: the reader leaves mid-stream.
        (
            &[
                "delays",
                "--samples",
                "100000",
                "--attempts",
                "10",
                "--json",
            ],
            100,
        ),
        (
            &["simulate", "--clients", "2000", "--runs", "5", "--json"],
            0,
        ),
        (&["simulate", "--clients", "2000", "--runs", "5"], 0),
        (
            &[
                "sweep",
                "--clients",
                "100..1000:100",
                "--strategy",
                "full,none",
            ],
            0,
        ),
    ];
    for (args, n) in cases {
        let out = closed_after(args, *n);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}");
    }
}

/// `/dev/full` accepts the open and fails every write with ENOSPC.
#[cfg(target_os = "linux")]
#[test]
fn another_write_error_exits_1_with_one_line() {
    let cases: &[&[&str]] = &[
        &["delays"],
        &["delays", "--samples", "1000", "--attempts", "10"],
        &["delays", "--samples", "1000", "--json"],
        &["classify", "--status", "503"],
        &["classify", "--status", "503", "--json"],
        &["simulate", "--clients", "100"],
        &["simulate", "--clients", "100", "--json"],
        &["sweep", "--clients", "10,20", "--strategy", "full"],
        &["--help"],
        &["delays", "--help"],
        &["--version"],
    ];
    for args in cases {
        let full = std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full opens");
        let out = Command::new(BIN)
            .args(*args)
            .stdout(full)
            .output()
            .expect("the binary runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(
            err.lines().collect::<Vec<_>>(),
            ["stampede: cannot write output: No space left on device (os error 28)"],
            "{args:?}"
        );
    }
}

/// `--series` to a pipe whose reader leaves early (`--series >(head -n 3)`): the reader's
/// choice, as on stdout, and the summary still goes to stdout, which is fine (the closed
/// pipe was taken for stdout's: status 0, and no summary at all). A series that cannot be
/// written for another reason (`/dev/full`) exits 1 naming the flag.
#[cfg(target_os = "linux")]
#[test]
fn a_series_reader_that_leaves_early_leaves_the_summary_alone() {
    let dir = std::env::temp_dir().join(format!("stampede-series-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("series");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    // The reader: the first 100 bytes (the header and a row or two), then gone.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut head = [0; 100];
            std::fs::File::open(fifo)
                .unwrap()
                .read_exact(&mut head)
                .unwrap();
        })
    };
    // An hour's outage: some 37 MB of series, far more than a pipe holds.
    let series = fifo.to_str().unwrap();
    let out = Command::new(BIN)
        .args([
            "simulate",
            "--clients",
            "100",
            "--outage",
            "1h",
            "--json",
            "--series",
            series,
        ])
        .output()
        .expect("the binary runs");
    // A binary that never opened the FIFO (refused before writing) leaves the reader blocked
    // in its open: a writer that opens and leaves at once releases it (to an end of file,
    // and the reader fails), rather than hang the test. When the reader has gone, this open
    // fails (no reader), and nothing happens.
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        const O_NONBLOCK: i32 = 0o4000; // Linux
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(O_NONBLOCK)
            .open(&fifo);
    }
    let read = reader.join();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        read.is_ok(),
        "the reader got no series: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(err, "");
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the summary");
    assert_eq!(summary["requests"], 100);
    let full = Command::new(BIN)
        .args(["simulate", "--clients", "10", "--series", "/dev/full"])
        .output()
        .expect("the binary runs");
    assert_eq!(full.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&full.stderr),
        "stampede: cannot write output: --series \"/dev/full\": No space left on device (os error 28)\n"
    );
}
