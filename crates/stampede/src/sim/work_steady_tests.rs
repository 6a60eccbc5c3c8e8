//! The work bounds of a `steady` or `spike` load: clients × rate × duration, and which of
//! the three its refusal names. A child of `work_tests.rs`.

use super::*;

/// A steady or spike run too big even at the least rate the settings take: the error
/// names clients, with the most that fit at the rate given (it named the rate with a
/// value below the rate's own minimum, 2.3e-9 for a minimum of 1e-6).
#[test]
fn a_load_too_big_at_any_rate_names_clients() {
    let spike = SimSettings {
        scenario: Scenario::Spike,
        clients: 1_000_000,
        rate_per_client: 1e-6,
        duration_ms: 86_400_000.0,
        spike_start_ms: 0.0,
        spike_length_ms: 86_400_000.0,
        spike_factor: 1000.0,
        policy: PolicySettings::new(BackoffSettings::new(Strategy::Full, 100.0, 30_000.0), 100),
        ..SimSettings::default()
    };
    let e = spike.check().map(|_| ()).unwrap_err();
    assert_eq!(e.field, Field::Clients, "{e}");
    let Expected::Work { max, bound } = e.expected else {
        panic!("{:?}", e.expected)
    };
    assert_eq!(bound, WorkBound::SteadyClients);
    // 20,000,000 attempts / 100 = 200,000 requests over a day at 1,000 × 1e-6 a second.
    assert_eq!(max, (200_000.0_f64 / (1e-6 * 86_400.0 * 1000.0)).floor());
    let fits = SimSettings {
        clients: max as u32,
        ..spike.clone()
    };
    assert!(fits.check().is_ok());
    let over = SimSettings {
        clients: max as u32 + 1,
        ..spike
    };
    // One more is refused (by the attempts' bound, which names max_attempts).
    assert_eq!(
        over.check().map(|_| ()).unwrap_err().code(),
        crate::error::Code::TooMuchWork
    );
}

/// A steady load too big names the setting the user changed, read from the defaults: a day
/// at the default rate names the duration (it named the rate, never set), with the longest
/// that fits, spike or not; a million clients at the default rate and duration name the
/// clients; a rate set names the rate.
#[test]
fn a_load_too_big_names_what_was_changed() {
    for scenario in [Scenario::Steady, Scenario::Spike] {
        let day = |duration_ms| SimSettings {
            scenario,
            duration_ms,
            ..SimSettings::default()
        };
        let (field, max, bound) = refusal(&day(86_400_000.0));
        assert_eq!(
            (field, bound),
            (Field::Duration, WorkBound::SteadyDuration),
            "{scenario:?}"
        );
        // 20,000,000 attempts / 6 a request, 1,000 clients at 1 a second: 3,333 s, less
        // the spike's extra requests.
        assert!(
            max > 3_000_000.0 && max <= 3_333_333.0,
            "{scenario:?}: {max}"
        );
        assert!(day(max).validate().is_ok(), "{scenario:?}: {max} fits");
        // A ms more passes the attempts' bound (20 M / 6 requests), which names those.
        assert_eq!(
            refusal(&day(max + 1.0)).0,
            Field::MaxAttempts,
            "{scenario:?}"
        );
        let (field, _, bound) = refusal(&SimSettings {
            rate_per_client: 2.0,
            ..day(86_400_000.0)
        });
        assert_eq!((field, bound), (Field::Rate, WorkBound::SteadyRequests));
        let (field, max, bound) = refusal(&SimSettings {
            clients: 1_000_000,
            ..day(SimSettings::default().duration_ms)
        });
        assert_eq!((field, bound), (Field::Clients, WorkBound::SteadyClients));
        assert!(
            SimSettings {
                clients: max as u32,
                ..day(SimSettings::default().duration_ms)
            }
            .validate()
            .is_ok()
        );
    }
    // Ending within a long, steep spike: the inverse of its piecewise duration.
    let spike = |duration_ms| SimSettings {
        scenario: Scenario::Spike,
        duration_ms,
        spike_start_ms: 600_000.0,
        spike_length_ms: 1_800_000.0,
        spike_factor: 100.0,
        ..SimSettings::default()
    };
    let (field, max, _) = refusal(&spike(5_400_000.0));
    assert_eq!(field, Field::Duration);
    assert!(max > 600_000.0 && max < 2_400_000.0, "{max}");
    assert!(spike(max).validate().is_ok(), "{max} fits");
    assert_eq!(refusal(&spike(max + 1.0)).0, Field::MaxAttempts);
}

/// A spike too steep names its factor when the rate and the duration are their defaults (it
/// named the clients, never set), with the largest factor that fits: that factor is taken,
/// a little more passes the attempts' bound; with the duration changed too, the duration
/// is named, as before.
#[test]
fn a_spike_too_steep_names_its_factor() {
    let steep = |spike_factor| SimSettings {
        scenario: Scenario::Spike,
        spike_factor,
        ..SimSettings::default()
    };
    let (field, max, bound) = refusal(&steep(1000.0));
    assert_eq!((field, bound), (Field::SpikeFactor, WorkBound::SteadySpike));
    // 20,000,000 attempts / 6 a request from 1,000 clients at 1 a second: 3,333.3 s of
    // load, 60 s of it plain and 5 s of spike, each spike second counted `factor` times.
    let d = SimSettings::default();
    let expected = 1.0 + (20_000_000.0 / 6.0 - 60_000.0) / d.spike_length_ms;
    assert!((max - expected).abs() < 1e-9, "{max} against {expected}");
    assert!(steep(max).validate().is_ok(), "{max} fits");
    assert_eq!(refusal(&steep(max + 0.01)).0, Field::MaxAttempts);
    let (field, _, _) = refusal(&SimSettings {
        duration_ms: 86_400_000.0,
        ..steep(1000.0)
    });
    assert_eq!(field, Field::Duration);
    // A steady run does not read the factor: a day of it names the duration.
    let (field, _, _) = refusal(&SimSettings {
        scenario: Scenario::Steady,
        duration_ms: 86_400_000.0,
        ..steep(1000.0)
    });
    assert_eq!(field, Field::Duration);
}

/// The largest rate, clients or duration a steady load's refusal names is taken, with a
/// timeout, hedging or a net too: they lower the run's attempts, and the value named was
/// then refused for its attempts (`--attempts`, never set).
#[test]
fn a_load_too_big_names_a_value_that_fits_with_a_timeout_hedging_or_nets() {
    use crate::hedge::HedgingSettings;
    use crate::nets::{BreakerSettings, GuardSettings};
    let steady = SimSettings {
        scenario: Scenario::Steady,
        ..SimSettings::default()
    };
    let timed = SimSettings {
        timeout_ms: Some(1.0),
        ..steady.clone()
    };
    let hedged = SimSettings {
        hedging: Some(HedgingSettings::new(10.0, 2)),
        ..steady.clone()
    };
    let breaker = SimSettings {
        nets: GuardSettings {
            breaker: Some(BreakerSettings::default()),
            ..GuardSettings::default()
        },
        ..steady
    };
    for base in [timed, hedged, breaker] {
        let (field, max, _) = refusal(&SimSettings {
            rate_per_client: 1000.0,
            ..base.clone()
        });
        assert_eq!(field, Field::Rate, "{base:?}");
        let named = |rate_per_client| SimSettings {
            rate_per_client,
            ..base.clone()
        };
        assert!(named(max).validate().is_ok(), "{max} fits: {base:?}");
        assert!(named(max * 1.001).validate().is_err(), "{max} is the most");
        // A million: with a breaker each they pass the nets' memory too (335,544), and the
        // load's bound, the lower, is named.
        let (field, max, _) = refusal(&SimSettings {
            clients: 1_000_000,
            ..base.clone()
        });
        assert_eq!(field, Field::Clients);
        let clients = |clients| SimSettings {
            clients,
            ..base.clone()
        };
        assert!(
            clients(max as u32).validate().is_ok(),
            "{max} fits: {base:?}"
        );
        let (field, max, _) = refusal(&SimSettings {
            duration_ms: 86_400_000.0,
            ..base.clone()
        });
        assert_eq!(field, Field::Duration);
        let day = |duration_ms| SimSettings {
            duration_ms,
            ..base.clone()
        };
        assert!(day(max).validate().is_ok(), "{max} fits: {base:?}");
    }
}
