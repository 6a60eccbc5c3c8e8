//! Where to retry, against the published arithmetic. With the bottom of a chain of `L`
//! services always failing, `a` attempts at every layer make `a^L` attempts at the bottom
//! per request (Google SRE book, "Handling Overload": 4 at 3 layers, 64; Amazon Builders'
//! Library, "Timeouts, retries, and backoff with jitter": 3 at 5 layers, 243), and
//! retrying only at the top keeps it at `a`. With a bottom failing each attempt with
//! probability `p`, the attempts at the bottom per request have the distribution
//! [`Moments::retried`] builds layer by layer, whose mean is the closed form of
//! `stampede::sim::bottom_attempts_per_request`.

use stampede::sim::{
    LatencyDist, Metrics, RetryAt, Scenario, ServiceDist, SimSettings, bottom_attempts_per_request,
};

use crate::support::{assert_conserved, assert_near, immediate, server_alone, simulate};
use crate::theory::Z;

/// `requests` requests from 100 clients at 10 per second each (the load), through
/// `layers` layers to a server with unlimited workers and constant service (no queue
/// forms, so nothing but the fail rate decides an attempt), network legs exponential with
/// mean 10 ms, `attempts` attempts with no wait.
fn chain(p: f64, attempts: u32, layers: u32, retry_at: RetryAt, requests: f64) -> SimSettings {
    SimSettings {
        fail_rate: p,
        policy: immediate(attempts),
        service_dist: ServiceDist::Constant,
        latency_ms: 20.0,
        latency_dist: LatencyDist::Exponential,
        layers,
        retry_at,
        ..server_alone(1000.0, 0, 10.0, requests)
    }
}

/// The bottom's attempts and the request's end, exactly, when the bottom always fails.
#[track_caller]
fn assert_all_failed(what: &str, m: &Metrics, attempts: u32, bottom_per_request: f64) {
    assert_conserved(what, m);
    assert!(m.requests > 0.0, "{what}: no requests");
    assert_eq!(m.successes, 0.0, "{what}");
    assert_eq!(m.gave_up, m.requests, "{what}");
    assert_eq!(
        m.amplification,
        f64::from(attempts),
        "{what}: amplification"
    );
    assert_eq!(
        m.bottom_attempts,
        bottom_per_request * m.requests,
        "{what}: bottom attempts"
    );
}

#[test]
fn a_bottom_that_always_fails_multiplies_attempts_as_published() {
    for (a, l, every, top) in [(4, 3, 64.0, 4.0), (3, 5, 243.0, 3.0)] {
        for (retry_at, per_request) in [(RetryAt::Every, every), (RetryAt::Top, top)] {
            let s = chain(1.0, a, l, retry_at, 500.0);
            let m = simulate(&s).metrics();
            let what = format!("{a} attempts at {l} layers, retry at {retry_at}");
            assert_all_failed(&what, &m, a, per_request);
            assert_eq!(
                bottom_attempts_per_request(1.0, a, l, retry_at),
                per_request
            );
        }
    }
}

/// The SRE book's scene with the article's clients: a burst of 1000 against an outage
/// that covers the run, exponential backoff from 2 s (the outage's 503 is retryable).
/// Every layer waits its backoff between tries, so a request takes 20 minutes to give up.
#[test]
fn an_outage_covering_the_run_gives_the_same_products() {
    for (retry_at, per_request) in [(RetryAt::Every, 64.0), (RetryAt::Top, 4.0)] {
        let defaults = SimSettings::default();
        let s = SimSettings {
            scenario: Scenario::Burst,
            clients: 1000,
            outage_ms: 3_600_000.0,
            layers: 3,
            retry_at,
            policy: stampede::policy::PolicySettings {
                max_attempts: 4,
                ..defaults.policy
            },
            ..defaults
        };
        let mut sim = simulate(&s);
        let m = sim.metrics();
        assert_all_failed(&format!("outage, retry at {retry_at}"), &m, 4, per_request);
        // Every attempt at the bottom met the outage.
        let failed: u32 = sim.series().failed.iter().sum();
        assert_eq!(f64::from(failed), m.bottom_attempts);
        assert!(m.completion_ms < 3_600_000.0, "the outage covers the run");
    }
}

/// The distribution of the bottom attempts one call makes, split by whether the call
/// failed: `f` = P(fail), and the mean and variance of the attempts given success and
/// given failure.
#[derive(Debug, Clone, Copy)]
struct Moments {
    f: f64,
    mean_ok: f64,
    var_ok: f64,
    mean_fail: f64,
    var_fail: f64,
}

impl Moments {
    /// One attempt at a bottom that fails with probability `p`.
    fn bottom(p: f64) -> Moments {
        Moments {
            f: p,
            mean_ok: 1.0,
            var_ok: 0.0,
            mean_fail: 1.0,
            var_fail: 0.0,
        }
    }

    /// A caller that calls `self`'s layer up to `a` times, until one succeeds. It
    /// succeeds at try `j` with probability `f^(j−1)(1 − f)`, having made `j − 1` failed
    /// calls and one good one (independent, so their means and variances add); it fails
    /// with probability `f^a`, after `a` failed calls.
    fn retried(self, a: u32) -> Moments {
        let Moments {
            f,
            mean_ok,
            var_ok,
            mean_fail,
            var_fail,
        } = self;
        let (mut p_ok, mut m1, mut m2) = (0.0, 0.0, 0.0);
        for j in 1..=a {
            let pj = f.powi(j as i32 - 1) * (1.0 - f);
            let failed = f64::from(j - 1);
            let mean = failed * mean_fail + mean_ok;
            let var = failed * var_fail + var_ok;
            p_ok += pj;
            m1 += pj * mean;
            m2 += pj * (var + mean * mean);
        }
        let (mean_ok, var_ok) = if p_ok > 0.0 {
            let mean = m1 / p_ok;
            (mean, m2 / p_ok - mean * mean)
        } else {
            (0.0, 0.0)
        };
        Moments {
            f: f.powi(a as i32),
            mean_ok,
            var_ok,
            mean_fail: f64::from(a) * mean_fail,
            var_fail: f64::from(a) * var_fail,
        }
    }

    /// The mean and variance of the attempts, success or not.
    fn mean_var(self) -> (f64, f64) {
        let Moments {
            f,
            mean_ok,
            var_ok,
            mean_fail,
            var_fail,
        } = self;
        let mean = (1.0 - f) * mean_ok + f * mean_fail;
        let second =
            (1.0 - f) * (var_ok + mean_ok * mean_ok) + f * (var_fail + mean_fail * mean_fail);
        (mean, second - mean * mean)
    }
}

/// The load (100 clients at 10 per second for 10 s, exponential network legs of
/// mean 10 ms, immediate retries) through 3 layers of 3 attempts each to a bottom failing
/// with probability p: the attempts at the bottom and at layer 1 per request, and the
/// successes, each within Z standard errors of theory (the standard deviation of one
/// request's count from [`Moments`], so the tolerance is exact, not fitted).
#[test]
fn bottom_attempts_follow_the_product_of_geometric_series() {
    const A: u32 = 3;
    const L: u32 = 3;
    for p in [0.1, 0.3, 0.5] {
        for retry_at in [RetryAt::Every, RetryAt::Top] {
            let what = format!("p = {p}, retry at {retry_at}");
            let m = simulate(&chain(p, A, L, retry_at, 10_000.0)).metrics();
            assert_conserved(&what, &m);
            let n = m.requests;
            // A call into layer 1: the bottom's attempt, retried by each layer below the
            // first that retries (none with `top`, where inner layers pass calls on).
            let inner = if retry_at == RetryAt::Every { L - 1 } else { 0 };
            let into_first = (0..inner).fold(Moments::bottom(p), |call, _| call.retried(A));
            // The clients retry it.
            let (mean, var) = into_first.retried(A).mean_var();
            let closed = bottom_attempts_per_request(p, A, L, retry_at);
            assert!(
                (mean - closed).abs() < 1e-9 * closed,
                "{what}: {mean} vs {closed}"
            );
            assert_near(
                &format!("{what}: bottom attempts per request"),
                m.bottom_attempts / n,
                mean,
                Z * (var / n).sqrt(),
            );
            // Layer 1 sees the clients' tries: min(G, A), G geometric with the chance
            // that a call into layer 1 fails.
            let f = into_first.f;
            let (tries, tries_var) = Moments::bottom(f).retried(A).mean_var();
            assert_near(
                &format!("{what}: amplification"),
                m.amplification,
                tries,
                Z * (tries_var / n).sqrt(),
            );
            // A request fails when its last try does.
            let q = 1.0 - f.powi(A as i32);
            assert_near(
                &format!("{what}: success fraction"),
                m.successes / n,
                q,
                Z * (q * (1.0 - q) / n).sqrt(),
            );
        }
    }
}

#[test]
fn one_layer_is_the_engine_as_before() {
    for retry_at in [RetryAt::Every, RetryAt::Top] {
        let s = chain(0.3, 4, 1, retry_at, 2_000.0);
        let m = simulate(&s).metrics();
        assert_eq!(m.bottom_attempts, m.total_attempts);
        // The same bits as a run that never heard of layers.
        let plain = simulate(&SimSettings {
            layers: 1,
            retry_at: RetryAt::default(),
            ..s
        })
        .metrics();
        assert_eq!(format!("{m:?}"), format!("{plain:?}"));
    }
}
