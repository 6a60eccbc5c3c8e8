//! CORS: open headers on every answer; preflights answered and never counted.

use reqwest::Method;

use crate::support::{Answer, Server, assert_cors};

#[tokio::test]
async fn api_answers_carry_open_cors_headers() {
    let server = Server::start().await;
    for (method, path) in [
        (Method::GET, "/api/health"),
        (Method::GET, "/api/flaky?key=cors&fail=1&retry_after=1"),
        (Method::POST, "/api/flaky?key=cors&fail=1"),
        (Method::GET, "/api/status/503"),
        (Method::GET, "/api/flaky?key=cors"),
        (Method::GET, "/api/nope"),
        (Method::DELETE, "/api/log?key=cors"),
    ] {
        let response = server
            .client
            .request(method.clone(), server.url(path))
            .header("origin", "http://playground.example")
            .send()
            .await
            .unwrap();
        assert_cors(&Answer::from(response).await, &format!("{method} {path}"));
    }
    // Without an Origin header too.
    assert_cors(&server.get("/api/status/429").await, "no origin");
}

#[tokio::test]
async fn preflights_are_answered_and_not_counted() {
    let server = Server::start().await;
    for path in [
        "/api/flaky?key=pre&fail=0",
        "/api/status/503",
        "/api/reset?key=pre",
    ] {
        let response = server
            .client
            .request(Method::OPTIONS, server.url(path))
            .header("origin", "http://playground.example")
            .header("access-control-request-method", "DELETE")
            .header(
                "access-control-request-headers",
                "content-type, x-attempt, idempotency-key",
            )
            .send()
            .await
            .unwrap();
        let answer = Answer::from(response).await;
        assert!(answer.status.is_success(), "{path}: {}", answer.status);
        assert_eq!(answer.header("access-control-allow-origin"), Some("*"));
        let methods = answer
            .header("access-control-allow-methods")
            .unwrap_or_default()
            .to_ascii_uppercase();
        assert!(methods.contains("DELETE"), "{path}: {methods}");
        let headers = answer
            .header("access-control-allow-headers")
            .unwrap_or_default()
            .to_ascii_lowercase();
        for header in ["content-type", "x-attempt", "idempotency-key"] {
            assert!(headers.contains(header), "{path}: {headers}");
        }
    }
    assert!(
        server.log("pre").await.is_empty(),
        "a preflight is not an attempt"
    );
}
