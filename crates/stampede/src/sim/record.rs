//! What a run writes down: the per-slot series, the attempt log, the peak windows and
//! the latencies of successes. Flat buffers, grown rarely and never per event.

use crate::float;

/// The attempt log's outcome codes (the fourth number of each entry).
pub mod outcome {
    /// Served: the attempt succeeded.
    pub const SERVED: u8 = 0;
    /// Failed because the server was down (the outage).
    pub const OUTAGE: u8 = 1;
    /// Rejected because the server was over capacity.
    pub const OVERLOAD: u8 = 2;
    /// Not sent: the retry budget refused it.
    pub const BUDGET_BLOCKED: u8 = 3;
    /// `aws-occ`: a conditional write that lost the race.
    pub const CONFLICT: u8 = 4;
    /// Failed with 500 by the fail rate.
    pub const ERROR: u8 = 5;
    /// The client gave the attempt up at its timeout (logged at that time).
    pub const TIMEOUT: u8 = 6;
    /// Not sent: the circuit breaker was open.
    pub const BREAKER_BLOCKED: u8 = 7;
    /// Not sent: adaptive throttling rejected it.
    pub const THROTTLED: u8 = 8;
}

/// The longest series kept, in slots: a run that outlasts them at its slot width has its
/// slots widened (doubled, as often as needed), so its series still covers it all.
pub(crate) const MAX_SLOTS: usize = 1 << 20;
/// The widest slot (a day): a time past `MAX_SLOTS` of them is not kept in the series.
const MAX_SLOT_MS: f64 = 86_400_000.0;
/// The most attempt-log entries kept.
pub(crate) const MAX_LOG_ENTRIES: usize = 2_000_000;
/// The width of the peak windows (ms).
pub(crate) const PEAK_WINDOW_MS: i64 = 100;

/// The most arrivals in any window of 100 consecutive whole milliseconds, online: a ring of
/// per-ms counts. Arrivals must come in non-decreasing ms, which the event order gives.
///
/// Two peaks in one ring: of every arrival, and of those at or after `recovery_from` (the
/// outage's end). They share the ring's walk from one millisecond to the next, which is
/// most of the cost of an arrival.
#[derive(Debug, Clone)]
pub(crate) struct PeakWindow {
    /// Per ms: arrivals, and arrivals from `recovery_from`.
    bins: [[u32; 2]; 128],
    last: i64,
    sum: [u64; 2],
    max: [u64; 2],
    recovery_from: f64,
}

impl PeakWindow {
    pub(crate) fn new(recovery_from: f64) -> Self {
        PeakWindow {
            bins: [[0; 2]; 128],
            last: i64::MIN,
            sum: [0; 2],
            max: [0; 2],
            recovery_from,
        }
    }

    #[inline(always)]
    pub(crate) fn add(&mut self, t_ms: f64) {
        let m = t_ms as i64;
        if m > self.last {
            self.walk_to(m);
        }
        let recovery = u32::from(t_ms >= self.recovery_from);
        let bin = &mut self.bins[(self.last & 127) as usize];
        bin[0] += 1;
        bin[1] += recovery;
        self.sum[0] += 1;
        self.sum[1] += u64::from(recovery);
        self.max[0] = self.max[0].max(self.sum[0]);
        self.max[1] = self.max[1].max(self.sum[1]);
    }

    /// Moves the window's end to ms `m` (past the last), emptying the bins it passes.
    #[inline]
    fn walk_to(&mut self, m: i64) {
        // A gap of a whole window leaves nothing in it: start afresh rather than walk
        // the bins one by one (the same state either way).
        if self.last == i64::MIN || m - self.last >= PEAK_WINDOW_MS {
            self.bins = [[0; 2]; 128];
            self.sum = [0; 2];
        } else {
            for k in self.last + 1..=m {
                let old = self.bins[((k - PEAK_WINDOW_MS) & 127) as usize];
                self.sum[0] -= u64::from(old[0]);
                self.sum[1] -= u64::from(old[1]);
                self.bins[(k & 127) as usize] = [0; 2];
            }
        }
        self.last = m;
    }

    /// The peak as a rate per second.
    pub(crate) fn peak_rps(&self) -> f64 {
        self.max[0] as f64 * (1000.0 / PEAK_WINDOW_MS as f64)
    }

    /// The peak of the arrivals from `recovery_from`, as a rate per second.
    pub(crate) fn recovery_rps(&self) -> f64 {
        self.max[1] as f64 * (1000.0 / PEAK_WINDOW_MS as f64)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Recorder {
    inv_slot: f64,
    slot_ms: f64,
    slots: usize,
    pub(crate) offered: Vec<u32>,
    pub(crate) served: Vec<u32>,
    pub(crate) rejected: Vec<u32>,
    pub(crate) failed: Vec<u32>,
    pub(crate) blocked: Vec<u32>,
    pub(crate) goodput: Vec<u32>,
    pub(crate) timed_out: Vec<u32>,
    pub(crate) wasted: Vec<u32>,
    /// The queue length in each slot (at its last change in the slot). Final before
    /// `level_from`; the slots from there on are written at the next change, or by
    /// [`settle_queued`](Self::settle_queued).
    pub(crate) queued: Vec<u32>,
    /// The queue length now, which new slots start from.
    level: u32,
    level_from: usize,
    pub(crate) log: Vec<f32>,
    pub(crate) log_truncated: bool,
    pub(crate) series_truncated: bool,
    pub(crate) peak: PeakWindow,
    pub(crate) latencies: Vec<f32>,
    recovery_from: f64,
    pub(crate) last_overload: Option<f64>,
}

impl Recorder {
    pub(crate) fn new(slot_ms: f64, recovery_from: f64) -> Self {
        Recorder {
            inv_slot: 1.0 / slot_ms,
            slot_ms,
            slots: 0,
            offered: Vec::new(),
            served: Vec::new(),
            rejected: Vec::new(),
            failed: Vec::new(),
            blocked: Vec::new(),
            goodput: Vec::new(),
            timed_out: Vec::new(),
            wasted: Vec::new(),
            queued: Vec::new(),
            level: 0,
            level_from: 0,
            log: Vec::new(),
            log_truncated: false,
            series_truncated: false,
            peak: PeakWindow::new(recovery_from),
            latencies: Vec::new(),
            recovery_from,
            last_overload: None,
        }
    }

    /// Keeps the series in one slot from now on, for a run whose metrics are all anyone
    /// reads (none of them comes from the series): every count lands in slot 0, so the
    /// series never grow, whatever the run's length.
    pub(crate) fn quiet(&mut self) {
        self.inv_slot = 0.0;
    }

    /// Makes room for `log_entries` attempt-log entries and `successes` latencies.
    pub(crate) fn reserve(&mut self, log_entries: usize, successes: usize) {
        self.log.reserve(log_entries.min(MAX_LOG_ENTRIES) * 4);
        self.latencies.reserve(successes);
    }

    /// The bytes [`reserve`](Self::reserve) takes for these.
    pub(crate) fn reserved_bytes(log_entries: usize, successes: usize) -> usize {
        (log_entries.min(MAX_LOG_ENTRIES) * 4 + successes) * 4
    }

    /// The bytes its buffers hold: the series, the log and the latencies (their capacities).
    pub(crate) fn bytes(&self) -> usize {
        let series = [
            &self.offered,
            &self.served,
            &self.rejected,
            &self.failed,
            &self.blocked,
            &self.goodput,
            &self.timed_out,
            &self.wasted,
            &self.queued,
        ];
        let words: usize = series.iter().map(|v| v.capacity()).sum::<usize>()
            + self.log.capacity()
            + self.latencies.capacity();
        words * 4
    }

    pub(crate) fn slot_ms(&self) -> f64 {
        self.slot_ms
    }

    /// The slot of `t_ms`, growing the series to hold it (amortized: rarely reallocates).
    #[inline(always)]
    fn slot(&mut self, t_ms: f64) -> Option<usize> {
        // Through i64: one `cvttsd2si`, where `as usize` costs a dozen instructions (times
        // are never negative; a saturated value is past the bound, as it should be).
        let s = (t_ms * self.inv_slot) as i64;
        if s < self.slots as i64 {
            Some(s as usize)
        } else {
            self.grow(s)
        }
    }

    /// The series that count events per slot (all but the queue's level).
    fn counts_mut(&mut self) -> [&mut Vec<u32>; 8] {
        [
            &mut self.offered,
            &mut self.served,
            &mut self.rejected,
            &mut self.failed,
            &mut self.blocked,
            &mut self.goodput,
            &mut self.timed_out,
            &mut self.wasted,
        ]
    }

    /// Grows every series to hold slot `s`, widening the slots first if `s` is past
    /// [`MAX_SLOTS`] (a long run: the series once stopped there, 2.9 hours into a run of
    /// 10 ms slots, and said nothing); past a day's slots, marks them truncated.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, mut s: i64) -> Option<usize> {
        while s >= MAX_SLOTS as i64 {
            if self.slot_ms * 2.0 > MAX_SLOT_MS {
                self.series_truncated = true;
                return None;
            }
            self.widen();
            // The slot of the same time at twice the width (halving the scale is exact).
            s >>= 1;
        }
        let s = s as usize;
        if s < self.slots {
            return Some(s);
        }
        self.slots = s + 1;
        let slots = self.slots;
        for v in self.counts_mut() {
            v.resize(slots, 0);
        }
        self.queued.resize(slots, self.level);
        Some(s)
    }

    /// Doubles the slots' width: each pair of slots becomes one, its counts summed, its
    /// queue length the later one's (the length at its last change).
    fn widen(&mut self) {
        self.settle_queued();
        for v in self.counts_mut() {
            let n = v.len().div_ceil(2);
            for i in 0..n {
                v[i] = v[2 * i] + v.get(2 * i + 1).copied().unwrap_or(0);
            }
            v.truncate(n);
        }
        let last = self.queued.len().saturating_sub(1);
        let n = self.queued.len().div_ceil(2);
        for i in 0..n {
            self.queued[i] = self.queued[(2 * i + 1).min(last)];
        }
        self.queued.truncate(n);
        self.level_from = self.level_from.div_ceil(2);
        self.slots = self.slots.div_ceil(2);
        self.slot_ms *= 2.0;
        self.inv_slot *= 0.5;
    }

    /// An attempt reached a server at `t_ms`.
    #[inline]
    pub(crate) fn arrival(&mut self, t_ms: f64) {
        self.peak.add(t_ms);
        if let Some(s) = self.slot(t_ms) {
            self.offered[s] += 1;
        }
    }

    /// A server answered an attempt at `t_ms` with `code` (an [`outcome`] code): served
    /// (it finished the work), failed (outage, fail rate) or rejected (overload, conflict).
    #[inline]
    pub(crate) fn answer(&mut self, t_ms: f64, code: u8) {
        if let Some(s) = self.slot(t_ms) {
            match code {
                outcome::SERVED => self.served[s] += 1,
                outcome::OUTAGE | outcome::ERROR => self.failed[s] += 1,
                _ => self.rejected[s] += 1,
            }
        }
        if code == outcome::OVERLOAD && t_ms >= self.recovery_from {
            self.last_overload = Some(self.last_overload.map_or(t_ms, |l| float::max(l, t_ms)));
        }
    }

    /// An attempt reached a server at `t_ms` and was answered at once with `code`.
    #[inline(always)]
    pub(crate) fn attempt(&mut self, t_ms: f64, code: u8) {
        self.peak.add(t_ms);
        if let Some(s) = self.slot(t_ms) {
            self.offered[s] += 1;
            match code {
                outcome::SERVED => self.served[s] += 1,
                outcome::OUTAGE | outcome::ERROR => self.failed[s] += 1,
                _ => self.rejected[s] += 1,
            }
        }
        if code == outcome::OVERLOAD && t_ms >= self.recovery_from {
            self.last_overload = Some(self.last_overload.map_or(t_ms, |l| float::max(l, t_ms)));
        }
    }

    /// A success reached its client at `t_ms`.
    #[inline]
    pub(crate) fn success(&mut self, t_ms: f64) {
        if let Some(s) = self.slot(t_ms) {
            self.goodput[s] += 1;
        }
    }

    /// A client gave an attempt up at `t_ms`.
    #[inline]
    pub(crate) fn timed_out(&mut self, t_ms: f64) {
        if let Some(s) = self.slot(t_ms) {
            self.timed_out[s] += 1;
        }
    }

    /// A server finished work at `t_ms` whose client had given it up.
    #[inline]
    pub(crate) fn wasted(&mut self, t_ms: f64) {
        if let Some(s) = self.slot(t_ms) {
            self.wasted[s] += 1;
        }
    }

    /// The requests waiting in all queues changed to `level` at `t_ms`. Slots already
    /// made for later times (by events a trip ahead) take the new level too, lazily: the
    /// slots between two changes are written once, at the second, and those after the last
    /// by [`settle_queued`](Self::settle_queued). (Writing every later slot at each change
    /// cost changes × slots ahead: with a minute of latency and 1 ms slots, a 100,000-client
    /// run took 17 s for 106,507 attempts.)
    #[inline]
    pub(crate) fn queue_level(&mut self, t_ms: f64, level: u32) {
        if let Some(s) = self.slot(t_ms) {
            if s < self.level_from {
                // Within the last change's slot (or a time pushed into the past): the slots
                // from `s` to that change's take the new level.
                self.queued[s..self.level_from].fill(level);
            } else {
                self.queued[self.level_from..s].fill(self.level);
                self.queued[s] = level;
                self.level_from = s + 1;
            }
        }
        self.level = level;
    }

    /// Writes the current queue length into the slots after the last change: the series
    /// then reads as if every change had written every later slot. The engine calls it
    /// whenever it stops.
    pub(crate) fn settle_queued(&mut self) {
        let level = self.level;
        if let Some(rest) = self.queued.get_mut(self.level_from..) {
            rest.fill(level);
        }
    }

    /// A net (the budget, the breaker, the throttle) refused a request or a retry at `t_ms`.
    #[inline]
    pub(crate) fn blocked(&mut self, t_ms: f64) {
        if let Some(s) = self.slot(t_ms) {
            self.blocked[s] += 1;
        }
    }

    #[inline]
    pub(crate) fn log(&mut self, t_ms: f64, client: u32, attempt: u32, code: u8) {
        if self.log.len() >= MAX_LOG_ENTRIES * 4 {
            self.log_truncated = true;
            return;
        }
        self.log
            .extend_from_slice(&[t_ms as f32, client as f32, attempt as f32, f32::from(code)]);
    }

    /// The time from the outage's end to the end of the last 100 ms window (aligned to the
    /// outage's end) in which the server rejected an attempt for overload; 0 if it never did.
    pub(crate) fn recovery_ms(&self) -> f64 {
        match self.last_overload {
            Some(t) => {
                let w = PEAK_WINDOW_MS as f64;
                (((t - self.recovery_from) / w).floor() + 1.0) * w
            }
            None => 0.0,
        }
    }

    /// A success's latency (ms), kept in an `f32` rounded toward zero, never above the
    /// latency: rounded to the nearest, a day-long one (where an `f32`'s steps are 8 ms)
    /// came out above the run's completion. Out of line: inlined at its three callers it
    /// took 415 bytes of wasm, and a call a success is lost in the 10,000-client burst's
    /// noise.
    #[inline(never)]
    pub(crate) fn latency(&mut self, ms: f64) {
        let l = ms as f32;
        // Rounded up, `l` is above a latency ≥ 0, so positive: the next `f32` down is the
        // one whose bits are one less (`f32::next_down`, past this crate's MSRV).
        self.latencies.push(if f64::from(l) > ms {
            f32::from_bits(l.to_bits() - 1)
        } else {
            l
        });
    }

    /// The mean of the successes' latencies (summed in `f64`).
    pub(crate) fn mean_latency(&self) -> Option<f64> {
        let n = self.latencies.len();
        (n > 0).then(|| self.latencies.iter().map(|&l| f64::from(l)).sum::<f64>() / n as f64)
    }

    /// (p50, p99) of the successes' latencies, by nearest rank; reorders `latencies`.
    pub(crate) fn percentiles(&mut self) -> (Option<f64>, Option<f64>) {
        let n = self.latencies.len();
        if n == 0 {
            return (None, None);
        }
        let mut rank = |p: f64| {
            let k = ((p * n as f64).ceil() as usize).clamp(1, n) - 1;
            let (_, v, _) = self.latencies.select_nth_unstable_by(k, f32::total_cmp);
            f64::from(*v)
        };
        (Some(rank(0.50)), Some(rank(0.99)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lazy queue series against the rule it stands for: each change writes its slot
    /// and every slot made after it. Changes come in time order, several within a slot,
    /// some a little in the past (clamped into the wheel's bucket), with slots made far
    /// ahead by other events between them, and the series read (settled) mid-run too.
    /// A run past `MAX_SLOTS` of its slots: the slots double, the counts add up, every
    /// event is kept; the queue's level is the one at each wider slot's end.
    #[test]
    fn a_long_run_widens_its_slots_and_keeps_every_event() {
        let mut r = Recorder::new(10.0, 0.0);
        let end = MAX_SLOTS as f64 * 10.0; // the first time past the slots at 10 ms
        // The queue changes in slots 1, 3 and 4 of 10 ms: slots 0, 0 and 1 of 40 ms.
        r.queue_level(12.0, 3);
        r.queue_level(35.0, 4);
        r.queue_level(45.0, 9);
        for t in [0.0, 5.0, 15.0, 25.0, end - 1.0, end + 5.0, 3.0 * end + 1.0] {
            r.arrival(t);
        }
        r.settle_queued();
        // Two widenings: 3 × end is past twice the slots at 20 ms.
        assert_eq!(r.slot_ms(), 40.0);
        assert!(!r.series_truncated);
        assert_eq!(r.offered.iter().sum::<u32>(), 7);
        assert_eq!(&r.offered[..2], &[4, 0]);
        assert_eq!(r.offered[(end / 40.0) as usize], 1);
        assert_eq!(r.offered[(3.0 * end / 40.0) as usize], 1);
        assert_eq!(&r.queued[..3], &[4, 9, 9]);
        assert!(r.queued.iter().skip(1).all(|&q| q == 9));
        // Every series the same length, within the bound.
        assert_eq!(r.queued.len(), r.offered.len());
        assert!(r.offered.len() <= MAX_SLOTS);
    }

    #[test]
    fn queue_series_is_every_change_written_forward() {
        let mut r = Recorder::new(10.0, 0.0);
        let mut want: Vec<u32> = Vec::new();
        let mut level = 0u32;
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut t = 0.0f64;
        for i in 0..20_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 8 {
                // An event a trip ahead makes slots up to it.
                0 => {
                    let ahead = t + (x >> 40) as f64 % 3_000.0;
                    r.arrival(ahead);
                    let s = (ahead / 10.0) as usize;
                    if want.len() <= s {
                        want.resize(s + 1, level);
                    }
                }
                // A reader looks mid-run.
                1 if i % 7 == 0 => {
                    r.settle_queued();
                    assert_eq!(r.queued, want, "settled mid-run at t = {t}");
                }
                _ => {
                    t += (x >> 50) as f64 % 25.0;
                    // Now and then a time a little in the past.
                    let at = if x % 5 == 0 { (t - 3.0).max(0.0) } else { t };
                    level = (x >> 20) as u32 % 50;
                    r.queue_level(at, level);
                    let s = (at / 10.0) as usize;
                    if want.len() <= s {
                        want.resize(s + 1, level);
                    }
                    for q in &mut want[s..] {
                        *q = level;
                    }
                }
            }
        }
        r.settle_queued();
        assert_eq!(r.queued, want);
    }

    #[test]
    fn peak_window_counts_the_busiest_100_ms() {
        let mut p = PeakWindow::new(f64::INFINITY);
        for t in [0.0, 10.0, 99.9, 100.0, 150.0, 199.0, 199.5, 300.0] {
            p.add(t);
        }
        // [100, 199] holds 100.0, 150.0, 199.0, 199.5 = 4; [0, 99] holds 3.
        assert_eq!(p.peak_rps(), 40.0);
        let mut q = PeakWindow::new(2000.0);
        for _ in 0..1000 {
            q.add(2000.3);
        }
        q.add(5000.0);
        assert_eq!(q.peak_rps(), 10_000.0);
        assert_eq!(q.recovery_rps(), 10_000.0);
        // Arrivals before `recovery_from` count in the first peak only, even in its ms.
        let mut r = PeakWindow::new(100.5);
        for t in [0.0, 50.0, 100.2, 100.5, 120.0, 150.0] {
            r.add(t);
        }
        assert_eq!(r.peak_rps(), 40.0);
        assert_eq!(r.recovery_rps(), 30.0);
        assert_eq!(p.recovery_rps(), 0.0);
    }

    #[test]
    fn recovery_is_window_aligned() {
        let mut r = Recorder::new(10.0, 2000.0);
        assert_eq!(r.recovery_ms(), 0.0);
        r.attempt(1999.0, outcome::OVERLOAD);
        assert_eq!(
            r.recovery_ms(),
            0.0,
            "before the outage's end it does not count"
        );
        r.attempt(2000.0, outcome::OVERLOAD);
        assert_eq!(r.recovery_ms(), 100.0);
        r.attempt(2250.0, outcome::OVERLOAD);
        assert_eq!(r.recovery_ms(), 300.0);
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut r = Recorder::new(10.0, 0.0);
        r.latencies.extend((1..=100).rev().map(|x| x as f32));
        assert_eq!(r.percentiles(), (Some(50.0), Some(99.0)));
    }

    /// A latency is kept never above itself, and within one step of an `f32` below (8 ms at
    /// a day): a day-long service's p50 came out 0.86 ms after the run's completion.
    #[test]
    fn latencies_are_kept_rounded_toward_zero() {
        let mut r = Recorder::new(10.0, 0.0);
        for ms in [86_400_007.143_574_68, 2_583.926_1, 0.1, 1e-3, 5.0, 0.0] {
            r.latency(ms);
            let kept = f64::from(*r.latencies.last().unwrap());
            assert!(
                kept <= ms && ms - kept <= ms * f64::from(f32::EPSILON),
                "{ms}: {kept}"
            );
        }
    }
}
