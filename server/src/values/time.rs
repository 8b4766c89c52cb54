//! Date and time literals: the `timestamp`, `date` and `time` string forms Cassandra accepts.
//! The time functions (`now()`, `toTimestamp()`...) live in `crate::functions::time`.

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn parse_ymd(text: &str) -> Option<(i64, u32, u32)> {
    let mut parts = text.splitn(3, '-');
    let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
    let (y, m, d): (i64, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    Some((y, m, d))
}

/// Parses `HH:MM[:SS[.fraction]]` into nanoseconds since midnight.
pub fn parse_time(text: &str) -> Option<i64> {
    let text = text.trim();
    let (hms, frac) = match text.split_once('.') {
        Some((a, b)) => (a, b),
        None => (text, ""),
    };
    let mut parts = hms.split(':');
    let h: i64 = parts.next()?.parse().ok()?;
    let m: i64 = parts.next()?.parse().ok()?;
    let s: i64 = match parts.next() {
        Some(s) => s.parse().ok()?,
        None => 0,
    };
    if parts.next().is_some()
        || !(0..24).contains(&h)
        || !(0..60).contains(&m)
        || !(0..60).contains(&s)
    {
        return None;
    }
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let nanos: i64 = if frac.is_empty() {
        0
    } else {
        format!("{frac:0<9}").parse().ok()?
    };
    Some(((h * 60 + m) * 60 + s) * 1_000_000_000 + nanos)
}

/// Parses `yyyy-mm-dd` into the wire form of `date` (days since epoch + 2^31).
pub fn parse_date(text: &str) -> Option<u32> {
    let (y, m, d) = parse_ymd(text.trim())?;
    let days = days_from_civil(y, m, d) + (1i64 << 31);
    u32::try_from(days).ok()
}

/// Splits a trailing zone (`Z`, `+HH`, `+HHMM`, `+HH:MM`, `-...`, ` UTC`) off a timestamp;
/// returns the rest and the offset in minutes.
fn split_zone(text: &str) -> Option<(&str, i64)> {
    if let Some(rest) = text.strip_suffix('Z').or_else(|| text.strip_suffix(" UTC")) {
        return Some((rest.trim_end(), 0));
    }
    // A sign after the date part (position > 10) starts a zone.
    let idx = text
        .char_indices()
        .skip(10)
        .find(|(_, c)| *c == '+' || *c == '-')
        .map(|(i, _)| i);
    let Some(idx) = idx else {
        return Some((text, 0));
    };
    let (rest, zone) = text.split_at(idx);
    let sign = if zone.starts_with('-') { -1 } else { 1 };
    let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
    let (hh, mm) = match digits.len() {
        2 => (digits.parse::<i64>().ok()?, 0),
        4 => (
            digits[..2].parse::<i64>().ok()?,
            digits[2..].parse::<i64>().ok()?,
        ),
        _ => return None,
    };
    Some((rest.trim_end(), sign * (hh * 60 + mm)))
}

/// Parses the timestamp string forms Cassandra accepts into milliseconds since the epoch.
/// A string of digits is taken as milliseconds. Without a zone, UTC is assumed.
pub fn parse_timestamp(text: &str) -> Option<i64> {
    let text = text.trim();
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
        || text.starts_with('-') && text[1..].bytes().all(|b| b.is_ascii_digit())
    {
        return text.parse().ok();
    }
    let (rest, offset_minutes) = split_zone(text)?;
    let (date, time) = match rest.find([' ', 'T']) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let (y, m, d) = parse_ymd(date)?;
    let nanos = match time {
        Some(t) => parse_time(t)?,
        None => 0,
    };
    let days = days_from_civil(y, m, d);
    Some(days * 86_400_000 + nanos / 1_000_000 - offset_minutes * 60_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_parse_like_cassandra() {
        assert_eq!(parse_timestamp("1970-01-01"), Some(0));
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
        assert_eq!(parse_time("01:02:03.5"), Some(3_723_500_000_000));
        assert_eq!(parse_time("25:00:00"), None);
    }
}
