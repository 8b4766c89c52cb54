//! Calendar arithmetic on the proleptic Gregorian calendar, by day counts since 1970-01-01
//! (Howard Hinnant's `days_from_civil` and `civil_from_days`).

/// Days since 1970-01-01 of a proleptic Gregorian date.
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Year, month, day of a day count since 1970-01-01.
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Days in `month` of `year`.
pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `days` moved by `months` on the calendar, the day of month clamped to the new month's
/// length (Cassandra's `TemporalOperationFunction`, as `LocalDate.plusMonths`).
pub(crate) fn add_months(days: i64, months: i64) -> i64 {
    if months == 0 {
        return days;
    }
    let (y, m, d) = civil_from_days(days);
    let total = y * 12 + i64::from(m) - 1 + months;
    let (year, month) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
    days_from_civil(year, month, d.min(days_in_month(year, month)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_counts_round_trip_through_dates() {
        for days in [-719_468, -1, 0, 1, 11_016, 16_576, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days, "{days}");
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn month_lengths_follow_leap_years() {
        assert_eq!(days_in_month(2012, 2), 29);
        assert_eq!(days_in_month(1900, 2), 28);
        assert_eq!(days_in_month(2000, 2), 29);
        assert_eq!(days_in_month(2015, 4), 30);
        assert_eq!(days_in_month(2015, 12), 31);
    }

    #[test]
    fn months_clamp_to_the_end_of_the_month() {
        let jan31 = days_from_civil(2015, 1, 31);
        assert_eq!(add_months(jan31, 1), days_from_civil(2015, 2, 28));
        assert_eq!(add_months(jan31, -2), days_from_civil(2014, 11, 30));
        assert_eq!(add_months(jan31, 13), days_from_civil(2016, 2, 29));
    }
}
