//! Java's `BigDecimal` as Cassandra's `DecimalType` uses it, on [`BigDecimal`] from the
//! `bigdecimal` crate: the wire form, `add`/`subtract`/`multiply` rounded to
//! `MathContext(10000)` (HALF_UP) with Java's shortcut for far-apart operands, Cassandra's
//! division scale rule, `remainder`, and `toString`. Errors carry Java's exception message
//! (`Division by zero`), which the operators wrap in Cassandra's `FUNCTION_FAILURE`.
//!
//! Java computes exactly where these functions refuse: a result that would need more than
//! [`MAX_DIGITS`] digits (`1E+1000000000 / 3`) is an error here, where Java would spend
//! minutes and gigabytes on it.

use std::cmp::Ordering;

use bigdecimal::num_bigint::{BigInt, Sign};
use bigdecimal::{BigDecimal, Signed, Zero};
use bytes::Bytes;
use cql::types::number_text::{decimal_to_text, NumberTextError, MAX_DIGITS};
use num_integer::Integer;

/// `DecimalType.MAX_PRECISION`: the significant digits `+`, `-` and `*` keep.
pub(crate) const MAX_PRECISION: u64 = 10_000;

/// `DecimalType.MIN_SCALE`: the smallest scale of a quotient, also the significant digits it
/// aims for.
const MIN_SCALE: i64 = 32;

/// `DecimalType.MAX_SCALE`: the largest scale of a quotient.
const MAX_SCALE: i64 = 1000;

/// How a dropped fraction rounds (Java's `RoundingMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rounding {
    /// Away from zero from one half up.
    HalfUp,
    /// To the even neighbour on exactly one half.
    HalfEven,
}

/// `[scale: int][unscaled: varint]`; `None` when shorter than 5 bytes.
pub(crate) fn decode(bytes: &[u8]) -> Option<BigDecimal> {
    let (scale, unscaled) = bytes.split_first_chunk::<4>()?;
    if unscaled.is_empty() {
        return None;
    }
    Some(BigDecimal::new(
        BigInt::from_signed_bytes_be(unscaled),
        i64::from(i32::from_be_bytes(*scale)),
    ))
}

/// The wire form. A scale beyond an `int` fails as Java's `checkScale` does (`Underflow` for
/// a value too small, `Overflow` for one too large); a zero takes the nearest scale.
pub(crate) fn encode(d: &BigDecimal) -> Result<Bytes, String> {
    let (unscaled, scale) = d.as_bigint_and_scale();
    let scale = match i32::try_from(scale) {
        Ok(s) => s,
        Err(_) if unscaled.is_zero() => scale.clamp(i32::MIN.into(), i32::MAX.into()) as i32,
        Err(_) if scale > 0 => return Err("Underflow".into()),
        Err(_) => return Err("Overflow".into()),
    };
    let mut out = scale.to_be_bytes().to_vec();
    out.extend_from_slice(&unscaled.to_signed_bytes_be());
    Ok(Bytes::from(out))
}

/// `BigDecimal.precision()`: the digits of the unscaled value (1 for zero).
pub(crate) fn precision(d: &BigDecimal) -> i64 {
    i64::try_from(d.digits()).unwrap_or(i64::MAX).max(1)
}

/// The error for a result of more than [`MAX_DIGITS`] digits.
pub(crate) fn too_many_digits(digits: i64) -> String {
    NumberTextError::TooManyDigits {
        digits: usize::try_from(digits).unwrap_or(usize::MAX),
        max: MAX_DIGITS,
    }
    .to_string()
}

/// `10^n`.
fn ten_pow(n: u64) -> BigInt {
    num_traits::pow(BigInt::from(10u8), usize::try_from(n).unwrap_or(usize::MAX))
}

/// `n / d` rounded by `mode` (`d` not zero).
pub(crate) fn div_round(n: &BigInt, d: &BigInt, mode: Rounding) -> BigInt {
    let (q, r) = n.div_rem(d);
    if r.is_zero() {
        return q;
    }
    let away = match (r.magnitude() * 2u8).cmp(d.magnitude()) {
        Ordering::Greater => true,
        Ordering::Less => false,
        Ordering::Equal => mode == Rounding::HalfUp || q.is_odd(),
    };
    if !away {
        return q;
    }
    // The exact quotient's sign: the remainder carries the dividend's.
    if (n.sign() == Sign::Minus) == (d.sign() == Sign::Minus) {
        q + 1
    } else {
        q - 1
    }
}

/// `d` at a larger or equal `scale`, exactly.
fn upscale(d: &BigDecimal, scale: i64) -> BigInt {
    let (unscaled, from) = d.as_bigint_and_scale();
    unscaled.as_ref() * ten_pow(scale.abs_diff(from))
}

/// `d` at `scale`, rounding by `mode` when digits are dropped.
pub(crate) fn with_scale(d: &BigDecimal, scale: i64, mode: Rounding) -> BigDecimal {
    let (unscaled, from) = d.as_bigint_and_scale();
    let unscaled = if scale >= from {
        upscale(d, scale)
    } else {
        div_round(&unscaled, &ten_pow(from.abs_diff(scale)), mode)
    };
    BigDecimal::new(unscaled, scale)
}

/// Java's `doRound`: `d` with at most `digits` significant digits, HALF_UP.
fn round_to_precision(mut d: BigDecimal, digits: u64) -> BigDecimal {
    let digits = i64::try_from(digits).unwrap_or(i64::MAX);
    loop {
        let drop = precision(&d) - digits;
        if drop <= 0 {
            return d;
        }
        let scale = d.as_bigint_and_scale().1 - drop;
        d = with_scale(&d, scale, Rounding::HalfUp);
    }
}

/// Java's `stripZerosToMatchScale`: trailing zeros removed while the scale is above
/// `preferred`.
fn strip_zeros_to_scale(d: BigDecimal, preferred: i64) -> BigDecimal {
    let (mut unscaled, mut scale) = d.into_bigint_and_scale();
    let ten = BigInt::from(10u8);
    while scale > preferred && !unscaled.is_zero() {
        let (q, r) = unscaled.div_rem(&ten);
        if !r.is_zero() {
            break;
        }
        unscaled = q;
        scale -= 1;
    }
    BigDecimal::new(unscaled, scale)
}

/// `BigDecimal.stripTrailingZeros()`: zero is `0` at scale 0.
pub(crate) fn strip_trailing_zeros(d: BigDecimal) -> BigDecimal {
    if d.is_zero() {
        return BigDecimal::zero();
    }
    strip_zeros_to_scale(d, i64::MIN)
}

/// `x.add(y, MathContext(10000))`: exact when the sum has at most 10,000 digits, else
/// rounded HALF_UP; an operand too small to show in the result is condensed first, as Java's
/// `preAlign` does, so `1E+1000000000 + 1` is cheap.
pub(crate) fn add(x: &BigDecimal, y: &BigDecimal) -> BigDecimal {
    let (sx, sy) = (scale(x), scale(y));
    if x.is_zero() || y.is_zero() {
        return add_to_zero(x, y, sx.max(sy));
    }
    let (big, small) = if sx <= sy { (x, y) } else { (y, x) };
    let prec = i64::try_from(MAX_PRECISION).unwrap_or(i64::MAX);
    let est_ulp_scale = scale(big) - precision(big) + prec;
    let small_high_digit = scale(small) - precision(small) + 1;
    let condensed;
    let small = if small_high_digit > scale(big) + 2 && small_high_digit > est_ulp_scale + 2 {
        let sign = if small.is_negative() { -1 } else { 1 };
        condensed = BigDecimal::new(BigInt::from(sign), scale(big).max(est_ulp_scale) + 3);
        &condensed
    } else {
        small
    };
    round_to_precision(big + small, MAX_PRECISION)
}

/// Java's `add` with a zero operand: the other, rounded, at the larger scale if the
/// precision allows.
fn add_to_zero(x: &BigDecimal, y: &BigDecimal, preferred: i64) -> BigDecimal {
    if x.is_zero() && y.is_zero() {
        return BigDecimal::new(BigInt::zero(), preferred);
    }
    let other = if x.is_zero() { y } else { x };
    let result = round_to_precision(other.clone(), MAX_PRECISION);
    let s = scale(&result);
    match s.cmp(&preferred) {
        Ordering::Equal => result,
        Ordering::Greater => strip_zeros_to_scale(result, preferred),
        Ordering::Less => {
            let room = i64::try_from(MAX_PRECISION).unwrap_or(i64::MAX) - precision(&result);
            with_scale(&result, s + room.min(preferred - s), Rounding::HalfUp)
        }
    }
}

/// `x.subtract(y, MathContext(10000))`.
pub(crate) fn subtract(x: &BigDecimal, y: &BigDecimal) -> BigDecimal {
    add(x, &-y)
}

/// `x.multiply(y, MathContext(10000))`.
pub(crate) fn multiply(x: &BigDecimal, y: &BigDecimal) -> BigDecimal {
    round_to_precision(x * y, MAX_PRECISION)
}

/// The scale of `d`.
pub(crate) fn scale(d: &BigDecimal) -> i64 {
    d.as_bigint_and_scale().1
}

/// Cassandra's `DecimalType.divide`: the quotient at a scale giving about 32 significant
/// digits (at least 32, at least either operand's scale, at most 1000), rounded HALF_UP,
/// trailing zeros stripped.
pub(crate) fn divide(x: &BigDecimal, y: &BigDecimal) -> Result<BigDecimal, String> {
    if y.is_zero() {
        return Err(if x.is_zero() {
            "/ by zero".into()
        } else {
            "BigInteger divide by zero".into()
        });
    }
    let (sx, sy) = (scale(x), scale(y));
    let first_digit = (precision(x) - sx) - (precision(y) - sy);
    let scale = (MIN_SCALE.saturating_sub(first_digit))
        .max(sx)
        .max(sy)
        .clamp(MIN_SCALE, MAX_SCALE);
    // x / y at `scale` is ux * 10^shift / uy.
    let shift = scale - sx + sy;
    let (ux, uy) = (x.as_bigint_and_scale().0, y.as_bigint_and_scale().0);
    let quotient = if shift >= 0 {
        let digits = precision(x).saturating_add(shift) - precision(y) + 1;
        if digits > MAX_DIGITS as i64 {
            return Err(too_many_digits(digits));
        }
        div_round(
            &(ux.as_ref() * ten_pow(shift.unsigned_abs())),
            &uy,
            Rounding::HalfUp,
        )
    } else if -shift > precision(x) - precision(y) + 1 {
        // The quotient is below 0.1 units of the last place: it rounds to zero.
        BigInt::zero()
    } else {
        div_round(
            &ux,
            &(uy.as_ref() * ten_pow(shift.unsigned_abs())),
            Rounding::HalfUp,
        )
    };
    Ok(strip_trailing_zeros(BigDecimal::new(quotient, scale)))
}

/// `x.remainder(y)`: `x - y × trunc(x / y)`, the sign of `x`, at the scale Java's
/// `divideToIntegralValue` and `subtract` give it.
pub(crate) fn remainder(x: &BigDecimal, y: &BigDecimal) -> Result<BigDecimal, String> {
    if y.is_zero() {
        return Err(if x.is_zero() {
            "Division undefined".into()
        } else {
            "Division by zero".into()
        });
    }
    if compare_magnitude(x, y) == Ordering::Less {
        return Ok(x.clone());
    }
    let (sx, sy) = (scale(x), scale(y));
    let common = sx.max(sy);
    let digits = precision(x)
        .max(precision(y))
        .saturating_add(sx.abs_diff(sy).try_into().unwrap_or(i64::MAX));
    if digits > MAX_DIGITS as i64 {
        return Err(too_many_digits(digits));
    }
    let (a, b) = (upscale(x, common), upscale(y, common));
    let (quotient, rest) = a.div_rem(&b);
    let preferred = sx - sy;
    let quotient_scale = if preferred >= 0 {
        preferred
    } else {
        preferred.max(-trailing_zeros(&quotient, preferred.unsigned_abs()))
    };
    let result_scale = sx.max(quotient_scale + sy);
    // Exact: Java's result has this scale, and it is at most `common`.
    let rest = rest / ten_pow(common.abs_diff(result_scale));
    Ok(BigDecimal::new(rest, result_scale))
}

/// The decimal trailing zeros of `n`, counting at most `limit`.
fn trailing_zeros(n: &BigInt, limit: u64) -> i64 {
    let ten = BigInt::from(10u8);
    let mut n = n.clone();
    let mut count = 0;
    while count < limit && !n.is_zero() {
        let (q, r) = n.div_rem(&ten);
        if !r.is_zero() {
            break;
        }
        n = q;
        count += 1;
    }
    i64::try_from(count).unwrap_or(i64::MAX)
}

/// `|x|` against `|y|`, without expanding far-apart scales.
fn compare_magnitude(x: &BigDecimal, y: &BigDecimal) -> Ordering {
    let (ax, ay) = (x.abs(), y.abs());
    compare(&ax, &ay)
}

/// Numeric order (`compareTo`), scale-blind and cheap for far-apart scales.
pub(crate) fn compare(x: &BigDecimal, y: &BigDecimal) -> Ordering {
    match (encode(x), encode(y)) {
        (Ok(a), Ok(b)) => cql::types::ordering::compare(&cql::types::ColumnType::Decimal, &a, &b),
        _ => x.cmp(y),
    }
}

/// `BigDecimal.toString()`: plain unless the scale is negative or the value is tiny.
pub(crate) fn java_string(d: &BigDecimal) -> String {
    let (unscaled, scale) = d.as_bigint_and_scale();
    let bytes = unscaled.to_signed_bytes_be();
    match i32::try_from(scale) {
        Ok(scale) => decimal_to_text(&bytes, scale).unwrap_or_else(|e| e.to_string()),
        Err(_) => format!("{unscaled}E{}", -scale),
    }
}

/// `new BigDecimal(String)`: `-12.50`, `1e10`, `1.5E-3`.
pub(crate) fn parse(text: &str) -> Option<BigDecimal> {
    match crate::eval::literals::decimal(text).ok()? {
        cql::types::CqlValue::Decimal { unscaled, scale } => Some(BigDecimal::new(
            BigInt::from_signed_bytes_be(&unscaled),
            i64::from(scale),
        )),
        _ => None,
    }
}

/// `BigDecimal.valueOf(double)`: the decimal of Java's `Double.toString`; `None` for NaN and
/// the infinities.
pub(crate) fn from_f64(d: f64) -> Option<BigDecimal> {
    if !d.is_finite() {
        return None;
    }
    parse(&crate::eval::java_text::java_double(d))
}

/// `BigDecimal.doubleValue()`: the nearest double.
pub(crate) fn to_f64(d: &BigDecimal) -> f64 {
    float_text(d).parse().unwrap_or(f64::NAN)
}

/// `BigDecimal.floatValue()`: the nearest float.
pub(crate) fn to_f32(d: &BigDecimal) -> f32 {
    float_text(d).parse().unwrap_or(f32::NAN)
}

/// `unscaledEexponent`, which Rust's correctly rounded float parsers read; a magnitude beyond
/// every float is written as `±inf` or `0` rather than as its digits.
fn float_text(d: &BigDecimal) -> String {
    let (unscaled, scale) = d.as_bigint_and_scale();
    let magnitude = precision(d) - scale;
    if unscaled.is_zero() || magnitude < -400 {
        return if unscaled.is_negative() { "-0" } else { "0" }.into();
    }
    if magnitude > 400 {
        return if unscaled.is_negative() {
            "-inf"
        } else {
            "inf"
        }
        .into();
    }
    // 800 digits decide the rounding of any double; the rest only break ties, as a 1 would.
    let digits = precision(d);
    if digits > 800 {
        let cut = ten_pow((digits - 800).unsigned_abs());
        let (head, tail) = unscaled.div_rem(&cut);
        let sticky = if tail.is_zero() { "0" } else { "1" };
        return format!("{head}{sticky}e{}", -scale + (digits - 800) - 1);
    }
    format!("{unscaled}e{}", -scale)
}

/// `BigDecimal.toBigInteger()`: the integer part, truncated toward zero. A value whose
/// integer part has more than [`MAX_DIGITS`] digits gives `None`.
pub(crate) fn trunc(d: &BigDecimal) -> Option<BigInt> {
    let (unscaled, scale) = d.as_bigint_and_scale();
    if scale >= 0 {
        if scale > precision(d) {
            return Some(BigInt::zero());
        }
        return Some(unscaled.as_ref() / ten_pow(scale.unsigned_abs()));
    }
    if precision(d).saturating_sub(scale) > MAX_DIGITS as i64 {
        return None;
    }
    Some(unscaled.as_ref() * ten_pow(scale.unsigned_abs()))
}

/// `BigDecimal.longValue()`: the low 64 bits of the integer part.
pub(crate) fn low_i64(d: &BigDecimal) -> i64 {
    // 10^64 is a multiple of 2^64: past that the low 64 bits are zero.
    if scale(d) <= -64 {
        return 0;
    }
    trunc(d).map_or(0, |n| low_bits(&n))
}

/// The low 64 bits of `n`'s two's complement.
pub(crate) fn low_bits(n: &BigInt) -> i64 {
    let bytes = n.to_signed_bytes_be();
    let low = varint_low_bytes(&bytes, 8);
    // `varint_low_bytes` returns exactly 8 bytes.
    low.try_into().map_or(0, i64::from_be_bytes)
}

/// The low `width` bytes of a big-endian two's complement integer, sign-extended when it is
/// shorter: Java's narrowing of a `BigInteger`. Always `width` bytes long.
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

#[cfg(test)]
#[path = "decimal_tests.rs"]
mod tests;
