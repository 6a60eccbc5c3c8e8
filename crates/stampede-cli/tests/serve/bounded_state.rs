//! The demo API's state stays bounded: keys, log entries, methods.

use reqwest::{Method, StatusCode};
use stampede_cli::serve::AppConfig;

use crate::support::{Answer, Server, assert_cors};

#[tokio::test]
async fn the_oldest_keys_are_evicted_first() {
    let max_keys = 100;
    let server = Server::with_config(AppConfig {
        max_keys,
        ..AppConfig::default()
    })
    .await;
    let created = 150;
    for i in 0..created {
        let answer = server.get(&format!("/api/flaky?key=ev-{i}&fail=0")).await;
        assert_eq!(answer.status, StatusCode::OK);
    }
    let mut kept = Vec::new();
    for i in 0..created {
        if !server.log(&format!("ev-{i}")).await.is_empty() {
            kept.push(i);
        }
    }
    // Exactly the newest `max_keys` keys are remembered.
    assert_eq!(kept, (created - max_keys..created).collect::<Vec<_>>());
    // An evicted key starts over.
    let answer = server.get("/api/flaky?key=ev-0&fail=1").await;
    assert_eq!(answer.json["attempt"], 1);
}

#[tokio::test]
async fn the_log_entries_in_all_are_bounded_oldest_keys_first() {
    let server = Server::with_config(AppConfig {
        max_keys: 100,
        max_log_entries: 10,
        max_total_log_entries: 25,
        ..AppConfig::default()
    })
    .await;
    let hit = |key: &'static str, times: usize| {
        let server = &server;
        async move {
            for _ in 0..times {
                let path = format!("/api/flaky?key={key}&fail=0");
                assert_eq!(server.get(&path).await.status, StatusCode::OK);
            }
        }
    };
    hit("a", 12).await; // a's log keeps its newest 10
    hit("b", 10).await;
    hit("c", 5).await;
    assert_eq!(server.log("a").await.len(), 10);
    assert_eq!(server.log("b").await.len(), 10);
    assert_eq!(server.log("c").await.len(), 5);
    // The 26th entry evicts the oldest key whole.
    hit("d", 1).await;
    assert!(server.log("a").await.is_empty());
    assert_eq!(server.log("b").await.len(), 10);
    assert_eq!(server.log("c").await.len(), 5);
    assert_eq!(server.log("d").await.len(), 1);
    let again = server.get("/api/flaky?key=a&fail=0").await;
    assert_eq!(again.json["attempt"], 1, "an evicted key starts over");
}

/// The method as the log keeps it: a custom method of up to 16 bytes is
/// logged by name; a longer one is refused rather than stored.
#[tokio::test]
async fn methods_over_16_bytes_are_400s_naming_method_and_not_recorded() {
    let server = Server::start().await;
    let send = |method: &[u8], key: &str| {
        let method = Method::from_bytes(method).unwrap();
        let request = server
            .client
            .request(method, server.url(&format!("/api/flaky?key={key}&fail=1")))
            .header("origin", "http://playground.example");
        async move { Answer::from(request.send().await.unwrap()).await }
    };
    let fits = send(b"BASELINE-CONTROL", "verbs").await;
    assert_eq!(fits.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(fits.json["attempt"], 1);
    // The longest method a head may carry (a longer head is a 431: see bad_input.rs).
    for method in [b"UPDATEREDIRECTREF".to_vec(), vec![b'X'; 20_000]] {
        let refused = send(&method, "verbs").await;
        assert_eq!(
            refused.status,
            StatusCode::BAD_REQUEST,
            "{} bytes",
            method.len()
        );
        assert!(refused.is_json());
        let error = refused.json["error"].as_str().unwrap();
        assert!(error.starts_with("method: "), "{error}");
        assert!(
            error.len() < 200,
            "the message quotes a short part: {error}"
        );
        assert_cors(&refused, "a refused method");
    }
    for path in [
        "/api/status/503?key=verbs",
        "/api/outage?key=verbs&down_ms=0",
        "/api/slow?ms=0&key=verbs",
    ] {
        let method = Method::from_bytes(&[b'Y'; 17]).unwrap();
        let response = server
            .client
            .request(method, server.url(path))
            .send()
            .await
            .unwrap();
        let answer = Answer::from(response).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST, "{path}");
        assert!(
            answer.json["error"]
                .as_str()
                .unwrap()
                .starts_with("method: ")
        );
    }
    assert_eq!(
        server.log("verbs").await,
        [("BASELINE-CONTROL".to_owned(), 503)],
        "only the accepted request is logged"
    );
}
