//! The slim entry's settings, as its JavaScript staged them (`js/slim/options.js`).
//!
//! JavaScript reads every option (a getter that throws, a value of the wrong type: a
//! `TypeError` naming the field, raised there) and stages what it found by slot: a core
//! field's slot is its index in `Field::ALL`, the few values with no `Field` come after
//! ([`Extra`]). This `Opts` reads the staging area with the same methods as the full
//! entry's (`src/opts.rs`), so the settings readers (`call_settings`, `nets`) serve both;
//! every range is checked here, by the core. [`schema`] tells JavaScript what to read:
//! the names are the core fields' JavaScript names (`fields::js_name`), never copied.

use std::cell::RefCell;

use stampede::nets::BudgetKind as Kinds;
use stampede::{Field, MAX_EXACT_SEED};

use crate::errors::{Fail, config_error};
use crate::fields::{Group, js_name, prefix_of};

/// The core's fields, one slot each.
const FIELDS: usize = Field::ALL.len();

/// The staged values that have no `Field`, in slots after the fields'.
#[derive(Clone, Copy)]
pub(crate) enum Extra {
    /// `idempotent` (1 or 0).
    Idempotent,
    /// `classify`'s `nowMs`.
    Now,
    /// `classify`'s `Retry-After` header.
    RetryAfter,
    /// `classify`'s `grpc-retry-pushback-ms` header.
    Pushback,
    /// A nested options object was given (one slot per `Group`, from here).
    Group,
}

const fn extra(e: Extra) -> usize {
    FIELDS + e as usize
}

const fn group_slot(g: Group) -> usize {
    extra(Extra::Group) + g as usize
}

const SLOTS: usize = group_slot(Group::None) + 1;

struct Staged {
    num: [f64; SLOTS],
    has: [bool; SLOTS],
    text: Vec<(usize, String)>,
}

thread_local! {
    static STAGED: RefCell<Staged> = const {
        RefCell::new(Staged { num: [0.0; SLOTS], has: [false; SLOTS], text: Vec::new() })
    };
}

/// Empties the staging area, before a new set of options.
pub fn unstage() {
    STAGED.with(|s| {
        let mut s = s.borrow_mut();
        s.has = [false; SLOTS];
        s.text.clear();
    });
}

/// Stages a number (a boolean as 1 or 0; 1 for a nested object given) in `slot`.
pub fn stage(slot: usize, value: f64) {
    STAGED.with(|s| {
        let mut s = s.borrow_mut();
        if slot < SLOTS {
            s.num[slot] = value;
            s.has[slot] = true;
        }
    });
}

/// Stages a string in `slot` (JavaScript checked its length: at most `MAX_TEXT_CHARS`).
pub fn stage_text(slot: usize, value: String) {
    STAGED.with(|s| {
        let mut s = s.borrow_mut();
        if slot < SLOTS {
            s.has[slot] = true;
            s.text.push((slot, value));
        }
    });
}

fn staged(slot: usize) -> Option<f64> {
    STAGED.with(|s| {
        let s = s.borrow();
        s.has
            .get(slot)
            .copied()
            .unwrap_or(false)
            .then(|| s.num[slot])
    })
}

/// The string staged in `slot`.
pub(crate) fn staged_text(slot: usize) -> Option<String> {
    STAGED.with(|s| {
        let s = s.borrow();
        s.text
            .iter()
            .find(|(i, _)| *i == slot)
            .map(|(_, t)| t.clone())
    })
}

/// The staged flag `e` (`idempotent`), false when absent.
pub(crate) fn flag(e: Extra) -> bool {
    staged(extra(e)).is_some_and(|v| v != 0.0)
}

/// The staged number `e` (`nowMs`).
pub(crate) fn staged_extra(e: Extra) -> Option<f64> {
    staged(extra(e))
}

/// The staged string `e` (a header).
pub(crate) fn staged_extra_text(e: Extra) -> Option<String> {
    staged_text(extra(e))
}

/// The staged settings of one options object: the top level's, or a nested group's.
pub(crate) struct Opts {
    /// A prefix for field names in messages: `""`, `"policy."`, `"budget."`, …
    prefix: &'static str,
}

impl Opts {
    /// The top-level options.
    pub(crate) fn top() -> Opts {
        Opts { prefix: "" }
    }

    /// No settings but the staged ones, under `prefix` in messages.
    pub(crate) fn empty(prefix: &'static str) -> Opts {
        Opts { prefix }
    }

    pub(crate) fn prefix(&self) -> &'static str {
        self.prefix
    }

    /// The nested options object of `group`, if it was given.
    pub(crate) fn group(&self, _key: &str, group: Group) -> Result<Option<Opts>, Fail> {
        Ok(staged(group_slot(group)).map(|_| Opts {
            prefix: prefix_of(group),
        }))
    }

    /// The number for `field`, as given (`NaN` and infinities included, for the core to
    /// reject with the field's range).
    pub(crate) fn number(&self, field: Field) -> Result<Option<f64>, Fail> {
        Ok(staged(field as usize))
    }

    /// The number for `field`, checked against the core's range for it.
    pub(crate) fn checked(&self, field: Field) -> Result<Option<f64>, Fail> {
        match staged(field as usize) {
            Some(n) => field
                .check(n)
                .map(Some)
                .map_err(|e| config_error(self.prefix, &e)),
            None => Ok(None),
        }
    }

    /// [`checked`](Self::checked) for a count the core keeps as `u32` (every such field's
    /// range is whole numbers within `u32`, so the cast is exact).
    pub(crate) fn whole(&self, field: Field) -> Result<Option<u32>, Fail> {
        Ok(self.checked(field)?.map(|n| n as u32))
    }

    /// A choice by name: `all[i]` for the name at `names[i]`, read by the core's rule.
    pub(crate) fn choice<T: Copy>(
        &self,
        field: Field,
        names: &'static [&'static str],
        all: &[T],
    ) -> Result<Option<T>, Fail> {
        Ok(self
            .choice_index(field, names)?
            .and_then(|i| all.get(i).copied()))
    }

    #[inline(never)]
    fn choice_index(
        &self,
        field: Field,
        names: &'static [&'static str],
    ) -> Result<Option<usize>, Fail> {
        match self.text(field)? {
            Some(v) => stampede::lookup(field, names, &v)
                .map(Some)
                .map_err(|e| config_error(self.prefix, &e)),
            None => Ok(None),
        }
    }

    /// The string for `field`.
    pub(crate) fn text(&self, field: Field) -> Result<Option<String>, Fail> {
        Ok(staged_text(field as usize))
    }

    /// A seed: a whole number from 0 to 2^53 − 1, or a fresh random one.
    pub(crate) fn seed(&self) -> Result<u64, Fail> {
        Ok(match self.checked(Field::Seed)? {
            Some(n) => n as u64,
            None => random_seed(),
        })
    }
}

#[cfg(target_family = "wasm")]
#[link(wasm_import_module = "env")]
unsafe extern "C" {
    /// `Math.random()` (the loader's import, `js/slim/wasm.js`).
    safe fn random() -> f64;
}

/// Outside wasm (the slim is checked natively, never run there) there is no `Math.random`.
#[cfg(not(target_family = "wasm"))]
fn random() -> f64 {
    0.5
}

/// A seed from `Math.random`, 53 bits of it: a fleet sharing one seed would draw the same
/// "random" delays, and the herd would be back.
pub(crate) fn random_seed() -> u64 {
    (random() * (MAX_EXACT_SEED as f64 + 1.0)) as u64
}

/// What one entry of [`schema`] reads.
#[derive(Clone, Copy)]
enum Kind {
    /// A number.
    Number,
    /// A string of at most `MAX_TEXT_CHARS` characters.
    Text,
    /// A boolean.
    Bool,
    /// A finite number.
    Finite,
    /// A budget's kind (read before the budget's other fields: see `kinds`).
    BudgetType,
    /// A header of `classify`'s `headers`.
    Header,
    /// A nested options object.
    Group,
}

/// Budget kinds, as bits in the order of `BudgetKind::NAMES` (bucket, ratio, grpc, aws):
/// which kinds read a budget field (the core's `BudgetKind::readers`); `ALL` for any other
/// field.
const ALL: u8 = 15;

/// Where an entry is read: the API and the nested object it belongs to.
#[derive(Clone, Copy)]
enum At {
    /// `retryFetch`'s top level.
    Fetch,
    /// `classify`'s input.
    Classify,
    /// `PolicyOptions` (`RetryPolicy`'s options; `policy` in `retryFetch`'s).
    Policy,
    /// `BudgetOptions` (`Budget.forCallSite`'s; `budget` in `retryFetch`'s).
    Budget,
    /// `breaker` in `retryFetch`'s options.
    Breaker,
    /// `throttle` in `retryFetch`'s options.
    Throttle,
    /// `hedging` in `retryFetch`'s options.
    Hedging,
}

/// A value JavaScript reads: where, what, which budget kinds read it (for a nested object:
/// where its own entries are), its slot.
type Entry = (At, Kind, u8, Slot);

#[derive(Clone, Copy)]
enum Slot {
    F(Field),
    X(Extra),
    G(Group),
}

use At::*;
use Kind::*;
use Slot::{F, G, X};

/// Everything the slim entry reads, in the order it reads it.
const SCHEMA: &[Entry] = &[
    (Policy, Text, ALL, F(Field::Strategy)),
    (Policy, Number, ALL, F(Field::Base)),
    (Policy, Number, ALL, F(Field::Cap)),
    (Policy, Number, ALL, F(Field::Multiplier)),
    (Policy, Number, ALL, F(Field::MaxAttempts)),
    (Policy, Number, ALL, F(Field::MaxRetryAfter)),
    (Policy, Text, ALL, F(Field::RetryOn)),
    (Policy, Number, ALL, F(Field::MaxElapsed)),
    (Policy, Number, ALL, F(Field::Seed)),
    (Fetch, Group, Policy as u8, G(Group::Policy)),
    (Fetch, Number, ALL, F(Field::Deadline)),
    (Fetch, Text, ALL, F(Field::CallSite)),
    (Fetch, Group, Budget as u8, G(Group::Budget)),
    (Budget, BudgetType, ALL, F(Field::BudgetKind)),
    (
        Budget,
        Number,
        Kinds::readers(Field::Capacity),
        F(Field::Capacity),
    ),
    (
        Budget,
        Number,
        Kinds::readers(Field::RefillPerSec),
        F(Field::RefillPerSec),
    ),
    (
        Budget,
        Number,
        Kinds::readers(Field::RetryCost),
        F(Field::RetryCost),
    ),
    (
        Budget,
        Number,
        Kinds::readers(Field::SuccessRefund),
        F(Field::SuccessRefund),
    ),
    (
        Budget,
        Number,
        Kinds::readers(Field::Ratio),
        F(Field::Ratio),
    ),
    (
        Budget,
        Number,
        Kinds::readers(Field::RatioCap),
        F(Field::RatioCap),
    ),
    (
        Budget,
        Number,
        Kinds::readers(Field::MinPerSec),
        F(Field::MinPerSec),
    ),
    (
        Budget,
        Number,
        Kinds::readers(Field::Window),
        F(Field::Window),
    ),
    (
        Budget,
        Number,
        Kinds::readers(Field::MaxTokens),
        F(Field::MaxTokens),
    ),
    (
        Budget,
        Number,
        Kinds::readers(Field::TokenRatio),
        F(Field::TokenRatio),
    ),
    (
        Budget,
        Number,
        Kinds::readers(Field::Tokens),
        F(Field::Tokens),
    ),
    (
        Budget,
        Number,
        Kinds::readers(Field::TimeoutCost),
        F(Field::TimeoutCost),
    ),
    (Fetch, Group, Breaker as u8, G(Group::Breaker)),
    (Breaker, Number, ALL, F(Field::FailureRatio)),
    (Breaker, Number, ALL, F(Field::Sampling)),
    (Breaker, Number, ALL, F(Field::MinThroughput)),
    (Breaker, Number, ALL, F(Field::BreakDuration)),
    (Breaker, Text, ALL, F(Field::BreakerMode)),
    (Fetch, Group, Throttle as u8, G(Group::Throttle)),
    (Throttle, Number, ALL, F(Field::K)),
    (Throttle, Number, ALL, F(Field::ThrottleWindow)),
    (Fetch, Group, Hedging as u8, G(Group::Hedging)),
    (Hedging, Number, ALL, F(Field::HedgeDelay)),
    (Hedging, Number, ALL, F(Field::HedgeMaxAttempts)),
    (Fetch, Number, ALL, F(Field::AttemptTimeout)),
    (Fetch, Bool, ALL, X(Extra::Idempotent)),
    (Classify, Text, ALL, F(Field::Method)),
    (Classify, Bool, ALL, X(Extra::Idempotent)),
    (Classify, Number, ALL, F(Field::MaxRetryAfter)),
    (Classify, Text, ALL, F(Field::RetryOn)),
    (Classify, Finite, ALL, X(Extra::Now)),
    (Classify, Number, ALL, F(Field::Status)),
    (Classify, Text, ALL, F(Field::Error)),
    (Classify, Header, ALL, X(Extra::RetryAfter)),
    (Classify, Header, ALL, X(Extra::Pushback)),
];

/// An entry's slot and JavaScript name.
fn slot_name(slot: Slot) -> (usize, &'static str) {
    match slot {
        F(f) => (f as usize, js_name(f)),
        X(e) => (
            extra(e),
            match e {
                Extra::Idempotent => "idempotent",
                Extra::Now => "nowMs",
                Extra::RetryAfter => "retry-after",
                Extra::Pushback => "grpc-retry-pushback-ms",
                Extra::Group => "",
            },
        ),
        // The group's key is its prefix without the dot.
        G(g) => {
            let p = prefix_of(g);
            (
                group_slot(g),
                p.get(..p.len().saturating_sub(1)).unwrap_or(""),
            )
        }
    }
}

/// What JavaScript reads, one entry per line: a character each for where (an `At`), what
/// (a `Kind`) and which budget kinds (a bit set, as `'0' + bits`), the slot as the
/// character `'0' + slot`, then the name. Then two lines of names: the budget kinds (in
/// the order of the kind bits) and the transport errors (by the codes `FetchCall` takes),
/// each after a `#` and separated by commas.
pub fn schema() -> String {
    let mut out = String::new();
    for names in [&Kinds::NAMES[..], &crate::call::TRANSPORT_NAMES] {
        out.push('#');
        out.push_str(&names.join(","));
        out.push('\n');
    }
    for &(at, kind, kinds, slot) in SCHEMA {
        let (slot, name) = slot_name(slot);
        for c in [at as u32, kind as u32, u32::from(kinds), slot as u32] {
            out.push(char::from_u32('0' as u32 + c).unwrap_or('0'));
        }
        out.push_str(name);
        out.push('\n');
    }
    out
}
