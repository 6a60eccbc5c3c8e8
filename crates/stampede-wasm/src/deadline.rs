//! The deadline as JavaScript's timers see it, for both `retryFetch` drivers (the full
//! entry's `fetch.rs` and `fetch/hedged.rs`, the slim entry's `call.rs`), retrying or
//! hedging.

/// The clock reading a decision uses after an attempt ended at `now`: the deadline itself
/// when the deadline's own timer ended it (`deadline_fired`: it timed out, and its timeout
/// was what was left before the deadline). Timers may fire early on the monotonic clock (a
/// fraction of a millisecond in a browser; in Node, by as much as its event loop's cached
/// time is stale, several ms under load), and a retry or hedge decided then would slip in
/// just before the deadline with no time left to run.
pub(crate) fn now_at_deadline(deadline: Option<f64>, deadline_fired: bool, now: f64) -> f64 {
    match deadline {
        Some(d) if deadline_fired => now.max(d),
        _ => now,
    }
}

/// An attempt's timeout when it starts `elapsed` ms into the call: `attempt_timeout`, or
/// what is left before the call's `deadline` (`deadlineMs`), whichever is sooner, at
/// least 1 ms; and whether it is the deadline's. `policy.maxElapsedMs` plays no part: it
/// stops retries from starting, not attempts from running (p-retry's `maxRetryTime`).
pub(crate) fn attempt_timeout(
    attempt_timeout: Option<f64>,
    deadline: Option<f64>,
    elapsed: f64,
) -> (Option<f64>, bool) {
    let remaining = deadline.map(|d| (d - elapsed).max(1.0));
    let timeout = match (attempt_timeout, remaining) {
        (Some(a), Some(r)) => Some(a.min(r)),
        (a, r) => a.or(r),
    };
    (timeout, remaining.is_some_and(|r| timeout == Some(r)))
}

#[cfg(test)]
mod tests {
    use super::attempt_timeout;
    use super::now_at_deadline as at;

    #[test]
    fn an_attempt_runs_until_its_timeout_or_the_deadline() {
        assert_eq!(attempt_timeout(None, None, 50.0), (None, false));
        assert_eq!(
            attempt_timeout(Some(300.0), None, 50.0),
            (Some(300.0), false)
        );
        assert_eq!(
            attempt_timeout(None, Some(200.0), 50.0),
            (Some(150.0), true)
        );
        assert_eq!(
            attempt_timeout(Some(100.0), Some(200.0), 50.0),
            (Some(100.0), false)
        );
        assert_eq!(
            attempt_timeout(Some(300.0), Some(200.0), 50.0),
            (Some(150.0), true)
        );
        // Past the deadline (a late timer): a last millisecond, never 0 or less.
        assert_eq!(attempt_timeout(None, Some(200.0), 250.0), (Some(1.0), true));
    }

    #[test]
    fn the_deadlines_own_timer_ends_at_the_deadline() {
        // However early it fired.
        assert_eq!(at(Some(100.0), true, 99.2), 100.0);
        assert_eq!(at(Some(100.0), true, 93.0), 100.0);
        assert_eq!(at(Some(100.0), true, 100.5), 100.5);
        // Another ending, or no deadline: the clock as it reads.
        assert_eq!(at(Some(100.0), false, 99.5), 99.5);
        assert_eq!(at(None, true, 99.5), 99.5);
    }
}
