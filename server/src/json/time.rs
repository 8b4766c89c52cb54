//! Text of `timestamp`, `date`, `time` and `duration` values as Cassandra's JSON shows them:
//! `yyyy-MM-dd HH:mm:ss.SSSZ` in UTC, `yyyy-MM-dd`, `HH:MM:SS.nnnnnnnnn` and `1y2mo3d4h...`.

use crate::functions::text::{format_date, format_time, format_timestamp_with};

/// `yyyy-MM-dd HH:mm:ss.SSSZ` of milliseconds since the epoch, in UTC.
pub(crate) fn timestamp_string(millis: i64) -> String {
    format_timestamp_with(millis, ' ')
}

/// `yyyy-MM-dd` of a `date` (days since the epoch, offset by 2^31).
pub(crate) fn date_string(wire: u32) -> String {
    format_date(wire)
}

/// `HH:MM:SS.nnnnnnnnn` of nanoseconds since midnight.
pub(crate) fn time_string(nanos: i64) -> String {
    format_time(nanos)
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
        assert_eq!(timestamp_string(0), "1970-01-01 00:00:00.000Z");
        assert_eq!(timestamp_string(1388578545123), "2014-01-01 12:15:45.123Z");
        assert_eq!(timestamp_string(-1), "1969-12-31 23:59:59.999Z");
    }

    #[test]
    fn dates_and_times() {
        assert_eq!(date_string(1 << 31), "1970-01-01");
        assert_eq!(date_string((1u32 << 31) - 1), "1969-12-31");
        assert_eq!(time_string(27_307_000_111_222), "07:35:07.000111222");
    }

    #[test]
    fn durations_use_cassandra_units() {
        assert_eq!(duration_string(0, 0, 12_000), "12us");
        assert_eq!(duration_string(0, 14, 0), "14d");
        assert_eq!(duration_string(-1, -2, -3), "-1mo2d3ns");
        assert_eq!(duration_string(0, 0, 3_723_004_005_006), "1h2m3s4ms5us6ns");
    }
}
