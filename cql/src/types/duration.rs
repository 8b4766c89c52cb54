//! `duration` literals in every form Cassandra's `Duration.from` accepts, with its messages:
//!
//! - units: `1y2mo3w4d5h6m7s8ms9us10ns` (`µs` too; units in any case, each at most once and
//!   from the largest down);
//! - ISO 8601 with designators: `P1Y2M3DT4H5M6S` (any part may be left out), or `P2W`;
//! - ISO 8601 alternative form: `P0001-02-03T04:05:06`;
//! - any of them after `-` for a negative duration.

/// Why a `duration` literal was refused; the messages are Cassandra's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    /// Not a duration in any accepted form.
    /// Origin: cql3/Duration.java from
    #[error("Unable to convert '{0}' to a duration")]
    Unparsable(String),
    /// A unit given twice (`2m3m`).
    /// Origin: cql3/Duration.java Builder (validateOrder, a unit repeated)
    #[error("Invalid duration. The {0} are specified multiple times")]
    Repeated(&'static str),
    /// Units out of order (`12s3m`): the first unit should come after the second.
    /// Origin: cql3/Duration.java Builder (validateOrder)
    #[error("Invalid duration. The {0} should be after {1}")]
    Order(&'static str, &'static str),
    /// A total beyond what months (i32), days (i32) or nanoseconds (i64) can hold.
    /// Origin: cql3/Duration.java Builder (validateQuantity)
    #[error("Invalid duration. The total number of {0} must be less or equal to 2147483647")]
    Overflow(&'static str),
}

/// A parsed duration: months, days and nanoseconds, all of one sign.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Duration {
    /// Months (a year is 12).
    pub months: i32,
    /// Days (a week is 7).
    pub days: i32,
    /// Nanoseconds.
    pub nanoseconds: i64,
}

const NANOS_PER_MICRO: i64 = 1_000;
const NANOS_PER_MILLI: i64 = 1_000_000;
const NANOS_PER_SECOND: i64 = 1_000_000_000;
const NANOS_PER_MINUTE: i64 = 60 * NANOS_PER_SECOND;
const NANOS_PER_HOUR: i64 = 60 * NANOS_PER_MINUTE;

/// The units in the order they must appear, as `Duration.Builder` numbers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Unit {
    Years = 1,
    Months,
    Weeks,
    Days,
    Hours,
    Minutes,
    Seconds,
    Millis,
    Micros,
    Nanos,
}

impl Unit {
    fn name(self) -> &'static str {
        match self {
            Unit::Years => "years",
            Unit::Months => "months",
            Unit::Weeks => "weeks",
            Unit::Days => "days",
            Unit::Hours => "hours",
            Unit::Minutes => "minutes",
            Unit::Seconds => "seconds",
            Unit::Millis => "milliseconds",
            Unit::Micros => "microseconds",
            Unit::Nanos => "nanoseconds",
        }
    }

    /// A unit symbol of the compact form, case-insensitively (`µs` only as written).
    fn from_symbol(symbol: &str) -> Option<Unit> {
        Some(match symbol.to_ascii_lowercase().as_str() {
            "y" => Unit::Years,
            "mo" => Unit::Months,
            "w" => Unit::Weeks,
            "d" => Unit::Days,
            "h" => Unit::Hours,
            "m" => Unit::Minutes,
            "s" => Unit::Seconds,
            "ms" => Unit::Millis,
            "us" | "µs" => Unit::Micros,
            "ns" => Unit::Nanos,
            _ => return None,
        })
    }
}

/// Accumulates units in order, with `Duration.Builder`'s checks.
struct Builder {
    months: i64,
    days: i64,
    nanoseconds: i64,
    last: Option<Unit>,
}

impl Builder {
    fn new() -> Self {
        Builder {
            months: 0,
            days: 0,
            nanoseconds: 0,
            last: None,
        }
    }

    fn add(&mut self, unit: Unit, amount: i64) -> Result<(), DurationError> {
        match self.last {
            Some(last) if last == unit => return Err(DurationError::Repeated(unit.name())),
            Some(last) if last > unit => {
                return Err(DurationError::Order(last.name(), unit.name()))
            }
            _ => self.last = Some(unit),
        }
        let (total, per_unit, name, limit) = match unit {
            Unit::Years => (&mut self.months, 12, "months", i64::from(i32::MAX)),
            Unit::Months => (&mut self.months, 1, "months", i64::from(i32::MAX)),
            Unit::Weeks => (&mut self.days, 7, "days", i64::from(i32::MAX)),
            Unit::Days => (&mut self.days, 1, "days", i64::from(i32::MAX)),
            Unit::Hours => (
                &mut self.nanoseconds,
                NANOS_PER_HOUR,
                "nanoseconds",
                i64::MAX,
            ),
            Unit::Minutes => (
                &mut self.nanoseconds,
                NANOS_PER_MINUTE,
                "nanoseconds",
                i64::MAX,
            ),
            Unit::Seconds => (
                &mut self.nanoseconds,
                NANOS_PER_SECOND,
                "nanoseconds",
                i64::MAX,
            ),
            Unit::Millis => (
                &mut self.nanoseconds,
                NANOS_PER_MILLI,
                "nanoseconds",
                i64::MAX,
            ),
            Unit::Micros => (
                &mut self.nanoseconds,
                NANOS_PER_MICRO,
                "nanoseconds",
                i64::MAX,
            ),
            Unit::Nanos => (&mut self.nanoseconds, 1, "nanoseconds", i64::MAX),
        };
        if amount > (limit - *total) / per_unit {
            return Err(DurationError::Overflow(name));
        }
        *total += amount * per_unit;
        Ok(())
    }

    fn build(self, negative: bool) -> Duration {
        // The limits checked in `add` keep months and days within i32.
        let (months, days) = (self.months as i32, self.days as i32);
        if negative {
            Duration {
                months: -months,
                days: -days,
                nanoseconds: -self.nanoseconds,
            }
        } else {
            Duration {
                months,
                days,
                nanoseconds: self.nanoseconds,
            }
        }
    }
}

/// Parses a duration literal (see the module docs).
///
/// # Errors
/// [`DurationError`] with Cassandra's message; the text quoted in it has no leading `-`.
pub fn parse_duration(input: &str) -> Result<Duration, DurationError> {
    let (negative, source) = match input.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, input),
    };
    let unparsable = || DurationError::Unparsable(source.to_string());
    let mut builder = Builder::new();
    let parts = if let Some(body) = source.strip_prefix('P') {
        if let Some(weeks) = body.strip_suffix('W') {
            vec![(Unit::Weeks, number(weeks).ok_or_else(unparsable)?)]
        } else if body.contains('-') {
            alternative(body).ok_or_else(unparsable)?
        } else {
            designators(body).ok_or_else(unparsable)?
        }
    } else {
        compact(source).ok_or_else(unparsable)?
    };
    for (unit, amount) in parts {
        builder.add(unit, amount)?;
    }
    Ok(builder.build(negative))
}

/// All-digit text as a number (`Long.parseLong` of `\d+`).
fn number(text: &str) -> Option<i64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// `(\d+)(unit)` repeated to the end of the text.
fn compact(mut text: &str) -> Option<Vec<(Unit, i64)>> {
    let mut parts = Vec::new();
    while !text.is_empty() {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        let amount = number(&text[..digits])?;
        let rest = &text[digits..];
        let symbol_len = rest
            .char_indices()
            .find(|(_, c)| c.is_ascii_digit())
            .map_or(rest.len(), |(i, _)| i);
        let unit = Unit::from_symbol(&rest[..symbol_len])?;
        parts.push((unit, amount));
        text = &rest[symbol_len..];
    }
    (!parts.is_empty()).then_some(parts)
}

/// `P[nY][nM][nD][T[nH][nM][nS]]` after the `P`: each designator at most once, in order.
fn designators(body: &str) -> Option<Vec<(Unit, i64)>> {
    let (date, time) = match body.split_once('T') {
        Some((date, time)) => (date, Some(time)),
        None => (body, None),
    };
    let mut parts = Vec::new();
    read_designators(
        date,
        &[('Y', Unit::Years), ('M', Unit::Months), ('D', Unit::Days)],
        &mut parts,
    )?;
    if let Some(time) = time {
        let units = [
            ('H', Unit::Hours),
            ('M', Unit::Minutes),
            ('S', Unit::Seconds),
        ];
        read_designators(time, &units, &mut parts)?;
    }
    Some(parts)
}

fn read_designators(
    mut text: &str,
    allowed: &[(char, Unit)],
    parts: &mut Vec<(Unit, i64)>,
) -> Option<()> {
    let mut next = 0;
    while !text.is_empty() {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        let amount = number(&text[..digits])?;
        let designator = text[digits..].chars().next()?;
        let offset = allowed[next..].iter().position(|(c, _)| *c == designator)?;
        parts.push((allowed[next + offset].1, amount));
        next += offset + 1;
        text = &text[digits + 1..];
    }
    Some(())
}

/// `YYYY-MM-DDThh:mm:ss` after the `P` (exactly those digit counts).
fn alternative(body: &str) -> Option<Vec<(Unit, i64)>> {
    let bytes = body.as_bytes();
    let shape = b"dddd-dd-ddTdd:dd:dd";
    if bytes.len() != shape.len()
        || !bytes.iter().zip(shape).all(|(b, s)| {
            if *s == b'd' {
                b.is_ascii_digit()
            } else {
                b == s
            }
        })
    {
        return None;
    }
    let field = |range: std::ops::Range<usize>| number(&body[range]);
    Some(vec![
        (Unit::Years, field(0..4)?),
        (Unit::Months, field(5..7)?),
        (Unit::Days, field(8..10)?),
        (Unit::Hours, field(11..13)?),
        (Unit::Minutes, field(14..16)?),
        (Unit::Seconds, field(17..19)?),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(months: i32, days: i32, nanoseconds: i64) -> Result<Duration, DurationError> {
        Ok(Duration {
            months,
            days,
            nanoseconds,
        })
    }

    const H: i64 = NANOS_PER_HOUR;
    const M: i64 = NANOS_PER_MINUTE;

    #[test]
    fn compact_forms() {
        assert_eq!(parse_duration("1y"), d(12, 0, 0));
        assert_eq!(parse_duration("1Y2mO"), d(14, 0, 0));
        assert_eq!(parse_duration("1d12h30m"), d(0, 1, 12 * H + 30 * M));
        assert_eq!(parse_duration("-1y2h"), d(-12, 0, -2 * H));
        assert_eq!(parse_duration("2y3w"), d(24, 21, 0));
        assert_eq!(
            parse_duration("1y2mo3w4d5h6m7s8ms9us10ns"),
            d(14, 25, 5 * H + 6 * M + 7_008_009_010)
        );
        assert_eq!(parse_duration("3µs"), d(0, 0, 3_000));
        assert_eq!(parse_duration("3US"), d(0, 0, 3_000));
    }

    #[test]
    fn iso_forms() {
        assert_eq!(parse_duration("P1Y2D"), d(12, 2, 0));
        assert_eq!(parse_duration("P2W"), d(0, 14, 0));
        assert_eq!(parse_duration("-P1YT2H"), d(-12, 0, -2 * H));
        assert_eq!(parse_duration("PT30H20M"), d(0, 0, 30 * H + 20 * M));
        assert_eq!(parse_duration("P1Y3MT2H10M"), d(15, 0, 130 * M));
        assert_eq!(parse_duration("P"), d(0, 0, 0));
        assert_eq!(parse_duration("P0001-03-00T02:10:00"), d(15, 0, 130 * M));
        assert_eq!(parse_duration("-P0001-02-00T00:00:00"), d(-14, 0, 0));
    }

    #[test]
    fn messages_are_cassandras() {
        let msg = |s| parse_duration(s).unwrap_err().to_string();
        assert_eq!(
            msg("2m3m"),
            "Invalid duration. The minutes are specified multiple times"
        );
        assert_eq!(
            msg("12s3m"),
            "Invalid duration. The seconds should be after minutes"
        );
        assert_eq!(
            msg("1y3m4d"),
            "Invalid duration. The minutes should be after days"
        );
        assert_eq!(msg("5"), "Unable to convert '5' to a duration");
        assert_eq!(msg("-1x"), "Unable to convert '1x' to a duration");
        assert_eq!(msg("P1M1Y"), "Unable to convert 'P1M1Y' to a duration");
        assert_eq!(
            msg("P0002-00-20"),
            "Unable to convert 'P0002-00-20' to a duration"
        );
        assert_eq!(
            msg("2147483648mo"),
            "Invalid duration. The total number of months must be less or equal to 2147483647"
        );
        assert_eq!(
            msg("178956971y"),
            "Invalid duration. The total number of months must be less or equal to 2147483647"
        );
    }
}
