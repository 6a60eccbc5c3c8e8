//! Connections that hold the server: slow headers, idle keep-alive, and more
//! connections than the cap, over loopback with raw sockets. Every wait is
//! bounded, so each test ends by itself.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::Value;
use stampede_cli::serve::{Limits, MAX_REFUSING, REFUSAL_LINGER, app, serve_app};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::support::{Site, client};

/// Starts the app within `limits` on a loopback port; it stops with the
/// test's runtime.
async fn start(limits: Limits) -> (SocketAddr, Site) {
    let site = Site::built();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve_app(
        listener,
        app(&site.dir),
        limits,
        std::future::pending(),
        std::future::pending(),
    ));
    (addr, site)
}

fn limits(header_timeout: Duration, max_connections: usize) -> Limits {
    Limits {
        header_timeout,
        max_connections,
        ..Limits::default()
    }
}

/// How the server left a connection.
#[derive(Debug, PartialEq, Eq)]
enum Closed {
    /// The server closed it, after sending these bytes (maybe none).
    After(Vec<u8>),
    /// It was still open after the wait.
    StillOpen(Vec<u8>),
}

/// Reads from `stream` until the server closes it (end of file or reset), or
/// `limit` passes.
async fn read_until_closed(stream: &mut TcpStream, limit: Duration) -> Closed {
    let mut received = Vec::new();
    let deadline = tokio::time::Instant::now() + limit;
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout_at(deadline, stream.read(&mut buf)).await {
            Err(_) => return Closed::StillOpen(received),
            Ok(Ok(0) | Err(_)) => return Closed::After(received),
            Ok(Ok(n)) => received.extend_from_slice(&buf[..n]),
        }
    }
}

/// Sends `GET /api/health` on `stream` and reads its whole answer (the
/// connection stays open).
async fn health_on(stream: &mut TcpStream) -> String {
    stream
        .write_all(b"GET /api/health HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .unwrap();
    let mut received = Vec::new();
    let mut buf = [0u8; 4096];
    while !received.ends_with(br#"{"ok":true}"#) {
        let n = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf))
            .await
            .expect("an answer within 5 s")
            .unwrap();
        assert_ne!(n, 0, "closed early: {}", String::from_utf8_lossy(&received));
        received.extend_from_slice(&buf[..n]);
    }
    String::from_utf8(received).unwrap()
}

/// A connection that sends nothing, one that stops mid-header, and one that
/// trickles a header byte every 50 ms are all closed, unanswered, once the
/// header timeout passes, and not before.
#[tokio::test]
async fn slow_headers_are_cut_off_at_the_header_timeout() {
    let timeout = Duration::from_millis(400);
    let (addr, _site) = start(limits(timeout, 100)).await;
    // Each clock starts before the connection opens: the server's starts on
    // accept, later, so the close can never come sooner than the timeout.
    let silent = async {
        let start = Instant::now();
        let mut stream = TcpStream::connect(addr).await.unwrap();
        (
            read_until_closed(&mut stream, Duration::from_secs(5)).await,
            start.elapsed(),
        )
    };
    let partial = async {
        let start = Instant::now();
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(b"GET /api/health HTTP/1.1\r\nHost: test\r\n")
            .await
            .unwrap();
        (
            read_until_closed(&mut stream, Duration::from_secs(5)).await,
            start.elapsed(),
        )
    };
    let trickle = async {
        let start = Instant::now();
        let stream = TcpStream::connect(addr).await.unwrap();
        let (mut read, mut write) = stream.into_split();
        let writer = tokio::spawn(async move {
            // An endless header: "X-A: aaaa..." one byte at a time.
            write.write_all(b"GET / HTTP/1.1\r\nX-A: ").await?;
            for _ in 0..200 {
                tokio::time::sleep(Duration::from_millis(50)).await;
                write.write_all(b"a").await?;
            }
            std::io::Result::Ok(())
        });
        let mut received = Vec::new();
        let mut buf = [0u8; 1024];
        let closed = loop {
            match tokio::time::timeout(Duration::from_secs(5), read.read(&mut buf)).await {
                Err(_) => break Closed::StillOpen(received),
                Ok(Ok(0) | Err(_)) => break Closed::After(received),
                Ok(Ok(n)) => received.extend_from_slice(&buf[..n]),
            }
        };
        let elapsed = start.elapsed();
        writer.abort();
        (closed, elapsed)
    };
    let (silent, partial, trickle) = tokio::join!(silent, partial, trickle);
    for (what, (closed, elapsed)) in [
        ("silent", silent),
        ("partial", partial),
        ("trickle", trickle),
    ] {
        assert_eq!(
            closed,
            Closed::After(Vec::new()),
            "{what}: closed unanswered"
        );
        assert!(
            elapsed >= timeout,
            "{what}: closed after {elapsed:?}, before the header timeout"
        );
        assert!(
            elapsed < timeout + Duration::from_secs(2),
            "{what}: closed only after {elapsed:?}"
        );
    }
}

/// Keep-alive works within the header timeout, and an idle kept-alive
/// connection is closed once it has passed.
#[tokio::test]
async fn idle_keep_alive_connections_are_closed_after_the_header_timeout() {
    let timeout = Duration::from_millis(500);
    let (addr, _site) = start(limits(timeout, 100)).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let first = health_on(&mut stream).await;
    assert!(first.starts_with("HTTP/1.1 200 OK\r\n"), "{first}");
    tokio::time::sleep(timeout / 4).await;
    // The server's clock starts once it has answered, after this.
    let second_sent = Instant::now();
    let second = health_on(&mut stream).await;
    assert!(
        second.starts_with("HTTP/1.1 200 OK\r\n"),
        "the same connection answers again: {second}"
    );
    let closed = read_until_closed(&mut stream, Duration::from_secs(5)).await;
    let idle = second_sent.elapsed();
    assert_eq!(closed, Closed::After(Vec::new()));
    assert!(idle >= timeout, "closed after {idle:?} idle");
    assert!(
        idle < timeout + Duration::from_secs(2),
        "closed after {idle:?} idle"
    );
}

/// Past the cap a connection gets a complete `503` with `Retry-After: 1` and
/// `Connection: close`, then the close; once a served connection closes, its
/// place is free again.
#[tokio::test]
async fn past_the_cap_connections_get_a_503_and_a_place_frees_up() {
    let (addr, _site) = start(limits(Duration::from_secs(30), 2)).await;
    let base = format!("http://{addr}");
    // Two connections that send nothing take both places (the server accepts
    // in arrival order, so they are served before anything that follows).
    let mut held = Vec::new();
    for _ in 0..2 {
        held.push(TcpStream::connect(addr).await.unwrap());
    }
    let http = client();
    let response = http.get(format!("{base}/api/health")).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|v| v.to_str().unwrap().to_owned())
    };
    assert_eq!(header("retry-after").as_deref(), Some("1"));
    assert_eq!(header("connection").as_deref(), Some("close"));
    assert_eq!(header("access-control-allow-origin").as_deref(), Some("*"));
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["error"],
        "connections: the server is at its limit of 2 connections; retry later"
    );

    // On the wire: the whole answer, then the close.
    let mut raw = TcpStream::connect(addr).await.unwrap();
    raw.write_all(b"GET /api/health HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .unwrap();
    match read_until_closed(&mut raw, Duration::from_secs(5)).await {
        Closed::After(bytes) => {
            let text = String::from_utf8(bytes).unwrap();
            assert!(
                text.starts_with("HTTP/1.1 503 Service Unavailable\r\n"),
                "{text}"
            );
            assert!(text.ends_with("retry later\"}"), "{text}");
        }
        still_open => panic!("the refusal did not close: {still_open:?}"),
    }

    drop(held.pop());
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let status = http
            .get(format!("{base}/api/health"))
            .send()
            .await
            .unwrap()
            .status();
        if status == StatusCode::OK {
            break;
        }
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            Instant::now() < deadline,
            "the freed place was never served"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Refusals are bounded too: with every place taken and [`MAX_REFUSING`]
/// refusals waiting for requests that never come, one more connection is
/// closed at once, unanswered; the waiting ones are closed unanswered after
/// [`REFUSAL_LINGER`], and then a connection gets its `503` again.
#[tokio::test]
async fn past_the_refusals_too_connections_are_closed_at_once() {
    let (addr, _site) = start(limits(Duration::from_secs(30), 1)).await;
    let _served = TcpStream::connect(addr).await.unwrap();
    let started = Instant::now();
    let mut refused = Vec::new();
    for _ in 0..MAX_REFUSING {
        refused.push(TcpStream::connect(addr).await.unwrap());
    }
    let mut one_more = TcpStream::connect(addr).await.unwrap();
    let closed = read_until_closed(&mut one_more, Duration::from_secs(5)).await;
    assert_eq!(closed, Closed::After(Vec::new()), "closed unanswered");
    let at_once = started.elapsed();
    assert!(
        at_once < REFUSAL_LINGER / 2,
        "closed at once, not after a linger: {at_once:?}"
    );
    for stream in &mut refused {
        let closed = read_until_closed(stream, Duration::from_secs(5)).await;
        assert_eq!(closed, Closed::After(Vec::new()), "closed unanswered");
    }
    let lingered = started.elapsed();
    assert!(
        lingered >= REFUSAL_LINGER,
        "the refusals waited for a request: {lingered:?}"
    );
    let mut later = TcpStream::connect(addr).await.unwrap();
    later
        .write_all(b"GET /api/health HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .unwrap();
    match read_until_closed(&mut later, Duration::from_secs(5)).await {
        Closed::After(bytes) => assert!(bytes.starts_with(b"HTTP/1.1 503"), "{bytes:?}"),
        still_open => panic!("{still_open:?}"),
    }
}

/// A client that sends requests and stops reading the answers (its socket's buffers full)
/// loses its place under the cap once writing has made no progress for
/// `Limits::write_stall`; before, it held the place for good.
#[tokio::test]
async fn a_client_that_stops_reading_is_closed_after_the_write_stall() {
    let stall = Duration::from_millis(300);
    let (addr, site) = start(Limits {
        write_stall: stall,
        ..limits(Duration::from_secs(30), 1)
    })
    .await;
    // 2 MB that compress badly, asked for 20 times: far more than the sockets hold.
    let mut x: u32 = 12_345;
    let big: Vec<u8> = (0..2_000_000)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(site.dir.join("big.wasm"), big).unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stalled = socket.connect(addr).await.unwrap();
    let requests = b"GET /big.wasm HTTP/1.1\r\nHost: test\r\n\r\n".repeat(20);
    stalled.write_all(&requests).await.unwrap();
    let http = client();
    let base = format!("http://{addr}");
    let health = || async {
        http.get(format!("{base}/api/health"))
            .send()
            .await
            .unwrap()
            .status()
    };
    // It holds the one place while its answers are being written...
    assert_eq!(health().await, StatusCode::SERVICE_UNAVAILABLE);
    // ...and, reading nothing, loses it after the stall (bounded wait).
    let started = Instant::now();
    let deadline = started + Duration::from_secs(10);
    while health().await != StatusCode::OK {
        assert!(
            Instant::now() < deadline,
            "the stalled client still holds the place after 10 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(stalled);
}

/// A client that pipelines many slow requests in one write is served for `Limits::max_life`
/// at most: the request in flight is answered, then the connection closes (before, 20,000
/// pipelined `/api/slow?ms=10000` requests held a place for 55 hours).
#[tokio::test]
async fn a_connection_is_served_for_its_max_life_at_most() {
    let life = Duration::from_millis(400);
    let (addr, _site) = start(Limits {
        max_life: life,
        ..limits(Duration::from_secs(30), 4)
    })
    .await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let requests = b"GET /api/slow?ms=100 HTTP/1.1\r\nHost: test\r\n\r\n".repeat(40);
    stream.write_all(&requests).await.unwrap();
    let started = Instant::now();
    let Closed::After(received) = read_until_closed(&mut stream, Duration::from_secs(10)).await
    else {
        panic!("still open after 10 s: 40 answers of 100 ms would take 4 s");
    };
    let took = started.elapsed();
    let answered = String::from_utf8_lossy(&received)
        .matches("HTTP/1.1 200")
        .count();
    // About 4 of the 40 answers (400 ms of 100 ms each), the last one in flight included.
    assert!((2..=8).contains(&answered), "{answered} answers");
    assert!(
        took >= life && took < Duration::from_secs(2),
        "closed after {took:?}"
    );
}

/// A client that hangs up mid-request frees its place at once (hyper's default, kept:
/// `half_close(true)` let fire-and-forget requests to /api/slow hold every place with no
/// socket open on the client's side). Here: one place, taken by a request that hangs up,
/// is free again long before its 10 s sleep would end.
#[tokio::test]
async fn a_client_that_hangs_up_frees_its_place_at_once() {
    let (addr, _site) = start(limits(Duration::from_secs(5), 1)).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /api/slow?ms=10000 HTTP/1.1\r\nHost: test\r\n\r\n")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    drop(stream);
    let http = client();
    let started = Instant::now();
    loop {
        let answer = http.get(format!("http://{addr}/api/health")).send().await;
        if answer.is_ok_and(|a| a.status() == StatusCode::OK) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "the place stayed taken"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
