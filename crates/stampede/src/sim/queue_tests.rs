//! The wheel's order: by bucket, then by time within a bucket, then by push order; far
//! events, the current bucket, limits, and chunks reused.

use super::*;

/// A test event: its time and a name.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Ev(f64, u32);
impl Timed for Ev {
    fn time(&self) -> f64 {
        self.0
    }
}

fn push(w: &mut Wheel<Ev>, t: f64, name: u32) {
    w.push(t, Ev(t, name));
}

/// (bucket, names in the order they came out) for every bucket below `limit`.
fn drain(w: &mut Wheel<Ev>, limit: u64) -> Vec<(u64, Vec<u32>)> {
    let mut all: Vec<(u64, Vec<u32>)> = vec![];
    while let Some(Ev(_, name)) = w.pop(limit) {
        let b = w.bucket();
        match all.last_mut() {
            Some((last, names)) if *last == b => names.push(name),
            _ => all.push((b, vec![name])),
        }
    }
    all
}

#[test]
fn buckets_come_out_in_order_including_far_ones() {
    let mut w = Wheel::new();
    push(&mut w, 5.9, 1);
    push(&mut w, 5.0, 2);
    push(&mut w, 0.0, 3);
    push(&mut w, 200_000.5, 4); // beyond the span: overflow
    push(&mut w, 70_000.9, 5); // beyond the span: overflow
    push(&mut w, 70_000.1, 7); // same far bucket, earlier
    push(&mut w, 32_767.0, 6); // last bucket of the first turn
    assert_eq!(
        drain(&mut w, u64::MAX),
        vec![
            (0, vec![3]),
            (5, vec![2, 1]),
            (32_767, vec![6]),
            (70_000, vec![7, 5]),
            (200_000, vec![4])
        ]
    );
    assert!(w.is_empty());
}

#[test]
fn a_big_bucket_spans_chunks_comes_out_in_time_order_and_chunks_are_reused() {
    let mut w = Wheel::new();
    // Pushed in a scrambled order of times within one millisecond.
    for i in 0..100u32 {
        push(&mut w, 3.0 + f64::from((i * 37) % 100) / 100.0, i);
    }
    let out = drain(&mut w, u64::MAX);
    assert_eq!(out.len(), 1);
    let times: Vec<u32> = out[0].1.iter().map(|&i| (i * 37) % 100).collect();
    assert_eq!(times, (0..100).collect::<Vec<_>>());
    let pool = w.pool.len();
    assert_eq!(pool, 100usize.div_ceil(CHUNK));
    // 64 events (4 full chunks) in one bucket and 36 (3 chunks) in the next.
    for i in 0..100 {
        push(&mut w, if i < 64 { 10.0 } else { 11.0 }, i);
    }
    assert_eq!(drain(&mut w, u64::MAX).len(), 2);
    assert_eq!(
        w.pool.len(),
        pool,
        "the free chunks served the second round"
    );
}

/// A test event of the engine's size, one cache line, whose every byte is checked.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Wide {
    t: f64,
    name: u64,
    rest: [u64; 6],
}
const _: () = assert!(size_of::<Wide>() == 64);
impl Wide {
    fn new(t: f64, name: u32) -> Wide {
        let name = u64::from(name);
        Wide {
            t,
            name,
            rest: [1, 2, 3, 4, 5, 6].map(|k| name.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ k),
        }
    }
}
impl Timed for Wide {
    fn time(&self) -> f64 {
        self.t
    }
}

#[test]
fn a_pool_past_the_hint_size_keeps_the_order_the_events_and_reuses_its_chunks() {
    // 600,000 events of 64 bytes over 1,000 buckets (75,000 chunks): past HINT_CHUNKS and
    // STREAM_CHUNKS, so walks prefetch and the later pushes are streamed past the cache.
    // They come out in time order, all of them, every byte as pushed, and a second round
    // runs on the freed chunks.
    let n = 600_000u32;
    let time = |i: u32| f64::from((u64::from(i) * 7919 % u64::from(n)) as u32) / 600.0;
    for round in 0..2 {
        let mut w = Wheel::new();
        if round == 1 {
            w.reserve(n as usize);
        }
        for i in 0..n {
            w.push(time(i), Wide::new(time(i), i));
        }
        assert!(w.hint() && w.stream(), "{} chunks", w.pool.len());
        let pool = w.pool.len();
        let mut last = -1.0;
        let mut seen = vec![false; n as usize];
        while let Some(e) = w.pop(u64::MAX) {
            assert!(e.t >= last, "{} after {last}", e.t);
            last = e.t;
            let name = e.name as u32;
            assert_eq!(
                e,
                Wide::new(time(name), name),
                "an event changed in the wheel"
            );
            assert!(
                !std::mem::replace(&mut seen[name as usize], true),
                "{name} twice"
            );
        }
        assert!(seen.iter().all(|&s| s), "every event came out");
        for i in 0..n {
            w.push(time(i) + 2000.0, Wide::new(time(i) + 2000.0, i));
        }
        assert_eq!(w.pool.len(), pool, "the second pass reuses the chunks");
        assert_eq!(std::iter::from_fn(|| w.pop(u64::MAX)).count(), n as usize);
    }
}

#[test]
fn ties_keep_their_push_order_in_small_and_big_buckets() {
    for n in [5u32, 500] {
        let mut w = Wheel::new();
        // Every event at one of three times, pushed round-robin.
        for i in 0..n {
            push(&mut w, 7.0 + f64::from(2 - i % 3) * 0.25, i);
        }
        let names = drain(&mut w, u64::MAX).remove(0).1;
        let expected: Vec<u32> = [2, 1, 0]
            .into_iter()
            .flat_map(|r| (0..n).filter(move |i| i % 3 == r))
            .collect();
        assert_eq!(names, expected, "{n} events");
    }
}

/// Times a nanosecond apart (a herd over a network of almost no jitter) all fall in one
/// sub-bin of the millisecond: the sort then bins the range they span. In the order of
/// their times, ties in push order, whatever order they were pushed in; all equal, as
/// pushed.
#[test]
fn a_bucket_whose_times_lie_within_a_nanosecond_comes_out_in_time_order() {
    let n = 20_000u32;
    let mut w = Wheel::new();
    // Pushed latest first, and every fifth a tie with the one before it.
    let t = |i: u32| 9.5 + f64::from((n - i) / 5 * 5) * 1e-10;
    for i in 0..n {
        push(&mut w, t(i), i);
    }
    let names = drain(&mut w, u64::MAX).remove(0).1;
    let mut expected: Vec<u32> = (0..n).collect();
    expected.sort_by(|&a, &b| t(a).total_cmp(&t(b)).then(a.cmp(&b)));
    assert_eq!(names, expected);
    let mut w = Wheel::new();
    for i in 0..n {
        push(&mut w, 3.25, i);
    }
    assert_eq!(
        drain(&mut w, u64::MAX).remove(0).1,
        (0..n).collect::<Vec<_>>()
    );
}

#[test]
fn pushing_into_the_current_bucket_is_seen_again_and_the_past_clamps() {
    let mut w = Wheel::new();
    push(&mut w, 10.0, 1);
    push(&mut w, 10.9, 4);
    assert_eq!((w.pop(u64::MAX), w.bucket()), (Some(Ev(10.0, 1)), 10));
    push(&mut w, 10.5, 2);
    push(&mut w, 3.0, 3);
    push(&mut w, 10.5, 5);
    // In time order with what was already there (10.9); the past counts as 10.0; ties
    // in push order.
    assert_eq!(drain(&mut w, u64::MAX), vec![(10, vec![3, 2, 5, 4])]);
    assert!(w.is_empty());
}

#[test]
fn limit_stops_before_a_bucket() {
    let mut w = Wheel::new();
    push(&mut w, 50.0, 1);
    push(&mut w, 100_000.0, 2);
    assert_eq!(drain(&mut w, 50), vec![]);
    assert_eq!(drain(&mut w, 51), vec![(50, vec![1])]);
    assert_eq!(drain(&mut w, 99_999), vec![]);
    assert_eq!(drain(&mut w, 100_001), vec![(100_000, vec![2])]);
    assert!(w.is_empty());
    // Within a block the wheel moves from one bucket that holds events to the next in one
    // step, but never past a limit: it waits at the limit's last bucket.
    let mut w = Wheel::new();
    push(&mut w, 10.5, 1);
    push(&mut w, 20_000.5, 2);
    push(&mut w, 20_063.5, 3);
    push(&mut w, 20_064.5, 4);
    assert_eq!(drain(&mut w, 5_000), vec![(10, vec![1])]);
    assert_eq!(w.bucket(), 4_999);
    assert_eq!(
        drain(&mut w, 20_064),
        vec![(20_000, vec![2]), (20_063, vec![3])]
    );
    assert_eq!(w.bucket(), 20_063);
    assert_eq!(drain(&mut w, u64::MAX), vec![(20_064, vec![4])]);
    assert!(w.is_empty());
}

/// Drives `w` as the engine does (each push at or after the event being handled, from
/// `start`): for each op `(kind, x, pushes)`, `pushes` events `delay(kind + p, x)` after
/// the last one out, then one pop, checked against a sorted list's (time, push order),
/// `seen` shown the wheel after each pop; then drains it. Returns how many were pushed.
fn against_a_sorted_list(
    w: &mut Wheel<Ev>,
    start: f64,
    ops: &[(u8, u32, u8)],
    delay: impl Fn(u8, u32) -> f64,
    mut seen: impl FnMut(&Wheel<Ev>, usize) -> Result<(), proptest::test_runner::TestCaseError>,
) -> Result<u32, proptest::test_runner::TestCaseError> {
    let mut reference: Vec<(f64, u32)> = vec![];
    let mut now = start;
    let mut name = 0u32;
    for &(kind, x, pushes) in ops {
        for p in 0..pushes {
            let t = now + delay(kind + p, x);
            w.push(t, Ev(t, name));
            reference.push((t, name));
            name += 1;
        }
        reference.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let got = w.pop(u64::MAX);
        let want = (!reference.is_empty()).then(|| reference.remove(0));
        proptest::prop_assert_eq!(got.map(|e| (e.0, e.1)), want);
        if let Some(Ev(t, _)) = got {
            now = t;
        }
        seen(w, reference.len())?;
    }
    while let Some(Ev(t, n)) = w.pop(u64::MAX) {
        proptest::prop_assert_eq!((t, n), reference.remove(0));
    }
    proptest::prop_assert!(reference.is_empty() && w.is_empty());
    Ok(name)
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Whatever the delays (sub-millisecond, within the block, across blocks, past the
    /// coarse wheel), events come out in (time, push order), as a sorted list says,
    /// when every push is at or after the event being handled (as in the engine).
    #[test]
    fn events_come_out_in_time_then_push_order(
        ops in proptest::collection::vec((0u8..8, 0u32..1000, 1u8..4), 1..300)
    ) {
        let delay = |k: u8, x: u32| match k % 8 {
            0 => 0.0,
            1 => f64::from(x) / 1000.0,
            2 => f64::from(x),
            3 => f64::from(x) * 40.0,
            4 => 32_768.0 * f64::from(x % 3) + f64::from(x) / 7.0,
            5 => f64::from(x) * 10_000.0,
            6 => 3.4e7 + f64::from(x) * 1e5,
            _ => f64::from(x % 5),
        };
        against_a_sorted_list(&mut Wheel::new(), 0.0, &ops, delay, |_, _| Ok(()))?;
    }

    /// A millisecond crowded with pushes into itself, split into finer buckets from a few
    /// late events (and those split again): still (time, push order), as a sorted list
    /// says, and the events pending counted. Delays of none (equal times), of nanoseconds
    /// and microseconds (all within the millisecond and its finer buckets), and some past
    /// it; several pushes a pop, so that the late events pile up.
    #[test]
    fn a_crowded_millisecond_split_finer_keeps_time_then_push_order(
        split in 2usize..40,
        start in 0u32..3,
        ops in proptest::collection::vec((0u8..6, 0u32..1000, 1u8..5), 1..400)
    ) {
        let mut w = Wheel::new();
        w.split_at(split);
        let delay = |k: u8, x: u32| match k % 6 {
            0 => 0.0,
            1 => f64::from(x) * 1e-9,
            2 => f64::from(x) * 1e-6,
            3 => f64::from(x % 7) * 1e-4,
            4 => f64::from(x % 3) * 1e-12,
            _ => f64::from(x) / 500.0,
        };
        let mut deepest = 0;
        let pushed = against_a_sorted_list(&mut w, f64::from(start) + 0.25, &ops, delay, |w, left| {
            deepest = deepest.max(w.late_shape().0);
            proptest::prop_assert_eq!(w.pending(), left);
            Ok(())
        })?;
        proptest::prop_assert_eq!(w.late_shape(), (0, 0));
        // Not a check of the order: that the cases reach the finer buckets at all.
        if pushed > 200 && split < 8 {
            proptest::prop_assert!(deepest > 0, "no split with {} events", pushed);
        }
    }
}

/// The shape that took 25 s: every event of a run in one millisecond, each handled
/// pushing the next a microsecond on (a million clients retrying over a network of a
/// microsecond). The late events never pile up in the heap past the split threshold, and
/// the millisecond is split into finer buckets; retries with no delay at all (equal
/// times) go past the heap's first few, into the run. (Order: the property above.)
#[test]
fn a_storm_within_one_millisecond_stays_out_of_the_heap() {
    let mut w = Wheel::new();
    let clients = 20_000u32;
    for c in 0..clients {
        let t = 0.5 + f64::from(c) * 1e-8;
        w.push(t, Ev(t, c));
    }
    let (mut popped, mut most_heap, mut deepest) = (0u32, 0, 0);
    while let Some(Ev(t, c)) = w.pop(u64::MAX) {
        popped += 1;
        if popped < 10 * clients {
            // The next attempt, a microsecond and a bit later.
            let next = t + 1e-6 + f64::from(c % 97) * 1e-10;
            w.push(next, Ev(next, c));
        }
        let (depth, heap) = w.late_shape();
        (most_heap, deepest) = (most_heap.max(heap), deepest.max(depth));
    }
    assert_eq!(popped, 10 * clients + clients - 1);
    assert_eq!(w.bucket(), 0, "all in the first millisecond");
    assert!(deepest >= 1, "split into finer buckets");
    assert!(most_heap <= late::SPLIT_AT, "heap held {most_heap}");
    // Equal times: every push joins the run.
    let mut w = Wheel::new();
    for c in 0..clients {
        w.push(0.5, Ev(0.5, c));
    }
    let mut names = vec![];
    while let Some(Ev(t, c)) = w.pop(u64::MAX) {
        names.push(c);
        if names.len() < 3 * clients as usize {
            w.push(t, Ev(t, c + clients));
        }
        let (depth, heap) = w.late_shape();
        assert!(
            depth == 0 && heap <= late::RUN_FROM,
            "{depth} rungs, heap {heap}"
        );
    }
    // Push order: the first round, then each re-push in the order made.
    assert!(names.windows(2).all(|p| p[0] < p[1]), "push order");
}

#[test]
fn pop_with_shows_each_bucket_as_it_will_come_out() {
    let mut w = Wheel::new();
    for (t, name) in [(2.7, 1), (2.1, 2), (2.5, 3), (9.0, 4), (9.5, 5)] {
        push(&mut w, t, name);
    }
    let mut shown: Vec<Vec<u32>> = vec![];
    let mut popped: Vec<u32> = vec![];
    while let Some(Ev(t, name)) = w.pop_with(u64::MAX, |batch| {
        shown.push(batch.iter().map(|e| e.1).collect());
    }) {
        popped.push(name);
        // Pushed into the bucket being handed out: it comes out, but was never shown.
        if name == 2 {
            push(&mut w, t + 0.1, 6);
        }
    }
    // Shown once per bucket, when taken, sorted: the order the bucket then comes out in.
    assert_eq!(shown, vec![vec![2, 3, 1], vec![4, 5]]);
    assert_eq!(popped, vec![2, 6, 3, 1, 4, 5]);
}

/// Items of 64, 32 and 16 bytes (a time, two ids, padding), for [`wheel_item_sizes`].
macro_rules! item {
    ($name:ident, $pad:expr) => {
        #[derive(Debug, Clone, Copy)]
        struct $name(f64, u32, u32, #[allow(dead_code)] [u64; $pad]);
        impl Timed for $name {
            fn time(&self) -> f64 {
                self.0
            }
        }
    };
}
item!(I64, 6);
item!(I32, 2);
item!(I16, 0);

/// The wheel alone under the page's own schedule: `n` clients start within 1 ms, and each
/// goes back in 6 times, a full-jitter delay later (2 s base, doubling, 30 s cap). Returns
/// the time taken (ms) and the items handed out.
fn herd_schedule<T: Copy + Timed>(
    n: u32,
    make: impl Fn(f64, u32, u32) -> T,
    ids: impl Fn(&T) -> (u32, u32),
) -> (f64, u64) {
    use rand::SeedableRng;
    let mut rng = rand_pcg::Pcg32::seed_from_u64(1);
    let mut w: Wheel<T> = Wheel::new();
    w.reserve(n as usize);
    let t0 = std::time::Instant::now();
    for c in 0..n {
        let t = 5.0 + crate::backoff::uniform(&mut rng, 0.0, 1.0);
        w.push(t, make(t, c, 0));
    }
    let mut pops = 0u64;
    while let Some(e) = w.pop(u64::MAX) {
        pops += 1;
        let (c, k) = ids(&e);
        if k + 1 < 6 {
            let window = (2000.0 * f64::from(1u32 << k)).min(30000.0);
            let t = e.time() + 10.0 + crate::backoff::uniform(&mut rng, 0.0, window);
            w.push(t, make(t, c, k + 1));
        }
    }
    (t0.elapsed().as_secs_f64() * 1e3, pops)
}

/// A measurement, run by hand: how much of a run is the wheel's, and what a smaller event
/// would save (`cargo test --release -p stampede --lib wheel_item_sizes -- --ignored
/// --nocapture`; figures in docs/performance.md). It checks only that every item comes out. The
/// biggest goes first: once it has freed its pool, the allocator keeps such blocks rather
/// than mapping fresh pages each time (as in a program that simulates again and again),
/// and a first small run is not timed mostly on page faults.
#[test]
#[ignore]
fn wheel_item_sizes() {
    for n in [1_000_000u32, 100_000, 10_000] {
        let best = |f: &dyn Fn() -> (f64, u64)| {
            (0..5).fold(f64::INFINITY, |b, _| {
                let (ms, pops) = f();
                assert_eq!(pops, 6 * u64::from(n));
                b.min(ms)
            })
        };
        let a = best(&|| herd_schedule(n, |t, c, k| I64(t, c, k, [7; 6]), |e| (e.1, e.2)));
        let b = best(&|| herd_schedule(n, |t, c, k| I32(t, c, k, [7; 2]), |e| (e.1, e.2)));
        let d = best(&|| herd_schedule(n, |t, c, k| I16(t, c, k, []), |e| (e.1, e.2)));
        println!(
            "{n} clients, 6 visits each, best of 5: 64-byte items {a:.2} ms, 32-byte {b:.2} ms, 16-byte {d:.2} ms"
        );
    }
}
