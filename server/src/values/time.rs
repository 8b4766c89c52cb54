//! Date and time literals (`timestamp`, `date`, `time` string forms Cassandra accepts) and the
//! time functions usable as terms (`now()`, `uuid()`, `currentTimestamp()`, `toTimestamp()`...).

use std::sync::atomic::{AtomicI64, Ordering};

use cql::statement::ast::Term;
use cql::types::{ColumnType, CqlValue};

use super::{to_value, EvalContext, Receiver};
use crate::error::{CqlError, CqlResult};

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
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

/// The 100-ns ticks of the last `now()`, so successive time UUIDs never repeat.
static LAST_TICKS: AtomicI64 = AtomicI64::new(0);

/// Offset between the UUID epoch (1582-10-15) and the Unix epoch in 100 ns units.
const UUID_EPOCH_OFFSET: i64 = 0x01B2_1DD2_1381_4000;

/// A version-1 (time-based) UUID for `micros`, unique within this process.
pub(crate) fn time_uuid(micros: i64) -> uuid::Uuid {
    let wanted = micros * 10 + UUID_EPOCH_OFFSET;
    let mut last = LAST_TICKS.load(Ordering::Relaxed);
    let ticks = loop {
        let next = if wanted > last { wanted } else { last + 1 };
        match LAST_TICKS.compare_exchange_weak(last, next, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => break next,
            Err(actual) => last = actual,
        }
    };
    let node = node_bytes();
    let mut b = [0u8; 16];
    b[0..4].copy_from_slice(&((ticks & 0xffff_ffff) as u32).to_be_bytes());
    b[4..6].copy_from_slice(&(((ticks >> 32) & 0xffff) as u16).to_be_bytes());
    b[6..8].copy_from_slice(&((((ticks >> 48) & 0x0fff) as u16) | 0x1000).to_be_bytes());
    b[8] = 0x80 | (node[0] & 0x3f);
    b[9] = node[1];
    b[10..16].copy_from_slice(&node[2..8]);
    uuid::Uuid::from_bytes(b)
}

fn node_bytes() -> [u8; 8] {
    static NODE: std::sync::OnceLock<[u8; 8]> = std::sync::OnceLock::new();
    *NODE.get_or_init(|| {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&uuid::Uuid::new_v4().as_bytes()[..8]);
        bytes[2] |= 0x01; // multicast bit: not a real MAC address
        bytes
    })
}

/// Milliseconds encoded in a version-1 UUID.
fn uuid_millis(u: &uuid::Uuid) -> Option<i64> {
    let b = u.as_bytes();
    if u.get_version_num() != 1 {
        return None;
    }
    let low = i64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let mid = i64::from(u16::from_be_bytes([b[4], b[5]]));
    let high = i64::from(u16::from_be_bytes([b[6], b[7]]) & 0x0fff);
    let ticks = (high << 48) | (mid << 32) | low;
    Some((ticks - UUID_EPOCH_OFFSET) / 10_000)
}

/// Evaluates a function call used as a term.
pub(super) fn function_value(
    name: &str,
    args: &[Term],
    receiver: Receiver<'_>,
    ctx: &EvalContext<'_>,
) -> CqlResult<CqlValue> {
    let name = name.to_ascii_lowercase();
    let value = match (name.as_str(), args) {
        ("now" | "currenttimeuuid", []) => CqlValue::Timeuuid(time_uuid(ctx.now_micros)),
        ("uuid", []) => CqlValue::Uuid(uuid::Uuid::new_v4()),
        ("currenttimestamp", []) => CqlValue::Timestamp(ctx.now_micros / 1000),
        ("currentdate", []) => {
            CqlValue::Date(((ctx.now_micros / 86_400_000_000) + (1i64 << 31)) as u32)
        }
        ("currenttime", []) => CqlValue::Time((ctx.now_micros % 86_400_000_000) * 1000),
        ("totimestamp" | "tounixtimestamp" | "todate", [arg]) => {
            let millis = millis_of(arg, ctx)?;
            match name.as_str() {
                "totimestamp" => CqlValue::Timestamp(millis),
                "tounixtimestamp" => CqlValue::Bigint(millis),
                _ => CqlValue::Date((millis.div_euclid(86_400_000) + (1i64 << 31)) as u32),
            }
        }
        _ => {
            return Err(CqlError::invalid(format!(
                "Unknown function {name} called with {} arguments",
                args.len()
            )))
        }
    };
    coerce(value, receiver)
}

fn millis_of(arg: &Term, ctx: &EvalContext<'_>) -> CqlResult<i64> {
    let ty = ColumnType::Timeuuid;
    let value = to_value(
        arg,
        Receiver {
            name: "arg",
            ty: &ty,
        },
        ctx,
    )
    .or_else(|_| {
        to_value(
            arg,
            Receiver {
                name: "arg",
                ty: &ColumnType::Timestamp,
            },
            ctx,
        )
    })?;
    match value {
        Some(CqlValue::Timeuuid(u)) => {
            uuid_millis(&u).ok_or_else(|| CqlError::invalid("Invalid time UUID"))
        }
        Some(CqlValue::Timestamp(ms)) => Ok(ms),
        _ => Err(CqlError::invalid(
            "Invalid argument to a time conversion function",
        )),
    }
}

/// Checks a function result against its receiver, converting where CQL allows.
fn coerce(value: CqlValue, receiver: Receiver<'_>) -> CqlResult<CqlValue> {
    let ok = matches!(
        (receiver.ty, &value),
        (ColumnType::Timeuuid, CqlValue::Timeuuid(_))
            | (ColumnType::Uuid, CqlValue::Uuid(_))
            | (ColumnType::Timestamp, CqlValue::Timestamp(_))
            | (ColumnType::Date, CqlValue::Date(_))
            | (ColumnType::Time, CqlValue::Time(_))
            | (ColumnType::Bigint, CqlValue::Bigint(_))
    );
    match (receiver.ty, value) {
        (ColumnType::Uuid, CqlValue::Timeuuid(u)) => Ok(CqlValue::Uuid(u)),
        (_, value) if ok => Ok(value),
        (ty, value) => Err(CqlError::invalid(format!(
            "Type error: cannot assign result of function {value:?} to {} of type {ty}",
            receiver.name
        ))),
    }
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

    #[test]
    fn time_uuids_increase_and_round_trip() {
        let a = time_uuid(1_000_000);
        let b = time_uuid(1_000_000);
        assert_ne!(a, b);
        assert_eq!(a.get_version_num(), 1);
        assert_eq!(uuid_millis(&a), Some(1000));
    }
}
