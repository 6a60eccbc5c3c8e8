//! The command line's duration parser, `stampede_cli::args::duration` for a flag whose
//! range is 0 ms to a day (passed in, so this file needs only the core crate).
//!
//! Properties: an accepted value is a finite number of milliseconds in
//! `[0, MAX_DURATION_MS]`, written as a plain decimal (an optional sign, digits, at most one
//! point; no exponent, `inf` or `NaN`) with an optional unit `ms`, `s`, `m` or `h`; every such
//! decimal in range reads back as its value times the unit, and one past the range or with
//! anything else in it is refused with one line naming what a duration looks like.

use stampede::MAX_DURATION_MS;

use super::input::Input;

/// The parser under test: text to milliseconds, or a one-line message.
pub trait Parse: Fn(&str) -> Result<f64, String> {}
impl<F: Fn(&str) -> Result<f64, String>> Parse for F {}

const UNITS: [(&str, f64); 5] = [
    ("", 1.0),
    ("ms", 1.0),
    ("s", 1000.0),
    ("m", 60_000.0),
    ("h", 3_600_000.0),
];

/// Checks one fuzzer input against `parse`.
pub fn check(data: &[u8], parse: impl Parse) {
    let mut input = Input::new(data);
    match input.choice(3) {
        0 => round_trip(&mut input, &parse),
        1 => spoiled(&mut input, &parse),
        _ => any_text(&input.rest_str(), &parse),
    }
}

/// A decimal such as `1`, `1.5`, `.25` or `007.`, and the unit it is written with.
fn decimal(input: &mut Input<'_>) -> (String, (&'static str, f64)) {
    let int = match input.choice(3) {
        0 => String::new(),
        1 => (input.u32() % 2000).to_string(),
        _ => input.u64().to_string(),
    };
    let frac = match input.choice(3) {
        0 => String::new(),
        1 => ".".to_owned(),
        _ => format!(".{}", input.u32()),
    };
    let text = if int.is_empty() && frac.len() < 2 {
        format!("0{frac}")
    } else {
        format!("{int}{frac}")
    };
    (text, UNITS[usize::from(input.choice(5))])
}

fn round_trip(input: &mut Input<'_>, parse: &impl Parse) {
    let (number, (unit, scale)) = decimal(input);
    let space = if input.flag() { " " } else { "" };
    let text = format!("{space}{number}{space}{unit}{space}");
    let want = number.parse::<f64>().expect("a decimal") * scale;
    let got = parse(&text);
    if want <= MAX_DURATION_MS {
        assert_eq!(got, Ok(want), "{text:?}");
    } else {
        assert!(got.is_err(), "{text:?} is past a day: {got:?}");
    }
}

/// A valid duration with something foreign put in: refused.
fn spoiled(input: &mut Input<'_>, parse: &impl Parse) {
    let (number, (unit, _)) = decimal(input);
    let junk = [
        "e3", "E-2", "inf", "NaN", "d", "x", "_", "..", "--", "+-", "0x", ",",
    ][usize::from(input.choice(12))];
    let at = usize::from(input.byte()) % (number.len() + 1);
    let text = format!("{}{junk}{}{unit}", &number[..at], &number[at..]);
    let got = parse(&text);
    assert!(got.is_err(), "{text:?} accepted as {got:?}");
}

fn any_text(text: &str, parse: &impl Parse) {
    match parse(text) {
        Ok(ms) => {
            assert!(
                ms.is_finite() && (0.0..=MAX_DURATION_MS).contains(&ms),
                "{text:?}: {ms}"
            );
            let t = text.trim();
            let number = UNITS[1..]
                .iter()
                .find_map(|(u, _)| t.strip_suffix(u))
                .unwrap_or(t)
                .trim();
            assert!(is_decimal(number), "{text:?} accepted as {ms}");
        }
        Err(msg) => assert!(
            !msg.is_empty() && !msg.contains('\n') && msg.contains("duration"),
            "{text:?}: {msg:?}"
        ),
    }
}

/// An optional sign, digits with at most one point, at least one digit.
fn is_decimal(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let mut parts = body.splitn(2, '.');
    let int = parts.next().unwrap_or("");
    let frac = parts.next().unwrap_or("");
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty())
}
