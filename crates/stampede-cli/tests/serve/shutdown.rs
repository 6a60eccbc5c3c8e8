//! Graceful shutdown of `serve` and `serve_with`: requests in flight, the grace period, force.

use std::path::Path;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{Value, json};
use stampede_cli::serve::{serve, serve_with};
use tokio::net::TcpListener;

use crate::support::{Site, client, wait_until_logged};

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

/// A request in flight, as a task.
type InFlight = tokio::task::JoinHandle<reqwest::Result<reqwest::Response>>;

/// Starts `serve_with` on a loopback port with one `/api/slow` request in
/// flight per entry of `slow_ms`; returns the server's task, its shutdown and
/// force triggers, and the requests' tasks.
async fn serve_with_slow_requests(
    site: &Site,
    grace: Duration,
    slow_ms: &[u64],
) -> (
    tokio::task::JoinHandle<std::io::Result<()>>,
    tokio::sync::oneshot::Sender<()>,
    tokio::sync::oneshot::Sender<()>,
    Vec<InFlight>,
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
    let mut in_flight = Vec::new();
    for (i, ms) in slow_ms.iter().enumerate() {
        let http = http.clone();
        let url = format!("{base}/api/slow?ms={ms}&key=slow-{i}");
        in_flight.push(tokio::spawn(async move { http.get(url).send().await }));
    }
    for i in 0..slow_ms.len() {
        wait_until_logged(&http, &base, &format!("slow-{i}")).await;
    }
    (server, stop, force, in_flight)
}

/// A request in flight, once its connection is closed unanswered: it fails
/// within `limit`.
async fn cut_off_within(request: InFlight, limit: Duration, what: &str) {
    let result = tokio::time::timeout(limit, request)
        .await
        .unwrap_or_else(|_| panic!("{what}: still waiting {limit:?} later"))
        .unwrap();
    assert!(result.is_err(), "{what}: answered: {result:?}");
}

/// During the grace period the server waits for the requests in flight (the
/// short one is answered); when it ends, the server returns and the
/// connections still open are closed (the long one fails at once, not after
/// its 10 s).
#[tokio::test]
async fn shutdown_stops_waiting_for_requests_in_flight_after_the_grace_period() {
    let site = Site::built();
    let grace = Duration::from_millis(800);
    let (server, stop, _force, mut in_flight) =
        serve_with_slow_requests(&site, grace, &[300, 10_000]).await;
    let long = in_flight.pop().unwrap();
    let short = in_flight.pop().unwrap();
    let start = Instant::now();
    stop.send(()).unwrap();
    let response = short.await.unwrap().expect("the short request is answered");
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.json::<Value>().await.unwrap(),
        json!({"slept_ms": 300})
    );
    let result = tokio::time::timeout(Duration::from_secs(5), server)
        .await
        .expect("the server stops after its grace period, not after the slow request");
    result.unwrap().unwrap();
    let elapsed = start.elapsed();
    assert!(elapsed >= grace - Duration::from_millis(20), "{elapsed:?}");
    assert!(elapsed < grace + Duration::from_secs(2), "{elapsed:?}");
    cut_off_within(long, Duration::from_secs(1), "the 10 s request").await;
}

#[tokio::test]
async fn force_stops_the_server_at_once_during_the_grace_period() {
    let site = Site::built();
    let (server, stop, force, mut in_flight) =
        serve_with_slow_requests(&site, Duration::from_secs(60), &[10_000]).await;
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
    let request = in_flight.pop().unwrap();
    cut_off_within(request, Duration::from_secs(1), "the 10 s request").await;
}
