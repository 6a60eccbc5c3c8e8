//! The slim entry's `RetryPolicy`, `classify`, `parseRetryAfter` and `Budget`, under
//! `js/slim/api.js`, which reads and stages their options and builds their errors: here
//! the core's rules on numbers and strings (the full entry's `policy.rs` and `budget.rs`
//! take JavaScript values instead, with the same rules and errors).

use stampede::backoff::check_samples;
use stampede::classify::{HttpStatus, Method, Outcome, Request, RetryRules, StatusSet, Verdict};
use stampede::nets::{Budget as Nets, Guard, GuardSettings};
use stampede::policy::Policy;
use stampede::{Field, SeededRng, seeded};

use crate::call::or_nan;
use crate::call_nets::{is_open, tokens_of};
use crate::call_settings::policy_settings;
use crate::errors::{Fail, config_error};
use crate::fields::action_name;
use crate::nets::budget_kind;
use crate::opts::{Extra, Opts, flag, random_seed, staged_extra, staged_extra_text};
use crate::registry::with_site;

/// A validated policy and its own seeded generator (`RetryPolicy`).
pub struct Backoff {
    policy: Policy,
    rng: SeededRng,
}

impl Backoff {
    /// The policy of the staged `PolicyOptions`; `undefined` on a bad one (`lastError`).
    pub fn create() -> Option<Backoff> {
        let read = || -> Result<Backoff, Fail> {
            let opts = Opts::top();
            let policy = policy_settings(&opts)?
                .build()
                .map_err(|e| config_error("", &e))?;
            Ok(Backoff {
                policy,
                rng: seeded(opts.seed()?),
            })
        };
        read().ok()
    }

    /// `rows` requests' delays (ms), `maxAttempts - 1` each, row by row; each call draws
    /// the next (`delays()` is one row, `sample(n)` draws its rows in chunks).
    pub fn draw(&mut self, rows: u32) -> Vec<f64> {
        let per = self.retries();
        let backoff = *self.policy.backoff();
        let mut out = Vec::with_capacity(rows as usize * per);
        for _ in 0..rows {
            out.extend(backoff.delays_ms(&mut self.rng).take(per));
        }
        out
    }

    /// How many rows `sample(n)` draws, checked by the core (`check_samples`: at most
    /// 10,000,000 values in all); NaN past it (`lastError`, naming `n`).
    pub fn rows(&self, n: f64) -> f64 {
        let rows = check_samples(n, self.retries() as u32).map_err(|e| config_error("", &e));
        or_nan(rows.ok().map(f64::from))
    }

    /// Attempts in all, the first included.
    pub fn max_attempts(&self) -> u32 {
        self.policy.max_attempts()
    }

    /// The strategy's name.
    pub fn strategy(&self) -> String {
        self.policy.backoff().strategy().name().to_owned()
    }

    fn retries(&self) -> usize {
        self.policy.max_attempts() as usize - 1
    }
}

/// A verdict (`classify`'s answer).
pub struct Judged {
    verdict: Verdict,
}

impl Judged {
    /// Whether to retry.
    pub fn retryable(&self) -> bool {
        self.verdict.is_retryable()
    }

    /// `"success"`, `"retry"` or `"do-not-retry"`.
    pub fn action(&self) -> String {
        action_name(self.verdict.action).to_owned()
    }

    /// Why.
    pub fn reason(&self) -> String {
        self.verdict.reason.to_string()
    }

    /// The server's hint (ms) if one is honoured, else NaN.
    pub fn retry_after_ms(&self) -> f64 {
        or_nan(self.verdict.hint_ms())
    }

    /// Why a hint was ignored, if one was.
    pub fn ignored_hint(&self) -> Option<String> {
        self.verdict.ignored_hint.map(|h| h.to_string())
    }
}

/// `classify` on the staged input (`now`: `nowMs`'s default); `undefined` on a bad value
/// (`lastError`). The driver checked its shape: a status or an error, not both.
pub fn classify_staged(now: f64) -> Option<Judged> {
    let read = || -> Result<Judged, Fail> {
        let o = Opts::top();
        let method = match o.text(Field::Method)? {
            Some(m) => m.parse::<Method>().map_err(|e| config_error("", &e))?,
            None => Method::Get,
        };
        let request = Request::new(method).idempotent(flag(Extra::Idempotent));
        let mut rules = RetryRules::default();
        if let Some(v) = o.number(Field::MaxRetryAfter)? {
            rules = rules
                .with_max_retry_after_ms(v)
                .map_err(|e| config_error("", &e))?;
        }
        if let Some(spec) = o.text(Field::RetryOn)? {
            rules = rules.with_statuses(StatusSet::parse(&spec).map_err(|e| config_error("", &e))?);
        }
        let now = staged_extra(Extra::Now).unwrap_or(now);
        let (retry_after, pushback);
        let outcome = match o.checked(Field::Status)? {
            Some(code) => {
                // Checked: a whole number from 100 to 599.
                let status = HttpStatus::new(code as u16).map_err(|e| config_error("", &e))?;
                retry_after = staged_extra_text(Extra::RetryAfter);
                pushback = staged_extra_text(Extra::Pushback);
                Outcome::Response {
                    status,
                    retry_after: retry_after.as_deref(),
                    pushback_ms: pushback.as_deref(),
                }
            }
            None => Outcome::Transport(
                o.text(Field::Error)?
                    .unwrap_or_default()
                    .parse()
                    .map_err(|e| config_error("", &e))?,
            ),
        };
        Ok(Judged {
            verdict: rules.classify(request, &outcome, now),
        })
    };
    read().ok()
}

/// `parseRetryAfter`: the delay in ms, or NaN when the value is neither delta-seconds nor
/// an HTTP-date.
pub fn parse_retry_after(value: &str, now: f64) -> f64 {
    or_nan(stampede::retry_after::parse_retry_after(value, now).ok())
}

/// A handle on one call site's nets in the module's registry (`Budget`).
pub struct Site {
    call_site: String,
}

impl Site {
    fn with<T>(&self, now: f64, f: impl FnOnce(&mut Guard, &GuardSettings) -> T) -> Option<T> {
        with_site(&self.call_site, GuardSettings::default(), now, "name", f).ok()
    }
}

impl Site {
    /// The call site `name`, its budget's settings the staged `BudgetOptions` when
    /// `given`; `undefined` on a bad one (`lastError`).
    pub fn create(name: String, given: bool, now: f64) -> Option<Site> {
        let budget = if given {
            Some(budget_kind(&Opts::top()).ok()?)
        } else {
            None
        };
        let given = GuardSettings {
            budget,
            ..GuardSettings::default()
        };
        with_site(&name, given, now, "name", |_, _| ()).ok()?;
        Some(Site { call_site: name })
    }

    /// The budget's kind.
    pub fn kind(&self, now: f64) -> Option<String> {
        self.with(now, |_, s| {
            s.budget.map_or("bucket", |k| k.name()).to_owned()
        })
    }

    /// Tokens at `now` (see the full entry's `Budget.tokens`); NaN on an error
    /// (`lastError`).
    pub fn tokens(&self, now: f64) -> f64 {
        or_nan(self.with(now, |g, _| tokens_of(g, now).unwrap_or(f64::INFINITY)))
    }

    /// Whether a new call would fail fast at `now`: 1 or 0; NaN on an error.
    pub fn is_open(&self, now: f64) -> f64 {
        or_nan(self.with(now, |g, _| f64::from(u8::from(is_open(g, now)))))
    }

    /// Decides a retry at `now` as `retryFetch` would, charging the nets if it goes: 1 if
    /// it goes, 0 if not; NaN on an error.
    pub fn try_retry(&self, now: f64) -> f64 {
        let mut rng = seeded(random_seed());
        or_nan(self.with(now, |g, _| {
            f64::from(u8::from(g.try_retry(now, false, &mut rng).is_ok()))
        }))
    }

    /// Refills the budget: a bucket to full, any other kind back to its start.
    pub fn reset(&self, now: f64) -> bool {
        self.with(now, |g, s| match (g.budget(), s.budget) {
            (Some(Nets::Bucket(b)), _) => b.reset(now),
            (Some(b), Some(kind)) => {
                if let Ok(fresh) = kind.build(now) {
                    *b = fresh;
                }
            }
            _ => {}
        })
        .is_some()
    }
}
