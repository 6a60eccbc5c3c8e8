//! Backoff strategies: how long to wait before retry number `n`.
//!
//! # Why jitter
//!
//! A server returns 503 to a thousand clients at once. If every client waits exactly
//! `base · 2^n`, all thousand come back at the same instant — the very spike that broke
//! the server — and then again at `2·base`, `4·base`, … Exponential growth only spaces
//! the herd's charges out; it never breaks the herd up. *Jitter* does: each client draws
//! its delay at random, so the thousand retries spread over a window instead of landing in
//! one millisecond. [`Strategy::Full`] jitter spreads them the most and is the recommended
//! default (see the AWS Architecture Blog's "Exponential Backoff And Jitter").
//!
//! # The strategies
//!
//! With `v = min(cap, base · multiplier^n)` and `n` the retry number (the first retry is
//! `n = 0`):
//!
//! | strategy | delay |
//! |---|---|
//! | [`none`] | `0` — retry at once (the storm generator) |
//! | [`constant`] | `base` |
//! | [`exponential`] | `v` — no jitter: the textbook herd |
//! | [`full`] | `random(0, v)` |
//! | [`equal`] | `v/2 + random(0, v/2)` |
//! | [`decorrelated`] | `min(cap, random(base, 3 · prev))`, `prev` starting at `base` (AWS) |
//! | [`decorrelated_v2`] | Polly's smooth decorrelated jitter: medians ≈ 1×, 1×, 2×, 4×, 8× `base`, clamped to `cap` |
//!
//! `multiplier^n` saturates: retry number 1000 waits `cap`, never overflows or panics.
//!
//! A [`Backoff`] is validated settings; the per-request state (retry number, previous
//! delay) lives in a [`BackoffState`], so one `Backoff` can serve a million simulated
//! clients. Randomness is always an argument, never a global.
//!
//! ```
//! use stampede::backoff::{BackoffSettings, Strategy};
//! use stampede::SeededRng;
//! use rand::SeedableRng;
//!
//! let backoff = BackoffSettings::new(Strategy::Exponential, 200.0, 30_000.0).build()?;
//! let mut rng = SeededRng::seed_from_u64(42);
//! let delays: Vec<f64> = backoff.delays_ms(&mut rng).take(9).collect();
//! assert_eq!(delays, [200.0, 400.0, 800.0, 1600.0, 3200.0, 6400.0, 12800.0, 25600.0, 30000.0]);
//! # Ok::<(), stampede::ConfigError>(())
//! ```

pub mod constant;
pub mod decorrelated;
pub mod decorrelated_v2;
pub mod equal;
pub mod exponential;
pub mod full;
pub mod none;

use core::fmt;
use core::str::FromStr;
use core::time::Duration;

use rand::{Rng, RngExt};

use crate::error::{ConfigError, Expected, Field, Got, MAX_DURATION_MS, Unit, WorkBound};

/// Which formula turns a retry number into a delay. See the [module docs](self).
///
/// `#[non_exhaustive]`: strategies get added; front ends list them with [`Strategy::ALL`]
/// and name them with [`Strategy::name`], never by matching.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
#[non_exhaustive]
pub enum Strategy {
    /// Retry at once.
    None,
    /// Wait `base` every time.
    Constant,
    /// `min(cap, base · multiplier^n)`, no jitter.
    Exponential,
    /// Full jitter: `random(0, v)`.
    Full,
    /// Equal jitter: `v/2 + random(0, v/2)`.
    Equal,
    /// AWS decorrelated jitter: `min(cap, random(base, 3 · prev))`.
    Decorrelated,
    /// Polly's decorrelated jitter "V2", clamped to `cap`.
    DecorrelatedV2,
}

impl Strategy {
    /// Whether its delays depend on the backoff setting `field` (`Base`, `Cap`,
    /// `Multiplier`; any other field: false). `none` reads none of them (it waits nothing);
    /// `constant` only the base (its cap only bounds the base); only exponential, full and
    /// equal grow by the multiplier (decorrelated grows from the last delay, × up to 3,
    /// decorrelated-v2 by Polly's own law). A front end that sets one a strategy does not
    /// read changes nothing: the CLI says so in a note.
    pub const fn reads(self, field: Field) -> bool {
        match field {
            Field::Base => !matches!(self, Strategy::None),
            Field::Cap => !matches!(self, Strategy::None | Strategy::Constant),
            Field::Multiplier => matches!(
                self,
                Strategy::Exponential | Strategy::Full | Strategy::Equal
            ),
            _ => false,
        }
    }

    /// Every strategy, in the order the docs list them.
    pub const ALL: [Strategy; 7] = [
        Strategy::None,
        Strategy::Constant,
        Strategy::Exponential,
        Strategy::Full,
        Strategy::Equal,
        Strategy::Decorrelated,
        Strategy::DecorrelatedV2,
    ];

    /// Every strategy's [`name`](Self::name), in the order of [`ALL`](Self::ALL).
    pub const NAMES: [&'static str; 7] = [
        "none",
        "constant",
        "exponential",
        "full",
        "equal",
        "decorrelated",
        "decorrelated-v2",
    ];

    /// The name used on the command line and in JSON: `"full"`, `"decorrelated-v2"`, …
    pub const fn name(self) -> &'static str {
        Strategy::NAMES[self as usize]
    }

    /// Whether the strategy draws random numbers.
    pub const fn is_jittered(self) -> bool {
        matches!(
            self,
            Strategy::Full | Strategy::Equal | Strategy::Decorrelated | Strategy::DecorrelatedV2
        )
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Strategy {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::error::lookup(Field::Strategy, &Strategy::NAMES, s).map(|i| Strategy::ALL[i])
    }
}

/// Unvalidated backoff settings. [`build`](Self::build) checks them once.
///
/// # Default
/// Full jitter, base 200 ms, cap 30 s, multiplier 2: the article's recommendation.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct BackoffSettings {
    /// The formula.
    pub strategy: Strategy,
    /// The first delay (ms); for `decorrelated-v2`, Polly's "median first retry delay" (the
    /// first two delays' medians come out at about 0.9× and 1.1× of it).
    pub base_ms: f64,
    /// No delay is longer than this (ms).
    pub cap_ms: f64,
    /// Growth per retry; 2 doubles. At least 1.
    pub multiplier: f64,
}

impl Default for BackoffSettings {
    fn default() -> Self {
        BackoffSettings {
            strategy: Strategy::Full,
            base_ms: 200.0,
            cap_ms: 30_000.0,
            multiplier: 2.0,
        }
    }
}

/// The largest multiplier accepted.
pub const MAX_MULTIPLIER: f64 = 1000.0;

/// The most delay sequences one call draws at once ([`Field::Samples`]).
pub const MAX_SAMPLES: u32 = 1_000_000;

/// The most delays one call draws at once, in all: samples × (attempts − 1), 80 MB of
/// `f64`. A front end checks it before allocating, so a request for more is an error,
/// never a failed allocation.
pub const MAX_SAMPLE_DELAYS: u64 = 10_000_000;

/// Checks a number of delay sequences to draw, each of `per_sample` delays: a whole
/// number in [`Field::Samples`]'s range, and at most [`MAX_SAMPLE_DELAYS`] delays in all.
///
/// ```
/// use stampede::{Code, backoff::check_samples};
/// assert_eq!(check_samples(1000.0, 5), Ok(1000));
/// assert_eq!(check_samples(1.5, 5).unwrap_err().code(), Code::NotWhole);
/// assert_eq!(check_samples(1_000_000.0, 99).unwrap_err().code(), Code::TooMuchWork);
/// ```
pub fn check_samples(samples: f64, per_sample: u32) -> Result<u32, ConfigError> {
    let n = Field::Samples.check(samples)?;
    let max = max_samples(per_sample);
    if n > f64::from(max) {
        let expected = Expected::Work {
            max: f64::from(max),
            bound: WorkBound::Delays,
        };
        return Err(ConfigError::new(Field::Samples, expected, Got::Number(n)));
    }
    Ok(n as u32)
}

/// The most sequences of `per_sample` delays that [`check_samples`] accepts.
pub const fn max_samples(per_sample: u32) -> u32 {
    if per_sample == 0 {
        return MAX_SAMPLES;
    }
    let rows = MAX_SAMPLE_DELAYS / per_sample as u64;
    if rows < MAX_SAMPLES as u64 {
        rows as u32
    } else {
        MAX_SAMPLES
    }
}

impl BackoffSettings {
    /// Settings with the given strategy, base and cap, and multiplier 2.
    pub const fn new(strategy: Strategy, base_ms: f64, cap_ms: f64) -> Self {
        BackoffSettings {
            strategy,
            base_ms,
            cap_ms,
            multiplier: 2.0,
        }
    }

    /// Base and cap for `strategy` from what a front end was given (`base`, `cap`) and its
    /// defaults (`default_base_ms`, `default_cap_ms`: the core's, or a scenario's own). A value
    /// given is kept; a missing one takes its default unless that default would refuse the
    /// value given beside it: a base longer than the default cap takes the cap with it, and,
    /// for a strategy that reads the cap, a cap shorter than the default base takes the base
    /// with it. So a default never refuses a value given alone: `constant` from 40 s was
    /// refused for a cap nobody gave, and `exponential --cap 1s` for a base nobody gave;
    /// while `constant --cap 1s`, which reads no cap, keeps its base (and its delays). A value
    /// out of its own range takes nothing with it: its error names it, not the default.
    pub fn base_cap_for(
        strategy: Strategy,
        (default_base_ms, default_cap_ms): (f64, f64),
        base: Option<f64>,
        cap: Option<f64>,
    ) -> (f64, f64) {
        let valid = |f: Field, v: f64| f.limit().is_some_and(|l| v >= l.min && v <= l.max);
        match (base, cap) {
            (Some(base), None) if base > default_cap_ms && valid(Field::Base, base) => (base, base),
            (None, Some(cap))
                if cap < default_base_ms
                    && strategy.reads(Field::Cap)
                    && valid(Field::Cap, cap) =>
            {
                (cap, cap)
            }
            (base, cap) => (
                base.unwrap_or(default_base_ms),
                cap.unwrap_or(default_cap_ms),
            ),
        }
    }

    /// The same settings with another multiplier.
    pub const fn with_multiplier(mut self, multiplier: f64) -> Self {
        self.multiplier = multiplier;
        self
    }

    /// Validates the settings: base and cap finite, from 0 to 1 day, `base ≤ cap` for a
    /// strategy that reads the cap, multiplier in `[1, 1000]`.
    pub fn build(self) -> Result<Backoff, ConfigError> {
        let base = Field::Base.check(self.base_ms)?;
        let cap = Field::Cap.check(self.cap_ms)?;
        // A strategy that reads no cap takes any (`Strategy::reads`: its front end notes
        // that the cap changes nothing; refusing it would make that note a lie).
        if cap < base && self.strategy.reads(Field::Cap) {
            let expected = Expected::AtLeastField {
                other: Field::Base,
                min: base,
                max: MAX_DURATION_MS,
                unit: Unit::Ms,
            };
            return Err(ConfigError::new(Field::Cap, expected, Got::Number(cap)));
        }
        let multiplier = Field::Multiplier.check(self.multiplier)?;
        let mut b = Backoff {
            strategy: self.strategy,
            base,
            cap,
            multiplier,
            limit: if base > 0.0 { cap / base } else { 0.0 },
            ceilings: [0.0; CEILINGS],
        };
        for n in 0..CEILINGS {
            b.ceilings[n] = b.ceiling_by_squaring(n as u32);
        }
        Ok(b)
    }
}

/// Validated backoff settings: the formula and its parameters. Cheap to copy and shared
/// by every request that uses it; the per-request part is a [`BackoffState`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    strategy: Strategy,
    base: f64,
    cap: f64,
    multiplier: f64,
    /// `cap / base`: the power of the multiplier past which the ceiling is the cap.
    limit: f64,
    /// [`ceiling_ms`](Self::ceiling_ms) of the first retries, computed once: a request's
    /// retries walk this table instead of squaring again (the loop's branches, which follow
    /// `n`, were a third of the simulator's cost of a delay).
    ceilings: [f64; CEILINGS],
}

/// Retries whose ceiling is looked up rather than computed.
const CEILINGS: usize = 16;

/// Where one request is in its backoff sequence.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct BackoffState {
    /// The number of delays drawn so far (the next retry's `n`).
    retries: u32,
    /// The previous delay, for the decorrelated strategies (for `decorrelated-v2`, the
    /// formula's previous cumulative value).
    prev: f64,
}

impl BackoffState {
    /// The number of delays drawn since the start or the last [`Backoff::reset`].
    pub const fn retries(&self) -> u32 {
        self.retries
    }
}

impl Backoff {
    /// The strategy.
    pub const fn strategy(&self) -> Strategy {
        self.strategy
    }
    /// The base delay in ms.
    pub const fn base_ms(&self) -> f64 {
        self.base
    }
    /// The cap in ms.
    pub const fn cap_ms(&self) -> f64 {
        self.cap
    }
    /// The multiplier.
    pub const fn multiplier(&self) -> f64 {
        self.multiplier
    }

    /// A fresh state: the next delay is the first.
    pub fn start(&self) -> BackoffState {
        BackoffState {
            retries: 0,
            prev: self.initial_prev(),
        }
    }

    /// A fresh state whose first delay uses exponent `n` instead of 0. The AWS simulator
    /// numbers its first backoff 1 (`base · 2^1`); its contention experiment starts here.
    pub fn start_at(&self, n: u32) -> BackoffState {
        BackoffState {
            retries: n,
            prev: self.initial_prev(),
        }
    }

    /// Starts over, as after a server's pushback: the next delay is the first again.
    pub fn reset(&self, state: &mut BackoffState) {
        *state = self.start();
    }

    fn initial_prev(&self) -> f64 {
        match self.strategy {
            Strategy::DecorrelatedV2 => 0.0,
            _ => self.base,
        }
    }

    /// `min(cap, base · multiplier^n)`: the exponential envelope that `exponential`,
    /// `full` and `equal` draw from.
    ///
    /// The power is computed by repeated squaring in plain IEEE multiplications (no
    /// `powf`, whose last bit differs between platforms), and saturates at `cap`:
    ///
    /// ```
    /// # use stampede::backoff::{BackoffSettings, Strategy};
    /// let b = BackoffSettings::new(Strategy::Exponential, 200.0, 30_000.0).build()?;
    /// assert_eq!(b.ceiling_ms(3), 1600.0);
    /// assert_eq!(b.ceiling_ms(1000), 30_000.0);
    /// assert_eq!(b.ceiling_ms(u32::MAX), 30_000.0);
    /// # Ok::<(), stampede::ConfigError>(())
    /// ```
    #[inline]
    pub fn ceiling_ms(&self, n: u32) -> f64 {
        match self.ceilings.get(n as usize) {
            Some(&c) => c,
            None => self.ceiling_by_squaring(n),
        }
    }

    /// [`ceiling_ms`](Self::ceiling_ms) by repeated squaring.
    fn ceiling_by_squaring(&self, n: u32) -> f64 {
        if self.base == 0.0 {
            return 0.0;
        }
        let limit = self.limit;
        let mut result = 1.0_f64;
        let mut square = self.multiplier;
        let mut e = n;
        while e > 0 {
            if e & 1 == 1 {
                result *= square;
                if result >= limit {
                    return self.cap;
                }
            }
            e >>= 1;
            if e > 0 {
                square *= square;
                // Every bit left in `e` multiplies `result` (≥ 1) by at least `square`.
                if square >= limit {
                    return self.cap;
                }
            }
        }
        (self.base * result).min(self.cap)
    }

    /// Draws the next delay in ms and advances `state`. Always in `[0, cap]`.
    ///
    /// The strategies that draw nothing are inlined into the caller (the simulator's event
    /// loop, through the policy's decision); the others are a call. In wasm (V8 keeps no
    /// value in a register across a call, so the loop saves and restores its live ones
    /// around each) the 10,000-client exponential burst runs 8% faster so (3.53 -> 3.24 ms,
    /// best of 300 in alternating rounds), full jitter 1-2% slower (4.28 -> 4.34 ms), for
    /// 2.7 KB of wasm; natively exponential 1-2% faster, full jitter the same. `#[inline]`
    /// alone leaves the call where it costs (0.8 KB, no gain). Tried first on 2026-12-06 by
    /// day, when the 1.3x bar looked out of reach for full jitter; measured again that night.
    #[inline(always)]
    pub fn next_ms<R: Rng + ?Sized>(&self, state: &mut BackoffState, rng: &mut R) -> f64 {
        let d = match self.strategy {
            Strategy::None => none::delay(),
            Strategy::Constant => constant::delay(self),
            Strategy::Exponential => exponential::delay(self, state.retries),
            _ => return self.next_ms_drawn(state, rng),
        };
        state.retries = state.retries.saturating_add(1);
        d
    }

    /// [`next_ms`](Self::next_ms) for the strategies that draw.
    #[inline(never)]
    fn next_ms_drawn<R: Rng + ?Sized>(&self, state: &mut BackoffState, rng: &mut R) -> f64 {
        let d = match self.strategy {
            Strategy::None => none::delay(),
            Strategy::Constant => constant::delay(self),
            Strategy::Exponential => exponential::delay(self, state.retries),
            Strategy::Full => full::delay(self, state.retries, rng),
            Strategy::Equal => equal::delay(self, state.retries, rng),
            Strategy::Decorrelated => decorrelated::delay(self, &mut state.prev, rng),
            Strategy::DecorrelatedV2 => {
                decorrelated_v2::delay(self, state.retries, &mut state.prev, rng)
            }
        };
        state.retries = state.retries.saturating_add(1);
        d
    }

    /// An endless iterator of delays in ms, from a fresh state. `take(attempts - 1)` for
    /// the delays of one request.
    pub fn delays_ms<'r, R: Rng + ?Sized>(&self, rng: &'r mut R) -> DelaysMs<'r, R> {
        DelaysMs {
            backoff: *self,
            state: self.start(),
            rng,
        }
    }

    /// The same sequence as [`delays_ms`](Self::delays_ms), as [`Duration`]s.
    pub fn delays<'r, R: Rng + ?Sized>(
        &self,
        rng: &'r mut R,
    ) -> impl Iterator<Item = Duration> + 'r {
        self.delays_ms(rng)
            .map(|ms| Duration::from_secs_f64(ms / 1000.0))
    }
}

/// An endless iterator of one request's delays, in ms. See [`Backoff::delays_ms`].
#[derive(Debug)]
pub struct DelaysMs<'r, R: ?Sized> {
    backoff: Backoff,
    state: BackoffState,
    rng: &'r mut R,
}

impl<R: Rng + ?Sized> Iterator for DelaysMs<'_, R> {
    type Item = f64;

    fn next(&mut self) -> Option<f64> {
        Some(self.backoff.next_ms(&mut self.state, self.rng))
    }
}

/// A uniform draw from `[lo, hi)` (or exactly `lo` when `hi <= lo`).
///
/// Built from rand's `StandardUniform` `f64` (53 random bits), a value-stable and
/// platform-independent mapping, then one multiply-add.
#[inline]
pub(crate) fn uniform<R: Rng + ?Sized>(rng: &mut R, lo: f64, hi: f64) -> f64 {
    let u: f64 = rng.random();
    if hi > lo { lo + (hi - lo) * u } else { lo }
}

#[cfg(test)]
mod tests;
