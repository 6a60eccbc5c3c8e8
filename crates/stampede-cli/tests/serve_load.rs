//! A bounded load test of `stampede serve` over loopback: 20,000 requests at
//! concurrency 200, with one shared client (keep-alive), under an overall
//! timeout, against the same server loop and default limits as the binary.
//!
//! Run with `--nocapture` to see the figures, and in release for realistic ones:
//! `cargo test --release -p stampede-cli --test serve_load -- --nocapture`.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::Value;
use stampede_cli::serve::{Limits, app, serve_app};
use tokio::net::TcpListener;

const TASKS: usize = 200;
const REQUESTS_PER_TASK: usize = 100;
const OVERALL_TIMEOUT: Duration = Duration::from_secs(120);

/// Sends one request and checks the answer; returns its latency.
async fn one(client: &reqwest::Client, url: &str, attempt: usize) -> Result<Duration, String> {
    let start = Instant::now();
    let response = client.get(url).send().await.map_err(|e| e.to_string())?;
    if response.status() != StatusCode::OK {
        return Err(format!("{url}: status {}", response.status()));
    }
    let body: Value = response.json().await.map_err(|e| e.to_string())?;
    let elapsed = start.elapsed();
    // Each task owns its key, so its requests are numbered 1, 2, 3, ...
    if body["attempt"] != attempt {
        return Err(format!("{url}: expected attempt {attempt}, got {body}"));
    }
    Ok(elapsed)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_thousand_requests_at_concurrency_200() {
    let static_dir = std::env::temp_dir().join("stampede-serve-load-no-such-dir");
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(serve_app(
        listener,
        app(&static_dir),
        Limits::default(),
        std::future::pending(),
        std::future::pending(),
    ));

    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();

    let run = async {
        let start = Instant::now();
        let tasks: Vec<_> = (0..TASKS)
            .map(|task| {
                let client = client.clone();
                let url = format!("{base}/api/flaky?key=load-{task}&fail=0");
                tokio::spawn(async move {
                    let mut latencies = Vec::with_capacity(REQUESTS_PER_TASK);
                    let mut errors = Vec::new();
                    for attempt in 1..=REQUESTS_PER_TASK {
                        match one(&client, &url, attempt).await {
                            Ok(latency) => latencies.push(latency),
                            Err(error) => errors.push(error),
                        }
                    }
                    (latencies, errors)
                })
            })
            .collect();
        let mut latencies = Vec::with_capacity(TASKS * REQUESTS_PER_TASK);
        let mut errors = Vec::new();
        for task in tasks {
            let (task_latencies, task_errors) = task.await.unwrap();
            latencies.extend(task_latencies);
            errors.extend(task_errors);
        }
        (start.elapsed(), latencies, errors)
    };
    let (elapsed, mut latencies, errors) = tokio::time::timeout(OVERALL_TIMEOUT, run)
        .await
        .expect("the load test finishes within its overall timeout");

    assert!(
        errors.is_empty(),
        "{} errors, first: {:?}",
        errors.len(),
        errors.first()
    );
    assert_eq!(latencies.len(), TASKS * REQUESTS_PER_TASK);
    latencies.sort_unstable();
    let throughput = latencies.len() as f64 / elapsed.as_secs_f64();
    println!(
        "serve load: {} requests at concurrency {TASKS} in {elapsed:.2?}: {throughput:.0} req/s, \
         p50 {:.2?}, p99 {:.2?}, max {:.2?}",
        latencies.len(),
        percentile(&latencies, 0.50),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0),
    );

    // The server-side truth agrees: every request was recorded exactly once.
    for task in [0, TASKS / 2, TASKS - 1] {
        let log: Value = client
            .get(format!("{base}/api/log?key=load-{task}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        let entries = log["entries"].as_array().unwrap();
        assert_eq!(entries.len(), REQUESTS_PER_TASK, "load-{task}");
    }
}
