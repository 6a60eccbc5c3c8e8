//! The demo API's endpoints on their happy paths.

use std::time::{Duration, Instant, SystemTime};

use reqwest::{Method, StatusCode};
use serde_json::json;

use crate::support::{Answer, Server, encode, unix_ms_now};

#[tokio::test]
async fn health_answers_ok() {
    let server = Server::start().await;
    let answer = server.get("/api/health").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.is_json());
    assert_eq!(answer.json, json!({"ok": true}));
}

#[tokio::test]
async fn flaky_fails_n_times_then_succeeds() {
    let server = Server::start().await;
    let path = "/api/flaky?key=f1&fail=2";
    let first = server.get(path).await;
    assert_eq!(first.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(first.is_json());
    assert_eq!(
        first.json,
        json!({"key": "f1", "attempt": 1, "status": 503})
    );
    assert_eq!(
        first.header("retry-after"),
        None,
        "no hint unless asked for"
    );
    let second = server.get(path).await;
    assert_eq!(second.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(second.json["attempt"], 2);
    let third = server.get(path).await;
    assert_eq!(third.status, StatusCode::OK);
    assert!(third.is_json());
    assert_eq!(third.json, json!({"key": "f1", "attempt": 3}));
    let fourth = server.get(path).await;
    assert_eq!(fourth.status, StatusCode::OK);
    assert_eq!(fourth.json, json!({"key": "f1", "attempt": 4}));
}

#[tokio::test]
async fn flaky_with_zero_failures_succeeds_at_once() {
    let server = Server::start().await;
    let answer = server.get("/api/flaky?key=f0&fail=0").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json, json!({"key": "f0", "attempt": 1}));
}

#[tokio::test]
async fn flaky_sends_delta_seconds_and_pushback_hints_on_failures_only() {
    let server = Server::start().await;
    let path = "/api/flaky?key=hints&fail=1&status=429&retry_after=2&pushback_ms=1500";
    let failure = server.get(path).await;
    assert_eq!(failure.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(
        failure.json,
        json!({"key": "hints", "attempt": 1, "status": 429})
    );
    assert_eq!(failure.header("retry-after"), Some("2"));
    assert_eq!(failure.header("grpc-retry-pushback-ms"), Some("1500"));
    let success = server.get(path).await;
    assert_eq!(success.status, StatusCode::OK);
    assert_eq!(success.header("retry-after"), None);
    assert_eq!(success.header("grpc-retry-pushback-ms"), None);
}

#[tokio::test]
async fn flaky_sends_an_http_date_hint_as_given() {
    let server = Server::start().await;
    let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(5));
    let path = format!("/api/flaky?key=date&fail=1&retry_after={}", encode(&date));
    let failure = server.get(&path).await;
    assert_eq!(failure.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(failure.header("retry-after"), Some(date.as_str()));
    // A negative pushback ("do not retry") is a valid hint too.
    let answer = server
        .get("/api/flaky?key=date2&fail=1&pushback_ms=-1")
        .await;
    assert_eq!(answer.header("grpc-retry-pushback-ms"), Some("-1"));
}

#[tokio::test]
async fn flaky_answers_any_method_and_logs_each_request_once() {
    let server = Server::start().await;
    let methods = [
        Method::POST,
        Method::PUT,
        Method::PATCH,
        Method::DELETE,
        Method::GET,
    ];
    let mut statuses = Vec::new();
    for (i, method) in methods.iter().enumerate() {
        let response = server
            .client
            .request(method.clone(), server.url("/api/flaky?key=methods&fail=2"))
            .header("content-type", "application/json")
            .body(format!(r#"{{"order":{i}}}"#))
            .send()
            .await
            .unwrap();
        let answer = Answer::from(response).await;
        assert_eq!(answer.json["attempt"], i + 1, "{method}");
        statuses.push(answer.status.as_u16());
    }
    assert_eq!(statuses, [503, 503, 200, 200, 200]);
    let expected: Vec<(String, u16)> = methods
        .iter()
        .map(Method::to_string)
        .zip(statuses)
        .collect();
    assert_eq!(
        server.log("methods").await,
        expected,
        "one entry per request"
    );
}

#[tokio::test]
async fn status_answers_the_code_asked_for() {
    let server = Server::start().await;
    for code in [200u16, 201, 400, 404, 418, 429, 500, 502, 503, 504, 599] {
        let answer = server.get(&format!("/api/status/{code}")).await;
        assert_eq!(answer.status.as_u16(), code);
        assert!(answer.is_json(), "{code}");
        assert_eq!(answer.json, json!({"status": code}));
    }
    let posted = server.send(Method::POST, "/api/status/500").await;
    assert_eq!(posted.status, StatusCode::INTERNAL_SERVER_ERROR);
}

#[tokio::test]
async fn status_without_body_codes_has_no_body() {
    let server = Server::start().await;
    for code in [204u16, 304] {
        let answer = server.get(&format!("/api/status/{code}")).await;
        assert_eq!(answer.status.as_u16(), code);
        assert!(answer.body.is_empty(), "{code}");
    }
}

#[tokio::test]
async fn status_sends_the_hints_and_logs_when_keyed() {
    let server = Server::start().await;
    let answer = server
        .get("/api/status/503?retry_after=7&pushback_ms=250&key=st")
        .await;
    assert_eq!(answer.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(answer.header("retry-after"), Some("7"));
    assert_eq!(answer.header("grpc-retry-pushback-ms"), Some("250"));
    server.send(Method::PUT, "/api/status/201?key=st").await;
    assert_eq!(
        server.log("st").await,
        [("GET".to_owned(), 503), ("PUT".to_owned(), 201)]
    );
}

#[tokio::test]
async fn status_sends_the_hints_on_failing_answers_only() {
    let server = Server::start().await;
    let hints = "retry_after=7&pushback_ms=250";
    for code in [200u16, 201, 204, 304, 399] {
        let answer = server.get(&format!("/api/status/{code}?{hints}")).await;
        assert_eq!(answer.status.as_u16(), code);
        assert_eq!(answer.header("retry-after"), None, "{code}");
        assert_eq!(answer.header("grpc-retry-pushback-ms"), None, "{code}");
    }
    for code in [400u16, 429, 500, 503] {
        let answer = server.get(&format!("/api/status/{code}?{hints}")).await;
        assert_eq!(answer.status.as_u16(), code);
        assert_eq!(answer.header("retry-after"), Some("7"), "{code}");
        assert_eq!(
            answer.header("grpc-retry-pushback-ms"),
            Some("250"),
            "{code}"
        );
    }
}

#[tokio::test]
async fn outage_is_down_for_down_ms_then_up() {
    let server = Server::start().await;
    let path = "/api/outage?key=out&down_ms=300&retry_after=1";
    let start = Instant::now();
    let first = server.get(path).await;
    // The outage's clock starts when the first request reaches the server: between `start`
    // and now. Still down before 300 ms from `start`; surely up 300 ms from now (measured
    // from `start`, a first request that took 50 ms to arrive still met the outage).
    let answered = Instant::now();
    assert_eq!(first.status, StatusCode::SERVICE_UNAVAILABLE);
    assert!(first.is_json());
    assert_eq!(first.json["key"], "out");
    assert_eq!(first.json["attempt"], 1);
    assert_eq!(first.json["up"], false);
    assert_eq!(first.header("retry-after"), Some("1"));
    let second = server.get(path).await;
    if start.elapsed() < Duration::from_millis(300) {
        assert_eq!(second.status, StatusCode::SERVICE_UNAVAILABLE);
    }
    tokio::time::sleep(Duration::from_millis(310).saturating_sub(answered.elapsed())).await;
    let up = server.get(path).await;
    assert_eq!(up.status, StatusCode::OK);
    assert_eq!(up.json, json!({"key": "out", "attempt": 3, "up": true}));
    assert_eq!(up.header("retry-after"), None);
}

#[tokio::test]
async fn outage_of_zero_ms_is_never_down() {
    let server = Server::start().await;
    let answer = server.get("/api/outage?key=zero&down_ms=0").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.json,
        json!({"key": "zero", "attempt": 1, "up": true})
    );
}

#[tokio::test]
async fn slow_takes_at_least_the_time_asked_for() {
    let server = Server::start().await;
    let start = Instant::now();
    let answer = server.get("/api/slow?ms=200").await;
    let elapsed = start.elapsed();
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.json, json!({"slept_ms": 200}));
    assert!(elapsed >= Duration::from_millis(200), "{elapsed:?}");
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[tokio::test]
async fn slow_times_out_a_client_with_a_short_timeout() {
    let server = Server::start().await;
    let result = server
        .client
        .get(server.url("/api/slow?ms=2000"))
        .timeout(Duration::from_millis(100))
        .send()
        .await;
    assert!(result.unwrap_err().is_timeout());
}

#[tokio::test]
async fn log_shows_what_the_server_received_in_order() {
    let server = Server::start().await;
    let before = unix_ms_now();
    server.get("/api/flaky?key=lg&fail=1").await;
    server.send(Method::POST, "/api/flaky?key=lg&fail=1").await;
    server
        .send(Method::DELETE, "/api/outage?key=lg&down_ms=0")
        .await;
    server.get("/api/slow?ms=0&key=lg").await;
    let after = unix_ms_now();

    let answer = server.get("/api/log?key=lg").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.is_json());
    assert_eq!(answer.json["key"], "lg");
    let raw = String::from_utf8_lossy(&answer.body);
    assert!(
        raw.starts_with(r#"{"key":"lg","entries":[{"t_ms":"#),
        "{raw}"
    );
    let entries = answer.json["entries"].as_array().unwrap();
    let got: Vec<(&str, u64)> = entries
        .iter()
        .map(|e| (e["method"].as_str().unwrap(), e["status"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        got,
        [("GET", 503), ("POST", 200), ("DELETE", 200), ("GET", 200)]
    );
    let mut previous = 0.0;
    for entry in entries {
        let t_ms = entry["t_ms"].as_f64().unwrap();
        assert!(t_ms >= previous, "arrival order: {entries:?}");
        previous = t_ms;
        let unix_ms = entry["unix_ms"].as_u64().unwrap();
        // The server's clock runs from its start; allow for rounding.
        assert!(
            before.saturating_sub(5) <= unix_ms && unix_ms <= after + 5,
            "{before} <= {unix_ms} <= {after}"
        );
    }

    let unknown = server.get("/api/log?key=nobody").await;
    assert_eq!(unknown.json, json!({"key": "nobody", "entries": []}));
}

#[tokio::test]
async fn reset_forgets_the_key() {
    let server = Server::start().await;
    let path = "/api/flaky?key=rs&fail=1";
    assert_eq!(
        server.get(path).await.status,
        StatusCode::SERVICE_UNAVAILABLE
    );
    assert_eq!(server.get(path).await.status, StatusCode::OK);

    let answer = server.send(Method::POST, "/api/reset?key=rs").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.is_json());
    assert_eq!(answer.json, json!({"key": "rs", "reset": true}));
    assert!(server.log("rs").await.is_empty());

    let again = server.get(path).await;
    assert_eq!(again.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(again.json["attempt"], 1, "the counter starts over");

    let unknown = server.get("/api/reset?key=never-seen").await;
    assert_eq!(unknown.json, json!({"key": "never-seen", "reset": true}));
}

#[tokio::test]
async fn keys_are_independent_and_may_hold_any_characters() {
    let server = Server::start().await;
    let odd = "k é/&=?#%+ ✓";
    let path = format!("/api/flaky?key={}&fail=1", encode(odd));
    let answer = server.get(&path).await;
    assert_eq!(answer.json["key"], odd);
    assert_eq!(answer.json["attempt"], 1);
    let other = server.get("/api/flaky?key=k&fail=1").await;
    assert_eq!(other.json["attempt"], 1);
    let longest = "k".repeat(200);
    let answer = server
        .get(&format!("/api/flaky?key={longest}&fail=0"))
        .await;
    assert_eq!(answer.status, StatusCode::OK);
}
