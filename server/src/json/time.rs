//! Text of `timestamp`, `date`, `time` and `duration` values as Cassandra's JSON shows them:
//! `yyyy-MM-dd HH:mm:ss.SSSZ` in UTC, `yyyy-MM-dd`, `HH:MM:SS.nnnnnnnnn` and `1y2mo3d4h...`.

/// (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

fn ymd(days: i64) -> String {
    let (y, m, d) = civil_from_days(days);
    if y < 0 {
        format!("-{:04}-{m:02}-{d:02}", -y)
    } else {
        format!("{y:04}-{m:02}-{d:02}")
    }
}

/// `yyyy-MM-dd HH:mm:ss.SSSZ` of milliseconds since the epoch, in UTC.
pub(crate) fn timestamp_string(millis: i64) -> String {
    let days = millis.div_euclid(86_400_000);
    let ms = millis.rem_euclid(86_400_000);
    let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
    let (m, rest) = (rest / 60_000, rest % 60_000);
    let (s, ms) = (rest / 1000, rest % 1000);
    format!("{} {h:02}:{m:02}:{s:02}.{ms:03}Z", ymd(days))
}

/// `yyyy-MM-dd` of a `date` (days since the epoch, offset by 2^31).
pub(crate) fn date_string(wire: u32) -> String {
    ymd(i64::from(wire) - (1i64 << 31))
}

/// `HH:MM:SS.nnnnnnnnn` of nanoseconds since midnight.
pub(crate) fn time_string(nanos: i64) -> String {
    let (secs, ns) = (
        nanos.div_euclid(1_000_000_000),
        nanos.rem_euclid(1_000_000_000),
    );
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    format!("{h:02}:{m:02}:{s:02}.{ns:09}")
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
