//! The names of the system model's choices: how a load balancer picks a server, in which
//! order a queue is served, how service times and network delays are distributed, and a
//! slowdown window. Front ends parse them by name ([`FromStr`]) and list them through
//! `NAMES`, never by matching.

use core::fmt;
use core::str::FromStr;

use crate::error::{ConfigError, Field};

/// Declares a fieldless enum named by kebab-case strings: `ALL`, `NAMES`, `name()`,
/// `Display` and `FromStr` (trimmed, case-insensitive, the error naming `$field`).
macro_rules! named {
    ($(#[$doc:meta])* $name:ident, $field:expr, [$( $(#[$vdoc:meta])* $variant:ident => $text:literal, )*]) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vdoc])* $variant, )*
        }

        impl $name {
            /// Every choice, in the order of `NAMES`.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];
            /// Every choice's name.
            pub const NAMES: &'static [&'static str] = &[$($text,)*];

            /// The choice's name.
            pub const fn name(self) -> &'static str {
                Self::NAMES[self as usize]
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl FromStr for $name {
            type Err = ConfigError;
            fn from_str(s: &str) -> Result<Self, ConfigError> {
                crate::error::lookup($field, Self::NAMES, s).map(|i| Self::ALL[i])
            }
        }
    };
}

named! {
    /// How the load balancer picks a server for each attempt.
    Balance, Field::Balance, [
        /// In turn: 0, 1, 2, …
        #[default]
        RoundRobin => "round-robin",
        /// Uniformly at random.
        Random => "random",
        /// The server with the fewest requests in service and waiting (the lowest index on a tie).
        LeastLoaded => "least-loaded",
    ]
}

named! {
    /// Which waiting request a server takes when a worker frees up.
    QueueOrder, Field::QueueOrder, [
        /// The oldest: first in, first out.
        #[default]
        Fifo => "fifo",
        /// The newest (Facebook's "adaptive LIFO" without the adaptation): under overload the
        /// newest request is the one whose client is most likely still waiting.
        Lifo => "lifo",
    ]
}

named! {
    /// How one request's service time is distributed around its mean.
    ServiceDist, Field::ServiceDist, [
        /// Always the mean.
        #[default]
        Constant => "constant",
        /// Exponential (memoryless: the M in M/M/c).
        Exponential => "exponential",
        /// Log-normal with the mean kept and `service_spread` the standard deviation of the
        /// logarithm: a long tail.
        Lognormal => "lognormal",
    ]
}

named! {
    /// How one leg of the network (client to server, or back) is distributed.
    LatencyDist, Field::LatencyDist, [
        /// Half the mean round trip plus uniform jitter of the given standard deviation
        /// (named for the normal it stands in for; see the simulator's docs).
        #[default]
        Normal => "normal",
        /// Exponential with half the mean round trip (Brooker's simulations).
        Exponential => "exponential",
    ]
}

named! {
    /// Which layers of a chain of services retry (see the simulator's `layers`).
    RetryAt, Field::RetryAt, [
        /// Every layer retries its call to the next with the policy: attempts multiply.
        #[default]
        Every => "every",
        /// Only the clients retry; inner layers make one attempt and pass failures up.
        Top => "top",
    ]
}

/// A window in which every request that starts service takes `factor` times as long: a
/// brownout, a garbage-collection storm, a noisy neighbour.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Slowdown {
    /// When it starts (ms).
    pub start_ms: f64,
    /// How long it lasts (ms).
    pub length_ms: f64,
    /// What service times are multiplied by, 1 to [`MAX_FACTOR`](super::MAX_FACTOR).
    pub factor: f64,
}

impl Slowdown {
    /// Checks each part against its field's range.
    pub fn validate(&self) -> Result<(), ConfigError> {
        Field::SlowdownStart.check(self.start_ms)?;
        Field::SlowdownLength.check(self.length_ms)?;
        Field::SlowdownFactor.check(self.factor)?;
        Ok(())
    }

    /// Whether `t_ms` falls in the window.
    #[inline]
    pub fn covers(&self, t_ms: f64) -> bool {
        t_ms >= self.start_ms && t_ms - self.start_ms < self.length_ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_bad_names_name_the_field() {
        for &b in Balance::ALL {
            assert_eq!(b.name().parse::<Balance>(), Ok(b));
        }
        for &o in QueueOrder::ALL {
            assert_eq!(o.to_string().parse::<QueueOrder>(), Ok(o));
        }
        for &d in ServiceDist::ALL {
            assert_eq!(d.name().parse::<ServiceDist>(), Ok(d));
        }
        for &d in LatencyDist::ALL {
            assert_eq!(d.name().parse::<LatencyDist>(), Ok(d));
        }
        for &r in RetryAt::ALL {
            assert_eq!(r.name().parse::<RetryAt>(), Ok(r));
        }
        assert_eq!("each".parse::<RetryAt>().unwrap_err().field, Field::RetryAt);
        assert_eq!(" LIFO ".parse::<QueueOrder>(), Ok(QueueOrder::Lifo));
        let e = "fastest".parse::<Balance>().unwrap_err();
        assert_eq!(e.field, Field::Balance);
        assert_eq!(
            "pareto".parse::<ServiceDist>().unwrap_err().field,
            Field::ServiceDist
        );
    }

    #[test]
    fn a_slowdown_covers_its_half_open_window() {
        let s = Slowdown {
            start_ms: 100.0,
            length_ms: 50.0,
            factor: 3.0,
        };
        assert!(!s.covers(99.9) && s.covers(100.0) && s.covers(149.9) && !s.covers(150.0));
        assert!(s.validate().is_ok());
        let bad = Slowdown { factor: 0.5, ..s };
        assert_eq!(bad.validate().unwrap_err().field, Field::SlowdownFactor);
    }
}
