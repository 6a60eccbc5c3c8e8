//! The body limit: 64 KiB bodies are read, larger ones are 413s, declared or
//! chunked; a body not in full within the body timeout is a 408.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use stampede_cli::serve::{AppConfig, MAX_BODY_BYTES};

use crate::support::{Answer, Server};

#[tokio::test]
async fn bodies_up_to_64_kib_are_accepted_and_larger_ones_are_413() {
    let server = Server::start().await;
    let post = |len: usize, key: &'static str| {
        server
            .client
            .post(server.url(&format!("/api/flaky?key={key}&fail=0")))
            .body(vec![b'x'; len])
            .send()
    };
    let fits = Answer::from(post(MAX_BODY_BYTES, "fits").await.unwrap()).await;
    assert_eq!(fits.status, StatusCode::OK);
    let over = Answer::from(post(MAX_BODY_BYTES + 1, "over").await.unwrap()).await;
    assert_eq!(over.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(over.is_json());
    assert!(over.json["error"].as_str().unwrap().starts_with("body: "));
    assert_eq!(
        over.header("access-control-allow-origin"),
        Some("*"),
        "the page can read the 413 too"
    );
    assert_eq!(
        over.header("connection"),
        Some("close"),
        "the body is not read, so the connection says it closes (a kept-alive client saw EPIPE)"
    );
    let huge = Answer::from(post(4 * 1024 * 1024, "huge").await.unwrap()).await;
    assert_eq!(huge.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(huge.header("connection"), Some("close"));
    assert!(
        server.log("over").await.is_empty(),
        "a refused request is not recorded"
    );
}

/// Sends `POST /api/flaky?key=KEY&fail=0` with a chunked body of `len` bytes
/// on a raw socket and returns the response's status line.
fn post_chunked(addr: std::net::SocketAddr, key: &str, len: usize) -> String {
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .set_write_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let head = format!(
        "POST /api/flaky?key={key}&fail=0 HTTP/1.1\r\nHost: {addr}\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).unwrap();
    let chunk = vec![b'y'; 1024];
    let mut left = len;
    while left > 0 {
        let n = left.min(chunk.len());
        stream.write_all(format!("{n:x}\r\n").as_bytes()).unwrap();
        stream.write_all(&chunk[..n]).unwrap();
        stream.write_all(b"\r\n").unwrap();
        left -= n;
    }
    stream.write_all(b"0\r\n\r\n").unwrap();
    let mut response = Vec::new();
    stream.read_to_end(&mut response).unwrap();
    let response = String::from_utf8_lossy(&response);
    response.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn the_body_limit_holds_for_chunked_bodies_too() {
    let server = Server::start().await;
    let addr = server.addr;
    let status_lines = tokio::task::spawn_blocking(move || {
        (
            post_chunked(addr, "chunked-fits", MAX_BODY_BYTES),
            post_chunked(addr, "chunked-over", MAX_BODY_BYTES + 1),
        )
    })
    .await
    .unwrap();
    assert!(
        status_lines.0.starts_with("HTTP/1.1 200"),
        "{status_lines:?}"
    );
    assert!(
        status_lines.1.starts_with("HTTP/1.1 413"),
        "{status_lines:?}"
    );
}

/// A body trickled in, or never finished, is answered `408` naming `body`
/// once the body timeout has passed, and the connection is closed; the
/// request is not recorded.
#[tokio::test]
async fn a_body_not_sent_in_full_in_time_is_a_408_and_the_connection_closes() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let timeout = Duration::from_millis(300);
    let server = Server::with_config(AppConfig {
        body_timeout: timeout,
        ..AppConfig::default()
    })
    .await;
    let start = Instant::now();
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(
            b"POST /api/flaky?key=slow-body&fail=0 HTTP/1.1\r\nHost: test\r\n\
              Content-Type: text/plain\r\nContent-Length: 10\r\n\r\nabc",
        )
        .await
        .unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer))
        .await
        .expect("answered and closed within 5 s")
        .unwrap();
    let elapsed = start.elapsed();
    let answer = String::from_utf8(answer).unwrap();
    assert!(
        answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"),
        "{answer}"
    );
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("\r\nconnection: close\r\n"),
        "{answer}"
    );
    assert!(
        answer.ends_with(r#"{"error":"body: not received in full within 300ms"}"#),
        "{answer}"
    );
    assert!(elapsed >= timeout, "{elapsed:?}");
    assert!(server.log("slow-body").await.is_empty(), "not recorded");
}
