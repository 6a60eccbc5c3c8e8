//! The settings' checks: every bad value refused by name, in every scenario.

use super::*;
use crate::backoff::Strategy;
use crate::budget::BudgetSettings;
use crate::error::Got;
use crate::sim::*;

#[test]
fn aws_occ_needs_a_message_delay() {
    // With no delay every write lands at the instant it left: none overlaps another and the
    // run ends at 0 ms, whose rates have nothing to divide by (it reported a goodput of 0).
    let occ = SimSettings {
        scenario: Scenario::AwsOcc,
        clients: 50,
        latency_ms: 0.0,
        ..SimSettings::default()
    };
    let e = occ.validate().unwrap_err();
    assert_eq!((e.field, &e.got), (Field::Latency, &Got::Number(0.0)));
    assert!(e.to_string().contains("more than 0 ms"), "{e}");
    let m = run(&SimSettings {
        latency_ms: 0.001,
        ..occ.clone()
    })
    .unwrap();
    assert!(m.completion_ms > 0.0 && m.goodput_rps > 0.0, "{m:?}");
    // The other scenarios' round trip may be 0: their servers take time.
    assert!(
        SimSettings {
            scenario: Scenario::Burst,
            ..occ
        }
        .validate()
        .is_ok()
    );
}

#[test]
fn a_latency_sd_beside_the_exponential_latency_is_refused() {
    let s = SimSettings {
        latency_dist: LatencyDist::Exponential,
        latency_sd_ms: Some(5.0),
        ..SimSettings::default()
    };
    let e = s.validate().unwrap_err();
    assert_eq!((e.field, &e.got), (Field::LatencySd, &Got::Number(5.0)));
    assert!(
        e.to_string()
            .contains("none with exponential latency, whose legs"),
        "{e}"
    );
    assert!(
        SimSettings {
            latency_sd_ms: None,
            ..s.clone()
        }
        .validate()
        .is_ok()
    );
    assert!(
        SimSettings {
            latency_dist: LatencyDist::Normal,
            ..s
        }
        .validate()
        .is_ok()
    );
}

#[test]
fn invalid_settings_name_the_field() {
    let d = SimSettings::default;
    let cases: Vec<(SimSettings, &str)> = vec![
        (SimSettings { clients: 0, ..d() }, "clients"),
        (
            SimSettings {
                clients: 1_000_001,
                ..d()
            },
            "clients",
        ),
        (
            SimSettings {
                scenario: Scenario::AwsOcc,
                clients: MAX_OCC_CLIENTS + 1,
                ..d()
            },
            "clients",
        ),
        (
            SimSettings {
                latency_sd_ms: Some(-1.0),
                ..d()
            },
            "latency_sd",
        ),
        (
            SimSettings {
                outage_ms: f64::NAN,
                ..d()
            },
            "outage",
        ),
        (
            SimSettings {
                outage_ms: -1.0,
                ..d()
            },
            "outage",
        ),
        (
            SimSettings {
                capacity_rps: 0.0,
                ..d()
            },
            "capacity_rps",
        ),
        (
            SimSettings {
                reject_cost: 2.0,
                ..d()
            },
            "reject_cost",
        ),
        (
            SimSettings {
                latency_ms: f64::INFINITY,
                ..d()
            },
            "latency",
        ),
        (
            SimSettings {
                slot_ms: 0.0,
                ..d()
            },
            "slot",
        ),
        (
            SimSettings {
                retry_after_ms: Some(f64::NAN),
                ..d()
            },
            "retry_after",
        ),
        (
            SimSettings {
                budget: Some(BudgetSettings::new(-1.0, 1.0)),
                ..d()
            },
            "capacity",
        ),
        (
            SimSettings {
                scenario: Scenario::Steady,
                rate_per_client: 0.0,
                ..d()
            },
            "rate",
        ),
        (
            SimSettings {
                scenario: Scenario::Steady,
                clients: 1_000_000,
                rate_per_client: 1000.0,
                ..d()
            },
            "rate",
        ),
        (
            SimSettings {
                policy: PolicySettings::new(BackoffSettings::new(Strategy::Full, 10.0, 5.0), 6),
                ..d()
            },
            "cap",
        ),
    ];
    for (s, field) in cases {
        assert_eq!(Simulation::new(&s).unwrap_err().field, field, "{s:?}");
    }
    assert_eq!(run_many(&d(), 0).unwrap_err().field, "runs");
}

#[test]
fn every_scenario_checks_the_settings_of_the_others() {
    // A burst ignores the ongoing scenarios' settings, but a bad one is still a mistake:
    // NaN, infinite or out of range, it is refused by name in every scenario.
    type Set = fn(&mut SimSettings, f64);
    let fields: [(Set, &str); 6] = [
        (|s, v| s.rate_per_client = v, "rate"),
        (|s, v| s.duration_ms = v, "duration"),
        (|s, v| s.spike_start_ms = v, "spike_start"),
        (|s, v| s.spike_length_ms = v, "spike_length"),
        (|s, v| s.spike_factor = v, "spike_factor"),
        (|s, v| s.think_ms = v, "think"),
    ];
    for scenario in [
        Scenario::Burst,
        Scenario::AwsOcc,
        Scenario::Steady,
        Scenario::Spike,
        Scenario::Closed,
    ] {
        for bad in [f64::NAN, f64::NEG_INFINITY, -5.0] {
            for (set, field) in fields {
                let mut s = SimSettings {
                    scenario,
                    ..SimSettings::default()
                };
                set(&mut s, bad);
                let e = Simulation::new(&s).unwrap_err();
                assert_eq!(e.field, field, "{scenario:?} {field} = {bad}");
            }
        }
    }
}

/// `Scenario::reads` against the runs themselves: a setting a scenario does not read
/// changes nothing in its run, and each load shape's own settings change its run.
#[test]
fn a_scenario_reads_exactly_the_settings_it_says() {
    type Change = fn(&mut SimSettings);
    let changes: [(Field, Change); 13] = [
        (Field::Rate, |s| s.rate_per_client = 3.0),
        (Field::Duration, |s| s.duration_ms = 4000.0),
        (Field::BurstWindow, |s| s.burst_window_ms = 1500.0),
        (Field::SpikeStart, |s| s.spike_start_ms = 200.0),
        (Field::SpikeLength, |s| s.spike_length_ms = 1500.0),
        (Field::SpikeFactor, |s| s.spike_factor = 8.0),
        (Field::Think, |s| s.think_ms = 40.0),
        (Field::Outage, |s| s.outage_ms = 700.0),
        (Field::OutageStart, |s| s.outage_start_ms = 300.0),
        (Field::CapacityRps, |s| s.capacity_rps = 40.0),
        (Field::RejectCost, |s| s.reject_cost = 0.5),
        (Field::RetryAfter, |s| s.retry_after_ms = Some(3000.0)),
        (Field::BudgetScope, |s| s.budget_scope = BudgetScope::Shared),
    ];
    for scenario in Scenario::ALL {
        let base = SimSettings {
            scenario,
            clients: 40,
            duration_ms: 2000.0,
            spike_start_ms: 500.0,
            spike_length_ms: 1000.0,
            think_ms: 100.0,
            capacity_rps: 400.0,
            budget: (scenario != Scenario::AwsOcc).then(|| BudgetSettings::new(5.0, 1.0)),
            seed: 3,
            ..SimSettings::default()
        };
        let before = run(&base).expect("the base settings run");
        for (field, change) in changes {
            let mut s = base.clone();
            change(&mut s);
            let after = run(&s).expect("the changed settings run");
            if !scenario.reads(field) {
                assert_eq!(after, before, "{scenario} does not read {field:?}");
            } else if matches!(
                field,
                Field::Rate
                    | Field::Duration
                    | Field::BurstWindow
                    | Field::SpikeStart
                    | Field::SpikeLength
                    | Field::SpikeFactor
                    | Field::Think
            ) {
                assert_ne!(after, before, "{scenario} reads {field:?}");
            }
        }
    }
}
