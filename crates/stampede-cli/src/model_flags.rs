//! The queueing model's flags, shared by `simulate` and `sweep`: the servers (how many,
//! their workers, queue and service time), the failures beside the outage (part of the
//! fleet down, a slowdown, a background fail rate), and the clients (a timeout per
//! attempt, the network's distribution, the `spike` and `closed` load shapes).
//!
//! Every flag is optional and, left out, the core's default holds: [`SimSettings::default`]
//! is the one place those defaults live, and the help reads them from there. Knowing which
//! flags were given lets `aws-occ`, which models none of this, refuse them rather than
//! ignore them.

use std::fmt::Display;

use clap::Args as ClapArgs;
use stampede::Field;
use stampede::sim::{
    Balance, DEFAULT_QUEUE_S, LatencyDist, QueueOrder, Scenario, ServiceDist, SimSettings, Slowdown,
};
use stampede_cli::args::{duration, flag_for, number, ranged, whole};

const SERVERS: &str = "Servers";
const CLIENTS: &str = "Clients";

/// The model's flags. `None`: not given, the core's default.
///
/// Each help is built at run time (`help = …`) rather than written as a doc comment with
/// `default_value_t`: the value must stay `None` when the flag is not given (so `aws-occ`
/// can tell), yet the help still shows the core's default as clap would.
#[derive(ClapArgs, Debug, Clone, Default)]
pub struct Model {
    #[arg(long, value_name = "N", value_parser = whole(Field::Servers), allow_hyphen_values = true,
          help_heading = SERVERS,
          help = with_default(ranged("Identical servers behind the load balancer", Field::Servers), defaults().servers))]
    servers: Option<u32>,
    #[arg(long, value_name = "NAME", value_parser = parse_name::<Balance>, help_heading = SERVERS,
          help = with_default(format!("How the load balancer picks a server: {}", or_list(Balance::NAMES)), defaults().balance))]
    balance: Option<Balance>,
    #[arg(long, value_name = "K", value_parser = whole(Field::Workers), allow_hyphen_values = true,
          help_heading = SERVERS,
          help = with_default(ranged("Concurrent requests per server, 0 for unlimited", Field::Workers), "as many as --capacity needs at --service"))]
    workers: Option<u32>,
    #[arg(long, value_name = "Q", value_parser = whole(Field::Queue), allow_hyphen_values = true,
          help_heading = SERVERS,
          help = with_default(ranged("Requests a server keeps waiting when every worker is busy; one more gets 503 at once", Field::Queue),
                              format!("{} of its capacity", ms(DEFAULT_QUEUE_S * 1000.0))))]
    queue: Option<u32>,
    #[arg(long, value_name = "ORDER", value_parser = parse_name::<QueueOrder>, help_heading = SERVERS,
          help = with_default(format!("Which waiting request is served next: {}", or_list(QueueOrder::NAMES)), defaults().queue_order))]
    queue_order: Option<QueueOrder>,
    #[arg(long, value_name = "DURATION", value_parser = duration(Field::QueueTimeout), allow_hyphen_values = true,
          help_heading = SERVERS,
          help = with_default(ranged("A request that waited longer than this is dropped with 503 before it starts", Field::QueueTimeout), "never"))]
    queue_timeout: Option<f64>,
    #[arg(long, value_name = "DURATION", value_parser = duration(Field::Service), allow_hyphen_values = true,
          help_heading = SERVERS,
          help = with_default(ranged("Mean service time; without --workers it is scaled so that the fleet serves --capacity", Field::Service),
                              ms(defaults().service_ms)))]
    service: Option<f64>,
    #[arg(long, value_name = "DIST", value_parser = parse_name::<ServiceDist>, help_heading = SERVERS,
          help = with_default(format!("How service times vary: {}", or_list(ServiceDist::NAMES)), defaults().service_dist))]
    service_dist: Option<ServiceDist>,
    #[arg(long, value_name = "SIGMA", value_parser = number(Field::ServiceSpread), allow_hyphen_values = true,
          help_heading = SERVERS,
          help = with_default(ranged("lognormal: the standard deviation of the service time's logarithm (the mean stays --service)", Field::ServiceSpread),
                              defaults().service_spread))]
    service_spread: Option<f64>,
    #[arg(long, value_name = "DURATION", value_parser = duration(Field::ServiceSlope), allow_hyphen_values = true,
          help_heading = SERVERS,
          help = with_default(ranged("Extra service time for each request already in service on that server", Field::ServiceSlope),
                              ms(defaults().service_slope_ms)))]
    service_slope: Option<f64>,
    #[arg(long, value_name = "P", value_parser = number(Field::FailRate), allow_hyphen_values = true,
          help_heading = SERVERS,
          help = with_default(ranged("The chance that a server fails an attempt with 500, whatever its load", Field::FailRate),
                              defaults().fail_rate))]
    fail_rate: Option<f64>,
    #[arg(long, value_name = "K", value_parser = whole(Field::OutageServers), allow_hyphen_values = true,
          help_heading = SERVERS,
          help = with_default("How many servers the outage takes down (at most --servers)", "all"))]
    outage_servers: Option<u32>,
    #[arg(long, value_name = "START:LENGTH:FACTOR", value_parser = parse_slowdown, allow_hyphen_values = true,
          help_heading = SERVERS,
          help = with_default(ranged("Service times take FACTOR times as long from START for LENGTH, such as 10s:5s:3; FACTOR", Field::SlowdownFactor), "none"))]
    slowdown: Option<Slowdown>,
    #[arg(long, value_name = "DURATION", value_parser = duration(Field::Timeout), allow_hyphen_values = true,
          help_heading = CLIENTS,
          help = with_default("A client gives an attempt up this long after sending it, as the error \
                               `timeout`; the server still does the work", "never"))]
    timeout: Option<f64>,
    #[arg(long, value_name = "DIST", value_parser = parse_name::<LatencyDist>, help_heading = CLIENTS,
          help = with_default(format!("How network delay varies: {}; normal: each leg half of --latency, give or \
                                       take uniform jitter of --latency-sd's spread (a cheap stand-in for a \
                                       normal's, cut at 0); exponential: each leg exponential with half of --latency",
                                      or_list(LatencyDist::NAMES)), defaults().latency_dist))]
    latency_dist: Option<LatencyDist>,
    #[arg(long, value_name = "DURATION", value_parser = duration(Field::SpikeStart), allow_hyphen_values = true,
          help_heading = CLIENTS,
          help = with_default(ranged("spike: when the rate jumps", Field::SpikeStart), ms(defaults().spike_start_ms)))]
    spike_start: Option<f64>,
    #[arg(long, value_name = "DURATION", value_parser = duration(Field::SpikeLength), allow_hyphen_values = true,
          help_heading = CLIENTS,
          help = with_default(ranged("spike: how long it stays up", Field::SpikeLength), ms(defaults().spike_length_ms)))]
    spike_length: Option<f64>,
    #[arg(long, value_name = "F", value_parser = number(Field::SpikeFactor), allow_hyphen_values = true,
          help_heading = CLIENTS,
          help = with_default(ranged("spike: what the rate is multiplied by meanwhile", Field::SpikeFactor), defaults().spike_factor))]
    spike_factor: Option<f64>,
    #[arg(long, value_name = "DURATION", value_parser = duration(Field::Think), allow_hyphen_values = true,
          help_heading = CLIENTS,
          help = with_default("closed: a client's mean pause between one answer and its next request",
                              ms(defaults().think_ms)))]
    think: Option<f64>,
}

impl Model {
    /// `base` with every given flag applied.
    pub fn apply(&self, base: SimSettings) -> SimSettings {
        SimSettings {
            servers: self.servers.unwrap_or(base.servers),
            balance: self.balance.unwrap_or(base.balance),
            workers: self.workers.or(base.workers),
            queue: self.queue.or(base.queue),
            queue_order: self.queue_order.unwrap_or(base.queue_order),
            queue_timeout_ms: self.queue_timeout.or(base.queue_timeout_ms),
            service_ms: self.service.unwrap_or(base.service_ms),
            service_dist: self.service_dist.unwrap_or(base.service_dist),
            service_spread: self.service_spread.unwrap_or(base.service_spread),
            service_slope_ms: self.service_slope.unwrap_or(base.service_slope_ms),
            fail_rate: self.fail_rate.unwrap_or(base.fail_rate),
            outage_servers: self.outage_servers.or(base.outage_servers),
            slowdown: self.slowdown.or(base.slowdown),
            timeout_ms: self.timeout.or(base.timeout_ms),
            latency_dist: self.latency_dist.unwrap_or(base.latency_dist),
            spike_start_ms: self.spike_start.unwrap_or(base.spike_start_ms),
            spike_length_ms: self.spike_length.unwrap_or(base.spike_length_ms),
            spike_factor: self.spike_factor.unwrap_or(base.spike_factor),
            think_ms: self.think.unwrap_or(base.think_ms),
            ..base
        }
    }

    /// The network delay's law, if `--latency-dist` was given.
    pub fn latency_dist(&self) -> Option<LatencyDist> {
        self.latency_dist
    }

    /// Whether `--service-spread` was given beside a service time that is not log-normal,
    /// which does not read it.
    pub fn spread_unread(&self) -> bool {
        self.service_spread.is_some()
            && self.service_dist.unwrap_or(defaults().service_dist) != ServiceDist::Lognormal
    }

    /// A note for each flag given whose setting another makes moot (it changes nothing): a
    /// queue's with `--workers 0` (unlimited workers keep no queue), `--balance` with one
    /// server, `--outage-servers` with no outage and `--outage` with no server down
    /// (`outage_ms`: `--outage` as given), a `--slowdown` that slows nothing, a spike's with
    /// a flat spike (`SimSettings::has_spike`) or one that starts once new requests have
    /// stopped (`run`: the run's settings; only for `scenario` spike, the others noting that
    /// they read no spike flag at all).
    pub fn moot_notes(&self, run: &SimSettings, outage_ms: Option<f64>) -> Vec<String> {
        let unlimited = self.workers == Some(0);
        let idle = self
            .slowdown
            .is_some_and(|s| s.length_ms == 0.0 || s.factor == 1.0);
        let queueless = "--workers 0, whose servers keep no queue";
        let moot = [
            (unlimited && self.queue.is_some(), Field::Queue, queueless),
            (
                unlimited && self.queue_order.is_some(),
                Field::QueueOrder,
                queueless,
            ),
            (
                unlimited && self.queue_timeout.is_some(),
                Field::QueueTimeout,
                queueless,
            ),
            (
                self.balance.is_some() && self.servers.unwrap_or(defaults().servers) == 1,
                Field::Balance,
                "one server, with none to choose among",
            ),
            (
                self.outage_servers.is_some() && outage_ms == Some(0.0),
                Field::OutageServers,
                "--outage 0, with no outage to take servers down",
            ),
            (
                self.outage_servers == Some(0) && outage_ms.is_some_and(|ms| ms > 0.0),
                Field::Outage,
                "--outage-servers 0, which takes no server down",
            ),
        ];
        let mut notes: Vec<String> = moot
            .into_iter()
            .filter(|&(given, ..)| given)
            .map(|(_, field, why)| {
                format!(
                    "note: {} is not read with {why}: it changes nothing",
                    flag_for(field)
                )
            })
            .collect();
        if idle {
            notes.push(
                "note: --slowdown of length 0 or factor 1 slows nothing: it changes nothing"
                    .to_owned(),
            );
        }
        if run.scenario == Scenario::Spike {
            notes.extend(self.spike_notes(run));
        }
        notes
    }

    /// The notes for a spike's flags given that change nothing: all of them when the spike
    /// starts once new requests have stopped; the others when the spike is flat (no length,
    /// or a factor of 1: the flag that flattens it is the user's way of saying "no spike").
    fn spike_notes(&self, run: &SimSettings) -> Vec<String> {
        let given = [Field::SpikeStart, Field::SpikeLength, Field::SpikeFactor]
            .into_iter()
            .filter(|&f| self.given().any(|g| g == f));
        let (start, duration) = (run.spike_start_ms, run.duration_ms);
        if start >= duration {
            return given
                .map(|f| {
                    format!(
                        "note: {} is not read when the spike starts ({start} ms) after new \
                         requests stop (--duration {duration} ms): it changes nothing",
                        flag_for(f)
                    )
                })
                .collect();
        }
        if run.has_spike() {
            return Vec::new();
        }
        let (cause, why) = if run.spike_length_ms == 0.0 {
            (Field::SpikeLength, "--spike-length 0")
        } else {
            (Field::SpikeFactor, "--spike-factor 1")
        };
        given
            .filter(|&f| f != cause)
            .map(|f| {
                format!(
                    "note: {} is not read with {why}, a spike that changes no rate: it \
                     changes nothing",
                    flag_for(f)
                )
            })
            .collect()
    }

    /// The settings whose flags were given, in the order `--help` lists them.
    pub fn given(&self) -> impl Iterator<Item = Field> {
        let given = [
            (self.servers.is_some(), Field::Servers),
            (self.balance.is_some(), Field::Balance),
            (self.workers.is_some(), Field::Workers),
            (self.queue.is_some(), Field::Queue),
            (self.queue_order.is_some(), Field::QueueOrder),
            (self.queue_timeout.is_some(), Field::QueueTimeout),
            (self.service.is_some(), Field::Service),
            (self.service_dist.is_some(), Field::ServiceDist),
            (self.service_spread.is_some(), Field::ServiceSpread),
            (self.service_slope.is_some(), Field::ServiceSlope),
            (self.fail_rate.is_some(), Field::FailRate),
            (self.outage_servers.is_some(), Field::OutageServers),
            (self.slowdown.is_some(), Field::SlowdownStart),
            (self.timeout.is_some(), Field::Timeout),
            (self.latency_dist.is_some(), Field::LatencyDist),
            (self.spike_start.is_some(), Field::SpikeStart),
            (self.spike_length.is_some(), Field::SpikeLength),
            (self.spike_factor.is_some(), Field::SpikeFactor),
            (self.think.is_some(), Field::Think),
        ];
        given.into_iter().filter(|&(g, _)| g).map(|(_, f)| f)
    }
}

/// The core's defaults.
fn defaults() -> SimSettings {
    SimSettings::default()
}

/// `text [default: d]`, as clap writes the defaults it knows itself.
pub(crate) fn with_default(text: impl Display, default: impl Display) -> String {
    format!("{text} [default: {default}]")
}

/// A duration as a flag takes it: whole seconds as `20s`, anything else in ms.
fn ms(v: f64) -> String {
    if v >= 1000.0 && v % 1000.0 == 0.0 {
        format!("{}s", v / 1000.0)
    } else {
        format!("{v}ms")
    }
}

pub use stampede_cli::args::or_list;

/// One of the core's named choices, its error worded by the core.
pub(crate) fn parse_name<T: std::str::FromStr<Err = stampede::ConfigError>>(
    s: &str,
) -> Result<T, String> {
    s.parse()
        .map_err(|e: stampede::ConfigError| format!("expected {}", e.expected))
}

/// `START:LENGTH:FACTOR`: two durations and a number, each in its field's range.
fn parse_slowdown(s: &str) -> Result<Slowdown, String> {
    const FORM: &str = "expected START:LENGTH:FACTOR, two durations and a factor, such as 10s:5s:3";
    let parts: Vec<&str> = s.split(':').collect();
    let [start, length, factor] = parts[..] else {
        return Err(FORM.to_owned());
    };
    let start_ms =
        duration(Field::SlowdownStart)(start).map_err(|e| format!("{FORM}; START: {e}"))?;
    let length_ms =
        duration(Field::SlowdownLength)(length).map_err(|e| format!("{FORM}; LENGTH: {e}"))?;
    let factor =
        number(Field::SlowdownFactor)(factor).map_err(|e| format!("{FORM}; FACTOR: {e}"))?;
    Ok(Slowdown {
        start_ms,
        length_ms,
        factor,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slowdown_is_two_durations_and_a_factor() {
        assert_eq!(
            parse_slowdown("10s:500ms:3"),
            Ok(Slowdown {
                start_ms: 10_000.0,
                length_ms: 500.0,
                factor: 3.0
            })
        );
        assert_eq!(parse_slowdown(" 0 : 1m : 1.5 ").map(|s| s.factor), Ok(1.5));
        for bad in [
            "",
            "10s",
            "10s:5s",
            "10s:5s:3:1",
            "-1s:5s:3",
            "10s:NaN:3",
            "10s:5s:x",
            "10s:5s:0.5",
            "10s:5s:inf",
            "10s::3",
            "a:b:c",
        ] {
            let e = parse_slowdown(bad).unwrap_err();
            assert!(
                e.starts_with("expected START:LENGTH:FACTOR"),
                "{bad:?}: {e}"
            );
        }
        // The part at fault is named, with its range from the core.
        let e = parse_slowdown("10s:5s:0.5").unwrap_err();
        assert!(
            e.ends_with("FACTOR: expected a number from 1 to 1000"),
            "{e}"
        );
    }

    #[test]
    fn helpers_word_defaults_as_flags_take_them() {
        assert_eq!(ms(20_000.0), "20s");
        assert_eq!(ms(10.0), "10ms");
        assert_eq!(ms(1500.0), "1500ms");
        assert_eq!(ms(0.0), "0ms");
        assert_eq!(or_list(&["fifo", "lifo"]), "fifo or lifo");
        assert_eq!(or_list(&["a", "b", "c"]), "a, b or c");
        assert_eq!(with_default("Servers", 1), "Servers [default: 1]");
    }

    #[test]
    fn nothing_given_is_the_cores_default_and_each_flag_is_named() {
        let none = Model::default();
        assert_eq!(none.apply(SimSettings::default()), SimSettings::default());
        assert_eq!(none.given().next(), None);
        let some = Model {
            slowdown: Some(Slowdown {
                start_ms: 0.0,
                length_ms: 1.0,
                factor: 2.0,
            }),
            think: Some(5.0),
            ..Model::default()
        };
        assert_eq!(some.given().map(flag_for).next(), Some("--slowdown"));
        let s = some.apply(SimSettings::default());
        assert_eq!((s.think_ms, s.slowdown.map(|d| d.factor)), (5.0, Some(2.0)));
    }
}
