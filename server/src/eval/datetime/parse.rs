//! The `timestamp`, `date` and `time` string forms Cassandra accepts, with its messages.
//! The time functions (`now()`, `toTimestamp()`...) live in `crate::eval::functions::time`.

use super::calendar::{days_from_civil, days_in_month};

/// Splits off a run of ASCII digits of `min..=max` length and parses it.
fn digits(text: &str, min: usize, max: usize) -> Option<(i64, &str)> {
    let len = text.bytes().take_while(u8::is_ascii_digit).count();
    if len < min || len > max {
        return None;
    }
    Some((text[..len].parse().ok()?, &text[len..]))
}

fn is_raw_number(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `time` from a string (`TimeSerializer.timeStringToLong`): a raw count of nanoseconds since
/// midnight, or `hh:mm:ss[.fffffffff]`.
///
/// # Errors
/// Cassandra's message.
pub(crate) fn time_from_string(source: &str) -> Result<i64, String> {
    if is_raw_number(source) {
        return source
            .parse::<i64>()
            .ok()
            .filter(|n| (0..86_400_000_000_000).contains(n))
            .ok_or_else(|| format!("Unable to make long (for time) from: '{source}'"));
    }
    strict_time(source.trim())
        .ok_or_else(|| format!("(TimeType) Unable to coerce '{source}' to a formatted time (long)"))
}

/// `TimeSerializer.parseTimeStrictly`: hours, minutes and seconds required, up to 9 fraction
/// digits.
fn strict_time(text: &str) -> Option<i64> {
    let mut parts = text.splitn(3, ':');
    let (h, m, rest) = (parts.next()?, parts.next()?, parts.next()?);
    let (s, frac) = match rest.split_once('.') {
        Some((s, frac)) => (s, Some(frac)),
        None => (rest, None),
    };
    let field = |t: &str, max: i64| {
        let t = t.strip_prefix('+').unwrap_or(t);
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse::<i64>().ok())
            .flatten()
            .filter(|v| *v < max)
    };
    let (h, m, s) = (field(h, 24)?, field(m, 60)?, field(s, 60)?);
    let nanos = match frac {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{f:0<9}").parse().ok()?
        }
        Some(_) => return None,
    };
    Some(((h * 60 + m) * 60 + s) * 1_000_000_000 + nanos)
}

/// Earliest and latest `date` (days from the epoch fit an i32), as Cassandra prints them.
const MIN_DATE: &str = "-5877641-06-23T00:00Z";
const MAX_DATE: &str = "+5881580-07-11T00:00Z";

/// `date` from a string (`SimpleDateSerializer.dateStringToDays`): a raw unsigned day count
/// with the epoch at 2^31, or an ISO local date (`yyyy-mm-dd`, strict).
///
/// # Errors
/// Cassandra's message.
pub(crate) fn date_from_string(source: &str) -> Result<u32, String> {
    if is_raw_number(source) {
        return source
            .parse::<i64>()
            .ok()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| format!("Unable to make unsigned int (for date) from: '{source}'"));
    }
    let days = iso_local_date(source)
        .ok_or_else(|| format!("Unable to coerce '{source}' to a formatted date (long)"))?;
    if days < i64::from(i32::MIN) {
        return Err(format!(
            "Input date {source} is less than min supported date {MIN_DATE}"
        ));
    }
    if days > i64::from(i32::MAX) {
        return Err(format!(
            "Input date {source} is greater than max supported date {MAX_DATE}"
        ));
    }
    // In range by the checks above.
    Ok((days + (1i64 << 31)) as u32)
}

/// `DateTimeFormatter.ISO_LOCAL_DATE` with the strict resolver: a 4-digit year (or a signed
/// longer one), 2-digit month and day, a real day of that month. Days since the epoch.
fn iso_local_date(text: &str) -> Option<i64> {
    let (year, rest) = iso_year(text)?;
    let (month, rest) = digits(rest.strip_prefix('-')?, 2, 2)?;
    let (day, rest) = digits(rest.strip_prefix('-')?, 2, 2)?;
    let (month, day) = (u32::try_from(month).ok()?, u32::try_from(day).ok()?);
    if !rest.is_empty() || !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month)
    {
        return None;
    }
    Some(days_from_civil(year, month, day))
}

/// Highest year `java.time` accepts (`Year.MAX_VALUE`).
const MAX_YEAR: i64 = 999_999_999;

/// The year of `ISO_LOCAL_DATE` (`appendValue(YEAR, 4, 10, SignStyle.EXCEEDS_PAD)`, parsed
/// strictly): unsigned, exactly 4 digits; `-` and 4 to 10 digits, not zero; `+` and 5 to 10
/// digits. Within `java.time`'s year range.
fn iso_year(text: &str) -> Option<(i64, &str)> {
    let (year, rest) = match text.as_bytes().first()? {
        b'+' => digits(&text[1..], 5, 10)?,
        b'-' => {
            let (year, rest) = digits(&text[1..], 4, 10)?;
            (year != 0).then_some((-year, rest))?
        }
        _ => digits(text, 4, 4)?,
    };
    (year.abs() <= MAX_YEAR).then_some((year, rest))
}

/// `timestamp` from a string (`TimestampSerializer.dateStringToTimestamp`): `now`, a raw count
/// of milliseconds, or a date with an optional time and zone.
///
/// # Errors
/// Cassandra's message.
pub(crate) fn timestamp_from_string(source: &str) -> Result<i64, String> {
    if source.eq_ignore_ascii_case("now") {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        return Ok(now);
    }
    if is_raw_number(source) {
        return source
            .parse()
            .map_err(|_| format!("Unable to make long (for date) from: '{source}'"));
    }
    date_time(source.trim()).ok_or_else(|| format!("Unable to parse a date/time from '{source}'"))
}

/// The formats of Cassandra 5.0's `TimestampSerializer`: `y-M-d` then optionally `T` or a space
/// and `H:m[:s][.fraction]`, then optionally a zone (`Z`, `+HH`, `+HHmm`, `+HH:mm`, `UTC`,
/// `GMT`, with or without a space before it). Without a zone, UTC. Extra spaces before the
/// zone and fraction digits past milliseconds are accepted (the latter truncated, as Java).
fn date_time(text: &str) -> Option<i64> {
    let (year, rest) = digits(text, 1, 9)?;
    let (month, rest) = digits(rest.strip_prefix('-')?, 1, 2)?;
    let (day, mut rest) = digits(rest.strip_prefix('-')?, 1, 2)?;
    let (month, day) = (u32::try_from(month).ok()?, u32::try_from(day).ok()?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    // The smart resolver clamps a day past the month's end to its last day.
    let day = day.min(days_in_month(year, month));
    let mut millis = days_from_civil(year, month, day) * 86_400_000;
    if let Some(time) = time_part(rest) {
        let (h, r) = digits(time, 1, 2)?;
        let (m, r) = digits(r.strip_prefix(':')?, 1, 2)?;
        let (s, r) = match r.strip_prefix(':') {
            Some(r) => digits(r, 1, 2)?,
            None => (0, r),
        };
        let (frac_ms, r) = match r.strip_prefix('.') {
            Some(r) => {
                let len = r.bytes().take_while(u8::is_ascii_digit).count();
                if len > 9 {
                    return None;
                }
                let ms = format!("{:0<3}", &r[..len.min(3)]).parse::<i64>().ok()?;
                (ms, &r[len..])
            }
            None => (0, r),
        };
        if h > 23 || m > 59 || s > 59 {
            return None;
        }
        millis += ((h * 60 + m) * 60 + s) * 1000 + frac_ms;
        rest = r;
    }
    Some(millis - zone_offset_minutes(rest.trim_start())? * 60_000)
}

/// The time after the date: `T` or a space then a digit.
fn time_part(rest: &str) -> Option<&str> {
    let r = rest.strip_prefix(['T', ' '])?;
    r.bytes().next().filter(u8::is_ascii_digit).map(|_| r)
}

/// The offset of a zone suffix in minutes: empty (UTC), `Z`, `UTC`, `GMT`, `UT`, or
/// `±HH`, `±HHmm`, `±HH:mm`.
fn zone_offset_minutes(zone: &str) -> Option<i64> {
    if zone.is_empty()
        || ["z", "utc", "gmt", "ut"]
            .iter()
            .any(|n| zone.eq_ignore_ascii_case(n))
    {
        return Some(0);
    }
    let sign = match zone.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let body = &zone[1..];
    let (hh, mm) = match body.len() {
        2 => (body, "00"),
        4 => (&body[..2], &body[2..]),
        5 if body.as_bytes().get(2) == Some(&b':') => (&body[..2], &body[3..]),
        _ => return None,
    };
    let (hh, _) = digits(hh, 2, 2)?;
    let (mm, _) = digits(mm, 2, 2)?;
    (hh <= 18 && mm <= 59).then_some(sign * (hh * 60 + mm))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_time(text: &str) -> Option<i64> {
        time_from_string(text).ok()
    }

    fn parse_date(text: &str) -> Option<u32> {
        date_from_string(text).ok()
    }

    fn parse_timestamp(text: &str) -> Option<i64> {
        timestamp_from_string(text).ok()
    }

    #[test]
    fn timestamps_parse_like_cassandra() {
        assert_eq!(parse_timestamp("1970-01-01"), Some(0));
        for zone in [
            "+0000", " UTC", " GMT", "z", "Z", "  Z ", "+00:00", "+00", " +0000",
        ] {
            assert_eq!(
                parse_timestamp(&format!("2011-02-03{zone}")),
                Some(1_296_691_200_000),
                "{zone}"
            );
        }
        assert_eq!(
            parse_timestamp("2011-02-03T05:06:17.123+0000"),
            Some(1_296_709_577_123)
        );
        assert_eq!(parse_timestamp("2011-2-3 4:5"), Some(1_296_705_900_000));
        assert_eq!(
            parse_timestamp("2011-02-03 04:05:12.345678+0000"),
            Some(1_296_705_912_345)
        );
        assert_eq!(parse_timestamp("-5"), Some(-5));
        assert_eq!(
            timestamp_from_string("99999999999999999999").unwrap_err(),
            "Unable to make long (for date) from: '99999999999999999999'"
        );
        assert_eq!(
            timestamp_from_string("an invalid timestamp").unwrap_err(),
            "Unable to parse a date/time from 'an invalid timestamp'"
        );
        assert_eq!(
            parse_timestamp("2011-02-03 04:05+0000"),
            Some(1_296_705_900_000)
        );
        assert_eq!(
            parse_timestamp("2011-02-03T04:05:00Z"),
            Some(1_296_705_900_000)
        );
        assert_eq!(
            parse_timestamp("2011-02-03 04:05:00.123+01:00"),
            Some(1_296_702_300_123)
        );
        assert_eq!(parse_timestamp("1296705900000"), Some(1_296_705_900_000));
        assert_eq!(parse_timestamp("yesterday"), None);
    }

    #[test]
    fn dates_and_times_parse() {
        assert_eq!(parse_date("1970-01-01"), Some(1 << 31));
        assert_eq!(parse_date("123"), Some(123));
        assert_eq!(parse_date("2012-02-29"), Some((1 << 31) + 15_399));
        assert_eq!(
            date_from_string("-123").unwrap_err(),
            "Unable to make unsigned int (for date) from: '-123'"
        );
        assert_eq!(
            date_from_string("2011-02-30").unwrap_err(),
            "Unable to coerce '2011-02-30' to a formatted date (long)"
        );
        assert_eq!(
            date_from_string("+5881580-07-12").unwrap_err(),
            "Input date +5881580-07-12 is greater than max supported date +5881580-07-11T00:00Z"
        );
        assert_eq!(parse_date("+5881580-07-11"), Some(u32::MAX));
        assert_eq!(parse_date("-5877641-06-23"), Some(0));
        assert_eq!(
            date_from_string("-5877641-06-22").unwrap_err(),
            "Input date -5877641-06-22 is less than min supported date -5877641-06-23T00:00Z"
        );
        assert_eq!(parse_date("-0001-12-31"), Some((1 << 31) - 719_529));
        assert_eq!(parse_date("-9999-01-01"), Some((1 << 31) - 4_371_587));
        assert_eq!(parse_date("-262144-12-31"), Some((1 << 31) - 96_465_293));
        assert_eq!(parse_date("+10000-01-01"), Some((1 << 31) + 2_932_897));
        // ISO_LOCAL_DATE's strict year: no minus zero, `+` only past 4 digits, 4 digits
        // unsigned, at most 10 digits.
        for refused in ["-0000-01-01", "+2020-01-01", "10000-01-01", "-001-01-01"] {
            assert_eq!(
                date_from_string(refused).unwrap_err(),
                format!("Unable to coerce '{refused}' to a formatted date (long)")
            );
        }
        assert_eq!(
            date_from_string("-12345678901-01-01").unwrap_err(),
            "Unable to coerce '-12345678901-01-01' to a formatted date (long)"
        );
        assert_eq!(parse_time("01:02:03.5"), Some(3_723_500_000_000));
        assert_eq!(parse_time("123"), Some(123));
        assert_eq!(parse_time("25:00:00"), None);
        assert_eq!(
            time_from_string("01:02").unwrap_err(),
            "(TimeType) Unable to coerce '01:02' to a formatted time (long)"
        );
        assert_eq!(
            time_from_string("86400000000000").unwrap_err(),
            "Unable to make long (for time) from: '86400000000000'"
        );
    }
}
