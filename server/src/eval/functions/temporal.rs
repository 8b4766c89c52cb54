//! `timestamp ± duration` and `date ± duration` (Cassandra's `TemporalOperationFunction`):
//! months are added on the calendar (the day clamped to the month's length), then days, then
//! the sub-day part; a date only takes whole-day durations.

use bytes::Bytes;
use cql::types::{codec, ColumnType, CqlValue};

use super::operation::ArithKind;
use super::{Body, NativeFunction};
use crate::error::{CqlResult, ValueError};
use crate::eval::datetime::calendar::add_months;
use crate::eval::datetime::print::duration_string;

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
    let CqlValue::Duration {
        months,
        days,
        nanoseconds,
    } = codec::deserialize_value(&ColumnType::Duration, duration).map_err(ValueError::Codec)?
    else {
        return Ok(None);
    };
    let sign = if kind == ArithKind::Sub { -1 } else { 1 };
    let shift = Shift {
        months: sign * i64::from(months),
        days: sign * i64::from(days),
        nanos: sign * nanoseconds,
    };
    match codec::deserialize_value(&function.ret, value).map_err(ValueError::Codec)? {
        CqlValue::Timestamp(millis) => {
            if nanoseconds % 1_000_000 != 0 {
                return Err(ValueError::DurationFinerThanMillis {
                    duration: duration_string(months, days, nanoseconds),
                }
                .into());
            }
            let day = millis.div_euclid(DAY_MILLIS);
            let moved = add_months(day, shift.months) + shift.days;
            let millis =
                moved * DAY_MILLIS + millis.rem_euclid(DAY_MILLIS) + shift.nanos / 1_000_000;
            Ok(Some(Bytes::copy_from_slice(&millis.to_be_bytes())))
        }
        CqlValue::Date(value) => {
            if nanoseconds != 0 {
                return Err(ValueError::DurationFinerThanDays {
                    duration: duration_string(months, days, nanoseconds),
                }
                .into());
            }
            let day = i64::from(value) - (1i64 << 31);
            let moved = add_months(day, shift.months) + shift.days + (1i64 << 31);
            let wire = u32::try_from(moved).map_err(|_| ValueError::ResultingDateOutOfRange)?;
            Ok(Some(Bytes::copy_from_slice(&wire.to_be_bytes())))
        }
        _ => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
