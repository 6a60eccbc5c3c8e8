//! `StatusSet`: `parse` against its grammar, and the bitset operations against a plain
//! model.
//!
//! The grammar `parse` documents: items separated by commas (whitespace around items and
//! around a range's `-` ignored; a blank spec is the empty set, an empty item in a list an
//! error), each a status (three ASCII digits,
//! 100–599), a class `Nxx` (N from 1 to 5, `xx` in either case) or an inclusive range
//! `lo-hi` of statuses with `lo ≤ hi`. The set accepted must be exactly the oracle's, and
//! anything else an error. `with`, `without`, `with_range` (any `u16`s) and `contains`,
//! `iter` must agree with a `[bool; 600]` model.

use stampede::classify::StatusSet;

use super::input::Input;

/// Checks one fuzzer input.
pub fn check(data: &[u8]) {
    let mut input = Input::new(data);
    if input.flag() {
        operations(&mut input);
    } else {
        parse(&input.rest_str());
    }
}

fn parse(spec: &str) {
    let got = StatusSet::parse(spec);
    match (oracle(spec), got) {
        (Some(want), Ok(set)) => agree(&set, &want, spec),
        (None, Err(e)) => {
            let msg = e.to_string();
            assert!(msg.starts_with("retry_on:"), "{spec:?}: {msg}");
        }
        (want, got) => panic!(
            "{spec:?}: the grammar says {}, parse says {got:?}",
            if want.is_some() { "valid" } else { "invalid" }
        ),
    }
}

/// The set `spec` denotes, or `None` if it is not in the grammar.
fn oracle(spec: &str) -> Option<[bool; 600]> {
    let mut set = [false; 600];
    if spec.trim().is_empty() {
        return Some(set);
    }
    for item in spec.split(',').map(str::trim) {
        if item.is_empty() {
            return None;
        }
        let (lo, hi) = if let Some(class) = item
            .strip_suffix("xx")
            .or_else(|| item.strip_suffix("XX"))
            .or_else(|| item.strip_suffix("xX"))
            .or_else(|| item.strip_suffix("Xx"))
        {
            match class.as_bytes() {
                [d @ b'1'..=b'5'] => {
                    let lo = u16::from(d - b'0') * 100;
                    (lo, lo + 99)
                }
                _ => return None,
            }
        } else if let Some((lo, hi)) = item.split_once('-') {
            let (lo, hi) = (status(lo)?, status(hi)?);
            if lo > hi {
                return None;
            }
            (lo, hi)
        } else {
            let c = status(item)?;
            (c, c)
        };
        for c in lo..=hi {
            set[usize::from(c)] = true;
        }
    }
    Some(set)
}

fn status(s: &str) -> Option<u16> {
    let s = s.trim();
    if s.len() != 3 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok().filter(|c| (100..=599).contains(c))
}

fn agree(set: &StatusSet, model: &[bool; 600], context: &str) {
    // Past 599 `contains` is false whatever the bits; 0..1024 and the top cover every branch.
    for code in (0..1024).chain([u16::MAX - 1, u16::MAX]) {
        let want = model.get(usize::from(code)).copied().unwrap_or(false);
        assert_eq!(set.contains(code), want, "{context:?}: contains({code})");
    }
    let listed: Vec<u16> = set.iter().collect();
    let modelled: Vec<u16> = (0..600u16).filter(|&c| model[usize::from(c)]).collect();
    assert_eq!(listed, modelled, "{context:?}: iter");
}

fn operations(input: &mut Input<'_>) {
    let mut set = StatusSet::empty();
    let mut model = [false; 600];
    let in_range = |c: u16| (100..=599).contains(&c);
    for _ in 0..input.choice(8) {
        match input.choice(3) {
            0 => {
                let c = input.u16();
                set = set.with(c);
                if in_range(c) {
                    model[usize::from(c)] = true;
                }
            }
            1 => {
                let c = input.u16();
                set = set.without(c);
                if in_range(c) {
                    model[usize::from(c)] = false;
                }
            }
            _ => {
                let (lo, hi) = (input.u16(), input.u16());
                set = set.with_range(lo, hi);
                for c in lo.max(100)..=hi.min(599) {
                    model[usize::from(c)] = true;
                }
            }
        }
    }
    agree(&set, &model, "operations");
}
