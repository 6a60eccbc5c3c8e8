//! The slim entry's settings errors: the core's [`ConfigError`] kept until JavaScript asks
//! for it (`lastError`, `lastErrorNumbers`) and builds the `RangeError` with `js/errors.js`'s
//! `settingsError`, as the full entry does through an import. No message is formatted here.

use std::cell::RefCell;

use stampede::{ConfigError, Got};

use crate::error_parts::parts;
use crate::fields::js_name;

/// A read or a check failed: the error waits in [`LAST`] for JavaScript.
pub(crate) struct Fail;

/// A settings error and the names JavaScript gives its field.
struct Last {
    prefix: &'static str,
    field: &'static str,
    error: ConfigError,
}

thread_local! {
    static LAST: RefCell<Option<Last>> = const { RefCell::new(None) };
}

/// Keeps a core settings error for `lastError`, its field under its JavaScript name.
pub(crate) fn config_error(prefix: &'static str, e: &ConfigError) -> Fail {
    config_error_as(prefix, js_name(e.field), e)
}

/// [`config_error`] under another name for the field (`name` for `Budget.forCallSite`'s
/// call site).
#[inline(never)]
pub(crate) fn config_error_as(prefix: &'static str, field: &'static str, e: &ConfigError) -> Fail {
    let last = Last {
        prefix,
        field,
        error: e.clone(),
    };
    LAST.with(|l| *l.borrow_mut() = Some(last));
    Fail
}

/// The error of a path that cannot be taken (a callback that did not run).
pub(crate) fn unreachable() -> Fail {
    Fail
}

/// The separator of `lastError`'s parts (no name or value of a setting holds it: a text
/// value is the last part, whole).
const SEP: char = '\u{1}';

/// The last settings error's text parts, separated by U+0001: prefix, field, code, unit
/// (`""` for a plain number), the allowed names (separated by U+0002), detail, and the
/// text given (`""` for a number).
pub fn last_error() -> String {
    LAST.with(|l| {
        let mut out = String::new();
        if let Some(last) = &*l.borrow() {
            let p = parts(&last.error);
            for s in [last.prefix, last.field, p.code, p.unit] {
                out.push_str(s);
                out.push(SEP);
            }
            for (i, name) in p.allowed.iter().enumerate() {
                if i > 0 {
                    out.push('\u{2}');
                }
                out.push_str(name);
            }
            out.push(SEP);
            out.push_str(p.detail);
            out.push(SEP);
            if let Got::Text(t) = &last.error.got {
                out.push_str(t);
            }
        }
        out
    })
}

/// The last settings error's numbers: its shape (see `error_parts::Shape`), min, max (NaN
/// where they do not apply), whole (1 or 0), the number given (NaN for a text), and
/// whether a text was given (1 or 0).
pub fn last_error_numbers() -> Vec<f64> {
    LAST.with(|l| match &*l.borrow() {
        Some(last) => {
            let p = parts(&last.error);
            let (got, text) = match last.error.got {
                Got::Number(n) => (n, 0.0),
                Got::Text(_) => (f64::NAN, 1.0),
            };
            vec![
                p.shape as u8 as f64,
                p.min,
                p.max,
                f64::from(u8::from(p.whole)),
                got,
                text,
            ]
        }
        None => Vec::new(),
    })
}
