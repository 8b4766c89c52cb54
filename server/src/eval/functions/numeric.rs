//! Numbers as the operators and casts see them: serialized values of the nine numeric types
//! decoded into one [`Number`], and Java's conversions between them (`Number.intValue()` and
//! friends: narrowing keeps the low bits, floats saturate), with `varint` as a `BigInteger`
//! and `decimal` as a `BigDecimal` of any size.

use bigdecimal::num_bigint::BigInt;
use bigdecimal::BigDecimal;
use bytes::Bytes;
use cql::types::number_text::varint_to_text;
use cql::types::ColumnType;

use super::decimal;
use crate::error::{CqlResult, ValueError};

/// A decoded numeric value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Number {
    /// tinyint, smallint, int, bigint and counter.
    Integer(i128),
    /// varint, as Java's `BigInteger`.
    Varint(BigInt),
    Float(f32),
    Double(f64),
    /// decimal, as Java's `BigDecimal`.
    Decimal(BigDecimal),
}

fn fixed<const N: usize>(bytes: &[u8]) -> Result<[u8; N], ValueError> {
    bytes.try_into().map_err(|_| ValueError::WrongSize {
        expected: N,
        given: bytes.len(),
    })
}

/// The text Rust's correctly rounded float parsers read for `BigInteger.doubleValue()` (and
/// `floatValue()`): the digits while they are few enough to print, else `±inf`, which is what
/// a number beyond every float's range rounds to anyway.
fn varint_float_text(n: &BigInt) -> String {
    // 10^400 overflows both float types; a value of 1,400 bits or more is larger still.
    if n.bits() > 1_400 {
        return if n.sign() == bigdecimal::num_bigint::Sign::Minus {
            "-inf"
        } else {
            "inf"
        }
        .into();
    }
    varint_to_text(&n.to_signed_bytes_be()).unwrap_or_else(|_| "NaN".into())
}

impl Number {
    /// Decodes a value of numeric type `ty`; `None` for the empty value.
    ///
    /// # Errors
    ///
    /// A value of the wrong size, or a type that is not numeric.
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
            ColumnType::Varint => Number::Varint(BigInt::from_signed_bytes_be(bytes)),
            ColumnType::Float => Number::Float(f32::from_be_bytes(fixed(bytes)?)),
            ColumnType::Double => Number::Double(f64::from_be_bytes(fixed(bytes)?)),
            ColumnType::Decimal => {
                Number::Decimal(decimal::decode(bytes).ok_or(ValueError::InvalidDecimal)?)
            }
            other => {
                return Err(ValueError::NotNumeric {
                    ty: other.clone().into(),
                }
                .into())
            }
        };
        Ok(Some(n))
    }

    /// Java's `Number.intValue()`: integers keep their low 32 bits, floats saturate, decimals
    /// truncate toward zero first.
    pub(crate) fn to_i32(&self) -> i32 {
        match self {
            Number::Float(f) => *f as i32,
            Number::Double(d) => *d as i32,
            other => other.to_i64() as i32,
        }
    }

    /// Java's `Number.longValue()`.
    pub(crate) fn to_i64(&self) -> i64 {
        match self {
            Number::Integer(n) => *n as i64,
            Number::Varint(n) => decimal::low_bits(n),
            Number::Float(f) => *f as i64,
            Number::Double(d) => *d as i64,
            Number::Decimal(d) => decimal::low_i64(d),
        }
    }

    /// Java's `Number.floatValue()`.
    pub(crate) fn to_f32(&self) -> f32 {
        match self {
            Number::Integer(n) => *n as f32,
            Number::Varint(n) => varint_float_text(n).parse().unwrap_or(f32::NAN),
            Number::Float(f) => *f,
            Number::Double(d) => *d as f32,
            Number::Decimal(d) => decimal::to_f32(d),
        }
    }

    /// Java's `Number.doubleValue()`.
    pub(crate) fn to_f64(&self) -> f64 {
        match self {
            Number::Integer(n) => *n as f64,
            Number::Varint(n) => varint_float_text(n).parse().unwrap_or(f64::NAN),
            Number::Float(f) => f64::from(*f),
            Number::Double(d) => *d,
            Number::Decimal(d) => decimal::to_f64(d),
        }
    }

    /// `IntegerType.toBigInteger`: a varint as it is, any other number by its `longValue()`.
    pub(crate) fn to_big_integer(&self) -> BigInt {
        match self {
            Number::Varint(n) => n.clone(),
            other => BigInt::from(other.to_i64()),
        }
    }

    /// `DecimalType.toBigDecimal`, the operand of decimal arithmetic: decimals and varints
    /// exactly, any other number by `BigDecimal.valueOf(doubleValue())`.
    ///
    /// # Errors
    ///
    /// NaN and the infinities have no decimal form.
    pub(crate) fn to_decimal_operand(&self) -> CqlResult<BigDecimal> {
        match self {
            Number::Decimal(d) => Ok(d.clone()),
            Number::Varint(n) => Ok(BigDecimal::new(n.clone(), 0)),
            other => double_to_decimal(other.to_f64()),
        }
    }

    /// The decimal `CAST(x AS decimal)` gives (`CastFcts.getDecimalConversionFunction`): a
    /// float by `Float.toString`, a double by `BigDecimal.valueOf`, integers exactly.
    ///
    /// # Errors
    ///
    /// NaN and the infinities have no decimal form.
    pub(crate) fn to_decimal_cast(&self) -> CqlResult<BigDecimal> {
        match self {
            Number::Integer(n) => Ok(BigDecimal::new(BigInt::from(*n), 0)),
            Number::Float(f) if f.is_finite() => {
                decimal::parse(&crate::eval::java_text::java_float(*f))
                    .ok_or_else(|| ValueError::InvalidFloat.into())
            }
            Number::Float(f) => double_to_decimal(f64::from(*f)),
            other => other.to_decimal_operand(),
        }
    }

    /// Serializes the value as type `ty`: a value of that type as it is, any other as Java's
    /// casts convert it.
    ///
    /// # Errors
    ///
    /// A float with no decimal form, a decimal whose scale overflows an `int`, or a type that
    /// is not numeric.
    pub(crate) fn encode_as(&self, ty: &ColumnType) -> CqlResult<Bytes> {
        Ok(match ty {
            ColumnType::Tinyint => Bytes::copy_from_slice(&(self.to_i32() as i8).to_be_bytes()),
            ColumnType::Smallint => Bytes::copy_from_slice(&(self.to_i32() as i16).to_be_bytes()),
            ColumnType::Int => Bytes::copy_from_slice(&self.to_i32().to_be_bytes()),
            ColumnType::Bigint | ColumnType::Counter => {
                Bytes::copy_from_slice(&self.to_i64().to_be_bytes())
            }
            // `CastFcts`: `BigInteger.valueOf(p.longValue())`.
            ColumnType::Varint => Bytes::from(self.to_big_integer().to_signed_bytes_be()),
            ColumnType::Float => Bytes::copy_from_slice(&self.to_f32().to_be_bytes()),
            ColumnType::Double => Bytes::copy_from_slice(&self.to_f64().to_be_bytes()),
            ColumnType::Decimal => decimal::encode(&self.to_decimal_cast()?)
                .map_err(|reason| ValueError::DecimalScale { reason })?,
            other => {
                return Err(ValueError::NotNumeric {
                    ty: other.clone().into(),
                }
                .into())
            }
        })
    }
}

/// `BigDecimal.valueOf(double)`, refusing NaN and the infinities with Cassandra's messages.
fn double_to_decimal(d: f64) -> CqlResult<BigDecimal> {
    decimal::from_f64(d).ok_or_else(|| {
        if d.is_nan() {
            ValueError::NanToDecimal.into()
        } else {
            ValueError::InfiniteToDecimal.into()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(text: &str) -> Number {
        Number::Decimal(decimal::parse(text).expect("decimal"))
    }

    #[test]
    fn conversions_follow_java() {
        let f = Number::Float(5.2);
        assert_eq!(f.to_i32(), 5);
        assert_eq!(f.to_f64(), f64::from(5.2f32));
        // CAST reads the float's own text; arithmetic its double value.
        assert_eq!(
            decimal::java_string(&f.to_decimal_cast().expect("finite")),
            "5.2"
        );
        assert_eq!(
            decimal::java_string(&f.to_decimal_operand().expect("finite")),
            "5.199999809265137"
        );
        assert_eq!(Number::Integer(300).to_i32() as i8, 44);
        assert_eq!(Number::Double(1e300).to_i64(), i64::MAX);
        assert_eq!(dec("-6.9").to_i64(), -6);
        assert!(Number::Double(f64::NAN).to_decimal_operand().is_err());
    }

    #[test]
    fn big_values_narrow_to_their_low_bits() {
        // 2^100 + 5: the low 64 bits are 5.
        let big: BigInt = (BigInt::from(1) << 100u32) + BigInt::from(5);
        assert_eq!(Number::Varint(big.clone()).to_i64(), 5);
        assert_eq!(Number::Varint(-big).to_i32(), -5);
        assert_eq!(dec("1267650600228229401496703205381.75").to_i64(), 5);
        assert_eq!(dec("1E+100").to_i64(), 0);
        assert_eq!(dec("1E+1000000000").to_i32(), 0);
        assert_eq!(dec("1E+400").to_f64(), f64::INFINITY);
        assert_eq!(dec("-1E-400").to_f64(), 0.0);
        assert_eq!(dec("1.5").to_f32(), 1.5);
    }

    #[test]
    fn casts_to_varint_go_through_long_value() {
        let out = dec("1E+30").encode_as(&ColumnType::Varint).expect("varint");
        let long = decimal::low_bits(&"1000000000000000000000000000000".parse().expect("int"));
        assert_eq!(out, Bytes::from(BigInt::from(long).to_signed_bytes_be()));
        let out = Number::Double(1e30)
            .encode_as(&ColumnType::Varint)
            .expect("varint");
        assert_eq!(
            out,
            Bytes::from(BigInt::from(i64::MAX).to_signed_bytes_be())
        );
    }

    #[test]
    fn decode_checks_sizes() {
        assert_eq!(
            Number::decode(&ColumnType::Int, &[0, 0, 0, 7]).expect("int"),
            Some(Number::Integer(7))
        );
        assert!(Number::decode(&ColumnType::Int, &[0, 7]).is_err());
        assert_eq!(Number::decode(&ColumnType::Int, &[]).expect("empty"), None);
        let long = [0x7f; 40];
        assert_eq!(
            Number::decode(&ColumnType::Varint, &long).expect("varint"),
            Some(Number::Varint(BigInt::from_signed_bytes_be(&long)))
        );
    }

    #[test]
    fn big_varints_narrow_like_big_integer() {
        let big = [
            0x11u8, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
            0xff, 0x01, 0x23,
        ];
        assert_eq!(
            decimal::varint_low_bytes(&big, 4),
            vec![0xee, 0xff, 0x01, 0x23]
        );
        assert_eq!(decimal::varint_low_bytes(&[0x80], 2), vec![0xff, 0x80]);
    }
}
