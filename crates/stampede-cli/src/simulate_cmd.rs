//! `stampede simulate` and `stampede sweep`: the simulator on the command line.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::PathBuf;

use clap::Args as ClapArgs;
use serde_json::Value;
use stampede::Field;
use stampede::backoff::{BackoffSettings, Strategy};
use stampede::budget::BudgetSettings;
use stampede::policy::{DEFAULT_MAX_ATTEMPTS, PolicySettings};
use stampede::sim::{
    BudgetScope, LatencyDist, MAX_CLIENTS, Scenario, SimSettings, check_runs, run_many,
    run_many_seeing_first,
};
use stampede_cli::args::{
    config_error, duration, duration_text, flag_for, number, parse_seed, ranged, whole, whole_in,
};

use crate::UsageError;
use crate::hedge_flags::Hedge;
use crate::layer_flags::LayerFlags;
use crate::model_flags::{Model, or_list, with_default};
use crate::net_flags::Nets;
use crate::output::{Failure, counted};
use crate::sim_output::{METRIC_COLUMNS, csv_cell, metrics_json, write_series};
use crate::sweep_grid::{Shard, parse_shard, run_points};

// The notes on stderr for flags a run does not read: `flag_notes.rs`, a child so
// that it reads `Common`'s fields.
#[path = "flag_notes.rs"]
mod flag_notes;

/// The settings both commands share.
#[derive(ClapArgs, Debug, Clone)]
pub struct Common {
    /// burst, steady, spike, closed or aws-occ. spike is steady with the rate multiplied by
    /// --spike-factor for a while; closed gives each client one request at a time, with
    /// --think between them. aws-occ, the AWS contention experiment, reads only --clients,
    /// --strategy, --base, --cap, --multiplier, --latency (more than 0), --latency-sd, --seed
    /// and --runs (and simulate's --series and --json): its clients retry until their write wins, with no
    /// attempt limit and no budget, so it rejects --attempts and --budget (and the safety
    /// nets', Servers, Clients, Layers and hedging flags, which it does not model). Any other
    /// flag a scenario does not read (--rate beside burst, --outage beside aws-occ) changes
    /// nothing, and a note on stderr says so, naming the scenarios that read it.
    #[arg(long, default_value = defaults().scenario.name(), value_parser = parse_scenario)]
    scenario: Scenario,
    /// The first delay: 200ms, 1.5s, 2m [default: 2s; aws-occ: 5ms, as in the AWS experiment;
    /// the cap when shorter, for a strategy that reads the cap].
    #[arg(long, value_parser = duration(Field::Base), value_name = "DURATION", allow_hyphen_values = true)]
    base: Option<f64>,
    /// No delay is longer than this [default: 30s; aws-occ: 2s; the base when longer].
    #[arg(long, value_parser = duration(Field::Cap), value_name = "DURATION", allow_hyphen_values = true)]
    cap: Option<f64>,
    #[arg(long, help = format!("{} [default: {}]. Not for aws-occ, whose clients retry until they win",
                               ranged("Attempts in all, the first included", Field::MaxAttempts),
                               defaults().policy.max_attempts),
          value_parser = whole(Field::MaxAttempts), allow_hyphen_values = true)]
    attempts: Option<u32>,
    #[arg(long, help = with_default(ranged("Growth per retry", Field::Multiplier), defaults().policy.backoff.multiplier), value_parser = number(Field::Multiplier), allow_hyphen_values = true)]
    multiplier: Option<f64>,
    #[arg(long, help = with_default(ranged("How long the server is down", Field::Outage), duration_text(defaults().outage_ms)), value_parser = duration(Field::Outage), value_name = "DURATION", allow_hyphen_values = true)]
    outage: Option<f64>,
    #[arg(long, help = with_default(ranged("When the outage starts", Field::OutageStart), duration_text(defaults().outage_start_ms)), value_parser = duration(Field::OutageStart), value_name = "DURATION", allow_hyphen_values = true)]
    outage_start: Option<f64>,
    #[arg(long, help = ranged("Requests per second the fleet serves when up: sets the workers at --service. \
                               With --workers, capacity follows from --workers and --service instead", Field::CapacityRps)
                               + &format!(" [default: {}]", defaults().capacity_rps),
          value_parser = number(Field::CapacityRps), allow_hyphen_values = true)]
    capacity: Option<f64>,
    #[arg(long, help = with_default(ranged("What a rejection costs, as a fraction of serving a request, paid by the next request the server starts; at most a service time per worker is owed at once, so rejections alone slow a server to capacity/(workers+1), no further", Field::RejectCost), defaults().reject_cost), value_parser = number(Field::RejectCost), allow_hyphen_values = true)]
    reject_cost: Option<f64>,
    #[arg(long, help = ranged("Mean round trip (aws-occ: each message's mean delay); with a --latency-sd near or past half of it, legs cut at 0 make the mean longer (100ms with sd 100ms: 121 ms)", Field::Latency), default_value = duration_text(defaults().latency_ms), value_parser = duration(Field::Latency), value_name = "DURATION", allow_hyphen_values = true)]
    latency: f64,
    #[arg(long, help = format!("{} [default: latency/5]: of a round trip, or for aws-occ of each message (not with --latency-dist exponential)",
                               ranged("The latency's standard deviation", Field::LatencySd)),
          value_parser = duration(Field::LatencySd), value_name = "DURATION", allow_hyphen_values = true)]
    latency_sd: Option<f64>,
    #[arg(long, help = with_default(ranged("steady, spike: new requests per client per second", Field::Rate), defaults().rate_per_client), value_parser = number(Field::Rate), allow_hyphen_values = true)]
    rate: Option<f64>,
    #[arg(long, help = with_default(ranged("steady, spike, closed: how long new requests keep coming", Field::Duration), duration_text(defaults().duration_ms)), value_parser = duration(Field::Duration), value_name = "DURATION", allow_hyphen_values = true)]
    duration: Option<f64>,
    #[arg(long, help = with_default(ranged("burst: spread the first requests over this window", Field::BurstWindow), duration_text(defaults().burst_window_ms)), value_parser = duration(Field::BurstWindow), value_name = "DURATION", allow_hyphen_values = true)]
    window: Option<f64>,
    /// The server's Retry-After during the outage (sent in whole seconds).
    #[arg(long, value_parser = duration(Field::RetryAfter), value_name = "DURATION", allow_hyphen_values = true)]
    retry_after: Option<f64>,
    /// A retry budget: C:R is a bucket of C tokens refilled at R tokens per second; a retry
    /// takes one, and while fewer than one are left the circuit is open: every request is
    /// refused, first attempts too (--retry-ratio never refuses a first attempt). Not for
    /// aws-occ, whose clients retry until they win.
    #[arg(long, value_parser = parse_budget, value_name = "C:R", allow_hyphen_values = true)]
    budget: Option<BudgetSettings>,
    /// Who shares the budget, and every safety net: client (each its own) or shared (one
    /// for all).
    #[arg(long, help = with_default("Who shares the budget, and every safety net: client (each its own) or shared (one for all)", defaults().budget_scope.name()), value_parser = parse_scope)]
    budget_scope: Option<BudgetScope>,
    /// The seed; runs use seed, seed+1, …
    #[arg(long, default_value_t = defaults().seed, value_parser = parse_seed, allow_hyphen_values = true)]
    seed: u64,
    #[arg(long, help = ranged("Runs to average", Field::Runs), default_value_t = 1, value_parser = whole(Field::Runs), allow_hyphen_values = true)]
    runs: u32,
    #[command(flatten)]
    model: Model,
    #[command(flatten)]
    layers: LayerFlags,
    #[command(flatten)]
    hedge: Hedge,
    #[command(flatten)]
    nets: Nets,
}

/// `stampede simulate --scenario burst --clients 1000 --strategy exponential … --json`
#[derive(ClapArgs, Debug)]
pub struct SimulateArgs {
    #[arg(long, help = ranged("Clients", Field::Clients), default_value_t = defaults().clients, value_parser = whole(Field::Clients), allow_hyphen_values = true)]
    clients: u32,
    #[arg(long, help = with_default("none, constant, exponential, full, equal, decorrelated or decorrelated-v2", defaults().policy.backoff.strategy.name()), value_parser = parse_strategy)]
    strategy: Option<Strategy>,
    #[command(flatten)]
    common: Common,
    /// Write the per-slot series (10 ms slots; doubled, as often as needed, for a run longer
    /// than 1,048,576 slots, 2.9 hours) of the first run as CSV to this file.
    #[arg(long, value_name = "FILE")]
    series: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

/// `stampede sweep --scenario aws-occ --strategy none,exponential,full --clients 10..190:10 --runs 100`
#[derive(ClapArgs, Debug)]
pub struct SweepArgs {
    /// Clients: a list (100,200), a range 10..190:10 (10 to 190 inclusive, step 10; without
    /// `:STEP`, step 1), or both; each count once, at most 1000 counts.
    #[arg(long, default_value = "10..190:10", value_parser = parse_clients)]
    clients: ClientList,
    /// Strategies, comma-separated.
    #[arg(long, default_value = "none,exponential,full,equal,decorrelated", value_parser = parse_strategies)]
    strategy: StrategyList,
    #[command(flatten)]
    common: Common,
    /// Run only part I of N of the grid (I from 1 to N): the points I, I+N, I+2N, … of the
    /// whole grid's rows, with the header. Read the parts' rows round-robin to join them
    /// (see the README: Slurm, Kubernetes, GNU parallel).
    #[arg(long, value_name = "I/N", default_value = "1/1", value_parser = parse_shard, allow_hyphen_values = true)]
    shard: Shard,
}

#[derive(Debug, Clone)]
pub struct ClientList(Vec<u32>);
#[derive(Debug, Clone)]
pub struct StrategyList(Vec<Strategy>);

/// The core's defaults, which the flags' defaults are.
fn defaults() -> SimSettings {
    SimSettings::default()
}

fn parse_scenario(s: &str) -> Result<Scenario, String> {
    s.parse()
        .map_err(|e: stampede::ConfigError| format!("expected {}", e.expected))
}

fn parse_strategy(s: &str) -> Result<Strategy, String> {
    s.parse()
        .map_err(|e: stampede::ConfigError| format!("expected {}", e.expected))
}

fn parse_scope(s: &str) -> Result<BudgetScope, String> {
    s.parse()
        .map_err(|e: stampede::ConfigError| format!("expected {}", e.expected))
}

/// The items of a comma-separated list, trimmed. An empty item (`full,,none`, a trailing
/// comma) is an error, not something to skip: it is most likely a strategy or a count that
/// went missing, and a sweep that silently runs one fewer point is a wrong result.
fn list_items<'a>(s: &'a str, example: &str) -> Result<Vec<&'a str>, String> {
    let items: Vec<&str> = s.split(',').map(str::trim).collect();
    match items.iter().position(|x| x.is_empty()) {
        Some(i) => Err(format!(
            "item {} of {} is empty: expected a comma-separated list such as {example}",
            i + 1,
            items.len()
        )),
        None => Ok(items),
    }
}

/// Comma-separated strategies, each at most once (a repeated one would only run its
/// points again: 26,000 copies of `none` made a grid of 26 million points to check).
fn parse_strategies(s: &str) -> Result<StrategyList, String> {
    let list: Vec<Strategy> = list_items(s, "none,full")?
        .into_iter()
        .map(parse_strategy)
        .collect::<Result<_, _>>()?;
    for (i, x) in list.iter().enumerate() {
        if list[..i].contains(x) {
            return Err(format!(
                "{} is listed twice; list each strategy once",
                x.name()
            ));
        }
    }
    Ok(StrategyList(list))
}

/// `C:R`: capacity and refill per second, in the core's ranges.
fn parse_budget(s: &str) -> Result<BudgetSettings, String> {
    const FORM: &str = "expected C:R, tokens and tokens per second, such as 10:1";
    let (c, r) = s.split_once(':').ok_or_else(|| FORM.to_owned())?;
    // A third part is the form's fault, not the rate's ("R: expected a rate" for 1:1:1).
    if r.contains(':') {
        return Err(format!("{FORM}; two parts, not {}", s.split(':').count()));
    }
    let c = number(Field::Capacity)(c).map_err(|e| format!("{FORM}; C: {e}"))?;
    let r = number(Field::RefillPerSec)(r).map_err(|e| format!("{FORM}; R: {e}"))?;
    BudgetSettings::new(c, r)
        .validate()
        .map_err(|e| format!("{FORM}; {e}"))
}

/// The most client counts `--clients` may list (a grid's points are these times the
/// strategies).
const MAX_COUNTS: usize = 1000;

/// `10..190:10`, `100,200`, or a mix, each value 1 to 1,000,000, each once (a repeated one
/// would only run its points again, as a repeated strategy would); at most 1000 counts.
fn parse_clients(s: &str) -> Result<ClientList, String> {
    let bad = || {
        format!(
            "expected counts from 1 to {MAX_CLIENTS}: a list (100,200) or a range such as 10..190:10"
        )
    };
    let too_many = || format!("expected at most {MAX_COUNTS} client counts");
    let mut out = Vec::new();
    for item in list_items(s, "100,200 or 10..190:10")? {
        if let Some((lo, rest)) = item.split_once("..") {
            let (hi, step) = rest.split_once(':').unwrap_or((rest, "1"));
            let lo = whole_in(lo, Field::Clients).map_err(|_| bad())?;
            let hi = whole_in(hi, Field::Clients).map_err(|_| bad())?;
            let step = whole_in(step, Field::Clients).map_err(|_| bad())?;
            if hi < lo {
                return Err(bad());
            }
            // Counted before it is expanded: 1..1000000 is one item, not a million pushes.
            let points = ((hi - lo) / step + 1) as usize;
            if out.len() + points > MAX_COUNTS {
                return Err(too_many());
            }
            out.extend((lo..=hi).step_by(step as usize));
        } else {
            out.push(whole_in(item, Field::Clients).map_err(|_| bad())?);
        }
        if out.len() > MAX_COUNTS {
            return Err(too_many());
        }
    }
    let mut sorted = out.clone();
    sorted.sort_unstable();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!(
            "{} is listed twice; list each client count once",
            w[0]
        ));
    }
    Ok(ClientList(out))
}

impl Common {
    /// Rejects the flags `aws-occ` has no use for and that a reader would expect to matter:
    /// its clients drive the backoff directly and retry until their write wins, so an
    /// attempt limit or a budget would be silently ignored, and it models no servers,
    /// queues or timeouts, so neither would the [`Model`] flags be.
    fn check_scenario(&self) -> Result<(), UsageError> {
        self.nets.settings(self.budget.is_some())?;
        // A hedged request makes at most the hedging's MAX attempts, and no retries after
        // them (gRFC A6): an --attempts beside it would be silently ignored.
        if let (Some(_), Some(hedge)) = (self.attempts, self.hedge.given()) {
            return Err(UsageError(format!(
                "--attempts: not used with {hedge}, whose MAX is a hedged request's attempts in \
                 all; drop --attempts or {hedge}"
            )));
        }
        if self.scenario != Scenario::AwsOcc {
            // An exponential leg's spread is its mean: a --latency-sd beside it was ignored.
            if self.latency_sd.is_some()
                && self.model.latency_dist() == Some(LatencyDist::Exponential)
            {
                return Err(UsageError(
                    "--latency-sd: not used with --latency-dist exponential, whose legs' standard \
                     deviation is their mean; drop --latency-sd or use --latency-dist normal"
                        .to_owned(),
                ));
            }
            return Ok(());
        }
        let (flag, why) = if self.attempts.is_some() {
            ("--attempts", "whose clients retry until their write wins")
        } else if self.budget.is_some() {
            ("--budget", "whose clients retry until their write wins")
        } else if let Some(flag) = self.nets.first_given() {
            (flag, "whose clients retry until their write wins")
        } else if let Some(flag) = self.hedge.given() {
            (flag, "whose clients retry until their write wins")
        } else if let Some(field) = self.model.given().next() {
            let why = match field {
                Field::Think | Field::SpikeStart | Field::SpikeLength | Field::SpikeFactor => {
                    "whose clients all write at the start, with no arrival process"
                }
                Field::LatencyDist => {
                    "whose messages' delays are normal (set by --latency and --latency-sd)"
                }
                _ => "which models contending writes, not servers, queues or timeouts",
            };
            (flag_for(field), why)
        } else if let Some(flag) = self.layers.first_given() {
            (
                flag,
                "which models contending writes, not a chain of services",
            )
        } else {
            return Ok(());
        };
        Err(UsageError(format!(
            "{flag}: not used by --scenario aws-occ, {why}; drop {flag} or pick {}",
            modelled_scenarios()
        )))
    }

    /// Attempts in all: as given, else the core's default.
    fn attempts(&self) -> u32 {
        self.attempts.unwrap_or(DEFAULT_MAX_ATTEMPTS)
    }

    /// Base and cap: as given, else the scenario's own (the AWS experiment's 5 ms and 2 s
    /// for aws-occ; the article's 2 s and 30 s otherwise), a default following a value
    /// given beside it (`BackoffSettings::base_cap_for`).
    fn base_cap(&self, strategy: Strategy) -> (f64, f64) {
        let d = self.scenario.default_backoff();
        BackoffSettings::base_cap_for(strategy, (d.base_ms, d.cap_ms), self.base, self.cap)
    }

    fn settings(&self, clients: u32, strategy: Strategy) -> SimSettings {
        let (base, cap) = self.base_cap(strategy);
        let d = defaults();
        let backoff = BackoffSettings::new(strategy, base, cap)
            .with_multiplier(self.multiplier.unwrap_or(d.policy.backoff.multiplier));
        let s = self.model.apply(SimSettings {
            scenario: self.scenario,
            clients,
            policy: PolicySettings::new(backoff, self.attempts()),
            outage_ms: self.outage.unwrap_or(d.outage_ms),
            outage_start_ms: self.outage_start.unwrap_or(d.outage_start_ms),
            capacity_rps: self.capacity.unwrap_or(d.capacity_rps),
            reject_cost: self.reject_cost.unwrap_or(d.reject_cost),
            latency_ms: self.latency,
            latency_sd_ms: self.latency_sd,
            rate_per_client: self.rate.unwrap_or(d.rate_per_client),
            duration_ms: self.duration.unwrap_or(d.duration_ms),
            burst_window_ms: self.window.unwrap_or(d.burst_window_ms),
            retry_after_ms: self.retry_after,
            budget: self.budget,
            budget_scope: self.budget_scope.unwrap_or(d.budget_scope),
            // Checked by `check_scenario`, which every command runs first.
            nets: self
                .nets
                .settings(self.budget.is_some())
                .unwrap_or_default(),
            seed: self.seed,
            ..SimSettings::default()
        });
        self.hedge.apply(self.layers.apply(s))
    }
}

/// The scenarios that model servers and clients: all but `aws-occ`, as `a, b or c`.
fn modelled_scenarios() -> String {
    let names: Vec<&str> = Scenario::ALL
        .iter()
        .filter(|&&s| s != Scenario::AwsOcc)
        .map(|s| s.name())
        .collect();
    or_list(&names)
}

/// The servers as sized from the flags (capacity follows from workers and service time
/// when `--workers` is given), for the text output.
fn fleet_line(s: &SimSettings) -> String {
    let f = s.fleet();
    let servers = if f.servers == 1 { "server" } else { "servers" };
    let workers = match f.workers {
        0 => "unlimited workers".to_owned(),
        1 => "1 worker".to_owned(),
        w => format!("{w} workers"),
    };
    let capacity = if f.capacity_rps.is_finite() {
        format!("{} requests/s", rounded(f.capacity_rps))
    } else {
        "no capacity limit".to_owned()
    };
    // Unlimited workers keep no queue (`--queue` is not read then: a note says so).
    let queue = if f.workers == 0 {
        String::new()
    } else {
        format!(", {} waiting at most each", f.queue)
    };
    format!(
        "{} {servers} × {workers} of {} ms{queue} · {capacity}",
        f.servers,
        rounded(f.service_ms),
    )
}

/// A derived figure for people: to a thousandth, without the float's last-digit noise
/// (a service time of 30 ms, not 29.999999999999996).
pub(crate) fn rounded(v: f64) -> String {
    stampede_cli::json::num((v * 1000.0).round() / 1000.0).to_string()
}

/// Writes `bytes` over what `file` held: a regular file is emptied first; anything else
/// (a pipe, `/dev/stdout`) cannot be, and is written as it is.
fn replace_contents(mut file: &File, bytes: &[u8]) -> std::io::Result<()> {
    if file.metadata()?.is_file() {
        file.set_len(0)?;
    }
    file.write_all(bytes)?;
    file.flush()
}

fn usage(e: stampede::ConfigError) -> UsageError {
    UsageError(config_error(&e))
}

pub fn simulate(a: SimulateArgs, out: &mut impl Write) -> Result<(), Failure> {
    a.common.check_scenario()?;
    if a.series.as_deref() == Some(std::path::Path::new("-")) {
        // Not a file named "-" in the working directory (what it made before), nor
        // standard output unasked: the summary goes there too.
        return Err(UsageError(
            "--series \"-\": give a file; /dev/stdout puts the series before the summary on \
             standard output"
                .to_owned(),
        )
        .into());
    }
    let strategy = a.strategy.unwrap_or(defaults().policy.backoff.strategy);
    let settings = a.common.settings(a.clients, strategy);
    // Bad input is one line: the notes come once the run has passed (a run refused at a
    // bound on its work, as the settings could not foretell, is one line too).
    check_runs(&settings, a.common.runs).map_err(usage)?;
    let notes = a.common.notes(a.strategy.is_some(), &[strategy]);
    let metrics = match &a.series {
        // Runs that cannot pass what their settings foretell (all but a closed loop's: see
        // `run_many`) go on every core, as a sweep's do: `run_many`'s metrics and its first
        // error, to the bit (see `run_points`).
        None if settings.scenario != Scenario::Closed && a.common.runs > 1 => {
            check_runs(&settings, a.common.runs).map_err(usage)?;
            let mut mean = None;
            run_points(
                std::slice::from_ref(&settings),
                a.common.runs,
                |e| Failure::from(usage(e)),
                |m| {
                    mean = Some(m);
                    Ok(())
                },
            )?;
            match mean {
                Some(m) => m,
                None => run_many(&settings, a.common.runs).map_err(usage)?,
            }
        }
        None => run_many(&settings, a.common.runs).map_err(usage)?,
        Some(path) => {
            // The path is written as Rust quotes it: a newline in it stays on the line.
            let named = |e: std::io::Error| format!("--series {path:?}: {e}");
            // Settings refused up front leave the file as it was; a path that cannot be
            // opened is the flag's fault, found before anything runs. The file is opened
            // then but emptied only once every run has gone through: a run refused midway
            // (too much pending, a closed loop's work) leaves it as it was, and removes it
            // if this call made it. The first run's series is kept from that run (it is not
            // simulated again) until then.
            check_runs(&settings, a.common.runs).map_err(usage)?;
            let existed = std::fs::symlink_metadata(path).is_ok();
            let file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(path)
                .map_err(|e| UsageError(named(e)))?;
            let mut series = Vec::new();
            let ran = run_many_seeing_first(&settings, a.common.runs, &mut |sim| {
                // Into memory: cannot fail.
                let _ = write_series(&mut series, sim);
            });
            let metrics = match ran {
                Ok(m) => m,
                Err(e) => {
                    if !existed {
                        let _ = std::fs::remove_file(path);
                    }
                    return Err(usage(e).into());
                }
            };
            // Writing that fails (a full disk) is an output error: exit 1, as for stdout,
            // and it names the flag. A pipe whose reader left (`--series >(head -n 3)`) is
            // the reader's choice, as on stdout, and the summary still goes to stdout (it
            // went nowhere, with status 0: the closed pipe was taken for stdout's).
            match replace_contents(&file, &series) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                Err(e) => return Err(std::io::Error::other(named(e)).into()),
                Ok(()) => {}
            }
            metrics
        }
    };
    for note in notes {
        crate::output::say(&note);
    }
    let map = metrics_json(a.common.scenario, a.clients, &metrics);
    let (base, cap) = a.common.base_cap(strategy);
    if a.json {
        writeln!(out, "{}", Value::Object(map))?;
    } else {
        // aws-occ's clients retry until their write wins: no attempt limit to state. A
        // hedged request has no backoff: its own line below says what it does instead.
        let policy = if settings.hedging.is_some() {
            "hedged, no backoff".to_owned()
        } else {
            let attempts = if a.common.scenario == Scenario::AwsOcc {
                "retried until the write wins".to_owned()
            } else {
                counted(u64::from(a.common.attempts()), "attempt", "attempts")
            };
            format!("{} base {base} ms, cap {cap} ms, {attempts}", strategy)
        };
        writeln!(
            out,
            "{} · {} · {policy} · {}, seed {}",
            a.common.scenario,
            counted(u64::from(a.clients), "client", "clients"),
            counted(u64::from(a.common.runs), "run", "runs"),
            a.common.seed
        )?;
        if a.common.scenario != Scenario::AwsOcc {
            writeln!(out, "{}", fleet_line(&settings))?;
        }
        if let Some(chain) = LayerFlags::describe(&settings) {
            writeln!(out, "{chain}")?;
        }
        if let Some(h) = settings.hedging {
            writeln!(
                out,
                "hedged: another attempt after {} ms without an answer, {} in all, instead of retries",
                stampede_cli::json::num(h.delay_ms),
                h.max_attempts
            )?;
        }
        for k in METRIC_COLUMNS {
            // A figure with nothing to measure (no request succeeded: no latency) is null
            // in JSON and an empty cell in CSV; here it says so.
            let cell = match &map[k] {
                Value::Null => "n/a".to_owned(),
                v => csv_cell(v),
            };
            writeln!(out, "  {k:<18} {cell}")?;
        }
    }
    Ok(())
}

pub fn sweep(a: SweepArgs, out: &mut impl Write) -> Result<(), Failure> {
    a.common.check_scenario()?;
    let points: Vec<(Strategy, u32)> = a
        .strategy
        .0
        .iter()
        .flat_map(|&s| a.clients.0.iter().map(move |&c| (s, c)))
        .collect();
    // Validate every point first, so a bad flag is one message, not one per point. Each
    // point's runs are bounded as `simulate --runs` bounds them: a grid is as long as its
    // points, but no point may run for hours. Too many runs name the most that fit every
    // point (the first point refused named its own, and the next try was refused again).
    let max = |e: &stampede::ConfigError| match e.expected {
        stampede::Expected::Work { max, .. } => max,
        _ => f64::NEG_INFINITY,
    };
    let mut runs_refused: Option<stampede::ConfigError> = None;
    for &(strategy, clients) in &points {
        let s = a.common.settings(clients, strategy);
        s.validate().map_err(usage)?;
        if let Err(e) = check_runs(&s, a.common.runs) {
            if runs_refused.as_ref().is_none_or(|r| max(&e) < max(r)) {
                runs_refused = Some(e);
            }
        }
    }
    if let Some(e) = runs_refused {
        return Err(usage(e).into());
    }
    // The notes once the grid has passed: bad input is one line.
    for note in a.common.notes(false, &a.strategy.0) {
        crate::output::say(&note);
    }
    // Every part validates the whole grid (above), so a bad flag fails every part alike.
    let points: Vec<(Strategy, u32)> = points
        .into_iter()
        .enumerate()
        .filter_map(|(k, p)| a.shard.takes(k).then_some(p))
        .collect();
    let settings: Vec<SimSettings> = points
        .iter()
        .map(|&(strategy, clients)| a.common.settings(clients, strategy))
        .collect();
    writeln!(
        out,
        "scenario,strategy,clients,runs,{}",
        METRIC_COLUMNS.join(",")
    )?;
    // Rows are written as their points finish, a bounded batch at a time (see run_points),
    // each flushed: a long sweep shows its progress, and an interrupted one keeps its rows.
    out.flush()?;
    let mut rows = points.into_iter();
    run_points(
        &settings,
        a.common.runs,
        |e| Failure::from(usage(e)),
        |m| -> Result<(), Failure> {
            let Some((strategy, clients)) = rows.next() else {
                return Ok(());
            };
            let map = metrics_json(a.common.scenario, clients, &m);
            let cells: Vec<String> = METRIC_COLUMNS.iter().map(|k| csv_cell(&map[*k])).collect();
            writeln!(
                out,
                "{},{},{},{},{}",
                a.common.scenario,
                strategy,
                clients,
                a.common.runs,
                cells.join(",")
            )?;
            out.flush()?;
            Ok(())
        },
    )?;
    Ok(())
}
