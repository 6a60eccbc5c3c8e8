//! Bad input to the demo API: JSON 400s that name the parameter.

use reqwest::StatusCode;
use serde_json::json;

use crate::support::{Server, encode};

#[tokio::test]
async fn bad_parameters_are_json_400s_naming_the_parameter() {
    let server = Server::start().await;
    let long_key = "k".repeat(201);
    let cases: Vec<(String, &str)> = vec![
        ("/api/flaky?fail=1".into(), "key"),
        ("/api/flaky?key=&fail=1".into(), "key"),
        (format!("/api/flaky?key={long_key}&fail=1"), "key"),
        ("/api/flaky?key=bad".into(), "fail"),
        ("/api/flaky?key=bad&fail=x".into(), "fail"),
        ("/api/flaky?key=bad&fail=1001".into(), "fail"),
        ("/api/flaky?key=bad&fail=-1".into(), "fail"),
        ("/api/flaky?key=bad&fail=1.5".into(), "fail"),
        ("/api/flaky?key=bad&fail=1&status=200".into(), "status"),
        ("/api/flaky?key=bad&fail=1&status=399".into(), "status"),
        ("/api/flaky?key=bad&fail=1&status=600".into(), "status"),
        ("/api/flaky?key=bad&fail=1&status=abc".into(), "status"),
        (
            "/api/flaky?key=bad&fail=1&retry_after=soon".into(),
            "retry_after",
        ),
        (
            "/api/flaky?key=bad&fail=1&retry_after=-5".into(),
            "retry_after",
        ),
        (
            "/api/flaky?key=bad&fail=1&retry_after=1.5".into(),
            "retry_after",
        ),
        (
            format!(
                "/api/flaky?key=bad&fail=1&retry_after={}",
                encode("Wed, 32 Oct 2015 07:28:00 GMT")
            ),
            "retry_after",
        ),
        (
            "/api/flaky?key=bad&fail=1&pushback_ms=2147483648".into(),
            "pushback_ms",
        ),
        (
            "/api/flaky?key=bad&fail=1&pushback_ms=1.5".into(),
            "pushback_ms",
        ),
        (
            "/api/flaky?key=bad&fail=1&pushback_ms=".into(),
            "pushback_ms",
        ),
        ("/api/status/100".into(), "code"),
        ("/api/status/150".into(), "code"),
        ("/api/status/199".into(), "code"),
        ("/api/status/99".into(), "code"),
        ("/api/status/600".into(), "code"),
        ("/api/status/abc".into(), "code"),
        ("/api/status/503?retry_after=x".into(), "retry_after"),
        ("/api/status/503?pushback_ms=x".into(), "pushback_ms"),
        ("/api/status/200?key=".into(), "key"),
        ("/api/status/200?retry_after=x".into(), "retry_after"),
        ("/api/status/204?pushback_ms=x".into(), "pushback_ms"),
        ("/api/outage?down_ms=5".into(), "key"),
        ("/api/outage?key=bad".into(), "down_ms"),
        ("/api/outage?key=bad&down_ms=600001".into(), "down_ms"),
        ("/api/outage?key=bad&down_ms=ten".into(), "down_ms"),
        (
            "/api/outage?key=bad&down_ms=10&retry_after=x".into(),
            "retry_after",
        ),
        ("/api/slow".into(), "ms"),
        ("/api/slow?ms=10001".into(), "ms"),
        ("/api/slow?ms=-1".into(), "ms"),
        ("/api/slow?ms=abc".into(), "ms"),
        (format!("/api/slow?ms=1&key={long_key}"), "key"),
        ("/api/log".into(), "key"),
        (format!("/api/log?key={long_key}"), "key"),
        ("/api/reset".into(), "key"),
        ("/api/reset?key=".into(), "key"),
        // Not UTF-8 once percent-decoded.
        ("/api/flaky?key=%FF&fail=1".into(), "key"),
        ("/api/flaky?key=bad&fail=%FF".into(), "fail"),
        ("/api/flaky?key=bad&fail=1&status=%FF".into(), "status"),
        (
            "/api/flaky?key=bad&fail=1&retry_after=%FF".into(),
            "retry_after",
        ),
        (
            "/api/flaky?key=bad&fail=1&pushback_ms=%FF".into(),
            "pushback_ms",
        ),
        ("/api/status/503?key=%FF".into(), "key"),
        ("/api/outage?key=%C3&down_ms=5".into(), "key"),
        ("/api/slow?ms=%FF".into(), "ms"),
        ("/api/slow?ms=1&key=%FF".into(), "key"),
        ("/api/log?key=%FF".into(), "key"),
        ("/api/reset?key=%FE".into(), "key"),
    ];
    for (path, parameter) in &cases {
        let answer = server.get(path).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{path}");
        assert!(answer.is_json(), "{path}");
        let error = answer.json["error"].as_str().unwrap_or_default();
        assert!(
            error.starts_with(&format!("{parameter}: ")),
            "{path}: {error:?} should name {parameter}"
        );
    }
    let answer = server.get("/api/flaky?key=bad&fail=x").await;
    assert_eq!(
        answer.json,
        json!({"error": "fail: expected a whole number from 0 to 1000, got \"x\""})
    );
    assert!(
        server.log("bad").await.is_empty(),
        "rejected requests are not recorded"
    );
}

/// `%FF` and `%FE` used to be decoded lossily, both to U+FFFD, so that two
/// different keys shared one counter and one log.
#[tokio::test]
async fn keys_that_are_not_utf8_are_refused_not_merged() {
    let server = Server::start().await;
    for key in ["%FF", "%FE", "%C3%28", "%ED%A0%80"] {
        let answer = server.get(&format!("/api/flaky?key={key}&fail=5")).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{key}");
        assert_eq!(
            answer.json["error"],
            format!("key: expected UTF-8 text once percent-decoded, got \"{key}\""),
            "{key}"
        );
    }
    assert!(
        server.log("\u{FFFD}").await.is_empty(),
        "nothing was recorded under the replacement character"
    );
    // The replacement character itself, sent as UTF-8, is a key like any other.
    let answer = server.get("/api/flaky?key=%EF%BF%BD&fail=5").await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(answer.json["key"], "\u{FFFD}");
    assert_eq!(answer.json["attempt"], 1);
}

#[tokio::test]
async fn unknown_api_paths_are_json_404s() {
    let server = Server::start().await;
    let answer = server.get("/api/nope").await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert!(answer.is_json());
    assert!(answer.json["error"].as_str().unwrap().contains("/api/nope"));
    // `/api/` too: the API's JSON 404 with its headers, not the static files' empty one.
    for path in ["/api/", "/api"] {
        let answer = server.get(path).await;
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{path}");
        assert!(answer.is_json(), "{path}");
        assert_eq!(answer.header("cache-control"), Some("no-store"), "{path}");
        assert_eq!(
            answer.header("access-control-allow-origin"),
            Some("*"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn unknown_query_parameters_are_ignored() {
    let server = Server::start().await;
    let answer = server.get("/api/flaky?key=extra&fail=0&colour=blue").await;
    assert_eq!(answer.status, StatusCode::OK);
}

/// `CONNECT` asks for a tunnel: a `405` naming the method, in either request form, and not
/// counted as an attempt (it was: a 200 whose body hyper dropped, logging an error).
#[tokio::test]
async fn connect_is_refused_and_not_counted() {
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let server = Server::start().await;
    for target in ["/api/flaky?key=tunnel&fail=0", "example.com:443"] {
        let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let head = format!("CONNECT {target} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n");
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut answer))
            .await
            .expect("answered and closed within 5 s")
            .unwrap();
        let answer = String::from_utf8(answer).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 405 Method Not Allowed\r\n"),
            "{target}: {answer}"
        );
        assert!(
            answer.ends_with(r#"{"error":"method: CONNECT (a tunnel) is not served here"}"#),
            "{target}: {answer}"
        );
        // Under /api, an API answer like any other: CORS and no-store (it had neither).
        if target.starts_with("/api") {
            let lower = answer.to_ascii_lowercase();
            assert!(
                lower.contains("\r\naccess-control-allow-origin: *\r\n"),
                "{answer}"
            );
            assert!(
                lower.contains("\r\ncache-control: no-store\r\n"),
                "{answer}"
            );
        }
    }
    assert!(server.log("tunnel").await.is_empty(), "not recorded");
}

/// A request's head is at most about `MAX_HEAD_BYTES` (32 KiB; hyper checks its read
/// buffer, so a head that arrives whole in one read may pass it by a read's size): a longer
/// one is a 431 and the connection closes, where hyper's default let each connection hold
/// 0.4 MB of an endless header until the header timeout (300 of them took the server from
/// 9 to 130 MB).
#[tokio::test]
async fn a_head_past_32_kib_is_a_431() {
    use stampede_cli::serve::MAX_HEAD_BYTES;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let server = Server::start().await;
    for (len, status) in [
        (MAX_HEAD_BYTES / 2, "200"),
        (MAX_HEAD_BYTES * 2, "431"),
        (400_000, "431"),
    ] {
        let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let head = format!(
            "GET /api/health HTTP/1.1\r\nHost: test\r\nX-Big: {}\r\nConnection: close\r\n\r\n",
            "a".repeat(len)
        );
        // The server may answer (and close) before it has read the whole of a long head.
        let _ = stream.write_all(head.as_bytes()).await;
        let mut answer = Vec::new();
        let read = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            stream.read_to_end(&mut answer),
        );
        let _ = read.await.expect("the server answers and closes");
        let answer = String::from_utf8_lossy(&answer);
        assert!(
            answer.starts_with(&format!("HTTP/1.1 {status}")),
            "{len} bytes: {answer}"
        );
    }
}

/// A status code that is not UTF-8 once percent-decoded is refused as a query parameter is,
/// in the same words (the framework's own said "Invalid URL: Invalid UTF-8 in `code`").
#[tokio::test]
async fn a_status_code_that_is_not_utf8_is_named_in_the_apis_words() {
    let server = Server::start().await;
    let answer = server.get("/api/status/%FF").await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.json["error"],
        "code: expected UTF-8 text once percent-decoded, got \"%FF\""
    );
}
