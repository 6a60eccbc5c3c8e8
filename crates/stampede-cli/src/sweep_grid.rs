//! How `stampede sweep` runs its grid: every run of every point on all cores, and
//! `--shard I/N`, one of N interleaved parts of the grid for one of N machines.
//!
//! # Parts
//!
//! The grid's points are numbered in the order the single-machine output lists them
//! (strategies outer, clients inner), from 0. Part `I` of `N` (1-based, as Slurm's
//! `SLURM_ARRAY_TASK_ID` and GNU parallel's `{#}` count) takes points `I - 1`,
//! `I - 1 + N`, `I - 1 + 2N`, …: interleaved, so that the costly corner of a grid (most
//! clients, no jitter) is spread over every part instead of landing on the last one.
//! Every part prints the header, so each is a CSV of its own; its rows are then rows
//! `I, I + N, …` of the whole. Read the parts' lines round-robin and drop the repeated
//! headers to get the whole, byte for byte (the README's `paste -d '\n' … | awk …`).
//! Seeds depend on `--seed` and the run alone, never on the part, so a point's row is the
//! same whichever part computes it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;

use rayon::prelude::*;
use stampede::ConfigError;
use stampede::sim::{Metrics, SimSettings, peak_bytes, run, run_seed};

use crate::sweep_memory::MemoryBudget;

/// The most parts `--shard` splits a grid into.
pub const MAX_SHARDS: u32 = 1_000_000;

/// `--shard I/N`: part `I` (1-based) of `N` interleaved parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1 to `count`.
    index: u32,
    count: u32,
}

impl Shard {
    /// Whether point `k` (0-based, in the whole grid's order) is in this part.
    pub fn takes(self, k: usize) -> bool {
        k % self.count as usize == (self.index - 1) as usize
    }
}

/// `I/N`: whole numbers with 1 ≤ I ≤ N ≤ [`MAX_SHARDS`].
pub fn parse_shard(s: &str) -> Result<Shard, String> {
    let form = || {
        format!("expected I/N, part I of N counted from 1 (1 ≤ I ≤ N ≤ {MAX_SHARDS}), such as 2/8")
    };
    let (i, n) = s.split_once('/').ok_or_else(form)?;
    let whole = |x: &str| {
        let x = x.trim();
        (!x.is_empty() && x.bytes().all(|b| b.is_ascii_digit()))
            .then(|| x.parse::<u32>().ok())
            .flatten()
    };
    match (whole(i), whole(n)) {
        (Some(index), Some(count)) if (1..=count).contains(&index) && count <= MAX_SHARDS => {
            Ok(Shard { index, count })
        }
        _ => Err(form()),
    }
}

/// How many runs a sweep holds the metrics of at once: a batch of points whose runs
/// make at most this many (one point at least) runs on all cores, then its rows go out.
/// A grid's memory is then bounded whatever its size (5,000 points of 100,000 runs grew
/// 20 MB a second when every run was kept to the end); the AWS grid (9,500 runs) is one
/// batch, as before.
pub const RUNS_AT_ONCE: usize = 1 << 16;

/// The mean metrics of `runs` runs of each of `points`, handed to `row` in order, exactly
/// as [`run_many`](stampede::sim::run_many) gives them point by point (the same seeds, the
/// same order of summing), but with every run of a batch of points a task of its own, so
/// that the cores stay busy to the end of a batch even when one point costs a hundred
/// times another; as many at once as the machine's memory allows (see `sweep_memory.rs`).
/// A run's error goes through `fail`.
pub fn run_points<E>(
    points: &[SimSettings],
    runs: u32,
    fail: impl Fn(ConfigError) -> E,
    row: impl FnMut(Metrics) -> Result<(), E>,
) -> Result<(), E> {
    run_batches(points, runs, RUNS_AT_ONCE, fail, row)
}

/// [`run_points`] with batches of at most `at_once` runs (one point at least).
fn run_batches<E>(
    points: &[SimSettings],
    runs: u32,
    at_once: usize,
    fail: impl Fn(ConfigError) -> E,
    row: impl FnMut(Metrics) -> Result<(), E>,
) -> Result<(), E> {
    let budget = MemoryBudget::for_this_machine();
    run_batches_with(points, runs, at_once, &budget, run, fail, row)
}

/// [`run_batches`] with `run_one` for each run. A point's row goes out as soon as its runs
/// and every earlier point's are done, while the batch's other runs go on: a sweep cut
/// short (a timeout, ^C) keeps every row it finished (before, a row waited for its whole
/// batch: with 100 runs a point, 655 points). A run that fails holds back the rows from
/// its point on; the batch's other runs still finish, and the earliest failing run's error
/// (of the earliest failing point, its first run that failed) is returned, whatever order
/// the runs ended in: the error [`run_many`](stampede::sim::run_many) would have stopped at.
/// A row that cannot be written stops
/// the runs not yet started. Each run holds its upper estimate of memory from `budget` while
/// it runs.
fn run_batches_with<E>(
    points: &[SimSettings],
    runs: u32,
    at_once: usize,
    budget: &MemoryBudget,
    run_one: impl Fn(&SimSettings) -> Result<Metrics, ConfigError> + Sync,
    fail: impl Fn(ConfigError) -> E,
    mut row: impl FnMut(Metrics) -> Result<(), E>,
) -> Result<(), E> {
    let runs = (runs as usize).max(1);
    for batch in points.chunks((at_once / runs).max(1)) {
        let stop = AtomicBool::new(false);
        let (tx, rx) = mpsc::channel::<Vec<(usize, Result<Metrics, ConfigError>)>>();
        let (run_one, stop_ref) = (&run_one, &stop);
        let tasks = tasks(batch.len(), runs, rayon::current_num_threads());
        // A point whose settings are refused holds nothing: its run fails at once.
        let bytes: Vec<f64> = batch.iter().map(|p| peak_bytes(p).unwrap_or(0.0)).collect();
        let bytes = &bytes;
        let written = thread::scope(|scope| -> Result<Option<(usize, ConfigError)>, E> {
            scope.spawn(move || {
                tasks.into_par_iter().for_each_with(tx, |tx, ks| {
                    let mut results = Vec::with_capacity(ks.len());
                    for k in ks {
                        if stop_ref.load(Ordering::Relaxed) {
                            return;
                        }
                        let base = &batch[k / runs];
                        let s = SimSettings {
                            seed: run_seed(base.seed, (k % runs) as u32),
                            ..base.clone()
                        };
                        let _held = budget.hold(bytes[k / runs]);
                        results.push((k, run_one(&s)));
                    }
                    // The receiver is gone only when a row failed: nothing to tell.
                    let _ = tx.send(results);
                });
            });
            let mut done: Vec<Vec<Option<Metrics>>> = vec![vec![None; runs]; batch.len()];
            let mut left = vec![runs; batch.len()];
            let mut next = 0;
            let mut failed: Option<(usize, ConfigError)> = None;
            for (k, result) in rx.into_iter().flatten() {
                let point = k / runs;
                match result {
                    Ok(m) => done[point][k % runs] = Some(m),
                    // The earliest failing run's error, whatever order the runs ended in.
                    Err(e) if failed.as_ref().is_none_or(|(first, _)| k < *first) => {
                        failed = Some((k, e));
                    }
                    Err(_) => {}
                }
                left[point] -= 1;
                while next < batch.len()
                    && left[next] == 0
                    && failed
                        .as_ref()
                        .is_none_or(|(first, _)| next < *first / runs)
                {
                    let all: Vec<Metrics> =
                        done[next].iter_mut().filter_map(Option::take).collect();
                    if let Err(e) = row(Metrics::mean(&all)) {
                        stop.store(true, Ordering::Relaxed);
                        return Err(e);
                    }
                    next += 1;
                }
            }
            Ok(failed)
        })?;
        if let Some((_, e)) = written {
            return Err(fail(e));
        }
    }
    Ok(())
}

/// The most runs one task of a sweep makes in a row.
const MOST_RUNS_A_TASK: usize = 16;

/// A batch's runs (`points × runs`, numbered point by point) as tasks for `threads`
/// threads: consecutive runs of one point, at most [`MOST_RUNS_A_TASK`] of them, and at
/// least 16 tasks a thread while the batch has the runs for it. A task hands its results
/// over at once, so the thread that writes the rows wakes once a task, not once a run: one
/// wake a run was 17,000 context switches in the AWS grid's 9,500 runs (2 cores, its rows'
/// thread the third), the kernel's scheduling some 15% of its samples. Tasks never span two
/// points, so a point's row never waits for the next point's runs.
fn tasks(points: usize, runs: usize, threads: usize) -> Vec<std::ops::Range<usize>> {
    let each = (points * runs / (threads.max(1) * 16)).clamp(1, MOST_RUNS_A_TASK);
    (0..points)
        .flat_map(|p| {
            (0..runs)
                .step_by(each)
                .map(move |r| p * runs + r..p * runs + (r + each).min(runs))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use stampede::backoff::{BackoffSettings, Strategy};
    use stampede::policy::PolicySettings;
    use stampede::sim::{Scenario, run_many};

    #[test]
    fn shards_parse_and_partition() {
        assert_eq!(parse_shard("1/1"), Ok(Shard { index: 1, count: 1 }));
        assert_eq!(parse_shard(" 3 / 8 "), Ok(Shard { index: 3, count: 8 }));
        for bad in [
            "0/3", "4/3", "1/0", "0/0", "x", "1/", "/3", "1/3/4", "-1/3", "+1/3", "1.5/3",
        ] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
        assert!(parse_shard(&format!("1/{}", MAX_SHARDS + 1)).is_err());
        // Every point lands in exactly one part.
        for count in 1..=7 {
            for k in 0..50 {
                let parts = (1..=count)
                    .filter(|&index| Shard { index, count }.takes(k))
                    .count();
                assert_eq!(parts, 1);
            }
            assert!(Shard { index: 1, count }.takes(0));
        }
    }

    /// Every run in exactly one task, in order; a task within one point and at most
    /// `MOST_RUNS_A_TASK` long; enough tasks for every thread while there are runs enough.
    #[test]
    fn tasks_cover_every_run_once_within_its_point() {
        for (points, runs, threads) in [
            (95, 100, 2),
            (1, 4, 2),
            (3, 4, 2),
            (1, 1, 1),
            (7, 13, 3),
            (2, 1000, 8),
            (500, 1, 2),
        ] {
            let tasks = tasks(points, runs, threads);
            let flat: Vec<usize> = tasks.iter().cloned().flatten().collect();
            assert_eq!(flat, (0..points * runs).collect::<Vec<_>>());
            for t in &tasks {
                assert!(!t.is_empty() && t.len() <= MOST_RUNS_A_TASK, "{t:?}");
                assert_eq!(t.start / runs, (t.end - 1) / runs, "{t:?} spans two points");
            }
            let want = (points * runs).min(threads * 16);
            assert!(
                tasks.len() >= want,
                "{points}×{runs} on {threads}: {}",
                tasks.len()
            );
        }
        // The AWS grid on 2 threads: 16 runs a task, 7 tasks a point of 100.
        assert_eq!(tasks(95, 100, 2).len(), 95 * 7);
    }

    #[test]
    fn run_points_is_run_many_point_by_point() {
        let occ = |strategy, clients| SimSettings {
            scenario: Scenario::AwsOcc,
            clients,
            policy: PolicySettings::new(BackoffSettings::new(strategy, 5.0, 2000.0), 6),
            seed: 9,
            ..SimSettings::default()
        };
        let points = vec![
            occ(Strategy::None, 30),
            occ(Strategy::Full, 60),
            SimSettings {
                clients: 300,
                ..SimSettings::default()
            },
        ];
        // In batches of `at_once` runs: 7 runs a point, so 1, 2 or all 3 points a batch.
        let collect = |at_once| {
            let mut got = Vec::new();
            let row = |m| {
                got.push(m);
                Ok(())
            };
            run_batches(&points, 7, at_once, |e| e, row).unwrap();
            got
        };
        let want: Vec<Metrics> = points.iter().map(|p| run_many(p, 7).unwrap()).collect();
        for at_once in [1, 14, RUNS_AT_ONCE] {
            assert_eq!(collect(at_once), want, "{at_once} runs at once");
        }
    }

    /// Runs hold their estimate of memory from the budget: with room for one big run, never
    /// more than that together (two small ones may share it), and the rows are the same.
    #[test]
    fn runs_at_once_stay_within_the_memory_budget() {
        use std::sync::atomic::AtomicUsize;
        use std::time::Duration;
        let point = |clients| SimSettings {
            clients,
            ..SimSettings::default()
        };
        let points = [point(2_000), point(2_000), point(1_000)];
        let one = peak_bytes(&points[0]).unwrap();
        assert!(one > peak_bytes(&points[2]).unwrap());
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        let run_one = |s: &SimSettings| {
            let bytes = peak_bytes(s).unwrap() as usize;
            most.fetch_max(
                now.fetch_add(bytes, Ordering::SeqCst) + bytes,
                Ordering::SeqCst,
            );
            thread::sleep(Duration::from_millis(2));
            now.fetch_sub(bytes, Ordering::SeqCst);
            run(s)
        };
        let mut got = Vec::new();
        let budget = MemoryBudget::new(one);
        run_batches_with(
            &points,
            6,
            RUNS_AT_ONCE,
            &budget,
            run_one,
            |e| e,
            |m| {
                got.push(m);
                Ok(())
            },
        )
        .unwrap();
        let most = most.load(Ordering::SeqCst);
        assert!(
            most as f64 <= one,
            "{most} bytes held at once, {one} allowed"
        );
        let want: Vec<Metrics> = points.iter().map(|p| run_many(p, 6).unwrap()).collect();
        assert_eq!(got, want);
    }

    /// A point's row goes out while later points of its batch still run: here the second
    /// point's runs wait (up to 20 s) for the first point's row, which a sweep that wrote
    /// rows only at the end of a batch never gives them.
    #[test]
    fn rows_go_out_as_their_points_finish_and_an_error_holds_back_the_rest() {
        use std::sync::atomic::AtomicUsize;
        use std::time::{Duration, Instant};
        let point = |clients| SimSettings {
            clients,
            ..SimSettings::default()
        };
        let points = [point(10), point(20), point(30)];
        let rows = AtomicUsize::new(0);
        let run_one = |s: &SimSettings| {
            if s.clients == 20 {
                let t = Instant::now();
                while rows.load(Ordering::SeqCst) == 0 {
                    assert!(
                        t.elapsed() < Duration::from_secs(20),
                        "the first row never came"
                    );
                    thread::sleep(Duration::from_millis(1));
                }
            }
            run(s)
        };
        let mut got = Vec::new();
        run_batches_with(
            &points,
            4,
            RUNS_AT_ONCE,
            &MemoryBudget::for_this_machine(),
            run_one,
            |e| e,
            |m| {
                rows.fetch_add(1, Ordering::SeqCst);
                got.push(m.requests);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(got, [10.0, 20.0, 30.0]);
        // A failing point: the rows before it go out, its error comes back (the earliest
        // failing point's, here the second of two), nothing after it is written.
        let fails = |s: &SimSettings| {
            if s.clients >= 20 {
                Err(ConfigError::new(
                    stampede::Field::Clients,
                    stampede::Expected::Syntax("a test's refusal"),
                    stampede::Got::Number(f64::from(s.clients)),
                ))
            } else {
                run(s)
            }
        };
        let mut got = Vec::new();
        let e = run_batches_with(
            &points,
            4,
            RUNS_AT_ONCE,
            &MemoryBudget::for_this_machine(),
            fails,
            |e| e,
            |m| {
                got.push(m.requests);
                Ok(())
            },
        )
        .unwrap_err();
        assert_eq!(got, [10.0]);
        assert_eq!(e.got, stampede::Got::Number(20.0));

        // Within the failing point, the error of its earliest failing run, as `run_many`
        // would stop at, even when later runs fail first: here runs 1 to 3 of the second
        // point fail, naming their seeds, and run 1 is the last of them to end.
        let base = SimSettings::default().seed;
        let fails_late = |s: &SimSettings| {
            let i = s.seed - base;
            if s.clients == 20 && i >= 1 {
                if i == 1 {
                    thread::sleep(Duration::from_millis(100));
                }
                Err(ConfigError::new(
                    stampede::Field::Clients,
                    stampede::Expected::Syntax("a test's refusal"),
                    stampede::Got::Number(s.seed as f64),
                ))
            } else {
                run(s)
            }
        };
        let e = run_batches_with(
            &points,
            4,
            RUNS_AT_ONCE,
            &MemoryBudget::for_this_machine(),
            fails_late,
            |e| e,
            |_| Ok(()),
        )
        .unwrap_err();
        assert_eq!(e.got, stampede::Got::Number(run_seed(base, 1) as f64));
    }
}
