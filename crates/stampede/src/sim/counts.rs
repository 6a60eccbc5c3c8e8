//! What the engine counts as a run goes (requests, attempts, outcomes, what each net
//! refused), and the run's [`Metrics`] made from it. A child of `herd.rs`, whose parts
//! (and `layers.rs`, `hedged.rs`) add to the counts directly.

use crate::sim::Metrics;
use crate::sim::record::Recorder;

/// The engine's tallies.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counts {
    pub(super) requests: u64,
    /// Attempts that reached layer 1, counted only with more than one layer (with one,
    /// they are the bottom's).
    pub(super) attempts: u64,
    pub(super) bottom_attempts: u64,
    pub(super) successes: u64,
    pub(super) gave_up: u64,
    pub(super) budget_rejected: u64,
    pub(super) breaker_rejected: u64,
    pub(super) throttled: u64,
    pub(super) timeouts: u64,
    pub(super) wasted: u64,
    pub(super) served: u64,
    pub(super) hedges: u64,
    pub(super) completion: f64,
    /// When a server last finished a request: after `completion` when the servers still
    /// work for clients that have left (wasted work).
    pub(super) served_until: f64,
}

impl Counts {
    /// The run's metrics: these counts, with the recorder's peaks, latencies and
    /// recovery, and the longest the queues were. With one layer, every attempt is the
    /// bottom's (layer 1's are not counted apart).
    pub(super) fn metrics(self, one_layer: bool, rec: &mut Recorder, max_queued: u32) -> Metrics {
        let mut c = self;
        if one_layer {
            c.attempts = c.bottom_attempts;
        }
        let (p50, p99) = rec.percentiles();
        let span = c.completion.max(c.served_until);
        let requests = c.requests as f64;
        let per_s = |n: u64, over: f64| {
            if over > 0.0 {
                n as f64 * 1000.0 / over
            } else {
                0.0
            }
        };
        Metrics {
            requests,
            total_attempts: c.attempts as f64,
            successes: c.successes as f64,
            gave_up: c.gave_up as f64,
            budget_rejected: c.budget_rejected as f64,
            amplification: if c.requests > 0 {
                c.attempts as f64 / requests
            } else {
                0.0
            },
            peak_rps: rec.peak.peak_rps(),
            peak_recovery_rps: rec.peak.recovery_rps(),
            completion_ms: c.completion,
            recovery_ms: rec.recovery_ms(),
            p50_ms: p50,
            p99_ms: p99,
            mean_ms: rec.mean_latency(),
            calls: c.attempts as f64,
            timeouts: c.timeouts as f64,
            wasted: c.wasted as f64,
            // Both over the run's whole time, the servers' too: work finished for clients
            // that had left counts, and so does the time it took (over `completion` alone, a
            // fleet of 10 rps showed 26.6 with clients that time out). One span for both, so
            // that they compare: throughput is never below goodput (with goodput over
            // `completion` alone, a few hedges lost long after the last client's answer put a
            // fleet's throughput at 1,518 against a goodput of 1,995).
            goodput_rps: per_s(c.successes, span),
            throughput_rps: per_s(c.served, span),
            max_queue: f64::from(max_queued),
            bottom_attempts: c.bottom_attempts as f64,
            breaker_rejected: c.breaker_rejected as f64,
            throttled: c.throttled as f64,
            hedges: c.hedges as f64,
        }
    }
}
