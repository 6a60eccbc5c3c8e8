//! The two clocks a decision reads.

/// "Now" on both of the clocks a retry decision needs, in milliseconds.
///
/// One clock cannot do both jobs:
///
/// - A `Retry-After` HTTP-date (`Wed, 21 Oct 2026 07:28:00 GMT`) is a point in *wall-clock*
///   time; turning it into a delay needs the current time since the Unix epoch. Give it a
///   monotonic reading (a process's uptime, `performance.now()`) and every dated hint looks
///   decades away, longer than any `max_retry_after`, and the policy gives up on a server
///   that asked for a three-second wait.
/// - The budget's refill, the deadline (`max_elapsed`) and the attempt's start measure
///   *intervals*, which need a *monotonic* clock. Give them wall-clock time and an NTP step
///   or a user changing the clock moves them: a jump forward refills the budget and expires
///   the deadline at once; a jump back freezes the refill and extends the deadline.
///
/// So [`Policy::decide`](super::Policy::decide) takes both: `wall_ms` is read only to
/// resolve an HTTP-date, and everything else runs on `mono_ms`. Natively, `mono_ms` can be
/// milliseconds since a fixed [`std::time::Instant`] and `wall_ms` milliseconds since
/// [`std::time::UNIX_EPOCH`] from [`std::time::SystemTime`]; in a browser,
/// `performance.now()` and `Date.now()`. A simulation whose time is its own passes the
/// same number for both ([`Now::simulated`]).
///
/// ```
/// use stampede::policy::Now;
/// // 12.5 s after the process started, at 08:45:00 UTC on 3 December 2026.
/// let now = Now::new(12_500.0, 1_796_287_500_000.0);
/// assert_eq!(now.mono_ms, 12_500.0);
/// assert_eq!(Now::simulated(40.0), Now::new(40.0, 40.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Now {
    /// A monotonic clock (ms, any origin, never running backwards): the budget, the deadline
    /// and every interval. It must be the clock [`Policy::start`](super::Policy::start),
    /// [`Policy::admit`](super::Policy::admit) and the request's budget were given.
    pub mono_ms: f64,
    /// Wall-clock time, ms since the Unix epoch: read only to turn a `Retry-After`
    /// HTTP-date into a delay.
    pub wall_ms: f64,
}

impl Now {
    /// Now on a monotonic clock and on the wall clock.
    pub const fn new(mono_ms: f64, wall_ms: f64) -> Self {
        Now { mono_ms, wall_ms }
    }

    /// One clock for both: a simulation's time, which nothing outside it can move and which
    /// is its own epoch. (Its server sends `Retry-After` in delta-seconds, so no HTTP-date
    /// is read against it.)
    pub const fn simulated(t_ms: f64) -> Self {
        Now {
            mono_ms: t_ms,
            wall_ms: t_ms,
        }
    }
}
