//! `timestamp ± duration` and `date ± duration` (Cassandra's `TemporalOperationFunction`):
//! months are added on the calendar (the day clamped to the month's length), then days, then
//! the sub-day part; a date only takes whole-day durations.

use bytes::Bytes;
use cql::types::{codec, ColumnType, CqlValue};

use super::operation::ArithKind;
use super::text::civil_from_days;
use super::{Body, NativeFunction};
use crate::error::{CqlError, CqlResult};
use crate::values::days_from_civil;

const DAY_MILLIS: i64 = 86_400_000;

/// `_add` and `_substract` for timestamps and dates.
pub(super) fn all() -> Vec<NativeFunction> {
    let mut out = Vec::new();
    for ty in [ColumnType::Timestamp, ColumnType::Date] {
        for kind in [ArithKind::Add, ArithKind::Sub] {
            out.push(NativeFunction::new(
                kind.function_name(),
                vec![ty.clone(), ColumnType::Duration],
                ty.clone(),
                Body::Temporal(kind),
            ));
        }
    }
    out
}

/// A duration's parts, negated for a subtraction.
struct Shift {
    months: i64,
    days: i64,
    nanos: i64,
}

fn days_in_month(year: i64, month: u32) -> u32 {
    let next = if month == 12 {
        days_from_civil(year + 1, 1, 1)
    } else {
        days_from_civil(year, month + 1, 1)
    };
    (next - days_from_civil(year, month, 1)) as u32
}

/// `days` (since the epoch) moved by `months` on the calendar, the day of month clamped.
fn add_months(days: i64, months: i64) -> i64 {
    if months == 0 {
        return days;
    }
    let (y, m, d) = civil_from_days(days);
    let total = y * 12 + i64::from(m) - 1 + months;
    let (year, month) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
    days_from_civil(year, month, d.min(days_in_month(year, month)))
}

/// Runs `temporal ± duration`; a null or empty operand gives null. The caller wraps errors
/// as the operation's failure.
pub(super) fn execute(
    function: &NativeFunction,
    kind: ArithKind,
    args: &[Option<Bytes>],
) -> CqlResult<Option<Bytes>> {
    let (Some(Some(value)), Some(Some(duration))) = (args.first(), args.get(1)) else {
        return Ok(None);
    };
    if value.is_empty() || duration.is_empty() {
        return Ok(None);
    }
    let invalid = |e: cql::types::codec::ValueError| CqlError::invalid(e.to_string());
    let CqlValue::Duration {
        months,
        days,
        nanoseconds,
    } = codec::deserialize_value(&ColumnType::Duration, duration).map_err(invalid)?
    else {
        return Ok(None);
    };
    let sign = if kind == ArithKind::Sub { -1 } else { 1 };
    let shift = Shift {
        months: sign * i64::from(months),
        days: sign * i64::from(days),
        nanos: sign * nanoseconds,
    };
    match codec::deserialize_value(&function.ret, value).map_err(invalid)? {
        CqlValue::Timestamp(millis) => {
            if nanoseconds % 1_000_000 != 0 {
                return Err(CqlError::invalid(format!(
                    "The duration must have a millisecond precision. Was: {}",
                    format_duration(months, days, nanoseconds)
                )));
            }
            let day = millis.div_euclid(DAY_MILLIS);
            let moved = add_months(day, shift.months) + shift.days;
            let millis =
                moved * DAY_MILLIS + millis.rem_euclid(DAY_MILLIS) + shift.nanos / 1_000_000;
            Ok(Some(Bytes::copy_from_slice(&millis.to_be_bytes())))
        }
        CqlValue::Date(value) => {
            if nanoseconds != 0 {
                return Err(CqlError::invalid(format!(
                    "The duration must have a day precision. Was: {}",
                    format_duration(months, days, nanoseconds)
                )));
            }
            let day = i64::from(value) - (1i64 << 31);
            let moved = add_months(day, shift.months) + shift.days + (1i64 << 31);
            let wire = u32::try_from(moved)
                .map_err(|_| CqlError::invalid("The resulting date is out of range"))?;
            Ok(Some(Bytes::copy_from_slice(&wire.to_be_bytes())))
        }
        _ => Ok(None),
    }
}

/// Cassandra's `Duration.toString()`: `-1y2mo3d4h5m6s7ms8us9ns`, zero units left out.
fn format_duration(months: i32, days: i32, nanos: i64) -> String {
    let negative = months < 0 || days < 0 || nanos < 0;
    let mut out = String::from(if negative { "-" } else { "" });
    let mut unit = |value: u64, suffix: &str| {
        if value != 0 {
            out.push_str(&format!("{value}{suffix}"));
        }
    };
    let months = u64::from(months.unsigned_abs());
    unit(months / 12, "y");
    unit(months % 12, "mo");
    unit(u64::from(days.unsigned_abs()), "d");
    let mut rest = nanos.unsigned_abs();
    for (size, suffix) in [
        (3_600_000_000_000u64, "h"),
        (60_000_000_000, "m"),
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "us"),
        (1, "ns"),
    ] {
        unit(rest / size, suffix);
        rest %= size;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_clamp_to_the_end_of_the_month() {
        let jan31 = days_from_civil(2015, 1, 31);
        assert_eq!(add_months(jan31, 1), days_from_civil(2015, 2, 28));
        assert_eq!(add_months(jan31, -2), days_from_civil(2014, 11, 30));
        assert_eq!(add_months(jan31, 13), days_from_civil(2016, 2, 29));
    }

    #[test]
    fn timestamps_and_dates_move_by_durations() {
        let function = |ty: ColumnType, kind: ArithKind| {
            all()
                .into_iter()
                .find(|f| f.args[0] == ty && f.body == Body::Temporal(kind))
                .expect("declared")
        };
        let mut duration = Vec::new();
        codec::serialize_value(
            &CqlValue::Duration {
                months: 1,
                days: 1,
                nanoseconds: 2_000_000,
            },
            &mut duration,
        );
        let duration = Bytes::from(duration);
        let ts = Bytes::copy_from_slice(&0i64.to_be_bytes());
        let f = function(ColumnType::Timestamp, ArithKind::Add);
        let out = execute(&f, ArithKind::Add, &[Some(ts), Some(duration.clone())]).expect("adds");
        let expected = (31 + 1) * DAY_MILLIS + 2;
        assert_eq!(out.as_deref(), Some(&expected.to_be_bytes()[..]));
        let mut fine = Vec::new();
        codec::serialize_value(
            &CqlValue::Duration {
                months: 0,
                days: 0,
                nanoseconds: 10_000,
            },
            &mut fine,
        );
        let ts = Bytes::copy_from_slice(&0i64.to_be_bytes());
        let f = function(ColumnType::Timestamp, ArithKind::Sub);
        let err = execute(&f, ArithKind::Sub, &[Some(ts), Some(Bytes::from(fine))])
            .expect_err("microseconds");
        assert_eq!(
            err.to_string(),
            "The duration must have a millisecond precision. Was: 10us"
        );
        let date = Bytes::copy_from_slice(&(1u32 << 31).to_be_bytes());
        let f = function(ColumnType::Date, ArithKind::Sub);
        let err = execute(&f, ArithKind::Sub, &[Some(date), Some(duration)]).expect_err("ms");
        assert_eq!(
            err.to_string(),
            "The duration must have a day precision. Was: 1mo1d2ms"
        );
    }
}
