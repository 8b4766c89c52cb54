//! Numbers as the operators and casts see them: serialized values of the nine numeric types
//! decoded into one [`Number`], Java's conversions between them (narrowing wraps, floats
//! saturate), and [`Decimal`], a `BigDecimal` bounded to 128 bits of unscaled value.

use std::cmp::Ordering;

use bytes::Bytes;
use cql::types::ColumnType;

use crate::error::{CqlError, CqlResult};

/// A decoded numeric value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Number {
    /// tinyint, smallint, int, bigint, counter and varint.
    Integer(i128),
    Float(f32),
    Double(f64),
    Decimal(Decimal),
}

/// `unscaled × 10^-scale`, as Java's `BigDecimal`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Decimal {
    pub(crate) unscaled: i128,
    pub(crate) scale: i32,
}

/// The error for a value beyond what 128 bits hold.
pub(crate) fn overflow() -> CqlError {
    CqlError::invalid("Numeric overflow: the value does not fit in 128 bits")
}

/// Big-endian two's complement of up to 16 bytes.
pub(crate) fn decode_varint(bytes: &[u8]) -> Option<i128> {
    if bytes.is_empty() || bytes.len() > 16 {
        return None;
    }
    let negative = bytes[0] & 0x80 != 0;
    let mut raw = if negative { [0xFFu8; 16] } else { [0u8; 16] };
    raw[16 - bytes.len()..].copy_from_slice(bytes);
    Some(i128::from_be_bytes(raw))
}

/// The shortest big-endian two's complement of `n` (Java's `BigInteger.toByteArray`).
pub(crate) fn encode_varint(n: i128) -> Vec<u8> {
    let raw = n.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let redundant = (raw[start] == 0x00 && raw[start + 1] & 0x80 == 0)
            || (raw[start] == 0xFF && raw[start + 1] & 0x80 != 0);
        if !redundant {
            break;
        }
        start += 1;
    }
    raw[start..].to_vec()
}

/// The low `width` bytes of a big-endian two's complement integer, sign-extended when it is
/// shorter: Java's narrowing of a `BigInteger`.
pub(crate) fn varint_low_bytes(bytes: &[u8], width: usize) -> Vec<u8> {
    let fill = if bytes.first().is_some_and(|b| b & 0x80 != 0) {
        0xFF
    } else {
        0x00
    };
    let mut out = vec![fill; width.saturating_sub(bytes.len())];
    out.extend_from_slice(&bytes[bytes.len().saturating_sub(width)..]);
    out
}

fn fixed<const N: usize>(bytes: &[u8]) -> CqlResult<[u8; N]> {
    bytes
        .try_into()
        .map_err(|_| CqlError::invalid(format!("Expected {N} bytes but got {}", bytes.len())))
}

impl Number {
    /// Decodes a value of numeric type `ty`; `None` for the empty value.
    ///
    /// # Errors
    ///
    /// A value of the wrong size, or a varint or decimal beyond 128 bits.
    pub(crate) fn decode(ty: &ColumnType, bytes: &[u8]) -> CqlResult<Option<Number>> {
        if bytes.is_empty() {
            return Ok(None);
        }
        let n = match ty {
            ColumnType::Tinyint => Number::Integer(i8::from_be_bytes(fixed(bytes)?).into()),
            ColumnType::Smallint => Number::Integer(i16::from_be_bytes(fixed(bytes)?).into()),
            ColumnType::Int => Number::Integer(i32::from_be_bytes(fixed(bytes)?).into()),
            ColumnType::Bigint | ColumnType::Counter => {
                Number::Integer(i64::from_be_bytes(fixed(bytes)?).into())
            }
            ColumnType::Varint => Number::Integer(decode_varint(bytes).ok_or_else(overflow)?),
            ColumnType::Float => Number::Float(f32::from_be_bytes(fixed(bytes)?)),
            ColumnType::Double => Number::Double(f64::from_be_bytes(fixed(bytes)?)),
            ColumnType::Decimal => Number::Decimal(Decimal::decode(bytes)?),
            other => return Err(CqlError::invalid(format!("{other} is not a numeric type"))),
        };
        Ok(Some(n))
    }

    /// Java's `Number.intValue()`: integers keep their low 32 bits, floats saturate, decimals
    /// truncate toward zero first.
    pub(crate) fn to_i32(&self) -> i32 {
        match self {
            Number::Integer(n) => *n as i32,
            Number::Float(f) => *f as i32,
            Number::Double(d) => *d as i32,
            Number::Decimal(d) => d.trunc() as i32,
        }
    }

    /// Java's `Number.longValue()`.
    pub(crate) fn to_i64(&self) -> i64 {
        match self {
            Number::Integer(n) => *n as i64,
            Number::Float(f) => *f as i64,
            Number::Double(d) => *d as i64,
            Number::Decimal(d) => d.trunc() as i64,
        }
    }

    /// The exact integer value where there is one (varint arithmetic).
    pub(crate) fn to_i128(&self) -> i128 {
        match self {
            Number::Integer(n) => *n,
            Number::Float(f) => *f as i128,
            Number::Double(d) => *d as i128,
            Number::Decimal(d) => d.trunc(),
        }
    }

    /// Java's `Number.floatValue()`.
    pub(crate) fn to_f32(&self) -> f32 {
        match self {
            Number::Integer(n) => *n as f32,
            Number::Float(f) => *f,
            Number::Double(d) => *d as f32,
            Number::Decimal(d) => d.to_string().parse().unwrap_or(f32::NAN),
        }
    }

    /// Java's `Number.doubleValue()`.
    pub(crate) fn to_f64(&self) -> f64 {
        match self {
            Number::Integer(n) => *n as f64,
            Number::Float(f) => f64::from(*f),
            Number::Double(d) => *d,
            Number::Decimal(d) => d.to_f64(),
        }
    }

    /// The value as a decimal: integers exactly, floats by their shortest decimal form.
    ///
    /// # Errors
    ///
    /// NaN and the infinities have no decimal form.
    pub(crate) fn to_decimal(&self) -> CqlResult<Decimal> {
        let d = match self {
            Number::Integer(n) => Some(Decimal {
                unscaled: *n,
                scale: 0,
            }),
            Number::Float(f) => Decimal::parse(&crate::functions::text::java_float(*f)),
            Number::Double(d) => Decimal::from_f64(*d),
            Number::Decimal(d) => Some(*d),
        };
        d.ok_or_else(|| {
            let nan = matches!(self, Number::Float(f) if f.is_nan())
                || matches!(self, Number::Double(d) if d.is_nan());
            CqlError::invalid(if nan {
                "A NaN cannot be converted into a decimal"
            } else {
                "An infinite number cannot be converted into a decimal"
            })
        })
    }

    /// Serializes the value as type `ty`, converting as Java's casts do.
    pub(crate) fn encode_as(&self, ty: &ColumnType) -> CqlResult<Bytes> {
        Ok(match ty {
            ColumnType::Tinyint => Bytes::copy_from_slice(&(self.to_i32() as i8).to_be_bytes()),
            ColumnType::Smallint => Bytes::copy_from_slice(&(self.to_i32() as i16).to_be_bytes()),
            ColumnType::Int => Bytes::copy_from_slice(&self.to_i32().to_be_bytes()),
            ColumnType::Bigint | ColumnType::Counter => {
                Bytes::copy_from_slice(&self.to_i64().to_be_bytes())
            }
            ColumnType::Varint => Bytes::from(encode_varint(self.to_i128())),
            ColumnType::Float => Bytes::copy_from_slice(&self.to_f32().to_be_bytes()),
            ColumnType::Double => Bytes::copy_from_slice(&self.to_f64().to_be_bytes()),
            ColumnType::Decimal => self.to_decimal()?.encode(),
            other => return Err(CqlError::invalid(format!("{other} is not a numeric type"))),
        })
    }
}

/// `10^n` when it fits.
fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

impl Decimal {
    /// `[scale: int][unscaled: varint]`.
    pub(crate) fn decode(bytes: &[u8]) -> CqlResult<Decimal> {
        let (scale, rest) = bytes
            .split_first_chunk::<4>()
            .ok_or_else(|| CqlError::invalid("Invalid decimal value"))?;
        Ok(Decimal {
            unscaled: decode_varint(rest).ok_or_else(overflow)?,
            scale: i32::from_be_bytes(*scale),
        })
    }

    /// The serialized form.
    pub(crate) fn encode(&self) -> Bytes {
        let mut out = self.scale.to_be_bytes().to_vec();
        out.extend_from_slice(&encode_varint(self.unscaled));
        Bytes::from(out)
    }

    /// Parses `-12.50`, `1e10`, `1.5E-3` as `BigDecimal(String)` does.
    pub(crate) fn parse(text: &str) -> Option<Decimal> {
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(i) => (&text[..i], text[i + 1..].parse::<i32>().ok()?),
            None => (text, 0),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = format!("{int}{frac}");
        let unsigned = digits.trim_start_matches(['-', '+']);
        if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let unscaled: i128 = digits.parse().ok()?;
        let scale = i32::try_from(frac.len()).ok()?.checked_sub(exponent)?;
        Some(Decimal { unscaled, scale })
    }

    /// `BigDecimal.valueOf(double)`: the decimal of Java's `Double.toString`.
    pub(crate) fn from_f64(d: f64) -> Option<Decimal> {
        if !d.is_finite() {
            return None;
        }
        Decimal::parse(&crate::functions::text::java_double(d))
    }

    /// The nearest double.
    pub(crate) fn to_f64(self) -> f64 {
        format!("{}e{}", self.unscaled, -i64::from(self.scale))
            .parse()
            .unwrap_or(f64::NAN)
    }

    /// The integer part, truncated toward zero.
    pub(crate) fn trunc(self) -> i128 {
        match self.scale {
            s if s <= 0 => pow10(s.unsigned_abs())
                .and_then(|p| self.unscaled.checked_mul(p))
                .unwrap_or(if self.unscaled < 0 {
                    i128::MIN
                } else {
                    i128::MAX
                }),
            s => pow10(s.unsigned_abs()).map_or(0, |p| self.unscaled / p),
        }
    }

    /// The same value at a larger scale.
    pub(crate) fn rescale(self, scale: i32) -> CqlResult<Decimal> {
        let shift = u32::try_from(scale - self.scale).map_err(|_| overflow())?;
        let unscaled = pow10(shift)
            .and_then(|p| self.unscaled.checked_mul(p))
            .ok_or_else(overflow)?;
        Ok(Decimal { unscaled, scale })
    }

    /// Both values at the larger of their scales.
    pub(crate) fn align(self, other: Decimal) -> CqlResult<(Decimal, Decimal)> {
        let scale = self.scale.max(other.scale);
        Ok((self.rescale(scale)?, other.rescale(scale)?))
    }

    /// Numeric comparison (`compareTo`), ignoring scale.
    pub(crate) fn cmp_value(&self, other: &Decimal) -> Ordering {
        match self.align(*other) {
            Ok((a, b)) => a.unscaled.cmp(&b.unscaled),
            Err(_) => self
                .to_f64()
                .partial_cmp(&other.to_f64())
                .unwrap_or(Ordering::Equal),
        }
    }

    /// `BigDecimal.toString()`: plain unless the scale is negative or the value is tiny.
    fn render(&self) -> String {
        let digits = self.unscaled.unsigned_abs().to_string();
        let sign = if self.unscaled < 0 { "-" } else { "" };
        let len = digits.len() as i64;
        let adjusted = -i64::from(self.scale) + (len - 1);
        if self.scale >= 0 && adjusted >= -6 {
            let scale = self.scale as usize;
            if scale == 0 {
                format!("{sign}{digits}")
            } else if digits.len() > scale {
                let (int, frac) = digits.split_at(digits.len() - scale);
                format!("{sign}{int}.{frac}")
            } else {
                format!("{sign}0.{}{digits}", "0".repeat(scale - digits.len()))
            }
        } else {
            let (first, rest) = digits.split_at(1);
            let point = if rest.is_empty() {
                String::new()
            } else {
                format!(".{rest}")
            };
            let exp_sign = if adjusted >= 0 { "+" } else { "" };
            format!("{sign}{first}{point}E{exp_sign}{adjusted}")
        }
    }
}

impl std::fmt::Display for Decimal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.render())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_parse_and_print_like_big_decimal() {
        let d = Decimal::parse("6.30").expect("parses");
        assert_eq!((d.unscaled, d.scale), (630, 2));
        assert_eq!(d.to_string(), "6.30");
        assert_eq!(Decimal::parse("1E+3").expect("parses").to_string(), "1E+3");
        assert_eq!(
            Decimal::parse("-0.0000001").expect("parses").to_string(),
            "-1E-7"
        );
        assert_eq!(
            Decimal::parse("0.000001").expect("parses").to_string(),
            "0.000001"
        );
        assert_eq!(Decimal::parse("abc"), None);
    }

    #[test]
    fn conversions_follow_java() {
        let f = Number::Float(5.2);
        assert_eq!(f.to_i32(), 5);
        assert_eq!(f.to_f64(), f64::from(5.2f32));
        assert_eq!(f.to_decimal().expect("finite").to_string(), "5.2");
        assert_eq!(Number::Integer(300).to_i32() as i8, 44);
        assert_eq!(Number::Double(1e300).to_i64(), i64::MAX);
        let d = Number::Decimal(Decimal::parse("-6.9").expect("parses"));
        assert_eq!(d.to_i64(), -6);
    }

    #[test]
    fn decode_checks_sizes() {
        assert_eq!(
            Number::decode(&ColumnType::Int, &[0, 0, 0, 7]).expect("int"),
            Some(Number::Integer(7))
        );
        assert!(Number::decode(&ColumnType::Int, &[0, 7]).is_err());
        assert_eq!(Number::decode(&ColumnType::Int, &[]).expect("empty"), None);
    }

    #[test]
    fn big_varints_narrow_like_big_integer() {
        let big = [
            0x11u8, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
            0xff, 0x01, 0x23,
        ];
        assert_eq!(varint_low_bytes(&big, 4), vec![0xee, 0xff, 0x01, 0x23]);
        assert_eq!(varint_low_bytes(&[0x80], 2), vec![0xff, 0x80]);
    }

    #[test]
    fn varints_round_trip_minimally() {
        for n in [0i128, 1, -1, 127, 128, -128, -129, 1 << 70] {
            assert_eq!(decode_varint(&encode_varint(n)), Some(n));
        }
        assert_eq!(encode_varint(128), vec![0x00, 0x80]);
    }
}
