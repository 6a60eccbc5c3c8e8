//! Reading settings out of JavaScript objects, with errors that name the field.
//!
//! A slider can send `NaN`, a form an empty string, a caller a typo. Every getter here
//! checks the JavaScript type (wrong type: `TypeError`) and every core setting is validated
//! by the core (bad value: `RangeError`); the message names the field as JavaScript spells
//! it (`baseMs`, `budget.capacity`). Nothing here can panic.

use js_sys::{Object, Reflect};
use stampede::{Field, MAX_TEXT_CHARS};
use wasm_bindgen::prelude::*;

use crate::errors::{Shape, settings_error_js, unpaired_error};
// fetch.rs takes the error builders from here.
pub(crate) use crate::errors::{config_error, out_of_range, type_error, wrong_type};
use crate::fields::{Group, js_name, prefix_of};

/// A settings object, or `undefined`/`null` (every field then takes its default).
pub(crate) struct Opts {
    obj: Option<Object>,
    /// A prefix for field names in messages: `""`, `"policy."` or `"budget."`.
    prefix: &'static str,
}

/// `v` as a string of at most [`MAX_TEXT_CHARS`] characters: `TypeError` for another type,
/// `RangeError` (`code: "too_long"`) for a longer string, and (`code: "bad_syntax"`) for
/// one with an unpaired surrogate, all naming `{prefix}{field}`.
///
/// The length is checked before the string is copied into wasm memory, which never
/// shrinks: a huge string must not grow it for good, or exhaust it. An unpaired surrogate
/// is no Unicode text: copied into Rust it would become U+FFFD, and `"a\u{d800}"` would name
/// the same call site as `"a\u{fffd}"`.
pub(crate) fn text(v: &JsValue, prefix: &str, field: &str) -> Result<String, JsValue> {
    match v.dyn_ref::<js_sys::JsString>() {
        Some(s) if s.length() <= MAX_TEXT_CHARS && !s.is_valid_utf16() => {
            Err(unpaired_error(prefix, field, v))
        }
        Some(s) if s.length() <= MAX_TEXT_CHARS => Ok(String::from(s)),
        Some(_) => Err(settings_error_js(
            prefix,
            field,
            "too_long",
            v,
            Shape::AtMostChars as u8,
            f64::NAN,
            f64::from(MAX_TEXT_CHARS),
            "chars",
            true,
            &JsValue::UNDEFINED,
            "",
        )),
        None => Err(wrong_type(prefix, field, "a string", v)),
    }
}

/// A number argument of a method (`n`, `tMs`, `nowMs`): `None` when `undefined` or
/// `null`, `TypeError` naming `field` for any other non-number. `NaN` and infinities are
/// returned for the caller to judge.
pub(crate) fn number_arg(v: &JsValue, field: &str) -> Result<Option<f64>, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_f64()
        .map(Some)
        .ok_or_else(|| wrong_type("", field, "a number", v))
}

/// A finite number argument, or `None` when omitted.
pub(crate) fn finite_arg(v: &JsValue, field: &str) -> Result<Option<f64>, JsValue> {
    match number_arg(v, field)? {
        Some(n) if !n.is_finite() => Err(out_of_range("", field, "a finite number", v)),
        n => Ok(n),
    }
}

impl Opts {
    /// Reads `value` as a settings object: an object, or `undefined`/`null`.
    pub(crate) fn new(value: &JsValue, what: &str, prefix: &'static str) -> Result<Self, JsValue> {
        if value.is_undefined() || value.is_null() {
            return Ok(Opts { obj: None, prefix });
        }
        // Any object: one without a prototype (`Object.create(null)`) or from another realm
        // (an iframe, `vm`) too, which `instanceof Object` would refuse. Not an array (its
        // error says so): `hedging: []` is a mistake, not hedging with its defaults.
        if value.is_object() && !crate::errors::array_options(value, what)? {
            Ok(Opts {
                obj: Some(value.clone().unchecked_into()),
                prefix,
            })
        } else {
            Err(wrong_type("", what, "an object", value))
        }
    }

    /// No settings: every field takes its default (`prefix` for messages).
    pub(crate) fn empty(prefix: &'static str) -> Opts {
        Opts { obj: None, prefix }
    }

    /// The nested settings object `key` (`policy`, `budget`, …), if given, with `group`'s
    /// prefix in messages.
    pub(crate) fn group(&self, key: &str, group: Group) -> Result<Option<Opts>, JsValue> {
        match self.raw(key)? {
            Some(v) => Opts::new(&v, key, prefix_of(group)).map(Some),
            None => Ok(None),
        }
    }

    pub(crate) fn prefix(&self) -> &'static str {
        self.prefix
    }

    /// The raw field; `undefined` when absent. `null` counts as absent too. A getter or
    /// Proxy trap that throws becomes a `TypeError` naming `{prefix}{key}`, with what it
    /// threw as `cause`.
    pub(crate) fn raw(&self, key: &str) -> Result<Option<JsValue>, JsValue> {
        let Some(obj) = &self.obj else {
            return Ok(None);
        };
        let v = Reflect::get(obj, &JsValue::from_str(key))
            .map_err(crate::fetch::threw(self.prefix, key))?;
        Ok(if v.is_undefined() || v.is_null() {
            None
        } else {
            Some(v)
        })
    }

    /// A number field. `NaN` and infinities are numbers of the wrong range: `RangeError`.
    pub(crate) fn f64(&self, key: &str) -> Result<Option<f64>, JsValue> {
        match self.raw(key)? {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) if n.is_finite() => Ok(Some(n)),
                Some(_) => Err(out_of_range(self.prefix, key, "a finite number", &v)),
                None => Err(wrong_type(self.prefix, key, "a number", &v)),
            },
        }
    }

    /// The number for `field` (under its JavaScript name), as given: `NaN` and infinities
    /// included, for the core to reject with the field's range.
    pub(crate) fn number(&self, field: Field) -> Result<Option<f64>, JsValue> {
        let key = js_name(field);
        match self.raw(key)? {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) => Ok(Some(n)),
                None => Err(wrong_type(self.prefix, key, "a number", &v)),
            },
        }
    }

    /// The number for `field`, checked against the core's range for it (a whole-number
    /// field: a whole number).
    pub(crate) fn checked(&self, field: Field) -> Result<Option<f64>, JsValue> {
        match self.number(field)? {
            Some(n) => field
                .check(n)
                .map(Some)
                .map_err(|e| config_error(self.prefix, &e)),
            None => Ok(None),
        }
    }

    /// [`checked`](Self::checked) for a count the core keeps as `u32` (every such field's
    /// range is whole numbers within `u32`, so the cast is exact).
    pub(crate) fn whole(&self, field: Field) -> Result<Option<u32>, JsValue> {
        Ok(self.checked(field)?.map(|n| n as u32))
    }

    /// The number for `field`, which has no default: absent is a `TypeError` naming it.
    pub(crate) fn required(&self, field: Field) -> Result<f64, JsValue> {
        let key = js_name(field);
        self.number(field)?
            .ok_or_else(|| wrong_type(self.prefix, key, "a number", &JsValue::UNDEFINED))
    }

    /// A choice by name (a scenario, a queue order, …): `all[i]` for the name at `names[i]`
    /// (the enum's `ALL` and `NAMES`), read by the core's own rule; its error lists the
    /// names.
    pub(crate) fn choice<T: Copy>(
        &self,
        field: Field,
        names: &'static [&'static str],
        all: &[T],
    ) -> Result<Option<T>, JsValue> {
        Ok(self
            .choice_index(field, names)?
            .and_then(|i| all.get(i).copied()))
    }

    /// The one body of every [`choice`](Self::choice): a copy of the parse and its error
    /// per enum (each a `FromStr`) cost about 450 bytes of wasm apiece.
    #[inline(never)]
    fn choice_index(
        &self,
        field: Field,
        names: &'static [&'static str],
    ) -> Result<Option<usize>, JsValue> {
        match self.text(field)? {
            Some(v) => stampede::lookup(field, names, &v)
                .map(Some)
                .map_err(|e| config_error(self.prefix, &e)),
            None => Ok(None),
        }
    }

    /// A string field (at most [`MAX_TEXT_CHARS`] characters).
    pub(crate) fn string(&self, key: &str) -> Result<Option<String>, JsValue> {
        match self.raw(key)? {
            None => Ok(None),
            Some(v) => text(&v, self.prefix, key).map(Some),
        }
    }

    /// The string for `field`, under its JavaScript name (at most [`MAX_TEXT_CHARS`]
    /// characters).
    pub(crate) fn text(&self, field: Field) -> Result<Option<String>, JsValue> {
        self.string(js_name(field))
    }

    /// A boolean field.
    pub(crate) fn bool(&self, key: &str) -> Result<Option<bool>, JsValue> {
        match self.raw(key)? {
            None => Ok(None),
            Some(v) => v
                .as_bool()
                .map(Some)
                .ok_or_else(|| wrong_type(self.prefix, key, "true or false", &v)),
        }
    }

    /// A seed: a whole number from 0 to 2^53 − 1, or a fresh random one.
    ///
    /// Omitting it gives a random seed, which is what real clients want: a fleet whose
    /// members all share one seed draws the same "random" delays, and the herd is back.
    pub(crate) fn seed(&self) -> Result<u64, JsValue> {
        Ok(match self.checked(Field::Seed)? {
            Some(n) => n as u64,
            None => random_seed(),
        })
    }
}

/// A seed from `Math.random`, 53 bits of it.
pub(crate) fn random_seed() -> u64 {
    (js_sys::Math::random() * (stampede::MAX_EXACT_SEED as f64 + 1.0)) as u64
}

/// Sets `obj[key] = value` on a plain object being built for JavaScript.
pub(crate) fn set(obj: &Object, key: &str, value: impl Into<JsValue>) {
    set_value(obj, key, &value.into());
}

/// The one, non-generic body of [`set`].
#[inline(never)]
fn set_value(obj: &Object, key: &str, value: &JsValue) {
    // Setting a property on a fresh plain object cannot fail.
    let _ = Reflect::set(obj, &JsValue::from_str(key), value);
}
