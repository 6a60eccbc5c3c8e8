//! The settings' checks: every bad value refused by name, in every scenario.

use super::*;
use crate::backoff::Strategy;
use crate::error::Got;
use crate::sim::*;

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
