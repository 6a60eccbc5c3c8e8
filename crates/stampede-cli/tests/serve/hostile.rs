//! The scenario against the real binary: `stampede serve` under
//! `ulimit -n 1024`, and 1,100 sockets that each send half a request header
//! and then nothing. Before the hardening they were held forever, `accept`
//! failed for want of file descriptors, and `/api/health` timed out.
//!
//! Each test prints the child's memory and open file descriptors (see them
//! with `--nocapture`). Every wait is bounded, so each test ends by itself.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::binary::Binary;

/// The file descriptor limit the child runs under: the common default.
const CHILD_FD_LIMIT: u32 = 1024;
/// More slow sockets than the child has file descriptors.
const SLOW_SOCKETS: usize = 1_100;
/// The child's `--header-timeout`: short, so that the test is, and long
/// enough to open the sockets and look at the child while it holds them.
const HEADER_TIMEOUT: Duration = Duration::from_secs(3);
/// How soon after the header timeout `/api/health` must answer.
const RECOVERY: Duration = Duration::from_secs(1);

/// The child's resident memory and open file descriptors, from `/proc`.
#[derive(Debug, Clone, Copy)]
struct Usage {
    rss_kib: u64,
    fds: usize,
    /// User plus system CPU time, in clock ticks (1/100 s on Linux).
    cpu_ticks: u64,
}

impl Usage {
    fn of(pid: u32) -> Self {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
        let rss_kib = status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
            .unwrap_or_else(|| panic!("no VmRSS in {status}"));
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd"))
            .unwrap()
            .count();
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        // Fields after the command name, which is in parentheses: state is
        // field 3, utime 14 and stime 15.
        let after_name = &stat[stat.rfind(')').unwrap() + 2..];
        let fields: Vec<&str> = after_name.split_whitespace().collect();
        let cpu_ticks = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        Self {
            rss_kib,
            fds,
            cpu_ticks,
        }
    }
}

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "RSS {:.1} MB, {} open fds",
            self.rss_kib as f64 / 1024.0,
            self.fds
        )
    }
}

/// The soft limit on open files of `pid`, from `/proc/<pid>/limits`.
fn fd_limit_of(pid: u32) -> u64 {
    let limits = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .and_then(|line| line.split_whitespace().nth(3))
        .and_then(|soft| soft.parse().ok())
        .unwrap_or_else(|| panic!("no open-files limit in {limits}"))
}

/// Raises this process's soft limit on open files to `needed` if it is
/// lower (as far as the hard limit allows): the test holds more sockets than
/// the common default of 1024.
fn ensure_fd_limit(needed: u64) {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    let current = limit.current.unwrap_or(u64::MAX);
    if current >= needed {
        return;
    }
    let hard = limit.maximum.unwrap_or(u64::MAX);
    assert!(
        hard >= needed,
        "this test needs {needed} open files; the hard limit is {hard} (raise it with ulimit -Hn)"
    );
    limit.current = Some(needed);
    setrlimit(Resource::Nofile, limit).expect("raise the soft limit on open files");
}

/// Opens `n` connections that each send half a request header, then nothing.
/// They open 100 at a time: more at once could overflow the listener's accept
/// queue (1,024 long), and a dropped SYN is sent again only a second later.
async fn open_slow_sockets(addr: SocketAddr, n: usize) -> Vec<TcpStream> {
    let mut sockets = Vec::with_capacity(n);
    while sockets.len() < n {
        let mut opening = tokio::task::JoinSet::new();
        for _ in 0..(n - sockets.len()).min(100) {
            opening.spawn(async move {
                let mut socket =
                    tokio::time::timeout(Duration::from_secs(5), TcpStream::connect(addr))
                        .await
                        .expect("connect within 5 s")?;
                socket
                    .write_all(b"GET /api/health HTTP/1.1\r\nHost: test\r\n")
                    .await?;
                std::io::Result::Ok(socket)
            });
        }
        while let Some(socket) = opening.join_next().await {
            sockets.push(socket.unwrap().unwrap());
        }
    }
    sockets
}

/// Waits, until `deadline`, for the server to close every one of `sockets`;
/// returns how many it closed and how many sent something first.
async fn count_closed(sockets: &mut [TcpStream], deadline: tokio::time::Instant) -> (usize, usize) {
    let (mut closed, mut answered) = (0, 0);
    let mut buf = [0u8; 1024];
    for socket in sockets {
        let mut got_bytes = false;
        loop {
            match tokio::time::timeout_at(deadline, socket.read(&mut buf)).await {
                Err(_) => break,
                Ok(Ok(0) | Err(_)) => {
                    closed += 1;
                    break;
                }
                Ok(Ok(_)) => got_bytes = true,
            }
        }
        answered += usize::from(got_bytes);
    }
    (closed, answered)
}

/// What one run of the scenario saw.
struct Outcome {
    held: Usage,
    /// The share of one core the child used while the slow sockets were held.
    cpu_while_held: f64,
    /// The status of `/api/health` while the slow sockets were held (`None`:
    /// the connection was closed unanswered).
    health_while_held: Option<StatusCode>,
    /// How long after the header timeout `/api/health` first answered `200`.
    recovered_after: Duration,
}

/// Starts the child under `ulimit -n 1024` with `extra` flags, holds
/// [`SLOW_SOCKETS`] slow sockets against it, and checks that it recovers:
/// `/api/health` answers `200` within [`RECOVERY`] once the header timeout
/// has passed, and every slow socket is closed by the server.
async fn run_scenario(name: &str, extra: &[&str]) -> (Binary, Outcome) {
    ensure_fd_limit(4 * SLOW_SOCKETS as u64);
    let timeout = format!("{}ms", HEADER_TIMEOUT.as_millis());
    let mut flags = vec!["--header-timeout", &timeout];
    flags.extend_from_slice(extra);
    let binary = Binary::start_with("127.0.0.1:0", &flags, Some(CHILD_FD_LIMIT));
    let pid = binary.child.id();
    assert_eq!(
        fd_limit_of(pid),
        u64::from(CHILD_FD_LIMIT),
        "the child's limit"
    );
    let base = binary.base();
    // Each probe on a new connection, as a new client would come: a kept-alive
    // one is already past the accept loop and the cap.
    let http = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(0)
        .timeout(RECOVERY)
        .build()
        .unwrap();
    let health = || {
        let http = http.clone();
        let url = format!("{base}/api/health");
        async move { http.get(url).send().await.map(|r| r.status()) }
    };
    assert_eq!(health().await.unwrap(), StatusCode::OK);
    let idle = Usage::of(pid);

    let opening = Instant::now();
    let mut sockets = open_slow_sockets(binary.addr, SLOW_SOCKETS).await;
    let opened_in = opening.elapsed();
    assert!(
        opened_in < HEADER_TIMEOUT / 3,
        "{name}: opening the sockets took {opened_in:?}, too long to test the header timeout"
    );
    let timed_out_at = tokio::time::Instant::now() + HEADER_TIMEOUT;
    tokio::time::sleep(HEADER_TIMEOUT / 4).await;
    let held = Usage::of(pid);
    let held_at = Instant::now();
    let health_while_held = health().await.ok();
    tokio::time::sleep_until(timed_out_at - Duration::from_millis(100)).await;
    let held_late = Usage::of(pid);
    // Linux reports CPU time in ticks of 1/100 s (USER_HZ).
    let cpu_while_held =
        (held_late.cpu_ticks - held.cpu_ticks) as f64 / 100.0 / held_at.elapsed().as_secs_f64();
    tokio::time::sleep_until(timed_out_at).await;
    let recovered_after = loop {
        let since = timed_out_at.elapsed();
        if health().await.ok() == Some(StatusCode::OK) {
            break timed_out_at.elapsed();
        }
        assert!(
            since < RECOVERY,
            "{name}: /api/health did not answer 200 within {RECOVERY:?} of the header \
             timeout; stderr:\n{}",
            binary.stderr()
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    // The slow sockets accepted late (from the accept queue) get their own
    // header timeout, so allow one more.
    let deadline = timed_out_at + HEADER_TIMEOUT + RECOVERY;
    let (closed, answered) = count_closed(&mut sockets, deadline).await;
    let after = Usage::of(pid);
    println!(
        "{name}: idle {idle}; {SLOW_SOCKETS} slow sockets opened in {opened_in:.2?}; \
         holding them: {held}, {:.0}% of a core; /api/health while held: \
         {health_while_held:?}, 200 again {recovered_after:.2?} after the \
         {HEADER_TIMEOUT:?} header timeout; {closed} slow sockets closed by the server \
         ({answered} answered first); after: {after}",
        cpu_while_held * 100.0
    );
    assert_eq!(
        closed, SLOW_SOCKETS,
        "{name}: the server closed every slow socket"
    );
    assert_eq!(answered, 0, "{name}: half a header gets no answer");
    assert!(
        after.fds < idle.fds + 16,
        "{name}: the descriptors are given back: idle {idle}, after {after}"
    );
    drop(sockets);
    (
        binary,
        Outcome {
            held,
            cpu_while_held,
            health_while_held,
            recovered_after,
        },
    )
}

/// With the default cap (512), the slow sockets fill it: one more connection
/// is refused while they are held, never left hanging, and the file
/// descriptors stay within the limit, so `accept` never fails.
#[tokio::test]
async fn slow_sockets_under_ulimit_1024_fill_the_cap_and_are_closed_after_the_header_timeout() {
    let (binary, outcome) = run_scenario("default cap", &[]).await;
    assert!(
        outcome.held.fds >= stampede_cli::serve::MAX_CONNECTIONS,
        "the slow sockets were held: {}",
        outcome.held
    );
    assert_ne!(
        outcome.health_while_held,
        Some(StatusCode::OK),
        "while the cap is full, /api/health is refused"
    );
    assert!(outcome.recovered_after < RECOVERY);
    let stderr = binary.stderr();
    assert!(
        stderr.contains("at the limit of 512 connections"),
        "{stderr}"
    );
    assert!(!stderr.contains("cannot accept"), "{stderr}");
    binary.stop_cleanly().await;
}

/// With a cap above the descriptor limit, `accept` does fail (`EMFILE`): the
/// server logs it, backs off instead of spinning (it uses under a fifth of a
/// core meanwhile), and accepts again once the slow sockets are closed.
#[tokio::test]
async fn accept_failing_for_want_of_descriptors_neither_stops_nor_spins_the_server() {
    let (binary, outcome) =
        run_scenario("cap above the fd limit", &["--max-connections", "2000"]).await;
    assert!(
        outcome.held.fds + 16 >= CHILD_FD_LIMIT as usize,
        "the descriptors ran out: {}",
        outcome.held
    );
    assert!(
        outcome.cpu_while_held < 0.2,
        "the accept loop backs off rather than spins: {:.0}% of a core",
        outcome.cpu_while_held * 100.0
    );
    assert!(outcome.recovered_after < RECOVERY);
    let stderr = binary.stderr();
    assert!(stderr.contains("cannot accept connections"), "{stderr}");
    binary.stop_cleanly().await;
}
