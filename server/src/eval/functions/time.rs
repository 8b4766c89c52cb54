//! The time functions (Cassandra's `TimeFcts` and `UuidFcts`): `now()`, `uuid()`,
//! `currentTimestamp()` and friends, `toTimestamp`, `toDate`, `toUnixTimestamp`,
//! `minTimeuuid`/`maxTimeuuid`, the deprecated `dateOf`/`unixTimestampOf`, and the version-1
//! UUID arithmetic they share.

use std::sync::atomic::{AtomicI64, Ordering};

use bytes::Bytes;
use cql::types::ColumnType;

use super::{first, Body, CallContext, NativeFunction};
use crate::error::{CqlResult, ValueError};

/// Which time function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeFn {
    /// `now()`, `currentTimeUUID()`.
    NowTimeuuid,
    /// `uuid()`: a random (version 4) UUID.
    RandomUuid,
    CurrentTimestamp,
    CurrentDate,
    CurrentTime,
    MinTimeuuid,
    MaxTimeuuid,
    /// `toTimestamp`, `dateOf`: the argument's instant as a timestamp.
    ToTimestamp,
    /// `toDate`: the argument's day.
    ToDate,
    /// `toUnixTimestamp`, `unixTimestampOf`: milliseconds as a bigint.
    ToUnixTimestamp,
}

impl TimeFn {
    /// Whether the function reads the clock or a random source.
    pub(crate) fn is_current(self) -> bool {
        matches!(
            self,
            TimeFn::NowTimeuuid
                | TimeFn::RandomUuid
                | TimeFn::CurrentTimestamp
                | TimeFn::CurrentDate
                | TimeFn::CurrentTime
        )
    }

    /// The clock and random functions, which take no argument.
    fn current(self, ctx: &CallContext) -> CqlResult<Bytes> {
        let micros = ctx.now_micros;
        Ok(match self {
            TimeFn::RandomUuid => uuid_bytes(uuid::Uuid::new_v4()),
            TimeFn::CurrentTimestamp => long_bytes(micros.div_euclid(1000)),
            TimeFn::CurrentDate => date_bytes(micros.div_euclid(86_400_000_000))?,
            TimeFn::CurrentTime => long_bytes(micros.rem_euclid(86_400_000_000) * 1000),
            _ => uuid_bytes(time_uuid(micros)),
        })
    }
}

/// Runs time function `kind` declared as `function`; a conversion of a null or empty
/// argument gives null.
pub(super) fn execute(
    function: &NativeFunction,
    kind: TimeFn,
    args: &[Option<Bytes>],
    ctx: &CallContext,
) -> CqlResult<Option<Bytes>> {
    if kind.is_current() {
        return kind.current(ctx).map(Some);
    }
    let Some(arg) = first(args).filter(|b| !b.is_empty()) else {
        return Ok(None);
    };
    let ty = function
        .args
        .first()
        .cloned()
        .unwrap_or(ColumnType::Timestamp);
    let millis = millis_of(&ty, arg)?;
    let bytes = match kind {
        TimeFn::MinTimeuuid => uuid_bytes(bound_uuid(millis, false)),
        TimeFn::MaxTimeuuid => uuid_bytes(bound_uuid(millis, true)),
        TimeFn::ToDate => date_bytes(millis.div_euclid(86_400_000))?,
        _ => long_bytes(millis),
    };
    Ok(Some(bytes))
}

fn long_bytes(n: i64) -> Bytes {
    Bytes::copy_from_slice(&n.to_be_bytes())
}

fn uuid_bytes(u: uuid::Uuid) -> Bytes {
    Bytes::copy_from_slice(u.as_bytes())
}

/// The `date` wire form (days + 2^31) of a day count since the epoch.
fn date_bytes(days: i64) -> Result<Bytes, ValueError> {
    let value =
        u32::try_from(days + (1i64 << 31)).map_err(|_| ValueError::DateOutOfRange { days })?;
    Ok(Bytes::copy_from_slice(&value.to_be_bytes()))
}

/// Milliseconds since the epoch of a timeuuid, timestamp or date value.
fn millis_of(ty: &ColumnType, bytes: &[u8]) -> Result<i64, ValueError> {
    let bad = || ValueError::NotATime {
        ty: ty.clone().into(),
    };
    match ty {
        ColumnType::Timeuuid | ColumnType::Uuid => {
            let raw: [u8; 16] = bytes.try_into().map_err(|_| bad())?;
            uuid_millis(&uuid::Uuid::from_bytes(raw)).ok_or_else(bad)
        }
        ColumnType::Date => {
            let raw: [u8; 4] = bytes.try_into().map_err(|_| bad())?;
            Ok((i64::from(u32::from_be_bytes(raw)) - (1i64 << 31)) * 86_400_000)
        }
        _ => {
            let raw: [u8; 8] = bytes.try_into().map_err(|_| bad())?;
            Ok(i64::from_be_bytes(raw))
        }
    }
}

/// The 100-ns ticks of the last `now()`, so successive time UUIDs never repeat.
static LAST_TICKS: AtomicI64 = AtomicI64::new(0);

/// Offset between the UUID epoch (1582-10-15) and the Unix epoch in 100 ns units.
const UUID_EPOCH_OFFSET: i64 = 0x01B2_1DD2_1381_4000;

/// The version-1 UUID with `ticks` (100 ns since 1582-10-15) and the given low 64 bits.
fn uuid_at(ticks: i64, low: [u8; 8]) -> uuid::Uuid {
    let mut b = [0u8; 16];
    b[0..4].copy_from_slice(&((ticks & 0xffff_ffff) as u32).to_be_bytes());
    b[4..6].copy_from_slice(&(((ticks >> 32) & 0xffff) as u16).to_be_bytes());
    b[6..8].copy_from_slice(&((((ticks >> 48) & 0x0fff) as u16) | 0x1000).to_be_bytes());
    b[8..16].copy_from_slice(&low);
    uuid::Uuid::from_bytes(b)
}

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
    let mut low = node_bytes();
    low[0] = 0x80 | (low[0] & 0x3f);
    uuid_at(ticks, low)
}

/// `minTimeuuid`/`maxTimeuuid`: the smallest or largest timeuuid of a millisecond, with
/// Cassandra's fixed clock sequence and node bytes (`0x80...` and `0x7f...`). Any timestamp
/// is taken, as Cassandra's `TimeUUID.minAtUnixMillis`/`maxAtUnixMillis` take it: the 100-ns
/// count wraps as a Java long does, and bits past the 60 of a timestamp land in the version
/// nibble unmasked.
fn bound_uuid(millis: i64, max: bool) -> uuid::Uuid {
    let raw = |millis: i64| millis.wrapping_mul(10_000).wrapping_add(UUID_EPOCH_OFFSET);
    let raw = if max {
        raw(millis.wrapping_add(1)).wrapping_sub(1)
    } else {
        raw(millis)
    };
    // Reinterpreting the bits, as Java's unsigned shifts read them.
    let raw = raw as u64;
    let msb = 0x1000 | (raw >> 48) | ((raw & 0xFFFF_0000_0000) >> 16) | (raw << 32);
    let lsb = if max {
        0x7f7f_7f7f_7f7f_7f7f
    } else {
        0x8080_8080_8080_8080
    };
    uuid::Uuid::from_u64_pair(msb, lsb)
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
pub(crate) fn uuid_millis(u: &uuid::Uuid) -> Option<i64> {
    let b = u.as_bytes();
    if u.get_version_num() != 1 {
        return None;
    }
    let low = i64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]));
    let mid = i64::from(u16::from_be_bytes([b[4], b[5]]));
    let high = i64::from(u16::from_be_bytes([b[6], b[7]]) & 0x0fff);
    let ticks = (high << 48) | (mid << 32) | low;
    Some((ticks - UUID_EPOCH_OFFSET).div_euclid(10_000))
}

/// Every time function signature.
pub(super) fn all() -> Vec<NativeFunction> {
    use ColumnType as T;
    let f = |name: &str, args: Vec<ColumnType>, ret: ColumnType, kind: TimeFn| {
        NativeFunction::new(name, args, ret, Body::Time(kind))
    };
    let mut out = vec![
        f("now", vec![], T::Timeuuid, TimeFn::NowTimeuuid),
        f("currenttimeuuid", vec![], T::Timeuuid, TimeFn::NowTimeuuid),
        f("uuid", vec![], T::Uuid, TimeFn::RandomUuid),
        f(
            "currenttimestamp",
            vec![],
            T::Timestamp,
            TimeFn::CurrentTimestamp,
        ),
        f("currentdate", vec![], T::Date, TimeFn::CurrentDate),
        f("currenttime", vec![], T::Time, TimeFn::CurrentTime),
        f(
            "mintimeuuid",
            vec![T::Timestamp],
            T::Timeuuid,
            TimeFn::MinTimeuuid,
        ),
        f(
            "maxtimeuuid",
            vec![T::Timestamp],
            T::Timeuuid,
            TimeFn::MaxTimeuuid,
        ),
        f(
            "dateof",
            vec![T::Timeuuid],
            T::Timestamp,
            TimeFn::ToTimestamp,
        ),
        f(
            "unixtimestampof",
            vec![T::Timeuuid],
            T::Bigint,
            TimeFn::ToUnixTimestamp,
        ),
    ];
    for (name, input, ret, kind) in [
        ("todate", T::Timeuuid, T::Date, TimeFn::ToDate),
        ("todate", T::Timestamp, T::Date, TimeFn::ToDate),
        (
            "totimestamp",
            T::Timeuuid,
            T::Timestamp,
            TimeFn::ToTimestamp,
        ),
        ("totimestamp", T::Date, T::Timestamp, TimeFn::ToTimestamp),
        (
            "tounixtimestamp",
            T::Timeuuid,
            T::Bigint,
            TimeFn::ToUnixTimestamp,
        ),
        (
            "tounixtimestamp",
            T::Timestamp,
            T::Bigint,
            TimeFn::ToUnixTimestamp,
        ),
        (
            "tounixtimestamp",
            T::Date,
            T::Bigint,
            TimeFn::ToUnixTimestamp,
        ),
    ] {
        out.push(f(name, vec![input], ret, kind));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_uuids_increase_and_round_trip() {
        let a = time_uuid(1_000_000);
        let b = time_uuid(1_000_000);
        assert_ne!(a, b);
        assert_eq!(a.get_version_num(), 1);
        assert_eq!(uuid_millis(&a), Some(1000));
    }

    #[test]
    fn min_and_max_timeuuid_bracket_a_millisecond() {
        for millis in [-1_706_638_779_000i64, -123, 0, 123, 1_706_638_779_000] {
            let min = bound_uuid(millis, false);
            let max = bound_uuid(millis, true);
            assert_eq!(uuid_millis(&min), Some(millis));
            assert_eq!(uuid_millis(&max), Some(millis));
            assert_eq!(&min.as_bytes()[8..], &[0x80; 8]);
            assert_eq!(&max.as_bytes()[8..], &[0x7f; 8]);
        }
    }

    #[test]
    fn conversions_use_the_argument_type() {
        let functions = all();
        let find = |name: &str, ty: ColumnType| {
            functions
                .iter()
                .find(|f| f.name == name && f.args == [ty.clone()])
                .expect("declared")
                .clone()
        };
        let ctx = CallContext { now_micros: 0 };
        let day = Bytes::copy_from_slice(&((1u32 << 31) + 1).to_be_bytes());
        let ts = find("totimestamp", ColumnType::Date)
            .execute(&[Some(day)], &ctx)
            .expect("converts");
        assert_eq!(ts, Some(long_bytes(86_400_000)));
        let before_epoch = long_bytes(-1);
        let date = find("todate", ColumnType::Timestamp)
            .execute(&[Some(before_epoch)], &ctx)
            .expect("converts");
        assert_eq!(
            date,
            Some(Bytes::copy_from_slice(&((1u32 << 31) - 1).to_be_bytes()))
        );
        let none = find("tounixtimestamp", ColumnType::Timestamp)
            .execute(&[None], &ctx)
            .expect("null in, null out");
        assert_eq!(none, None);
    }

    #[test]
    fn current_functions_read_the_request_clock() {
        let ctx = CallContext {
            now_micros: 86_400_000_000 + 1_500,
        };
        let run = |kind: TimeFn| kind.current(&ctx).expect("runs");
        assert_eq!(run(TimeFn::CurrentTimestamp), long_bytes(86_400_001));
        assert_eq!(run(TimeFn::CurrentTime), long_bytes(1_500_000));
        assert_eq!(
            run(TimeFn::CurrentDate),
            Bytes::copy_from_slice(&((1u32 << 31) + 1).to_be_bytes())
        );
    }

    /// Every timestamp gives Cassandra's bytes, the extremes and the pre-1582 ones included
    /// (values computed with Java's long arithmetic).
    #[test]
    fn timeuuid_bounds_cover_every_timestamp_as_cassandra() {
        let cases = [
            (0, false, "13814000-1dd2-11b2-8080-808080808080"),
            (0, true, "1381670f-1dd2-11b2-7f7f-7f7f7f7f7f7f"),
            (i64::MAX, false, "138118f0-1dd2-11b2-8080-808080808080"),
            (i64::MAX, true, "13813fff-1dd2-11b2-7f7f-7f7f7f7f7f7f"),
            (i64::MIN, false, "13814000-1dd2-11b2-8080-808080808080"),
            (i64::MIN, true, "1381670f-1dd2-11b2-7f7f-7f7f7f7f7f7f"),
            (
                -12_219_292_800_001,
                false,
                "ffffd8f0-ffff-ffff-8080-808080808080",
            ),
        ];
        for (millis, max, expected) in cases {
            assert_eq!(
                bound_uuid(millis, max).to_string(),
                expected,
                "{millis} {max}"
            );
        }
    }
}
