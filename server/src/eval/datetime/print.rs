//! How Cassandra prints dates and times: `timestamp` as `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC
//! (CAST to text; JSON puts a space before the time), `date` as `yyyy-MM-dd`, `time` as
//! `HH:mm:ss.nnnnnnnnn`, and `duration` as `Duration.toString` (`1y2mo3d4h...`).

use super::calendar::civil_from_days;

/// `yyyy-MM-dd`, with at least four year digits, signed as `java.time` signs a year
/// (`SignStyle.EXCEEDS_PAD`): `-` before a negative year, `+` before one past 9999.
fn format_day(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    if y < 0 {
        format!("-{:04}-{m:02}-{d:02}", -y)
    } else if y > 9999 {
        format!("+{y}-{m:02}-{d:02}")
    } else {
        format!("{y:04}-{m:02}-{d:02}")
    }
}

/// A timestamp as `yyyy-MM-ddTHH:mm:ss.SSSZ`.
pub(crate) fn format_timestamp(millis: i64) -> String {
    format_timestamp_with(millis, 'T')
}

/// A timestamp as `yyyy-MM-dd<separator>HH:mm:ss.SSSZ`, in UTC.
pub(crate) fn format_timestamp_with(millis: i64, separator: char) -> String {
    let days = millis.div_euclid(86_400_000);
    let ms = millis.rem_euclid(86_400_000);
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (min, rest) = (rest / 60_000, rest % 60_000);
    let (s, milli) = (rest / 1000, rest % 1000);
    format!(
        "{}{separator}{h:02}:{min:02}:{s:02}.{milli:03}Z",
        format_day(days)
    )
}

/// A `date` wire value (days + 2^31) as `yyyy-MM-dd`.
pub(crate) fn format_date(value: u32) -> String {
    format_day(i64::from(value) - (1i64 << 31))
}

/// A `time` value (nanoseconds of the day) as `HH:mm:ss.nnnnnnnnn`.
pub(crate) fn format_time(nanos: i64) -> String {
    let (h, rest) = (nanos / 3_600_000_000_000, nanos % 3_600_000_000_000);
    let (m, rest) = (rest / 60_000_000_000, rest % 60_000_000_000);
    let (s, n) = (rest / 1_000_000_000, rest % 1_000_000_000);
    format!("{h:02}:{m:02}:{s:02}.{n:09}")
}

/// Cassandra's `Duration.toString`: `-` if negative, then `y mo d h m s ms us ns` units, each
/// only when non-zero.
pub(crate) fn duration_string(months: i32, days: i32, nanoseconds: i64) -> String {
    let mut out = String::new();
    if months < 0 || days < 0 || nanoseconds < 0 {
        out.push('-');
    }
    let months = i64::from(months).unsigned_abs();
    let mut push = |value: u64, unit: &str| {
        if value != 0 {
            out.push_str(&format!("{value}{unit}"));
        }
    };
    push(months / 12, "y");
    push(months % 12, "mo");
    push(i64::from(days).unsigned_abs(), "d");
    let ns = nanoseconds.unsigned_abs();
    const NS_PER: [(u64, &str); 6] = [
        (3_600_000_000_000, "h"),
        (60_000_000_000, "m"),
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "us"),
        (1, "ns"),
    ];
    let mut rest = ns;
    for (unit_ns, unit) in NS_PER.iter() {
        push(rest / unit_ns, unit);
        rest %= unit_ns;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_in_utc_with_millis() {
        assert_eq!(format_timestamp_with(0, ' '), "1970-01-01 00:00:00.000Z");
        assert_eq!(
            format_timestamp_with(1388578545123, ' '),
            "2014-01-01 12:15:45.123Z"
        );
        assert_eq!(format_timestamp_with(-1, ' '), "1969-12-31 23:59:59.999Z");
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(format_date(1 << 31), "1970-01-01");
        assert_eq!(format_date((1u32 << 31) - 1), "1969-12-31");
        assert_eq!(format_date((1u32 << 31) - 719_529), "-0001-12-31");
        assert_eq!(format_date(0), "-5877641-06-23");
        assert_eq!(format_date(u32::MAX), "+5881580-07-11");
        assert_eq!(format_date((1u32 << 31) + 2_932_896), "9999-12-31");
        assert_eq!(format_time(27_307_000_111_222), "07:35:07.000111222");
    }

    #[test]
    fn durations_use_cassandra_units() {
        assert_eq!(duration_string(0, 0, 12_000), "12us");
        assert_eq!(duration_string(0, 14, 0), "14d");
        assert_eq!(duration_string(-1, -2, -3), "-1mo2d3ns");
        assert_eq!(duration_string(0, 0, 3_723_004_005_006), "1h2m3s4ms5us6ns");
    }
}
