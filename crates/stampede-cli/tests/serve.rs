//! Integration tests of `stampede serve`: the real app on a loopback port,
//! talked to over HTTP with reqwest (and, for a chunked body, a raw socket).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use stampede_cli::serve::{
    AppConfig, MAX_BODY_BYTES, SHUTDOWN_GRACE, app, app_with, serve, serve_with,
};
use tokio::net::TcpListener;

/// The built page's files, as the test site holds them.
const INDEX_HTML: &str = "<!doctype html><title>Stampede test page</title><div id=app></div>";
const ASSET_PATH: &str = "assets/app-abc123.js";

fn asset_js() -> String {
    // Big (well over 1 KiB) and repetitive, so the compression layer compresses it.
    "export const retry = (attempt) => Math.min(100 * 2 ** attempt, 10000);\n".repeat(64)
}

fn wasm_bytes() -> Vec<u8> {
    let mut bytes = b"\0asm\x01\0\0\0".to_vec();
    bytes.extend(std::iter::repeat_n(0u8, 2048));
    bytes
}

/// A temporary static directory, removed on drop.
struct Site {
    dir: PathBuf,
}

impl Site {
    fn unique_dir(name: &str) -> PathBuf {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        std::env::temp_dir().join(format!(
            "stampede-serve-test-{}-{}-{name}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ))
    }

    /// A built page: `index.html`, a hashed asset and a `.wasm` file.
    fn built() -> Self {
        let site = Self::without_index();
        std::fs::write(site.dir.join("index.html"), INDEX_HTML).unwrap();
        std::fs::write(site.dir.join("x.wasm"), wasm_bytes()).unwrap();
        site
    }

    /// A directory with an asset but no `index.html`.
    fn without_index() -> Self {
        let dir = Self::unique_dir("site");
        std::fs::create_dir_all(dir.join("assets")).unwrap();
        std::fs::write(dir.join(ASSET_PATH), asset_js()).unwrap();
        Self { dir }
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A running app on `127.0.0.1:0`; it stops with the test's runtime.
struct Server {
    base: String,
    addr: std::net::SocketAddr,
    client: reqwest::Client,
    _site: Option<Site>,
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

impl Server {
    async fn start() -> Self {
        let site = Site::built();
        let router = app(&site.dir);
        Self::on(router, Some(site)).await
    }

    async fn with_config(config: AppConfig) -> Self {
        let site = Site::built();
        let router = app_with(&site.dir, config);
        Self::on(router, Some(site)).await
    }

    async fn on(router: axum::Router, site: Option<Site>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, router).await });
        Self {
            base: format!("http://{addr}"),
            addr,
            client: client(),
            _site: site,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    async fn send(&self, method: Method, path: &str) -> Answer {
        Answer::from(
            self.client
                .request(method, self.url(path))
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    async fn get(&self, path: &str) -> Answer {
        self.send(Method::GET, path).await
    }

    /// `/api/log?key=KEY` as (method, status) pairs.
    async fn log(&self, key: &str) -> Vec<(String, u16)> {
        let answer = self.get(&format!("/api/log?key={}", encode(key))).await;
        assert_eq!(answer.status, StatusCode::OK);
        assert_eq!(answer.json["key"], key);
        answer.json["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["method"].as_str().unwrap().to_owned(),
                    u16::try_from(e["status"].as_u64().unwrap()).unwrap(),
                )
            })
            .collect()
    }
}

/// A response, read whole.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
    /// The body as JSON, or `Null` if it is not JSON.
    json: Value,
}

impl Answer {
    async fn from(response: reqwest::Response) -> Self {
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await.unwrap().to_vec();
        let json = serde_json::from_slice(&body).unwrap_or(Value::Null);
        Self {
            status,
            headers,
            body,
            json,
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    fn is_json(&self) -> bool {
        self.header("content-type")
            .is_some_and(|ct| ct.starts_with("application/json"))
    }
}

/// Percent-encodes a query value.
fn encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

fn unix_ms_now() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

// ---------------------------------------------------------------------------
// Demo API: happy paths

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
    tokio::time::sleep(Duration::from_millis(350).saturating_sub(start.elapsed())).await;
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

// ---------------------------------------------------------------------------
// Demo API: bad input

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

#[tokio::test]
async fn unknown_api_paths_are_json_404s() {
    let server = Server::start().await;
    let answer = server.get("/api/nope").await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert!(answer.is_json());
    assert!(answer.json["error"].as_str().unwrap().contains("/api/nope"));
}

#[tokio::test]
async fn unknown_query_parameters_are_ignored() {
    let server = Server::start().await;
    let answer = server.get("/api/flaky?key=extra&fail=0&colour=blue").await;
    assert_eq!(answer.status, StatusCode::OK);
}

// ---------------------------------------------------------------------------
// Demo API: body limit

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
    let huge = Answer::from(post(4 * 1024 * 1024, "huge").await.unwrap()).await;
    assert_eq!(huge.status, StatusCode::PAYLOAD_TOO_LARGE);
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

// ---------------------------------------------------------------------------
// Demo API: bounded state

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
    for method in [b"UPDATEREDIRECTREF".to_vec(), vec![b'X'; 100_000]] {
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

// ---------------------------------------------------------------------------
// CORS

fn assert_cors(answer: &Answer, what: &str) {
    assert_eq!(
        answer.header("access-control-allow-origin"),
        Some("*"),
        "{what}"
    );
    let exposed = answer
        .header("access-control-expose-headers")
        .unwrap_or_default()
        .to_ascii_lowercase();
    let exposed: Vec<&str> = exposed.split(',').map(str::trim).collect();
    assert!(exposed.contains(&"retry-after"), "{what}: {exposed:?}");
    assert!(
        exposed.contains(&"grpc-retry-pushback-ms"),
        "{what}: {exposed:?}"
    );
}

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

// ---------------------------------------------------------------------------
// Caching of API answers

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

// ---------------------------------------------------------------------------
// Static files

#[tokio::test]
async fn the_page_is_served_with_no_cache() {
    let server = Server::start().await;
    for path in ["/", "/index.html"] {
        let answer = server.get(path).await;
        assert_eq!(answer.status, StatusCode::OK, "{path}");
        assert!(
            answer
                .header("content-type")
                .unwrap()
                .starts_with("text/html")
        );
        assert_eq!(answer.body, INDEX_HTML.as_bytes(), "{path}");
        assert_eq!(answer.header("cache-control"), Some("no-cache"), "{path}");
    }
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_other_files_are_not() {
    let server = Server::start().await;
    let asset = server.get(&format!("/{ASSET_PATH}")).await;
    assert_eq!(asset.status, StatusCode::OK);
    assert!(asset.header("content-type").unwrap().contains("javascript"));
    assert_eq!(
        asset.header("cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(asset.body, asset_js().as_bytes());

    let missing = server.get("/assets/app-000000.js").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert_eq!(
        missing.header("cache-control"),
        Some("no-cache"),
        "a 404 must not be cached for a year"
    );
    let wasm = server.get("/x.wasm").await;
    assert_eq!(wasm.header("cache-control"), Some("no-cache"));
}

#[tokio::test]
async fn wasm_is_served_as_application_wasm() {
    let server = Server::start().await;
    let answer = server.get("/x.wasm").await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header("content-type"), Some("application/wasm"));
    assert_eq!(answer.body, wasm_bytes());
}

#[tokio::test]
async fn files_are_compressed_when_the_client_accepts_it() {
    let server = Server::start().await;
    let fetch = |path: &'static str, accept: Option<&'static str>| {
        let mut request = server.client.get(server.url(path));
        if let Some(accept) = accept {
            request = request.header("accept-encoding", accept);
        }
        request.send()
    };
    let asset = "/assets/app-abc123.js";
    let gzip = Answer::from(fetch(asset, Some("gzip")).await.unwrap()).await;
    assert_eq!(gzip.header("content-encoding"), Some("gzip"));
    assert_eq!(&gzip.body[..2], [0x1f, 0x8b], "gzip magic");
    assert!(gzip.body.len() < asset_js().len());

    let br = Answer::from(fetch(asset, Some("br")).await.unwrap()).await;
    assert_eq!(br.header("content-encoding"), Some("br"));
    assert!(br.body.len() < asset_js().len());

    let wasm = Answer::from(fetch("/x.wasm", Some("gzip")).await.unwrap()).await;
    assert_eq!(
        wasm.header("content-encoding"),
        Some("gzip"),
        "wasm is compressed too"
    );
    assert_eq!(wasm.header("content-type"), Some("application/wasm"));

    let plain = Answer::from(fetch(asset, None).await.unwrap()).await;
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(plain.body, asset_js().as_bytes());
}

#[tokio::test]
async fn a_missing_static_dir_gets_the_not_built_page_and_the_api_still_works() {
    let missing = Site::unique_dir("missing");
    let server = Server::on(app(&missing), None).await;
    let page = server.get("/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(
        page.header("content-type")
            .unwrap()
            .starts_with("text/html")
    );
    assert_eq!(page.header("cache-control"), Some("no-cache"));
    let text = String::from_utf8(page.body).unwrap();
    assert!(text.contains("not built yet"), "{text}");
    assert!(text.contains("make run"), "{text}");

    let health = server.get("/api/health").await;
    assert_eq!(health.json, json!({"ok": true}));
    let flaky = server.get("/api/flaky?key=nb&fail=1").await;
    assert_eq!(flaky.status, StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(server.get("/other.js").await.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn a_static_dir_without_index_html_gets_the_not_built_page() {
    let site = Site::without_index();
    let router = app(&site.dir);
    let server = Server::on(router, Some(site)).await;
    let page = server.get("/").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(String::from_utf8(page.body).unwrap().contains("make run"));
    // What is there is still served.
    let asset = server.get(&format!("/{ASSET_PATH}")).await;
    assert_eq!(asset.status, StatusCode::OK);
}

// ---------------------------------------------------------------------------
// Shutdown

#[tokio::test]
async fn shutdown_finishes_the_requests_in_flight() {
    let site = Site::built();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let dir: &Path = &site.dir;
    let dir = dir.to_owned();
    let server = tokio::spawn(async move {
        serve(listener, &dir, async {
            let _ = stopped.await;
        })
        .await
    });
    let base = format!("http://{addr}");
    let http = client();
    let in_flight = tokio::spawn({
        let http = http.clone();
        let url = format!("{base}/api/slow?ms=500&key=in-flight");
        async move { http.get(url).send().await }
    });
    // Wait until the slow request has arrived (it is logged on arrival).
    wait_until_logged(&http, &base, "in-flight").await;
    stop.send(()).unwrap();

    let response = in_flight.await.unwrap().unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body, json!({"slept_ms": 500}));
    let result = tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("the server stops once the in-flight request is answered");
    result.unwrap().unwrap();
    // New connections are refused now.
    assert!(
        client()
            .get(format!("{base}/api/health"))
            .send()
            .await
            .is_err()
    );
}

/// Starts `serve_with` on a loopback port with a slow request in flight;
/// returns the server's task, its shutdown and force triggers, and the slow
/// request's task.
async fn serve_with_a_slow_request(
    site: &Site,
    grace: Duration,
    slow_ms: u64,
) -> (
    tokio::task::JoinHandle<std::io::Result<()>>,
    tokio::sync::oneshot::Sender<()>,
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<reqwest::Result<reqwest::Response>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (force, forced) = tokio::sync::oneshot::channel::<()>();
    let dir = site.dir.clone();
    let server = tokio::spawn(async move {
        serve_with(
            listener,
            &dir,
            async {
                let _ = stopped.await;
            },
            async {
                let _ = forced.await;
            },
            grace,
        )
        .await
    });
    let http = client();
    let in_flight = tokio::spawn({
        let http = http.clone();
        let url = format!("{base}/api/slow?ms={slow_ms}&key=slow");
        async move { http.get(url).send().await }
    });
    wait_until_logged(&http, &base, "slow").await;
    (server, stop, force, in_flight)
}

/// Waits until the server's log for `key` is not empty.
async fn wait_until_logged(http: &reqwest::Client, base: &str, key: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let log: Value = http
            .get(format!("{base}/api/log?key={key}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        if !log["entries"].as_array().unwrap().is_empty() {
            return;
        }
        assert!(Instant::now() < deadline, "{key} never arrived");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn shutdown_stops_waiting_for_requests_in_flight_after_the_grace_period() {
    let site = Site::built();
    let grace = Duration::from_millis(300);
    let (server, stop, _force, in_flight) = serve_with_a_slow_request(&site, grace, 10_000).await;
    let start = Instant::now();
    stop.send(()).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(5), server)
        .await
        .expect("the server stops after its grace period, not after the slow request");
    result.unwrap().unwrap();
    let elapsed = start.elapsed();
    assert!(elapsed >= grace - Duration::from_millis(20), "{elapsed:?}");
    assert!(
        !in_flight.is_finished(),
        "the slow request was not answered"
    );
}

#[tokio::test]
async fn force_stops_the_server_at_once_during_the_grace_period() {
    let site = Site::built();
    let (server, stop, force, _in_flight) =
        serve_with_a_slow_request(&site, Duration::from_secs(60), 10_000).await;
    stop.send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!server.is_finished(), "still draining");
    let start = Instant::now();
    force.send(()).unwrap();
    let result = tokio::time::timeout(Duration::from_secs(5), server)
        .await
        .expect("force stops the server at once");
    result.unwrap().unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
}

// ---------------------------------------------------------------------------
// The real binary: default address, signals

/// `stampede serve` as a child process, killed on drop if still running.
#[cfg(unix)]
struct Binary {
    child: std::process::Child,
    /// The address it announced on stdout.
    addr: std::net::SocketAddr,
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    _site: Site,
}

#[cfg(unix)]
impl Binary {
    /// Starts `stampede serve --static SITE --addr ADDR` and waits for the
    /// address it announces.
    fn start(addr: &str) -> Self {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let site = Site::built();
        let mut child = Command::new(env!("CARGO_BIN_EXE_stampede"))
            .args(["serve", "--addr", addr, "--static"])
            .arg(&site.dir)
            .env("RUST_LOG", "info")
            .env_remove("NO_COLOR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
        let sink = std::sync::Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut line = String::new();
            while err.read_line(&mut line).is_ok_and(|n| n > 0) {
                sink.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
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

    fn base(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    fn signal(&self, name: &str) {
        let status = std::process::Command::new("kill")
            .args(["-s", name, &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "kill -s {name}");
    }

    /// Waits up to `limit` for the process to exit.
    async fn exit_within(&mut self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        None
    }

    /// Waits up to `limit` for stderr to contain `needle`.
    async fn logged(&self, needle: &str, limit: Duration) -> bool {
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

/// Another address is bound when given: all of 127.0.0.0/8 is loopback on
/// Linux, so 127.0.0.2 tells an explicit address from the default one without
/// leaving the machine.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn an_explicit_addr_is_bound_as_given() {
    let mut binary = Binary::start("127.0.0.2:0");
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
    binary.signal("TERM");
    let status = binary.exit_within(Duration::from_secs(10)).await;
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(0),
        "{}",
        binary.stderr()
    );
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
    assert!(stderr.contains("SIGTERM: shutting down"), "{stderr}");
    assert!(
        stderr.contains("stopped with requests still in flight"),
        "{stderr}"
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
