//! The notes `simulate` and `sweep` write on stderr for each flag given that the run does not
//! read (it changes nothing): the scenario's (`Scenario::reads`), the strategies'
//! (`Strategy::reads`), `--hedge`'s, and three that `--help` documents. A child of
//! `simulate_cmd.rs`, so that it reads `Common`'s fields.

use stampede::Field;
use stampede::backoff::Strategy;
use stampede::sim::{LatencyDist, Scenario, SimSettings};
use stampede_cli::args::{flag_for, unread_backoff, unread_note};

use super::{Common, rounded};

impl Common {
    /// A note for each flag given that changes nothing: one the scenario does not read
    /// (`Scenario::reads`, the core's word on it), naming the scenarios that do, and a
    /// backoff flag beside `--hedge`, whose attempts go out on its delay. Notes, not
    /// refusals: a scene of flags kept for several scenarios (`--duration` for each) runs.
    /// `strategy`: whether `--strategy` was given (simulate's; a sweep's is its grid, noted
    /// under `--hedge` when it holds more than one: their rows repeat one run);
    /// `strategies`, the ones run (a `--base`, `--cap` or `--multiplier` none of them reads is
    /// noted too).
    pub(super) fn notes(&self, strategy: bool, strategies: &[Strategy]) -> Vec<String> {
        let given = [
            (self.outage.is_some(), Field::Outage),
            (self.outage_start.is_some(), Field::OutageStart),
            (self.capacity.is_some(), Field::CapacityRps),
            (self.reject_cost.is_some(), Field::RejectCost),
            (self.rate.is_some(), Field::Rate),
            (self.duration.is_some(), Field::Duration),
            (self.window.is_some(), Field::BurstWindow),
            (self.retry_after.is_some(), Field::RetryAfter),
            (self.budget_scope.is_some(), Field::BudgetScope),
        ];
        let fields = given
            .into_iter()
            .filter(|&(g, _)| g)
            .map(|(_, f)| f)
            .chain(self.model.given());
        let mut notes: Vec<String> = fields
            .filter(|&f| !self.scenario.reads(f))
            .map(|field| {
                let readers: Vec<&str> = Scenario::ALL
                    .iter()
                    .filter(|s| s.reads(field))
                    .map(|s| s.name())
                    .collect();
                unread_note(field, "--scenario", self.scenario.name(), &readers)
            })
            .collect();
        let backoff = [
            (self.base.is_some(), Field::Base),
            (self.cap.is_some(), Field::Cap),
            (self.multiplier.is_some(), Field::Multiplier),
        ];
        match self.hedge.given() {
            // One attempt: no retry, so no backoff flag is read.
            None if self.attempts == Some(1) => {
                let flags = [(strategy, Field::Strategy)].into_iter().chain(backoff);
                let backoff_flags = flags.filter(|&(g, _)| g).map(|(_, f)| flag_for(f));
                let nets = self.nets_moot_without_retries();
                notes.extend(backoff_flags.chain(nets).map(|flag| {
                    format!(
                        "note: {flag} is not read with --attempts 1, which makes no retry: it \
                         changes nothing"
                    )
                }));
            }
            None => notes.extend(unread_backoff(&backoff, strategies)),
            Some(hedge) => {
                if let (false, [_, _, ..]) = (strategy, strategies) {
                    notes.push(format!(
                        "note: {hedge} replaces the backoff, so the rows of the {} strategies \
                         repeat the same runs",
                        strategies.len()
                    ));
                }
                let flags = [(strategy, Field::Strategy)].into_iter().chain(backoff);
                notes.extend(flags.filter(|&(g, _)| g).map(|(_, f)| {
                    format!(
                        "note: {} is not read with {hedge}, whose attempts go out on its delay, \
                         not after a backoff: it changes nothing",
                        flag_for(f)
                    )
                }));
            }
        }
        // The run's settings, as the core reads them (the clients and strategy do not matter
        // to these notes).
        let run = self.settings(1, Strategy::Full);
        notes.extend(self.service_note(&run));
        // Flags another one makes moot, as given.
        notes.extend(self.model.moot_notes(&run, self.outage));
        notes.extend(self.outage_notes(&run));
        notes.extend(self.latency_note(&run));
        notes.extend(self.layers.moot_note());
        // Three more that --help documents and the run would ignore silently.
        if self.model.spread_unread() && self.scenario.reads(Field::ServiceSpread) {
            notes.push(
                "note: --service-spread is read only with --service-dist lognormal: it changes \
                 nothing"
                    .to_owned(),
            );
        }
        if self.capacity.is_some() && self.model.given().any(|f| f == Field::Workers) {
            notes.push(
                "note: --capacity is not read beside --workers, with which capacity follows from \
                 --workers and --service: it changes nothing"
                    .to_owned(),
            );
        }
        if let Some(b) = self.budget.filter(|b| b.capacity < b.retry_cost) {
            // The core's bucket: open while it holds less than a retry's cost, and one that
            // cannot hold that much never closes (every request was refused, silently).
            notes.push(format!(
                "note: --budget {}:{} holds fewer tokens than a retry takes ({}): its circuit \
                 is open from the start and never closes, so it refuses every request, first \
                 attempts too",
                stampede_cli::json::num(b.capacity),
                stampede_cli::json::num(b.refill_per_sec),
                stampede_cli::json::num(b.retry_cost)
            ));
        }
        if self.budget_scope.is_some() && self.scenario.reads(Field::BudgetScope) {
            let given = self.nets_given().count();
            // With no retry, the nets that act only on retries are not made: a scope for
            // them alone shares nothing either.
            let no_retry = self.attempts == Some(1) && self.hedge.given().is_none();
            let moot = if no_retry {
                self.nets_moot_without_retries().len()
            } else {
                0
            };
            if given == 0 {
                notes.push(
                    "note: --budget-scope shares a budget or a safety net, and none is given: \
                     it changes nothing"
                        .to_owned(),
                );
            } else if moot == given {
                notes.push(
                    "note: --budget-scope is not read with --attempts 1, which makes no retry \
                     for its nets to act on: it changes nothing"
                        .to_owned(),
                );
            }
        }
        notes
    }

    /// The service time the core's sizing of the fleet runs, when it is far from the one asked
    /// (given or default): sized from the capacity, the workers are whole and at least one a
    /// server, so `--servers 10000` at 500 requests/s ran one worker of 20,000 ms each, seen
    /// only in the text output's fleet line.
    fn service_note(&self, s: &SimSettings) -> Option<String> {
        if self.model.given().any(|f| f == Field::Workers)
            || !self.scenario.reads(Field::CapacityRps)
        {
            return None;
        }
        let f = s.fleet();
        let ratio = f.service_ms / s.service_ms;
        (ratio.is_finite() && !(0.5..=2.0).contains(&ratio)).then(|| {
            let capacity = rounded(f.capacity_rps);
            let (took, share) = if f.servers == 1 {
                (
                    "the server takes",
                    format!("it serves {capacity} requests/s in its whole workers"),
                )
            } else {
                (
                    "the servers take",
                    format!(
                        "{} servers share {capacity} requests/s in whole workers, at least one each",
                        f.servers
                    ),
                )
            };
            format!(
                "note: {took} {} ms a request, not the {} ms asked: {share}, up to {} (give \
                 --workers to keep the service time)",
                rounded(f.service_ms),
                stampede_cli::json::num(s.service_ms),
                stampede::sim::MAX_WORKERS
            )
        })
    }

    /// `--outage-start` and `--retry-after` with `--outage 0`, which has neither, and a
    /// `--retry-after` longer than the clients honour (sent in whole seconds, rounded up, as
    /// the servers send it): each client then stops at the outage's first answer, which
    /// the run's figures show but nothing else would explain.
    fn latency_note(&self, run: &SimSettings) -> Option<String> {
        // A normal law's legs: half the round trip, give or take sqrt(3) times a leg's
        // standard deviation (sd/sqrt(2)), uniformly; below 0 a leg is cut at 0, which raises
        // the mean (a --latency-sd of 200 ms made a 100 ms round trip's mean 177 ms).
        if self.scenario == Scenario::AwsOcc || run.latency_dist != LatencyDist::Normal {
            return None;
        }
        let sd = run.latency_sd_ms.unwrap_or(run.latency_ms / 5.0);
        (run.latency_ms / 2.0 < 1.5f64.sqrt() * sd).then(|| {
            format!(
                "note: --latency-sd {} ms spreads each leg of the {} ms round trip below 0 ms, \
                 where it is cut: the mean round trip is longer than --latency (at most {} ms \
                 of spread keeps it)",
                stampede_cli::json::num(sd),
                stampede_cli::json::num(run.latency_ms),
                rounded(run.latency_ms / 2.0 / 1.5f64.sqrt())
            )
        })
    }

    /// The safety nets' flags given, `--budget` first, in the order `--help` lists them.
    fn nets_given(&self) -> impl Iterator<Item = &'static str> {
        self.budget
            .is_some()
            .then_some("--budget")
            .into_iter()
            .chain(self.nets.given())
    }

    /// The safety nets' flags given that act only on retries (the core's
    /// `GuardSettings::without_retries`), for a run that makes none.
    fn nets_moot_without_retries(&self) -> Vec<&'static str> {
        let nets = self.nets.settings(self.budget.is_some()).ok();
        let Some(nets) = nets.and_then(|n| n.with_bucket(self.budget).ok()) else {
            return Vec::new();
        };
        let acting = nets.without_retries();
        self.nets_given()
            .filter(|&flag| match flag {
                "--budget" | "--retry-ratio" | "--grpc-throttle" | "--aws-quota" => {
                    acting.budget.is_none()
                }
                "--breaker" | "--breaker-mode" => acting.breaker.is_none(),
                _ => acting.throttle.is_none(),
            })
            .collect()
    }

    fn outage_notes(&self, run: &SimSettings) -> Vec<String> {
        let mut notes = Vec::new();
        let given = [
            (self.outage_start.is_some(), Field::OutageStart),
            (self.retry_after.is_some(), Field::RetryAfter),
        ];
        if !run.has_outage() {
            notes.extend(
                given
                    .iter()
                    .filter(|&&(g, f)| g && self.scenario.reads(f))
                    .map(|&(_, f)| {
                        format!(
                            "note: {} is not read without an outage (--outage 0 or \
                             --outage-servers 0): it changes nothing",
                            flag_for(f)
                        )
                    }),
            );
        } else if let Some(ms) = self.retry_after
            && self.scenario.reads(Field::RetryAfter)
            && let Some((sent_ms, max)) = run.outage_hint_too_long()
        {
            notes.push(format!(
                "note: --retry-after {ms} ms goes out as {} s, longer than the longest \
                 Retry-After a client honours ({max} ms): each gives its request up at the \
                 outage's first answer",
                sent_ms / 1000.0
            ));
        }
        notes
    }
}
