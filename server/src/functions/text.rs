//! Values as text, the way `CAST(x AS text)` renders them (Cassandra's `toCQLLiteral` of each
//! serializer): Java's `Float.toString`/`Double.toString`, `BigDecimal.toString`, ISO-8601
//! timestamps in UTC with milliseconds, `HH:mm:ss.nnnnnnnnn` times, Java's inet forms.

use std::net::IpAddr;

use cql::types::number_text::{decimal_to_text, varint_to_text, NumberTextError};
use cql::types::{codec, ColumnType, CqlValue};

use crate::datetime::print::{format_date, format_time, format_timestamp};
use crate::error::{CqlError, CqlResult};
use crate::functions::numeric::Number;

/// Splits Rust's shortest round-trip digits of a finite non-zero value (`{:e}` form) into the
/// digit string and the decimal exponent of its first digit.
fn shortest_digits(scientific: &str) -> (String, i64) {
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((scientific, "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exponent.parse().unwrap_or(0))
}

/// Java's `Double.toString` layout of shortest digits: plain between 10^-3 and 10^7, else
/// `d.dddE±n`, always with a fractional digit.
fn java_layout(negative: bool, scientific: &str) -> String {
    let (digits, exp) = shortest_digits(scientific);
    let sign = if negative { "-" } else { "" };
    if (-3..7).contains(&exp) {
        let body = if exp >= 0 {
            let point = exp as usize + 1;
            let padded = format!("{digits:0<point$}");
            let (int, frac) = padded.split_at(point);
            let frac = if frac.is_empty() { "0" } else { frac };
            format!("{int}.{frac}")
        } else {
            format!("0.{}{digits}", "0".repeat((-exp - 1) as usize))
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        format!("{sign}{first}.{rest}E{exp}")
    }
}

/// Java's `Double.toString(d)`.
pub(crate) fn java_double(d: f64) -> String {
    if d.is_nan() {
        "NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if d == 0.0 {
        if d.is_sign_negative() { "-0.0" } else { "0.0" }.into()
    } else {
        java_layout(d < 0.0, &format!("{:e}", d.abs()))
    }
}

/// Java's `Float.toString(f)`.
pub(crate) fn java_float(f: f32) -> String {
    if f.is_nan() {
        "NaN".into()
    } else if f.is_infinite() {
        if f > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if f == 0.0 {
        if f.is_sign_negative() { "-0.0" } else { "0.0" }.into()
    } else {
        java_layout(f < 0.0, &format!("{:e}", f.abs()))
    }
}

/// Java's `InetAddress.getHostAddress()`: dotted IPv4, uncompressed lower-case IPv6.
pub(crate) fn java_inet(ip: &IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let groups: Vec<String> = v6.segments().iter().map(|s| format!("{s:x}")).collect();
            groups.join(":")
        }
    }
}

/// The text `CAST(value AS text)` gives for a serialized value of type `ty`.
///
/// # Errors
///
/// A value that does not decode as `ty`.
pub(crate) fn cast_text(ty: &ColumnType, bytes: &[u8]) -> CqlResult<String> {
    let too_long = |err: NumberTextError| CqlError::invalid(err.to_string());
    match ty {
        ColumnType::Varint => return varint_to_text(bytes).map_err(too_long),
        ColumnType::Decimal => {
            let (scale, unscaled) = bytes
                .split_first_chunk::<4>()
                .ok_or_else(|| CqlError::invalid("Invalid decimal value"))?;
            return decimal_to_text(unscaled, i32::from_be_bytes(*scale)).map_err(too_long);
        }
        _ => {}
    }
    if let Some(n) = Number::decode(ty, bytes).ok().flatten() {
        return Ok(match n {
            Number::Integer(i) => i.to_string(),
            Number::Varint(i) => i.to_string(),
            Number::Float(f) => java_float(f),
            Number::Double(d) => java_double(d),
            Number::Decimal(d) => crate::functions::decimal::java_string(&d),
        });
    }
    let value =
        codec::deserialize_value(ty, bytes).map_err(|e| CqlError::invalid(e.to_string()))?;
    Ok(match value {
        CqlValue::Ascii(s) | CqlValue::Text(s) => s,
        CqlValue::Boolean(b) => b.to_string(),
        CqlValue::Inet(ip) => java_inet(&ip),
        CqlValue::Timestamp(ms) => format_timestamp(ms),
        CqlValue::Date(d) => format_date(d),
        CqlValue::Time(n) => format_time(n),
        CqlValue::Uuid(u) | CqlValue::Timeuuid(u) => u.to_string(),
        other => {
            return Err(CqlError::invalid(format!(
                "Cannot render {other:?} as text"
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_like_java() {
        assert_eq!(java_float(5.2), "5.2");
        assert_eq!(java_float(4.0), "4.0");
        assert_eq!(java_double(6.3), "6.3");
        assert_eq!(java_double(1e7), "1.0E7");
        assert_eq!(java_double(123_456.789), "123456.789");
        assert_eq!(java_double(0.001), "0.001");
        assert_eq!(java_double(0.0001), "1.0E-4");
        assert_eq!(java_double(-2.5e-10), "-2.5E-10");
        assert_eq!(java_double(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(java_double(0.0), "0.0");
        assert_eq!(java_float(1.0e10), "1.0E10");
    }

    #[test]
    fn dates_and_times_print_like_cassandra() {
        assert_eq!(
            format_timestamp(1_432_206_182_000),
            "2015-05-21T11:03:02.000Z"
        );
        assert_eq!(format_timestamp(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(format_date((1u32 << 31) + 16_576), "2015-05-21");
        assert_eq!(format_time(39_782_000_000_000), "11:03:02.000000000");
    }

    #[test]
    fn cast_text_covers_each_family() {
        assert_eq!(
            cast_text(&ColumnType::Int, &7i32.to_be_bytes()).expect("int"),
            "7"
        );
        assert_eq!(
            cast_text(
                &ColumnType::Varint,
                &bigdecimal::num_bigint::BigInt::from(-300).to_signed_bytes_be()
            )
            .expect("varint"),
            "-300"
        );
        assert_eq!(cast_text(&ColumnType::Boolean, &[1]).expect("bool"), "true");
        // Past 128 bits a decimal used to print as 0.
        let mut decimal = 2i32.to_be_bytes().to_vec();
        decimal.extend(
            cql::types::number_text::varint_from_text("-1234567890123456789012345678901234567890")
                .expect("varint"),
        );
        assert_eq!(
            cast_text(&ColumnType::Decimal, &decimal).expect("decimal"),
            "-12345678901234567890123456789012345678.90"
        );
        assert_eq!(
            cast_text(&ColumnType::Decimal, &[0, 0, 0, 1, 0x7b]).expect("decimal"),
            "12.3"
        );
        assert_eq!(
            cast_text(&ColumnType::Inet, &[127, 0, 0, 1]).expect("inet"),
            "127.0.0.1"
        );
        let mut v6 = [0u8; 16];
        v6[15] = 1;
        assert_eq!(
            cast_text(&ColumnType::Inet, &v6).expect("inet"),
            "0:0:0:0:0:0:0:1"
        );
    }
}
