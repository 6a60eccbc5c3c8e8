//! What a run reports: its metrics and its per-slot series.

/// A run's numbers. Counts are `f64` so that means over runs share the type.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Metrics {
    /// Logical requests issued.
    pub requests: f64,
    /// Attempts that reached the server.
    pub total_attempts: f64,
    /// Requests that succeeded.
    pub successes: f64,
    /// Requests that stopped without success (attempts, deadline, not retryable, hint too long).
    pub gave_up: f64,
    /// Requests stopped by the retry budget (before their first attempt or a retry).
    pub budget_rejected: f64,
    /// `total_attempts / requests` of one run; over several runs (`run_many`), the mean of
    /// the runs' own, over the runs that had requests (so it may differ from the mean
    /// `total_attempts / requests`, as the README's CSV notes say).
    pub amplification: f64,
    /// The most attempts in any 100 ms, ×10.
    pub peak_rps: f64,
    /// The same, counting only attempts from the outage's end on (from the start without
    /// an outage, [`SimSettings::has_outage`](super::SimSettings::has_outage)).
    pub peak_recovery_rps: f64,
    /// When the last request finished (ms).
    pub completion_ms: f64,
    /// From the outage's end (the start without one) until the server again serves what
    /// is offered (ms).
    pub recovery_ms: f64,
    /// Median latency of successful requests, retries and waits included (ms).
    pub p50_ms: Option<f64>,
    /// 99th percentile of the same (ms).
    pub p99_ms: Option<f64>,
    /// Mean of the same (ms).
    pub mean_ms: Option<f64>,
    /// `aws-occ`: writes that reached the server; otherwise equal to `total_attempts`.
    pub calls: f64,
    /// Attempts the client gave up on at its timeout.
    pub timeouts: f64,
    /// Requests the servers served whose answer reached their client after it had given
    /// that attempt up (finished after its timeout, or still on the way back when it
    /// fired): work nobody used.
    pub wasted: f64,
    /// Successful requests per second of the run's simulated time: to `completion_ms`, or
    /// to the servers' last finish when they worked on for clients that had left (the span
    /// of `throughput_rps`, so the two compare).
    pub goodput_rps: f64,
    /// Requests the servers finished serving per second of the run's simulated time (as
    /// for `goodput_rps`), wasted work included: never below `goodput_rps`.
    pub throughput_rps: f64,
    /// The most requests waiting in queues at once, all servers together.
    pub max_queue: f64,
    /// Attempts that reached the last layer of the chain of services (`total_attempts`
    /// counts the first layer's); equal to `total_attempts` with one layer.
    pub bottom_attempts: f64,
    // Safety nets (issue #12).
    /// Requests stopped by an open circuit breaker (before their first attempt or a retry).
    pub breaker_rejected: f64,
    /// Requests stopped by adaptive throttling (before their first attempt or a retry).
    pub throttled: f64,
    /// Extra attempts sent as hedges (already in `total_attempts`): with one hedge per
    /// request at most, the fraction of requests that were hedged is `hedges / requests`.
    pub hedges: f64,
}

impl Metrics {
    /// The mean of `runs`, field by field (p50/p99 over the runs that have them, and
    /// amplification over the runs that had requests).
    pub fn mean(runs: &[Metrics]) -> Metrics {
        let n = runs.len().max(1) as f64;
        let avg = |f: fn(&Metrics) -> f64| runs.iter().map(f).sum::<f64>() / n;
        let avg_opt = |f: fn(&Metrics) -> Option<f64>| {
            let xs: Vec<f64> = runs.iter().filter_map(f).collect();
            (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
        };
        Metrics {
            requests: avg(|m| m.requests),
            total_attempts: avg(|m| m.total_attempts),
            successes: avg(|m| m.successes),
            gave_up: avg(|m| m.gave_up),
            budget_rejected: avg(|m| m.budget_rejected),
            // A ratio per request: over the runs that made one (a run of none has no
            // amplification, not one of 0: a steady client's single second made the mean of
            // a thousand runs of first attempts only 0.406).
            amplification: avg_opt(|m| (m.requests > 0.0).then_some(m.amplification))
                .unwrap_or(0.0),
            peak_rps: avg(|m| m.peak_rps),
            peak_recovery_rps: avg(|m| m.peak_recovery_rps),
            completion_ms: avg(|m| m.completion_ms),
            recovery_ms: avg(|m| m.recovery_ms),
            p50_ms: avg_opt(|m| m.p50_ms),
            p99_ms: avg_opt(|m| m.p99_ms),
            mean_ms: avg_opt(|m| m.mean_ms),
            calls: avg(|m| m.calls),
            timeouts: avg(|m| m.timeouts),
            wasted: avg(|m| m.wasted),
            goodput_rps: avg(|m| m.goodput_rps),
            throughput_rps: avg(|m| m.throughput_rps),
            max_queue: avg(|m| m.max_queue),
            bottom_attempts: avg(|m| m.bottom_attempts),
            breaker_rejected: avg(|m| m.breaker_rejected),
            throttled: avg(|m| m.throttled),
            hedges: avg(|m| m.hedges),
        }
    }
}

/// The per-slot series, as slices into the simulation's own buffers.
#[derive(Debug, Clone, Copy)]
pub struct Series<'a> {
    /// Slot width (ms).
    pub slot_ms: f64,
    /// Attempts that reached a server.
    pub offered: &'a [u32],
    /// Requests a server finished serving (the throughput), counted when they finished,
    /// wasted work included (`aws-occ`: writes that won).
    pub served: &'a [u32],
    /// Attempts rejected for overload: a full queue, or a queue timeout (`aws-occ`:
    /// conflicting writes).
    pub rejected: &'a [u32],
    /// Attempts failed by the outage or by the fail rate.
    pub failed: &'a [u32],
    /// Requests or retries blocked by a net: the budget, the breaker, the throttle.
    pub blocked: &'a [u32],
    /// Successful requests, counted when the answer reached the client (the goodput).
    pub goodput: &'a [u32],
    /// Attempts the client gave up on at its timeout, counted when it did.
    pub timed_out: &'a [u32],
    /// Requests a server finished after their client had given up on them.
    pub wasted: &'a [u32],
    /// Requests waiting in queues at the slot's end, all servers together.
    pub queued: &'a [u32],
}

#[cfg(test)]
mod tests {
    use super::Metrics;

    /// A run of no requests has no amplification: the mean leaves it out, as the latencies
    /// leave out a run of no success (a steady client's single second made a thousand runs'
    /// mean of first attempts only 0.406).
    #[test]
    fn the_mean_amplification_is_over_the_runs_with_requests() {
        let run = |requests: f64, attempts: f64| Metrics {
            requests,
            total_attempts: attempts,
            amplification: if requests > 0.0 {
                attempts / requests
            } else {
                0.0
            },
            ..Metrics::default()
        };
        let m = Metrics::mean(&[run(2.0, 2.0), run(0.0, 0.0), run(1.0, 3.0), run(0.0, 0.0)]);
        assert_eq!(m.amplification, 2.0);
        assert_eq!((m.requests, m.total_attempts), (0.75, 1.25));
        assert_eq!(
            Metrics::mean(&[run(0.0, 0.0), run(0.0, 0.0)]).amplification,
            0.0
        );
        assert_eq!(Metrics::mean(&[]).amplification, 0.0);
    }
}
