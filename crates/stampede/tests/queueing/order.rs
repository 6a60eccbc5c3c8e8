//! The order a queue is served in changes who waits, not how much waiting there is: for
//! any order that keeps the workers busy and does not look at service times, the queue
//! length over time is the same, so the mean time in system is too (Kleinrock's
//! conservation law; Little's law turns the one into the other). LIFO moves the waiting
//! from the many to the few: a lower median, a far longer tail.

use stampede::sim::{QueueOrder, SimSettings};

use crate::support::{server_alone, simulate};

#[test]
fn lifo_keeps_the_mean_and_moves_the_tail() {
    // M/M/1 at ρ = 0.8, 100,000 requests, the same seed in both orders.
    let fifo = server_alone(80.0, 1, 10.0, 100_000.0);
    let lifo = SimSettings {
        queue_order: QueueOrder::Lifo,
        ..fifo.clone()
    };
    let (mut f, mut l) = (simulate(&fifo), simulate(&lifo));
    let (fm, lm) = (f.metrics(), l.metrics());
    // The engine draws a service time when a request starts, so both orders see the same
    // arrivals and the same sequence of service times, hence the same busy periods: the
    // queue length, slot by slot, is identical, and the mean time in system equal but for
    // rounding (the sums run in different orders).
    assert_eq!(
        f.series().queued,
        l.series().queued,
        "the queue length over time"
    );
    assert_eq!(fm.max_queue, lm.max_queue);
    let (a, b) = (fm.mean_ms.expect("fifo"), lm.mean_ms.expect("lifo"));
    assert!((a / b - 1.0).abs() < 1e-9, "mean fifo {a} ms, lifo {b} ms");
    // Measured: p50 34 vs 18 ms, p99 234 vs 614 ms. Bounds far from both.
    let (fp50, lp50) = (fm.p50_ms.expect("fifo"), lm.p50_ms.expect("lifo"));
    let (fp99, lp99) = (fm.p99_ms.expect("fifo"), lm.p99_ms.expect("lifo"));
    assert!(lp50 < 0.75 * fp50, "p50: lifo {lp50} ms, fifo {fp50} ms");
    assert!(lp99 > 1.8 * fp99, "p99: lifo {lp99} ms, fifo {fp99} ms");
}
