//! The deadline as JavaScript's timers see it, for both `retryFetch` drivers (the full
//! entry's `fetch/hedged.rs`, the slim entry's `call.rs`).

/// The clock reading a hedged request's decision uses after an attempt ended at `now`:
/// the deadline itself when the attempt timed out within a millisecond before it. Timers
/// count whole milliseconds and may fire a fraction of one early, so the deadline's own
/// timer can end an attempt just short of it; a hedge decided then would be sent with no
/// time left to run (the core sends none at or past the deadline).
pub(crate) fn hedge_now(deadline: Option<f64>, timed_out: bool, now: f64) -> f64 {
    match deadline {
        Some(d) if timed_out && now >= d - 1.0 => now.max(d),
        _ => now,
    }
}

#[cfg(test)]
mod tests {
    use super::hedge_now;

    #[test]
    fn a_timeout_just_short_of_the_deadline_is_at_it() {
        assert_eq!(hedge_now(Some(100.0), true, 99.2), 100.0);
        assert_eq!(hedge_now(Some(100.0), true, 100.5), 100.5);
        // Earlier, or not a timeout, or no deadline: the clock as it reads.
        assert_eq!(hedge_now(Some(100.0), true, 98.9), 98.9);
        assert_eq!(hedge_now(Some(100.0), false, 99.5), 99.5);
        assert_eq!(hedge_now(None, true, 99.5), 99.5);
    }
}
