//! `--hedge DELAY[:MAX]`, shared by `simulate` and `sweep`: hedged requests (see the core's
//! `stampede::hedge`). Left out, no hedging; given, each request sends another attempt
//! every DELAY without an answer, up to MAX attempts in all (the core's default when MAX is
//! left out), and the first success wins.

use clap::Args as ClapArgs;
use stampede::Field;
use stampede::hedge::{DEFAULT_HEDGED_ATTEMPTS, HedgingSettings};
use stampede::sim::SimSettings;
use stampede_cli::args::{duration, whole_in};

/// The hedging flag. `None`: not given, no hedging.
#[derive(ClapArgs, Debug, Clone, Default)]
pub struct Hedge {
    #[arg(long, value_name = "DELAY[:MAX]", value_parser = parse_hedge, allow_hyphen_values = true,
          help_heading = "Clients",
          help = format!("Hedging: send another attempt when none has answered after DELAY, up to MAX \
                          attempts in all (2 to 5) [default MAX: {DEFAULT_HEDGED_ATTEMPTS}]; the first \
                          success wins, the losers' work is wasted; replaces the retries of --attempts \
                          and the backoff [default: none]"))]
    hedge: Option<HedgingSettings>,
}

impl Hedge {
    /// `base` with hedging, if the flag was given.
    pub fn apply(&self, base: SimSettings) -> SimSettings {
        SimSettings {
            hedging: self.hedge.or(base.hedging),
            ..base
        }
    }

    /// The flag, if it was given (for the scenarios that refuse it).
    pub fn given(&self) -> Option<&'static str> {
        self.hedge.map(|_| "--hedge")
    }
}

/// `DELAY[:MAX]`: a duration and, optionally, the attempts in all, each in the core's range.
fn parse_hedge(s: &str) -> Result<HedgingSettings, String> {
    const FORM: &str =
        "expected DELAY[:MAX], a duration and at most 5 attempts in all, such as 50ms:2";
    let (delay, max) = match s.split_once(':') {
        Some((d, m)) => (d, Some(m)),
        None => (s, None),
    };
    let delay_ms = duration(Field::HedgeDelay)(delay).map_err(|e| format!("{FORM}; DELAY: {e}"))?;
    let max_attempts = match max {
        Some(m) => whole_in(m, Field::HedgeMaxAttempts).map_err(|e| format!("{FORM}; MAX: {e}"))?,
        None => DEFAULT_HEDGED_ATTEMPTS,
    };
    HedgingSettings::new(delay_ms, max_attempts)
        .validate()
        .map_err(|e| format!("{FORM}; {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_and_optional_attempts() {
        assert_eq!(parse_hedge("50ms"), Ok(HedgingSettings::new(50.0, 2)));
        assert_eq!(parse_hedge("1.5s:3"), Ok(HedgingSettings::new(1500.0, 3)));
        assert_eq!(parse_hedge(" 0 : 5 "), Ok(HedgingSettings::new(0.0, 5)));
        for bad in [
            "", ":", "50ms:", ":2", "-1ms", "50ms:1", "50ms:6", "50ms:2.5", "x", "50ms:2:3", "NaN",
            "2d",
        ] {
            let e = parse_hedge(bad).unwrap_err();
            assert!(e.starts_with("expected DELAY[:MAX]"), "{bad:?}: {e}");
        }
        // The part at fault is named, with its range from the core.
        let e = parse_hedge("50ms:6").unwrap_err();
        assert!(
            e.ends_with("MAX: expected a whole number from 2 to 5"),
            "{e}"
        );
    }

    #[test]
    fn nothing_given_is_no_hedging() {
        let none = Hedge::default();
        assert_eq!(none.apply(SimSettings::default()), SimSettings::default());
        assert_eq!(none.given(), None);
        let some = Hedge {
            hedge: Some(HedgingSettings::new(20.0, 2)),
        };
        assert_eq!(some.given(), Some("--hedge"));
        assert_eq!(
            some.apply(SimSettings::default()).hedging,
            Some(HedgingSettings::new(20.0, 2))
        );
    }
}
