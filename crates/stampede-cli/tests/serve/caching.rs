//! Caching of API answers: never stored.

use reqwest::Method;
use stampede_cli::serve::MAX_BODY_BYTES;

use crate::support::{ASSET_PATH, Answer, Server};

#[tokio::test]
async fn api_answers_are_never_stored_by_caches() {
    let server = Server::start().await;
    let mut answers = Vec::new();
    for (method, path) in [
        (Method::GET, "/api/health"),
        (Method::GET, "/api/flaky?key=nc&fail=1&retry_after=1"),
        (Method::GET, "/api/flaky?key=nc&fail=1"),
        (Method::GET, "/api/status/200"),
        (Method::GET, "/api/status/204"),
        (Method::GET, "/api/status/304"),
        (Method::GET, "/api/status/503"),
        (Method::GET, "/api/outage?key=nc-out&down_ms=0"),
        (Method::GET, "/api/slow?ms=0"),
        (Method::GET, "/api/log?key=nc"),
        (Method::POST, "/api/reset?key=nc"),
        (Method::GET, "/api/flaky?key=nc&fail=x"),
        (Method::GET, "/api/nope"),
    ] {
        let answer = server.send(method.clone(), path).await;
        answers.push((format!("{method} {path} ({})", answer.status), answer));
    }
    let preflight = server
        .client
        .request(Method::OPTIONS, server.url("/api/flaky?key=nc&fail=0"))
        .header("origin", "http://playground.example")
        .header("access-control-request-method", "POST")
        .send()
        .await
        .unwrap();
    answers.push(("preflight".to_owned(), Answer::from(preflight).await));
    let too_large = server
        .client
        .post(server.url("/api/flaky?key=nc&fail=0"))
        .body(vec![b'x'; MAX_BODY_BYTES + 1])
        .send()
        .await
        .unwrap();
    answers.push(("413".to_owned(), Answer::from(too_large).await));
    for (what, answer) in &answers {
        assert_eq!(answer.header("cache-control"), Some("no-store"), "{what}");
    }
    // Static files keep their own rules.
    assert_eq!(
        server.get("/").await.header("cache-control"),
        Some("no-cache")
    );
    assert_eq!(
        server
            .get(&format!("/{ASSET_PATH}"))
            .await
            .header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
}
