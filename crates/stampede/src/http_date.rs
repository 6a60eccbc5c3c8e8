//! HTTP-dates (RFC 9110 §5.6.7) to milliseconds since the Unix epoch, for `Retry-After`.
//!
//! The three forms a recipient must accept: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`,
//! the obsolete RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime
//! `Sun Nov  6 08:49:37 1994`. The rules are the `httpdate` crate's (hyper's, 1.0), which
//! this replaces so that the wasm carries no `SystemTime` (and its panics' formatting):
//! the same fixed layouts, ASCII only, years 1970 to 9999, RFC 850's two-digit years 70–99
//! as 19xx and 00–69 as 20xx, and a date that does not exist (31 February) or whose weekday
//! is wrong refused. The tests hold it to `httpdate` itself.

/// Month names, January first.
const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];
/// Weekday names, Monday first (ISO 8601: Monday is 1).
const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

/// A date and time as written: weekday (1 Monday … 7 Sunday), year, month (1–12), day,
/// hour, minute, second.
type Fields = (u32, u32, u32, u32, u32, u32, u32);

/// The milliseconds since the Unix epoch of an HTTP-date, or `None` if `s` is not one.
pub(crate) fn parse_http_date(s: &str) -> Option<f64> {
    if !s.is_ascii() {
        return None;
    }
    let b = s.trim().as_bytes();
    let (wday, year, mon, day, hour, min, sec) = imf_fixdate(b)
        .or_else(|| rfc850(b))
        .or_else(|| asctime(b))?;
    let in_range = (1970..=9999).contains(&year)
        && (1..=12).contains(&mon)
        && day >= 1
        && day <= month_days(year, mon)
        && hour < 24
        && min < 60
        && sec < 60;
    if !in_range {
        return None;
    }
    let days = days_from_epoch(year, mon, day);
    // 1970-01-01 was a Thursday (4).
    if (days + 3) % 7 + 1 != u64::from(wday) {
        return None;
    }
    let secs = days * 86_400 + u64::from(hour * 3600 + min * 60 + sec);
    Some(secs as f64 * 1000.0)
}

/// Days from 1970-01-01 to a valid date from 1970 on (Howard Hinnant's `days_from_civil`).
fn days_from_epoch(year: u32, mon: u32, day: u32) -> u64 {
    let y = u64::from(if mon <= 2 { year - 1 } else { year });
    let (era, yoe) = (y / 400, y % 400);
    // Months from March, so that February, with its leap day, comes last.
    let mp = u64::from((mon + 9) % 12);
    let doy = (153 * mp + 2) / 5 + u64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn month_days(year: u32, mon: u32) -> u32 {
    match mon {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Two (or four) ASCII digits.
fn num(s: &[u8]) -> Option<u32> {
    s.iter().try_fold(0, |n, &b| {
        b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0'))
    })
}

fn month(name: &[u8]) -> Option<u32> {
    MONTHS
        .iter()
        .position(|m| &m[..] == name)
        .map(|i| i as u32 + 1)
}

/// A weekday by its first three letters.
fn weekday(name: &[u8]) -> Option<u32> {
    DAYS.iter()
        .position(|d| &d.as_bytes()[..3] == name)
        .map(|i| i as u32 + 1)
}

/// `hh:mm:ss` at `t`.
fn time(s: &[u8], t: usize) -> Option<(u32, u32, u32)> {
    let t = s.get(t..t + 8)?;
    if t[2] != b':' || t[5] != b':' {
        return None;
    }
    Some((num(&t[0..2])?, num(&t[3..5])?, num(&t[6..8])?))
}

/// `Sun, 06 Nov 1994 08:49:37 GMT`.
fn imf_fixdate(s: &[u8]) -> Option<Fields> {
    if s.len() != 29 || &s[3..5] != b", " || s[7] != b' ' || s[11] != b' ' || s[16] != b' ' {
        return None;
    }
    if &s[25..] != b" GMT" {
        return None;
    }
    let (h, m, sec) = time(s, 17)?;
    let date = (num(&s[12..16])?, month(&s[8..11])?, num(&s[5..7])?);
    Some((weekday(&s[..3])?, date.0, date.1, date.2, h, m, sec))
}

/// `Sunday, 06-Nov-94 08:49:37 GMT` (like `httpdate`, the space before the time is not
/// checked).
fn rfc850(s: &[u8]) -> Option<Fields> {
    let (i, rest) = DAYS.iter().enumerate().find_map(|(i, d)| {
        let rest = s.strip_prefix(d.as_bytes())?.strip_prefix(b", ")?;
        Some((i as u32 + 1, rest))
    })?;
    if rest.len() != 22 || rest[2] != b'-' || rest[6] != b'-' || &rest[18..] != b" GMT" {
        return None;
    }
    let (h, m, sec) = time(rest, 10)?;
    let yy = num(&rest[7..9])?;
    let year = if yy < 70 { 2000 + yy } else { 1900 + yy };
    Some((i, year, month(&rest[3..6])?, num(&rest[0..2])?, h, m, sec))
}

/// `Sun Nov  6 08:49:37 1994` (the day one digit after a space, or two).
fn asctime(s: &[u8]) -> Option<Fields> {
    if s.len() != 24 || s[3] != b' ' || s[7] != b' ' || s[10] != b' ' || s[19] != b' ' {
        return None;
    }
    let day = match s[8] {
        b' ' => num(&s[9..10])?,
        _ => num(&s[8..10])?,
    };
    let (h, m, sec) = time(s, 11)?;
    Some((
        weekday(&s[..3])?,
        num(&s[20..24])?,
        month(&s[4..7])?,
        day,
        h,
        m,
        sec,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};
    use std::time::{Duration, UNIX_EPOCH};

    /// `httpdate`'s reading of `s`, in ms since the epoch.
    fn theirs(s: &str) -> Option<f64> {
        let t = httpdate::parse_http_date(s).ok()?;
        Some(t.duration_since(UNIX_EPOCH).ok()?.as_secs() as f64 * 1000.0)
    }

    #[test]
    fn rfc9110_examples() {
        let ms = 784_111_777_000.0;
        assert_eq!(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(ms));
        assert_eq!(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), Some(ms));
        assert_eq!(parse_http_date("Sun Nov  6 08:49:37 1994"), Some(ms));
        assert_eq!(parse_http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0.0));
    }

    /// Every date httpdate writes (random instants from 1970 to 9999, seeded), in all three
    /// forms, reads back as the same instant.
    #[test]
    fn agrees_with_httpdate_on_every_form() {
        let mut rng = crate::SeededRng::seed_from_u64(14);
        for _ in 0..20_000 {
            let secs = rng.random_range(0..253_402_300_800u64);
            let imf = httpdate::fmt_http_date(UNIX_EPOCH + Duration::from_secs(secs));
            assert_eq!(parse_http_date(&imf), Some(secs as f64 * 1000.0), "{imf}");
            assert_eq!(parse_http_date(&imf), theirs(&imf), "{imf}");
            // The same date as asctime and (within 1970-2069) RFC 850.
            let (wd, rest) = imf.split_at(3);
            let (d, mon, y, t) = (&rest[2..4], &rest[5..8], &rest[9..13], &rest[14..22]);
            let day = d.trim_start_matches('0');
            let asc = format!("{wd} {mon} {day:>2} {t} {y}");
            assert_eq!(parse_http_date(&asc), theirs(&asc), "{asc}");
            assert!(parse_http_date(&asc).is_some(), "{asc}");
            let full = DAYS[weekday(wd.as_bytes()).unwrap() as usize - 1];
            let r850 = format!("{full}, {d}-{mon}-{} {t} GMT", &y[2..]);
            assert_eq!(parse_http_date(&r850), theirs(&r850), "{r850}");
        }
    }

    /// Strings one edit away from a valid date (a byte changed, removed or doubled)
    /// are refused or accepted exactly as httpdate does.
    #[test]
    fn agrees_with_httpdate_near_valid_dates() {
        let mut rng = crate::SeededRng::seed_from_u64(9110);
        let bytes = b" ,:-0123456789GMTSunNovFebMonday";
        for base in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "Tue, 29 Feb 2000 23:59:59 GMT",
            "Wed, 28 Feb 2100 00:00:00 GMT",
        ] {
            for _ in 0..3000 {
                let mut s = base.as_bytes().to_vec();
                let at = rng.random_range(0..s.len());
                match rng.random_range(0..3) {
                    0 => s[at] = bytes[rng.random_range(0..bytes.len())],
                    1 => {
                        s.remove(at);
                    }
                    _ => s.insert(at, s[at]),
                }
                let s = String::from_utf8(s).unwrap();
                assert_eq!(parse_http_date(&s), theirs(&s), "{s:?}");
            }
        }
        for bad in [
            "Sun, 31 Feb 1994 08:49:37 GMT",
            "Mon, 06 Nov 1994 08:49:37 GMT",
            "Sun, 06 Nov 1994 24:00:00 GMT",
            "Wed, 01 Jan 1969 00:00:00 GMT",
            "Sun, 06 Nov 1994 08:49:37 GMT\u{e9}",
            "\u{a0}Sun, 06 Nov 1994 08:49:37 GMT",
            "",
        ] {
            assert_eq!(parse_http_date(bad), None, "{bad:?}");
            assert_eq!(theirs(bad), None, "{bad:?}");
        }
    }
}
