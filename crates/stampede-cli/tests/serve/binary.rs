//! The real binary: default address, flags, signals.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use stampede_cli::serve::SHUTDOWN_GRACE;

use crate::support::{Site, client, wait_until_logged};

/// `stampede serve` as a child process, killed on drop if still running.
#[cfg(unix)]
pub(crate) struct Binary {
    pub(crate) child: std::process::Child,
    /// The address it announced on stdout.
    pub(crate) addr: std::net::SocketAddr,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    _site: Site,
}

#[cfg(unix)]
impl Binary {
    /// Starts `stampede serve --static SITE --addr ADDR` and waits for the
    /// address it announces.
    pub(crate) fn start(addr: &str) -> Self {
        Self::start_with(addr, &[], None)
    }

    /// Like [`Binary::start`], with `extra` flags, and with its limit of open
    /// files set to `fd_limit` (through the shell's `ulimit -n`) if given.
    pub(crate) fn start_with(addr: &str, extra: &[&str], fd_limit: Option<u32>) -> Self {
        Self::launch(addr, extra, fd_limit, true, None)
    }

    /// Like [`Binary::start`], with its stderr written to the file at `path` (such as
    /// `/dev/full`, where every write fails) instead of a pipe.
    pub(crate) fn start_with_stderr_to(addr: &str, path: &str) -> Self {
        Self::launch(addr, &[], None, true, Some(path))
    }

    /// `stampede serve --addr ADDR` without `--static`, run in a directory that holds no
    /// `www/dist` (a user's, outside the repository).
    pub(crate) fn start_elsewhere(addr: &str) -> Self {
        Self::launch(addr, &[], None, false, None)
    }

    fn launch(
        addr: &str,
        extra: &[&str],
        fd_limit: Option<u32>,
        with_static: bool,
        stderr_to: Option<&str>,
    ) -> Self {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let site = if with_static {
            Site::built()
        } else {
            Site::without_index()
        };
        let bin = env!("CARGO_BIN_EXE_stampede");
        let mut command = match fd_limit {
            Some(limit) => {
                let mut sh = Command::new("sh");
                sh.arg("-c")
                    .arg(format!("ulimit -n {limit} && exec \"$0\" \"$@\""))
                    .arg(bin);
                sh
            }
            None => Command::new(bin),
        };
        command.args(["serve", "--addr", addr]);
        if with_static {
            command.arg("--static").arg(&site.dir);
        } else {
            command.current_dir(&site.dir);
        }
        let mut child = command
            .args(extra)
            .env("RUST_LOG", "info")
            .env_remove("NO_COLOR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(match stderr_to {
                Some(path) => {
                    Stdio::from(std::fs::OpenOptions::new().write(true).open(path).unwrap())
                }
                None => Stdio::piped(),
            })
            .spawn()
            .unwrap();
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        if let Some(err) = child.stderr.take() {
            let mut err = std::io::BufReader::new(err);
            let sink = std::sync::Arc::clone(&stderr);
            std::thread::spawn(move || {
                let mut line = String::new();
                while err.read_line(&mut line).is_ok_and(|n| n > 0) {
                    sink.lock().unwrap().push_str(&line);
                    line.clear();
                }
            });
        }
        let (lines, first) = std::sync::mpsc::channel();
        let out = std::io::BufReader::new(child.stdout.take().unwrap());
        std::thread::spawn(move || {
            for line in out.lines().map_while(Result::ok) {
                let _ = lines.send(line);
            }
        });
        let mut binary = Self {
            child,
            addr: "127.0.0.1:1".parse().unwrap(),
            stderr,
            _site: site,
        };
        let line = first
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no address announced; stderr: {}", binary.stderr()));
        let addr = line
            .strip_prefix("stampede serve: http://")
            .and_then(|rest| rest.split('/').next())
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
        binary.addr = addr.parse().unwrap();
        binary
    }

    pub(crate) fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub(crate) fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    pub(crate) fn signal(&self, name: &str) {
        let status = std::process::Command::new("kill")
            .args(["-s", name, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "kill -s {name}");
    }

    /// Waits up to `limit` for the process to exit.
    pub(crate) async fn exit_within(
        &mut self,
        limit: Duration,
    ) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        None
    }

    /// Stops the process with SIGTERM and asserts it exits with status 0 within 10 s.
    pub(crate) async fn stop_cleanly(mut self) {
        self.signal("TERM");
        let status = self.exit_within(Duration::from_secs(10)).await;
        assert_eq!(status.and_then(|s| s.code()), Some(0), "{}", self.stderr());
    }

    /// Waits up to `limit` for stderr to contain `needle`.
    pub(crate) async fn logged(&self, needle: &str, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if self.stderr().contains(needle) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        false
    }
}

#[cfg(unix)]
impl Drop for Binary {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[test]
fn serve_listens_on_loopback_8080_by_default() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_stampede"))
        .args(["serve", "--help"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    let addr_help = help
        .lines()
        .skip_while(|line| !line.trim_start().starts_with("--addr"))
        .take_while(|line| !line.trim_start().starts_with("--static"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        addr_help.contains("[default: 127.0.0.1:8080]"),
        "--addr's default is loopback:\n{help}"
    );
}

#[test]
fn a_malformed_addr_is_refused_before_binding() {
    for bad in ["localhost", "0.0.0.0", "127.0.0.1:99999", ""] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_stampede"))
            .args(["serve", "--addr", bad])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{bad:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("--addr"), "{bad:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{bad:?}: nothing was served");
    }
}

/// `--static` must name an existing directory: a missing one or a file is
/// refused with status 2 and one line naming the flag, before anything is
/// bound or announced.
#[test]
fn a_static_that_is_not_a_directory_is_refused_before_binding() {
    let site = Site::built();
    let file = site.dir.join("index.html");
    let missing = site.dir.join("no-such-dir");
    for (bad, why) in [(&missing, "no such directory"), (&file, "not a directory")] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_stampede"))
            .args(["serve", "--addr", "127.0.0.1:0", "--static"])
            .arg(bad)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{bad:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{bad:?}: one line: {stderr}");
        assert!(stderr.contains("--static"), "{bad:?}: {stderr}");
        assert!(stderr.contains(why), "{bad:?}: {stderr}");
        assert!(output.stdout.is_empty(), "{bad:?}: nothing was served");
    }
}

/// The connection limits are flags with ranges: a value out of range is
/// refused with status 2 and one line naming the flag and the range.
#[test]
fn connection_limits_out_of_range_are_refused_naming_the_flag() {
    let site = Site::built();
    for (flag, bad, expected) in [
        ("--header-timeout", "0", "from 10ms to 600s"),
        ("--header-timeout", "11m", "from 10ms to 600s"),
        ("--header-timeout", "soon", "from 10ms to 600s"),
        // A negative value is a value, not an unknown flag `-1`.
        ("--header-timeout", "-1s", "from 10ms to 600s"),
        ("--max-connections", "-5", "from 1 to 100000"),
        ("--max-connections", "0", "from 1 to 100000"),
        ("--max-connections", "100001", "from 1 to 100000"),
        ("--max-connections", "many", "from 1 to 100000"),
    ] {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_stampede"))
            .args(["serve", "--addr", "127.0.0.1:0", "--static"])
            .arg(&site.dir)
            .args([flag, bad])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{flag} {bad}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{flag} {bad}: {stderr}");
        assert!(stderr.contains(flag), "{flag} {bad}: {stderr}");
        assert!(stderr.contains(expected), "{flag} {bad}: {stderr}");
        assert!(output.stdout.is_empty(), "{flag} {bad}: nothing was served");
    }
}

/// Another address is bound when given: all of 127.0.0.0/8 is loopback on
/// Linux, so 127.0.0.2 tells an explicit address from the default one without
/// leaving the machine.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn an_explicit_addr_is_bound_as_given() {
    let binary = Binary::start("127.0.0.2:0");
    assert_eq!(
        binary.addr.ip(),
        "127.0.0.2".parse::<std::net::IpAddr>().unwrap()
    );
    assert_ne!(binary.addr.port(), 0);
    let health: Value = client()
        .get(format!("{}/api/health", binary.base()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health, json!({"ok": true}));
    binary.stop_cleanly().await;
}

/// A server whose stderr fails (a full disk, a pipe whose reader left: `2>&1 | head -n 1`)
/// loses its log lines and goes on serving: it died at its first request, the log's
/// fallback report of the failed write panicking in turn.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_server_whose_stderr_fails_goes_on_serving() {
    let mut binary = Binary::start_with_stderr_to("127.0.0.1:0", "/dev/full");
    for _ in 0..3 {
        let health = client()
            .get(format!("{}/api/health", binary.base()))
            .send()
            .await
            .expect("the server answers")
            .status();
        assert_eq!(health, 200);
    }
    assert!(
        binary.child.try_wait().unwrap().is_none(),
        "the server exited"
    );
    binary.signal("TERM");
    let status = binary.exit_within(Duration::from_secs(10)).await;
    assert_eq!(status.and_then(|s| s.code()), Some(0));
}

/// Run where there is no `www/dist` and without `--static` (the demo API wanted alone,
/// outside the repository), the server starts: the API answers, `/` answers the "not built
/// yet" page, and stderr says why. (An explicit `--static` that does not exist is still
/// refused: see above.)
#[cfg(unix)]
#[tokio::test]
async fn without_static_and_without_a_built_page_the_api_is_served_alone() {
    let binary = Binary::start_elsewhere("127.0.0.1:0");
    let status = client()
        .get(format!("{}/api/status/503", binary.base()))
        .send()
        .await
        .unwrap()
        .status();
    assert_eq!(status, 503);
    let page = client()
        .get(format!("{}/", binary.base()))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("make run"), "{page}");
    assert!(
        binary
            .logged("no index.html in www/dist", Duration::from_secs(5))
            .await,
        "{}",
        binary.stderr()
    );
    // Stopped with nothing in flight, it says why before it says it stopped (the server
    // logged "stopped" first, from another thread, woken by the signal's count).
    let mut binary = binary;
    binary.signal("TERM");
    let status = binary.exit_within(Duration::from_secs(10)).await;
    assert_eq!(status.and_then(|s| s.code()), Some(0));
    // Its last lines may still be on their way through the pipe.
    assert!(binary.logged("stopped", Duration::from_secs(5)).await);
    let stderr = binary.stderr();
    let (said, stopped) = (
        stderr.find("SIGTERM: shutting down"),
        stderr.find("stopped"),
    );
    assert!(said.is_some() && said < stopped, "{stderr}");
}

/// SIGTERM with two requests in flight: the short one is answered, the one
/// longer than the grace period is cut off when it ends, and the process exits
/// with status 0 then.
#[cfg(unix)]
#[tokio::test]
async fn sigterm_stops_the_binary_cleanly_within_the_grace_period() {
    let mut binary = Binary::start("127.0.0.1:0");
    let base = binary.base();
    let http = client();
    let request = |url: String| {
        let http = http.clone();
        tokio::spawn(async move { http.get(url).send().await?.json::<Value>().await })
    };
    let short = request(format!("{base}/api/slow?ms=500&key=short"));
    let long = request(format!("{base}/api/slow?ms=10000&key=long"));
    wait_until_logged(&http, &base, "short").await;
    wait_until_logged(&http, &base, "long").await;

    let start = Instant::now();
    binary.signal("TERM");
    let short = short.await.unwrap().expect("the short request is answered");
    assert_eq!(short, json!({"slept_ms": 500}));
    let bound = SHUTDOWN_GRACE + Duration::from_secs(3);
    let status = binary.exit_within(bound).await;
    let elapsed = start.elapsed();
    let stderr = binary.stderr();
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "{elapsed:?}: {stderr}"
    );
    assert!(
        elapsed >= SHUTDOWN_GRACE - Duration::from_millis(500),
        "it waited for the grace period: {elapsed:?}"
    );
    assert!(
        long.await.unwrap().is_err(),
        "the 10 s request is cut off at the end of the grace period"
    );
    // The reason first, then the end (the signal's line was once logged after it).
    let said = stderr.find("SIGTERM: shutting down");
    let stopped = stderr.find("stopped with requests still in flight");
    assert!(said.is_some() && stopped.is_some(), "{stderr}");
    assert!(
        said < stopped,
        "the shutdown's reason before its end: {stderr}"
    );
    // One log line per request, with its method, path, query and status.
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("/api/slow?ms=500&key=short"))
        .collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("GET /api/slow?ms=500&key=short 200"),
        "{stderr}"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_second_signal_stops_the_binary_at_once() {
    let mut binary = Binary::start("127.0.0.1:0");
    let base = binary.base();
    let http = client();
    let long = tokio::spawn({
        let http = http.clone();
        let url = format!("{base}/api/slow?ms=10000&key=long");
        async move { http.get(url).send().await }
    });
    wait_until_logged(&http, &base, "long").await;

    let start = Instant::now();
    binary.signal("INT");
    assert!(
        binary
            .logged("SIGINT: shutting down", Duration::from_secs(5))
            .await,
        "{}",
        binary.stderr()
    );
    binary.signal("TERM");
    let status = binary.exit_within(Duration::from_secs(3)).await;
    let elapsed = start.elapsed();
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "{}",
        binary.stderr()
    );
    assert!(elapsed < SHUTDOWN_GRACE, "it did not wait: {elapsed:?}");
    assert!(long.await.unwrap().is_err(), "the slow request is cut off");
    assert!(
        binary.stderr().contains("SIGTERM again"),
        "{}",
        binary.stderr()
    );
}
