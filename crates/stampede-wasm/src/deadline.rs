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

#[cfg(test)]
mod tests {
    use super::now_at_deadline as at;

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
