//! Helpers shared by the test modules: a temporary site, a running app, and
//! answers read whole.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use serde_json::Value;
use stampede_cli::serve::{AppConfig, Limits, app, app_with, serve_app};
use tokio::net::TcpListener;

/// The built page's files, as the test site holds them.
pub(crate) const INDEX_HTML: &str =
    "<!doctype html><title>Stampede test page</title><div id=app></div>";
pub(crate) const ASSET_PATH: &str = "assets/app-abc123.js";

pub(crate) fn asset_js() -> String {
    // Big (well over 1 KiB) and repetitive, so the compression layer compresses it.
    "export const retry = (attempt) => Math.min(100 * 2 ** attempt, 10000);\n".repeat(64)
}

pub(crate) fn wasm_bytes() -> Vec<u8> {
    let mut bytes = b"\0asm\x01\0\0\0".to_vec();
    bytes.extend(std::iter::repeat_n(0u8, 2048));
    bytes
}

/// A temporary static directory, removed on drop.
pub(crate) struct Site {
    pub(crate) dir: PathBuf,
}

impl Site {
    pub(crate) fn unique_dir(name: &str) -> PathBuf {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        std::env::temp_dir().join(format!(
            "stampede-serve-test-{}-{}-{name}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ))
    }

    /// A built page: `index.html`, a hashed asset and a `.wasm` file.
    pub(crate) fn built() -> Self {
        let site = Self::without_index();
        std::fs::write(site.dir.join("index.html"), INDEX_HTML).unwrap();
        std::fs::write(site.dir.join("x.wasm"), wasm_bytes()).unwrap();
        site
    }

    /// A directory with an asset but no `index.html`.
    pub(crate) fn without_index() -> Self {
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

/// A running app on `127.0.0.1:0`, served by the hardened server loop with
/// the default limits; it stops with the test's runtime.
pub(crate) struct Server {
    pub(crate) base: String,
    pub(crate) addr: std::net::SocketAddr,
    pub(crate) client: reqwest::Client,
    _site: Option<Site>,
}

pub(crate) fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap()
}

impl Server {
    pub(crate) async fn start() -> Self {
        let site = Site::built();
        let router = app(&site.dir);
        Self::on(router, Some(site)).await
    }

    pub(crate) async fn with_config(config: AppConfig) -> Self {
        let site = Site::built();
        let router = app_with(&site.dir, config);
        Self::on(router, Some(site)).await
    }

    pub(crate) async fn on(router: axum::Router, site: Option<Site>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(serve_app(
            listener,
            router,
            Limits::default(),
            std::future::pending(),
            std::future::pending(),
        ));
        Self {
            base: format!("http://{addr}"),
            addr,
            client: client(),
            _site: site,
        }
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub(crate) async fn send(&self, method: Method, path: &str) -> Answer {
        Answer::from(
            self.client
                .request(method, self.url(path))
                .send()
                .await
                .unwrap(),
        )
        .await
    }

    pub(crate) async fn get(&self, path: &str) -> Answer {
        self.send(Method::GET, path).await
    }

    /// `/api/log?key=KEY` as (method, status) pairs.
    pub(crate) async fn log(&self, key: &str) -> Vec<(String, u16)> {
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
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Vec<u8>,
    /// The body as JSON, or `Null` if it is not JSON.
    pub(crate) json: Value,
}

impl Answer {
    pub(crate) async fn from(response: reqwest::Response) -> Self {
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

    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    pub(crate) fn is_json(&self) -> bool {
        self.header("content-type")
            .is_some_and(|ct| ct.starts_with("application/json"))
    }
}

/// Percent-encodes a query value.
pub(crate) fn encode(value: &str) -> String {
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

pub(crate) fn unix_ms_now() -> u64 {
    u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// Waits until the server's log for `key` is not empty.
pub(crate) async fn wait_until_logged(http: &reqwest::Client, base: &str, key: &str) {
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

/// Asserts that `answer` carries the open CORS headers, exposing both hints.
pub(crate) fn assert_cors(answer: &Answer, what: &str) {
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
