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
