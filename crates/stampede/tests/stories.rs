//! The published stories the queueing model must reproduce (issue 11), each against the
//! retry rule that changes its ending. The settings are the core's own
//! ([`stampede::sim::stories`], which the page's presets and the benchmarks use too);
//! goodput, throughput and wasted work are measured on the series (1 s slots) over a
//! window long after the trigger is gone.
//!
//! Bounds: a recovered fleet's goodput over a window of W seconds at offered rate λ is a
//! Poisson count, so it may fall short of λ by chance by up to 4·√(λ/W) per second (4σ);
//! each "recovers" bound below is that far under λ. A collapsed fleet's goodput is 0 or
//! nearly (measured: 0.0/s in every window below), asserted as under a tenth of λ.

mod support;

use stampede::sim::stories::{
    collapse, collapse_jittered, crash, crash_lifo, crash_queue_timeout,
    crash_with_jitter_and_budget, crash_without_retries, scaled,
};
use stampede::sim::{SimSettings, Simulation};
use support::{Window, assert_conserved, simulate};

/// Runs `s` and measures `[from_ms, to_ms)`.
fn window(s: &SimSettings, from_ms: f64, to_ms: f64) -> (Simulation, Window) {
    let mut sim = simulate(s);
    assert_conserved("story", &sim.metrics());
    let w = Window::of(&sim.series(), from_ms, to_ms);
    (sim, w)
}

// ---------------------------------------------------------------------------------------
// 1. Timeouts turn a spike into a collapse (Brooker's `simple_collapse_sim`).

#[test]
fn a_spike_with_timeouts_collapses_and_stays_down() {
    // Before the spike, the server keeps up: ~40 in service, 1.4 s each, under the
    // timeout. 15 s at 40/s: at least 40 − 4·√(40/15) ≈ 33.
    let (mut sim, before) = window(&collapse(), 5_000.0, 20_000.0);
    assert!(before.goodput > 33.0, "before the spike: {before}");
    // After it (from 40 s, 15 s past its end, to the end of arrivals) the load is back to
    // 40/s, yet the server stays busy with attempts whose clients gave up: it completes
    // work at more than the offered rate and nearly all of it is wasted. Measured:
    // goodput 0/s, throughput 89–96/s, all of it wasted.
    let after = Window::of(&sim.series(), 40_000.0, 80_000.0);
    assert!(after.goodput < 10.0, "after the spike: {after}");
    assert!(after.throughput > 40.0, "the server stays busy: {after}");
    assert!(
        after.wasted > 0.75 * after.throughput,
        "the work is wasted: {after}"
    );
    let m = sim.metrics();
    assert!(
        m.timeouts > m.requests,
        "more timeouts than requests: {m:?}"
    );
}

#[test]
fn full_jitter_recovers_from_the_spike() {
    // Measured over 40–80 s: goodput 42/s with full jitter, 0/s without; wasted 0 vs ~93/s.
    // The bound: 40/s less 4·√(40/40), with room for retries still spread out by the
    // 20–60 s waits (which take goodput out of this window into the next).
    let immediate = window(&collapse(), 40_000.0, 80_000.0).1;
    let (_, with) = window(&collapse_jittered(), 40_000.0, 80_000.0);
    assert!(
        with.goodput > 30.0 && with.goodput > 3.0 * immediate.goodput,
        "full jitter {with} vs immediate retries {immediate}"
    );
    assert!(
        with.wasted < 0.5 * immediate.wasted,
        "{with} vs {immediate}"
    );
}

// ---------------------------------------------------------------------------------------
// 2. A short crash of one server of two keeps the fleet down.

/// The last 20 s of arrivals: long after the crash is over.
const LATE: (f64, f64) = (40_000.0, 60_000.0);

#[test]
fn one_crashed_server_of_two_keeps_the_fleet_down() {
    // 8 s at 70/s: at least 70 − 4·√(70/8) ≈ 58.
    let (sim, before) = window(&crash(), 2_000.0, 10_000.0);
    assert!(before.goodput > 58.0, "before the crash: {before}");
    let late = Window::of(&sim.series(), LATE.0, LATE.1);
    assert!(late.goodput < 7.0, "35 s after a 5 s crash: {late}");
    // The servers complete more than the 70/s offered (up to their 100/s, less what the
    // rejections of full queues cost them), and all of it for clients that gave up.
    // Measured: goodput 0/s, throughput 86–106/s.
    assert!(late.throughput > 70.0, "the servers stay busy: {late}");
    assert!(late.wasted > 0.9 * late.throughput, "{late}");
}

#[test]
fn without_retries_the_fleet_recovers_at_once() {
    // From 1 s after the crash to the end, 44 s: at least 70 − 4·√(70/44) ≈ 65. Measured
    // 66–77/s in every 5 s window from the crash's end on.
    let (_, after) = window(&crash_without_retries(), 16_000.0, 60_000.0);
    assert!(
        after.goodput > 65.0,
        "one attempt, after the crash: {after}"
    );
}

#[test]
fn jitter_and_a_budget_bring_the_fleet_back() {
    // 20 s at 70/s: at least 70 − 4·√(70/20) ≈ 62.5. Measured 65–77/s per 5 s window.
    let (_, late) = window(&crash_with_jitter_and_budget(), LATE.0, LATE.1);
    assert!(late.goodput > 62.0, "jitter and budget, late: {late}");
    assert!(late.wasted < 1.0, "nothing wasted: {late}");
}

// ---------------------------------------------------------------------------------------
// 3. LIFO or a queue timeout keeps goodput up under story 2's overload.

#[test]
fn lifo_and_a_queue_timeout_keep_goodput_up() {
    // FIFO serves only requests whose clients have gone (goodput 0/s); LIFO serves the
    // newest first, whose client still waits, and a 300 ms queue timeout drops what has
    // waited too long to be worth serving. Measured late: 63–78/s for both.
    let fifo = window(&crash(), LATE.0, LATE.1).1;
    assert!(fifo.goodput < 7.0, "fifo: {fifo}");
    for (name, s) in [
        ("lifo", crash_lifo()),
        ("queue timeout", crash_queue_timeout()),
    ] {
        let (_, w) = window(&s, LATE.0, LATE.1);
        assert!(w.goodput > 62.0, "{name}: {w} vs fifo {fifo}");
    }
}

// ---------------------------------------------------------------------------------------
// Every ending holds on every seed and at scale, not by the luck of one draw.

/// How a story must end.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ending {
    /// Late goodput under a tenth of the offered load.
    Collapsed,
    /// Late goodput above 85% of it (a budget may keep turning a few requests away while
    /// its clients' buckets refill; every recovered run measured 97–109%).
    Recovered,
}

/// A story's run and how it must end.
struct Story {
    name: &'static str,
    settings: SimSettings,
    /// The offered rate (per second).
    offered: f64,
    /// The late window (ms).
    late: (f64, f64),
    ending: Ending,
}

impl Story {
    /// Checks the late goodput of the story's run with `seed`, `scale` times the fleet.
    fn check(&self, seed: u64, scale: u32) -> Result<(), String> {
        let (share, w) = self.late_share(seed, scale);
        let ok = match self.ending {
            Ending::Collapsed => share < 0.1,
            Ending::Recovered => share > 0.85,
        };
        if ok {
            return Ok(());
        }
        Err(format!(
            "{} ({:?}), seed {seed}, ×{scale}: late goodput {:.0}% of offered ({w})",
            self.name,
            self.ending,
            100.0 * share
        ))
    }
}

impl Story {
    /// The late goodput as a share of the offered load, with the late window's figures.
    fn late_share(&self, seed: u64, scale: u32) -> (f64, Window) {
        let s = scaled(
            &SimSettings {
                seed,
                ..self.settings.clone()
            },
            scale,
        );
        let w = window(&s, self.late.0, self.late.1).1;
        (w.goodput / (self.offered * f64::from(scale)), w)
    }
}

fn stories() -> Vec<Story> {
    use Ending::{Collapsed, Recovered};
    let story = |name, settings, offered, late, ending| Story {
        name,
        settings,
        offered,
        late,
        ending,
    };
    let spike_late = (40_000.0, 80_000.0);
    vec![
        story("collapse", collapse(), 40.0, spike_late, Collapsed),
        story(
            "collapse, full jitter",
            collapse_jittered(),
            40.0,
            spike_late,
            Recovered,
        ),
        story("crash", crash(), 70.0, LATE, Collapsed),
        story(
            "crash, one attempt",
            crash_without_retries(),
            70.0,
            LATE,
            Recovered,
        ),
        story(
            "crash, jitter and budget",
            crash_with_jitter_and_budget(),
            70.0,
            LATE,
            Recovered,
        ),
        story("crash, lifo", crash_lifo(), 70.0, LATE, Recovered),
        story(
            "crash, queue timeout",
            crash_queue_timeout(),
            70.0,
            LATE,
            Recovered,
        ),
    ]
}

#[test]
fn every_story_ends_the_same_on_every_seed() {
    // Story 1 with immediate retries excepted: see the next test.
    let wrong: Vec<String> = stories()
        .iter()
        .filter(|story| story.name != "collapse")
        .flat_map(|story| (1..=4).filter_map(move |seed| story.check(seed, 1).err()))
        .collect();
    assert!(
        wrong.is_empty(),
        "endings that depend on the seed:\n{}",
        wrong.join("\n")
    );
}

/// Story 1 is bistable at its published numbers. The 5 s spike takes the fleet to the
/// edge of its timeout: requests in service grow by about 40 a second from 67, and the
/// latency `1 s + 10 ms × N` (plus 0.2 s of network) passes the 3 s timeout near N = 180,
/// which the spike reaches only just. So whether a run tips over depends on its draws; once
/// it has, nothing brings it back (three attempts of every request time out, and the work
/// in service only grows). Measured over seeds 1–40: 29 runs collapse (26 with the
/// inversion sampler that preceded the exponential ziggurat), and 24 of 30 do at ten times
/// the scale. So the claim held here is the story's: most runs collapse, and every run
/// ends either collapsed or fully recovered, never in between. (The page's preset, seed 1,
/// collapses; the jittered story recovers on every seed, above.)
#[test]
fn the_spike_tips_most_runs_into_collapse() {
    let story = stories()
        .into_iter()
        .find(|s| s.name == "collapse")
        .unwrap();
    let shares: Vec<f64> = (1..=40).map(|seed| story.late_share(seed, 1).0).collect();
    let collapsed = shares.iter().filter(|&&s| s < 0.1).count();
    assert!(collapsed > 20, "{collapsed} of 40 collapsed: {shares:?}");
    assert!(story.check(1, 1).is_ok(), "the preset's seed: {shares:?}");
    assert!(
        shares.iter().all(|s| !(0.1..=0.85).contains(s)),
        "every run collapses or recovers: {shares:?}"
    );
}

#[test]
fn every_story_ends_the_same_at_ten_times_the_scale() {
    // Ten times the clients and servers (`scaled`): the same story, with the relative
    // noise of a larger fleet, which lucky recoveries cannot count on.
    let wrong: Vec<String> = stories()
        .iter()
        .filter_map(|story| story.check(1, 10).err())
        .collect();
    assert!(
        wrong.is_empty(),
        "endings that do not hold at scale:\n{}",
        wrong.join("\n")
    );
}
