//! Golden values: the exact bits (`f64::to_bits`) that pinned seeds must give on every
//! platform.
//!
//! Not part of the crate's API: this file is included with `#[path]` by the native tests
//! (`crates/stampede/tests/golden.rs`), the CLI's tests and the wasm build's tests in a
//! browser (`crates/stampede-wasm/tests/web.rs`), and read by the JS tests
//! (`tests/js/api.test.mjs`), so every build is held to the same bits. The simulator's
//! private normal and exponential draws are pinned beside them in `src/sim/normal.rs`, and
//! reach the wasm build through the `steady` (exponential) and `aws-occ` (normal) runs here.
//!
//! A change to any of these numbers changes what a published seed shows: it needs a
//! reason in its commit, never a silent update.

#![allow(dead_code)] // Each includer checks the values it can reach.

use stampede::backoff::{BackoffSettings, Strategy};
use stampede::budget::BudgetSettings;
use stampede::policy::PolicySettings;
use stampede::sim::{
    Balance, BudgetScope, LatencyDist, Metrics, QueueOrder, Scenario, ServiceDist, SimSettings,
    Slowdown,
};

/// The seed of the delay sequences below.
pub const DELAYS_SEED: u64 = 42;

// The first five delays (ms) of each strategy, base 200 ms, cap 30 s, multiplier 2, seed
// 42, as `f64::to_bits` (the numbers are spelled out in each constant's docs).

/// `none`: 0 each time.
pub const NONE_200_30000_SEED_42: [u64; 5] = [
    0x0000000000000000,
    0x0000000000000000,
    0x0000000000000000,
    0x0000000000000000,
    0x0000000000000000,
];
/// `constant`: 200 each time.
pub const CONSTANT_200_30000_SEED_42: [u64; 5] = [
    0x4069000000000000,
    0x4069000000000000,
    0x4069000000000000,
    0x4069000000000000,
    0x4069000000000000,
];
/// `exponential`: 200, 400, 800, 1600, 3200.
pub const EXPONENTIAL_200_30000_SEED_42: [u64; 5] = [
    0x4069000000000000,
    0x4079000000000000,
    0x4089000000000000,
    0x4099000000000000,
    0x40a9000000000000,
];
/// `full`: 155.98560892006535, 393.4565845988641, 517.2834182832985, 521.4226185699725,
/// 797.7351813895425.
pub const FULL_200_30000_SEED_42: [u64; 5] = [
    0x40637f8a1bb7ca73,
    0x4078974e2ba6ffa8,
    0x40802a4470ce0ed8,
    0x40804b6185d845b7,
    0x4088ede1a6c7c5b4,
];
/// `equal`: 177.9928044600327, 396.72829229943204, 658.6417091416492, 1060.7113092849863,
/// 1998.8675906947713.
pub const EQUAL_200_30000_SEED_42: [u64; 5] = [
    0x40663fc50ddbe53a,
    0x4078cba715d37fd4,
    0x408495223867076c,
    0x409092d86176116e,
    0x409f3b7869b1f16d,
];
/// `decorrelated`: 511.9712178401307, 1514.0600585828095, 3007.672255141401,
/// 3075.325315946411, 2450.105799989743.
pub const DECORRELATED_200_30000_SEED_42: [u64; 5] = [
    0x407fff8a1bb7ca73,
    0x4097a83d7fff440b,
    0x40a77f5831d36dc5,
    0x40a806a68fcfcd68,
    0x40a324362b6a8fba,
];
/// `decorrelated-v2`: 231.3593955324044, 329.6006838626885, 330.93328019451064,
/// 538.6615508642504, 1284.8740259561405.
pub const V2_200_30000_SEED_42: [u64; 5] = [
    0x406ceb802b0f402c,
    0x4074999c66ae97b7,
    0x4074aeeeb73696d8,
    0x4080d54adb2df4c5,
    0x4094137f00a905ea,
];

/// Every strategy with its pinned delays, in [`Strategy::ALL`]'s order.
pub const DELAYS_200_30000_SEED_42: [(Strategy, [u64; 5]); 7] = [
    (Strategy::None, NONE_200_30000_SEED_42),
    (Strategy::Constant, CONSTANT_200_30000_SEED_42),
    (Strategy::Exponential, EXPONENTIAL_200_30000_SEED_42),
    (Strategy::Full, FULL_200_30000_SEED_42),
    (Strategy::Equal, EQUAL_200_30000_SEED_42),
    (Strategy::Decorrelated, DECORRELATED_200_30000_SEED_42),
    (Strategy::DecorrelatedV2, V2_200_30000_SEED_42),
];

/// The first five delays of `strategy` under the settings above, as bits.
pub fn delays_bits(strategy: Strategy) -> [u64; 5] {
    let backoff = BackoffSettings::new(strategy, 200.0, 30_000.0)
        .build()
        .expect("valid golden settings");
    let mut rng = stampede::seeded(DELAYS_SEED);
    let mut it = backoff.delays_ms(&mut rng);
    core::array::from_fn(|_| it.next().map_or(u64::MAX, f64::to_bits))
}

/// The golden `burst`: 2000 clients, full jitter, base 1 s, 6 attempts, a 2 s outage,
/// capacity 500, a shared budget, seed 7. Uniform draws: start jitter, latency, backoff.
pub fn sim_settings() -> SimSettings {
    SimSettings {
        clients: 2000,
        policy: PolicySettings::new(BackoffSettings::new(Strategy::Full, 1000.0, 30_000.0), 6),
        budget: Some(BudgetSettings::new(3000.0, 200.0)),
        budget_scope: BudgetScope::Shared,
        seed: 7,
        ..SimSettings::default()
    }
}

/// The golden `steady`: 300 clients at 2 requests/s for 5 s, a 1 s outage from 2 s with
/// `Retry-After: 1`, equal jitter, per-client budgets, seed 11. Exercises the exponential
/// arrival gaps and the uniform choice of client.
pub fn steady_settings() -> SimSettings {
    SimSettings {
        scenario: Scenario::Steady,
        clients: 300,
        rate_per_client: 2.0,
        duration_ms: 5000.0,
        outage_start_ms: 2000.0,
        outage_ms: 1000.0,
        capacity_rps: 400.0,
        retry_after_ms: Some(1000.0),
        policy: PolicySettings::new(BackoffSettings::new(Strategy::Equal, 200.0, 5000.0), 5),
        budget: Some(BudgetSettings::new(5.0, 1.0)),
        budget_scope: BudgetScope::Client,
        seed: 11,
        ..SimSettings::default()
    }
}

/// The golden `aws-occ`: 100 clients, decorrelated jitter from 5 ms, cap 2 s, seed 3.
/// Exercises the normal draws of the message delays.
pub fn occ_settings() -> SimSettings {
    SimSettings {
        scenario: Scenario::AwsOcc,
        clients: 100,
        policy: PolicySettings::new(BackoffSettings::new(Strategy::Decorrelated, 5.0, 2000.0), 6),
        seed: 3,
        ..SimSettings::default()
    }
}

/// The golden queueing run: a spike against 3 servers picked at random, each with 2
/// workers and a LIFO queue of 20, log-normal service with a slope and a slowdown, a 2 %
/// fail rate, exponential network legs, and clients that time out after 400 ms, seed 5.
/// Exercises every draw of the queueing model: the normal (log-normal service), the
/// exponential (arrivals, legs), the uniform (balance, fail rate, jitter).
pub fn queue_settings() -> SimSettings {
    SimSettings {
        scenario: Scenario::Spike,
        clients: 200,
        rate_per_client: 0.5,
        duration_ms: 6000.0,
        spike_start_ms: 2000.0,
        spike_length_ms: 1000.0,
        spike_factor: 4.0,
        outage_ms: 0.0,
        servers: 3,
        balance: Balance::Random,
        workers: Some(2),
        queue: Some(20),
        queue_order: QueueOrder::Lifo,
        service_ms: 30.0,
        service_dist: ServiceDist::Lognormal,
        service_spread: 0.8,
        service_slope_ms: 2.0,
        slowdown: Some(Slowdown {
            start_ms: 4000.0,
            length_ms: 500.0,
            factor: 3.0,
        }),
        fail_rate: 0.02,
        latency_ms: 20.0,
        latency_dist: LatencyDist::Exponential,
        timeout_ms: Some(400.0),
        policy: PolicySettings::new(BackoffSettings::new(Strategy::Full, 50.0, 1000.0), 4),
        seed: 5,
        ..SimSettings::default()
    }
}

/// The golden safety-nets run (issue #12): the scenario at a 60 % fail rate with a
/// ratio budget (Brooker's), a `retries` breaker and adaptive throttling, one set per client, seed 9.
/// Exercises the throttle's draws (the nets' only random path) and every net's refusal.
pub fn nets_settings() -> SimSettings {
    use stampede::nets::{
        BreakerMode, BreakerSettings, BudgetKind, GuardSettings, RatioSettings, ThrottleSettings,
    };
    SimSettings {
        scenario: Scenario::Steady,
        clients: 50,
        rate_per_client: 10.0,
        duration_ms: 5000.0,
        outage_ms: 0.0,
        latency_ms: 20.0,
        latency_dist: LatencyDist::Exponential,
        fail_rate: 0.6,
        workers: Some(0),
        service_ms: 1.0,
        policy: PolicySettings::new(BackoffSettings::new(Strategy::None, 0.0, 0.0), 4),
        nets: GuardSettings {
            budget: Some(BudgetKind::Ratio(RatioSettings::BROOKER)),
            breaker: Some(BreakerSettings {
                failure_ratio: 0.5,
                min_throughput: 20,
                break_ms: 500.0,
                mode: BreakerMode::Retries,
                ..BreakerSettings::default()
            }),
            throttle: Some(ThrottleSettings::default()),
        },
        budget_scope: BudgetScope::Client,
        seed: 9,
        ..SimSettings::default()
    }
}

/// The numbers pinned for a golden run: total attempts, successes, completion time and
/// p99 latency (ms; NaN when no request succeeded), as bits.
pub fn metrics_bits(m: &Metrics) -> [u64; 4] {
    [
        m.total_attempts,
        m.successes,
        m.completion_ms,
        m.p99_ms.unwrap_or(f64::NAN),
    ]
    .map(f64::to_bits)
}

/// [`sim_settings`]' total attempts, successes, completion and p99 (ms), as bits: 5398,
/// 440, 15216.76380174171, 8056.44580078125. (Until a trip's jitter took one 32-bit step
/// of the generator instead of two: 5399, 435, 8895.055112805647, 7552.46630859375. Over
/// seeds 0–299 the two builds agree as chance would: attempts, successes, completion, p99,
/// peak and p50 differ by |z| ≤ 1.9; completion, the last client's end, has a standard
/// deviation of 2.3 s, so one seed's moving by 6.3 s is no sign of a change. Since the
/// queueing model: a served request takes the default 10 ms of service, so completion
/// and p99 were 10 ms later than the fluid server's 8885.06 and 7542.47.)
pub const SIM_TOTAL_SUCCESS_COMPLETION_P99: [u64; 4] = [
    0x40b5160000000000,
    0x407b800000000000,
    0x40cdb861c44166a3,
    0x40bf787220000000,
];
/// [`steady_settings`]' total attempts, successes, completion and p99 (ms), as bits: 4250,
/// 1499, 6229.951250796549, 2583.926025390625. (Until latencies were kept rounded toward
/// zero, never above the latency: p99 2583.92626953125, one step of an `f32` above. Until
/// the arrivals drew from a stream of
/// their own, apart from the policy's and the network's draws: 4305, 1486,
/// 6236.126941855645, 2738.021728515625; the fifteenth session's entry in
/// docs/performance.md checks over seeds that the two agree as chance would. Until
/// exponential deviates came from the
/// ziggurat, `sim/ziggurat_exp.rs`, rather than by inversion: 4255, 1510,
/// 6100.473370308803, 2795.84033203125. Over seeds 0–199, the steady, queue and nets runs'
/// attempts, successes, completion, p99, goodput and p50 differ from the inversion's by |z|
/// ≤ 2.4 in 18 comparisons, as chance would. Until a trip's jitter took one 32-bit step of
/// the generator: 4285, 1491, 5370.542333614418, 2587.475830078125, with seeds 0–299
/// agreeing likewise (|z| ≤ 2.4 in twelve comparisons). Since the queueing model: service
/// time, a queue instead of a credit, and the arrival stream's draws in a new order.)
pub const STEADY_TOTAL_SUCCESS_COMPLETION_P99: [u64; 4] = [
    0x40b09a0000000000,
    0x40976c0000000000,
    0x40b855f3852c1579,
    0x40a42fda20000000,
];
/// [`queue_settings`]' total attempts, successes, completion and p99 (ms), as bits: 1996,
/// 645, 6039.331781101219, 747.3989868164063. (Until the arrivals drew from a stream of
/// their own: 2022, 646, 6051.631535526147, 619.294189453125. Until exponential deviates came from the
/// ziggurat, `sim/ziggurat_exp.rs`, rather than by inversion: 2123, 625,
/// 6152.6567078605985, 618.2922973632813. Over seeds 0–199, the steady, queue and nets
/// runs' attempts, successes, completion, p99, goodput and p50 differ from the inversion's
/// by |z| ≤ 2.4 in 18 comparisons, as chance would.)
pub const QUEUE_TOTAL_SUCCESS_COMPLETION_P99: [u64; 4] = [
    0x409f300000000000,
    0x4084280000000000,
    0x40b79754ef9b332b,
    0x40875b3120000000,
];
/// [`nets_settings`]' total attempts, successes, completion and p99 (ms), as bits: 2415,
/// 1010, 5046.355269270457, 73.99332427978516; `stampede simulate` with the same flags gives
/// the same. (Until the arrivals drew from a stream of their own: 2387, 946,
/// 5017.0006051356695, 71.85688781738281. Until the breaker opened only on a failure, as Polly's does, rather than on any
/// outcome that left the ratio past its threshold: 2434, 928, 5029.0639741457335,
/// 73.80460357666016. Until the throttle's protection, `nets/throttle.rs`: 1232, 478,
/// 5048.803913863461, 71.14378356933594, each client's throttle rejecting from its first
/// failures; at a 60% fail rate it still sheds, from its sixth unanswered request on, hence
/// twice the attempts. Until exponential deviates came from the ziggurat, `sim/ziggurat_exp.rs`,
/// rather than by inversion: 1069, 420, 5000.6935281817905, 84.77728271484375. Over seeds
/// 0–199, the steady, queue and nets runs' attempts, successes, completion, p99, goodput
/// and p50 differ from the inversion's by |z| ≤ 2.4 in 18 comparisons, as chance would.)
pub const NETS_TOTAL_SUCCESS_COMPLETION_P99: [u64; 4] = [
    0x40a2de0000000000,
    0x408f900000000000,
    0x40b3b65af2ed49e3,
    0x40527f92a0000000,
];
/// [`occ_settings`]' writes, successes, completion and p99 (ms), as bits: 986, 100,
/// 4319.657317649674, 4283.8291015625. (Until latencies were rounded toward zero: p99
/// 4283.82958984375. Until the ziggurat drew its deviates from one
/// 32-bit step of the generator instead of two: 1025, 100, 4020.153707815189,
/// 3866.706298828125; until the engine drew its delays by the ziggurat, a cycle at a
/// time: 973, 100, 5008.077326819016, 4759.0546875.)
pub const OCC_TOTAL_SUCCESS_COMPLETION_P99: [u64; 4] = [
    0x408ed00000000000,
    0x4059000000000000,
    0x40b0dfa845f8306f,
    0x40b0bbd440000000,
];

/// Every golden run with its pinned numbers.
pub fn runs() -> [(&'static str, SimSettings, [u64; 4]); 5] {
    [
        ("burst", sim_settings(), SIM_TOTAL_SUCCESS_COMPLETION_P99),
        (
            "steady",
            steady_settings(),
            STEADY_TOTAL_SUCCESS_COMPLETION_P99,
        ),
        ("aws-occ", occ_settings(), OCC_TOTAL_SUCCESS_COMPLETION_P99),
        (
            "queue",
            queue_settings(),
            QUEUE_TOTAL_SUCCESS_COMPLETION_P99,
        ),
        ("nets", nets_settings(), NETS_TOTAL_SUCCESS_COMPLETION_P99),
    ]
}
