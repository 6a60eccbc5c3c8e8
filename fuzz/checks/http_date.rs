//! An independent writer of the three HTTP-date forms (RFC 9110 §5.6.7), the oracle the
//! Retry-After check reads back through the crate (which parses them itself, by `httpdate`'s rules).

const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// The last second HTTP-dates can name: 9999-12-31 23:59:59 UTC.
pub const MAX_SECS: u64 = 253_402_300_799;

/// One of the three legal forms.
#[derive(Debug, Clone, Copy)]
pub enum Form {
    /// `Sun, 06 Nov 1994 08:49:37 GMT`
    Imf,
    /// `Sunday, 06-Nov-94 08:49:37 GMT` (two-digit year: 1970–2069 only)
    Rfc850,
    /// `Sun Nov  6 08:49:37 1994`
    Asctime,
}

/// A date split into fields.
#[derive(Debug, Clone, Copy)]
pub struct Civil {
    pub year: u64,
    /// 1–12.
    pub month: usize,
    /// 1–31.
    pub day: u64,
    /// 0 = Sunday.
    pub weekday: usize,
    pub hour: u64,
    pub min: u64,
    pub sec: u64,
}

/// Seconds since the Unix epoch (at most [`MAX_SECS`]) as a UTC date: Howard Hinnant's
/// `civil_from_days`.
pub fn civil(secs: u64) -> Civil {
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    Civil {
        year,
        month: month as usize,
        day,
        weekday: ((days + 4) % 7) as usize, // 1970-01-01 was a Thursday
        hour: rem / 3600,
        min: rem % 3600 / 60,
        sec: rem % 60,
    }
}

/// `c` written in `form`.
pub fn format(c: Civil, form: Form) -> String {
    let (wd, mon) = (DAYS[c.weekday], MONTHS[c.month - 1]);
    let (h, mi, s) = (c.hour, c.min, c.sec);
    match form {
        Form::Imf => format!(
            "{}, {:02} {mon} {} {h:02}:{mi:02}:{s:02} GMT",
            &wd[..3],
            c.day,
            c.year
        ),
        Form::Rfc850 => format!(
            "{wd}, {:02}-{mon}-{:02} {h:02}:{mi:02}:{s:02} GMT",
            c.day,
            c.year % 100
        ),
        Form::Asctime => format!(
            "{} {mon} {:>2} {h:02}:{mi:02}:{s:02} {}",
            &wd[..3],
            c.day,
            c.year
        ),
    }
}
