//! What `simulate` and `sweep` print: the metrics under their JSON names (which are also
//! the sweep's CSV columns and the text table's rows) and the per-slot series as CSV.
//!
//! These names are a contract (tests outside this repository read them): new ones go at
//! the end, and none is renamed or moved.

use std::io::{BufWriter, Write};

use serde_json::{Map, Value, json};
use stampede::sim::{Metrics, Scenario, Simulation};
use stampede_cli::json::num;

/// The metrics under the CLI's JSON names, `null` for a value the run does not have (no
/// percentile or mean latency without a success).
pub fn metrics_json(scenario: Scenario, clients: u32, m: &Metrics) -> Map<String, Value> {
    let opt = |v: Option<f64>| v.map_or(Value::Null, num);
    let Value::Object(map) = json!({
        "scenario": scenario.name(),
        "clients": clients,
        "requests": num(m.requests),
        "total_attempts": num(m.total_attempts),
        "successes": num(m.successes),
        "gave_up": num(m.gave_up),
        "budget_rejected": num(m.budget_rejected),
        "amplification": num(m.amplification),
        "peak_rps": num(m.peak_rps),
        "peak_recovery_rps": num(m.peak_recovery_rps),
        "completion_ms": num(m.completion_ms),
        "recovery_ms": num(m.recovery_ms),
        "p50_ms": opt(m.p50_ms),
        "p99_ms": opt(m.p99_ms),
        "calls": num(m.calls),
        "timeouts": num(m.timeouts),
        "wasted": num(m.wasted),
        "goodput_rps": num(m.goodput_rps),
        "throughput_rps": num(m.throughput_rps),
        "max_queue": num(m.max_queue),
        "mean_ms": opt(m.mean_ms),
        "bottom_attempts": num(m.bottom_attempts),
        "hedges": num(m.hedges),
        "breaker_rejected": num(m.breaker_rejected),
        "throttled": num(m.throttled),
    }) else {
        unreachable!("json! of an object literal is an object")
    };
    map
}

/// The metrics `sweep` writes as columns after `scenario,strategy,clients,runs`, and
/// `simulate` as rows of its table, in this order.
pub const METRIC_COLUMNS: [&str; 23] = [
    "requests",
    "total_attempts",
    "successes",
    "gave_up",
    "budget_rejected",
    "amplification",
    "peak_rps",
    "peak_recovery_rps",
    "completion_ms",
    "recovery_ms",
    "p50_ms",
    "p99_ms",
    "calls",
    // The queueing model's, added after the first thirteen.
    "timeouts",
    "wasted",
    "goodput_rps",
    "throughput_rps",
    "max_queue",
    "mean_ms",
    // Where to retry (issue #12): attempts at the last layer of a chain of services.
    "bottom_attempts",
    // Hedging's.
    "hedges",
    "breaker_rejected",
    "throttled",
];

/// A JSON value as a CSV cell: `null` is empty, a string bare.
pub fn csv_cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The run's per-slot series as CSV, written to `out`: the slot's start (ms), then one
/// count per column.
pub fn write_series(out: impl Write, sim: &Simulation) -> std::io::Result<()> {
    let s = sim.series();
    let columns: [(&str, &[u32]); 9] = [
        ("offered", s.offered),
        ("served", s.served),
        ("rejected", s.rejected),
        ("failed", s.failed),
        ("blocked", s.blocked),
        // The queueing model's, added after the first five.
        ("goodput", s.goodput),
        ("timed_out", s.timed_out),
        ("wasted", s.wasted),
        ("queued", s.queued),
    ];
    // The core keeps every column the same length; the shortest bounds the rows, so a
    // broken promise there shows as a short file, not a panic.
    let slots = columns.iter().map(|(_, c)| c.len()).min().unwrap_or(0);
    let mut csv = BufWriter::new(out);
    write!(csv, "t_ms")?;
    for (name, _) in &columns {
        write!(csv, ",{name}")?;
    }
    writeln!(csv)?;
    for i in 0..slots {
        write!(csv, "{}", i as f64 * s.slot_ms)?;
        for (_, c) in &columns {
            write!(csv, ",{}", c[i])?;
        }
        writeln!(csv)?;
    }
    csv.flush()
}
