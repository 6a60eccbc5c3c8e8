//! Whole runs: one to its metrics ([`run`]), and the runs of a multi-seed experiment
//! ([`run_many`]), bounded together by one run's work.

use super::{Engine, Metrics, Scenario, SimSettings, Simulation, work};
use crate::error::{ConfigError, Expected, Field, Got, WorkBound};

/// Runs `settings` to the end and returns its metrics.
///
/// Nothing but the metrics leaves this function, so the run records nothing else: no
/// attempt log (whatever `log_clients` says) and no series (a day-long run's series were
/// 20 MB, written and widened for nobody: most of a two-client run's time). The metrics
/// are those of [`Simulation::new`] with the same settings, to the bit.
pub fn run(settings: &SimSettings) -> Result<Metrics, ConfigError> {
    let quiet = SimSettings {
        log_clients: 0,
        ..settings.clone()
    };
    let mut sim = Simulation::new(&quiet)?;
    match &mut sim.engine {
        Engine::Occ(o) => o.quiet(),
        Engine::Herd(h) => h.rec.quiet(),
    }
    sim.run().check_work()?;
    Ok(sim.metrics())
}

/// The seed of run `i` of a multi-run experiment.
pub fn run_seed(seed: u64, i: u32) -> u64 {
    seed.wrapping_add(u64::from(i))
}

/// Whether `settings` may run `runs` times in one call of [`run_many`]: `runs` within
/// `1..=`[`MAX_RUNS`](super::MAX_RUNS), the settings valid, and the runs together within the work of the
/// largest single run (about 2 s natively; see `sim/work.rs`). `stampede sweep` checks each
/// point's runs with it.
pub fn check_runs(settings: &SimSettings, runs: u32) -> Result<(), ConfigError> {
    Field::Runs.check(f64::from(runs))?;
    let checked = settings.check()?;
    work::check_runs(&checked, runs)
}

/// Runs `settings` `runs` times with seeds `seed, seed+1, …` and returns the mean metrics.
///
/// The runs together stay within one run's work as they go, not only as checked: a
/// `closed` loop can make more attempts than its settings foretell (see
/// [`Simulation::check_work`]), so once the runs so far have made a run's most attempts,
/// the rest are refused, naming `runs` with how many fit.
pub fn run_many(settings: &SimSettings, runs: u32) -> Result<Metrics, ConfigError> {
    run_many_seeing(settings, runs, None)
}

/// [`run_many`], with its first run a whole [`Simulation`] (series and attempt log kept)
/// that `first` sees before the other runs go: `stampede simulate --series` writes that
/// run's series without simulating it a second time. The metrics are [`run_many`]'s, to
/// the bit (a run's metrics do not depend on what it records: see [`run`]).
pub fn run_many_seeing_first(
    settings: &SimSettings,
    runs: u32,
    first: &mut dyn FnMut(&Simulation),
) -> Result<Metrics, ConfigError> {
    run_many_seeing(settings, runs, Some(first))
}

fn run_many_seeing(
    settings: &SimSettings,
    runs: u32,
    first: Option<&mut dyn FnMut(&Simulation)>,
) -> Result<Metrics, ConfigError> {
    check_runs(settings, runs)?;
    // Only a closed loop's attempts can pass what its settings foretell.
    let bound = if settings.scenario == Scenario::Closed {
        work::max_run_attempts(&settings.check()?)
    } else {
        f64::INFINITY
    };
    run_many_within(settings, runs, bound, first)
}

/// [`run_many`]'s runs, refused once those so far have made `bound` attempts together.
pub(crate) fn run_many_within(
    settings: &SimSettings,
    runs: u32,
    bound: f64,
    mut first: Option<&mut dyn FnMut(&Simulation)>,
) -> Result<Metrics, ConfigError> {
    let mut all: Vec<Metrics> = Vec::with_capacity(runs as usize);
    let mut s = settings.clone();
    let mut made = 0.0;
    for i in 0..runs {
        if i > 0 && made >= bound {
            let expected = Expected::Work {
                max: f64::from(i),
                bound: WorkBound::Runs,
            };
            return Err(ConfigError::new(
                Field::Runs,
                expected,
                Got::Number(f64::from(runs)),
            ));
        }
        s.seed = run_seed(settings.seed, i);
        let m = match first.take() {
            Some(see) => {
                let mut sim = Simulation::new(&s)?;
                sim.run().check_work()?;
                see(&sim);
                sim.metrics()
            }
            None => run(&s)?,
        };
        made += m.bottom_attempts;
        all.push(m);
    }
    Ok(Metrics::mean(&all))
}
