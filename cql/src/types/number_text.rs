//! The decimal text of `varint` and `decimal` values, byte for byte as Java's
//! `BigInteger.toString`/`new BigInteger(String)` and `BigDecimal.toString` write and read it.
//!
//! Base conversion is the one part of a request whose cost grows faster than its size, so it
//! lives here, on `num-bigint`: text to integer splits the digits in halves and joins them
//! with one (Karatsuba/Toom-3) multiplication by a cached power of ten, and integer to text
//! is `num-bigint`'s chunked conversion, both far below quadratic. A literal of 300,000
//! digits converts in tens of milliseconds. Numbers over [`MAX_DIGITS`] are refused rather
//! than converted: past that even these algorithms hold a runtime worker for too long.
//!
//! Callers own the messages for text that is not a number; this module only says why.

use num_bigint::{BigInt, BigUint, Sign};

/// The most significant digits a `varint` (or a `decimal`'s unscaled value) may have as
/// text: a million digits convert in about a tenth of a second (release build), far above
/// any real use; beyond it the cost is refused instead of paid.
pub const MAX_DIGITS: usize = 1_000_000;

/// Digits converted by `num-bigint`'s own digit loop (quadratic, but fast while short);
/// longer text is split in two.
const LEAF_DIGITS: usize = 1_024;

/// Why a number could not be converted to or from text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NumberTextError {
    /// The text is not a number of the expected form (for an integer: an optional sign
    /// followed by ASCII digits).
    /// Origin: ours — a number text that does not parse
    #[error("not a number")]
    Malformed,
    /// The text has more significant digits than [`MAX_DIGITS`].
    /// Origin: ours — a limit of ours on decimal digits
    #[error("a number of {digits} digits exceeds the maximum of {max} digits")]
    TooManyDigits {
        /// The significant digits in the text.
        digits: usize,
        /// [`MAX_DIGITS`].
        max: usize,
    },
    /// The value would print with more than [`MAX_DIGITS`] digits.
    /// Origin: ours — a limit of ours on decimal digits
    #[error("a number of about {digits} digits exceeds the maximum of {max} digits that can be shown as text")]
    TooLargeForText {
        /// An upper bound on the digits the value has.
        digits: u64,
        /// [`MAX_DIGITS`].
        max: usize,
    },
}

/// `new BigInteger(text).toByteArray()`: an optional `-` or `+` and ASCII digits, as the
/// minimal big-endian two's complement (the `varint` wire form; zero is `[0]`).
///
/// # Errors
///
/// [`NumberTextError::Malformed`] for anything else, [`NumberTextError::TooManyDigits`]
/// past [`MAX_DIGITS`] significant digits.
pub fn varint_from_text(text: &str) -> Result<Vec<u8>, NumberTextError> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(NumberTextError::Malformed);
    }
    let significant = digits.trim_start_matches('0');
    if significant.len() > MAX_DIGITS {
        return Err(NumberTextError::TooManyDigits {
            digits: significant.len(),
            max: MAX_DIGITS,
        });
    }
    let magnitude = magnitude_of(significant.as_bytes(), &mut Vec::new());
    let sign = if negative { Sign::Minus } else { Sign::Plus };
    Ok(BigInt::from_biguint(sign, magnitude).to_signed_bytes_be())
}

/// `BigInteger.toString()` of a big-endian two's complement integer of any length (the
/// empty slice is zero).
///
/// # Errors
///
/// [`NumberTextError::TooLargeForText`] for a value of more than [`MAX_DIGITS`] digits.
pub fn varint_to_text(twos_complement: &[u8]) -> Result<String, NumberTextError> {
    let value = BigInt::from_signed_bytes_be(twos_complement);
    let digits = digits_bound(value.bits());
    if digits > MAX_DIGITS as u64 {
        return Err(NumberTextError::TooLargeForText {
            digits,
            max: MAX_DIGITS,
        });
    }
    Ok(value.to_str_radix(10))
}

/// `BigDecimal.toString()` of `unscaled × 10^-scale`: plain notation when the scale is not
/// negative and the adjusted exponent is at least -6, else one digit, a fraction and `E±n`.
///
/// # Errors
///
/// As [`varint_to_text`] for the unscaled value.
pub fn decimal_to_text(unscaled: &[u8], scale: i32) -> Result<String, NumberTextError> {
    let text = varint_to_text(unscaled)?;
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    let adjusted = digits.len() as i64 - 1 - i64::from(scale);
    Ok(match usize::try_from(scale) {
        Ok(scale) if adjusted >= -6 => plain_decimal(sign, digits, scale),
        _ => scientific_decimal(sign, digits, adjusted),
    })
}

/// `123.45`, `0.00123`: the digits with a point `scale` places from the right.
fn plain_decimal(sign: &str, digits: &str, scale: usize) -> String {
    if scale == 0 {
        return format!("{sign}{digits}");
    }
    match digits.len().checked_sub(scale) {
        Some(point) if point > 0 => {
            let (int, frac) = digits.split_at(point);
            format!("{sign}{int}.{frac}")
        }
        _ => {
            let zeros = "0".repeat(scale - digits.len());
            format!("{sign}0.{zeros}{digits}")
        }
    }
}

/// `1.2345E+5`, `-1E-7`: one digit, the others as a fraction, and the adjusted exponent.
fn scientific_decimal(sign: &str, digits: &str, adjusted: i64) -> String {
    let (first, rest) = digits.split_at(1.min(digits.len()));
    let point = if rest.is_empty() { "" } else { "." };
    let exp_sign = if adjusted >= 0 { "+" } else { "" };
    format!("{sign}{first}{point}{rest}E{exp_sign}{adjusted}")
}

/// An upper bound on the decimal digits of a value of `bits` bits
/// (`log10(2) < 0.30103`).
fn digits_bound(bits: u64) -> u64 {
    bits.saturating_mul(30_103) / 100_000 + 1
}

/// The value of ASCII `digits` by divide and conquer: the low part is `LEAF_DIGITS << k`
/// digits, so the power of ten that joins the halves is shared by every split at that level
/// and computed once (`powers[k] = 10^(LEAF_DIGITS << k)`).
fn magnitude_of(digits: &[u8], powers: &mut Vec<BigUint>) -> BigUint {
    if digits.len() <= LEAF_DIGITS {
        // The caller checked that every byte is an ASCII digit, so parsing cannot fail.
        return BigUint::parse_bytes(digits, 10).unwrap_or_default();
    }
    let mut level = 0;
    while LEAF_DIGITS << (level + 1) < digits.len() {
        level += 1;
    }
    let (high, low) = digits.split_at(digits.len() - (LEAF_DIGITS << level));
    let high = magnitude_of(high, powers);
    let low = magnitude_of(low, powers);
    high * power_of_ten(powers, level) + low
}

/// `10^(LEAF_DIGITS << level)`, each level the square of the one below.
fn power_of_ten(powers: &mut Vec<BigUint>, level: usize) -> &BigUint {
    while powers.len() <= level {
        let next = match powers.last() {
            Some(below) => below * below,
            None => BigUint::from(10u8).pow(LEAF_DIGITS as u32),
        };
        powers.push(next);
    }
    &powers[level]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_encode_like_big_integer_to_byte_array() {
        let cases: [(&str, &[u8]); 9] = [
            ("0", &[0x00]),
            ("-0", &[0x00]),
            ("+127", &[0x7f]),
            ("128", &[0x00, 0x80]),
            ("-1", &[0xff]),
            ("-128", &[0x80]),
            ("-129", &[0xff, 0x7f]),
            ("000255", &[0x00, 0xff]),
            ("65536", &[0x01, 0x00, 0x00]),
        ];
        for (text, bytes) in cases {
            assert_eq!(varint_from_text(text).as_deref(), Ok(bytes), "{text}");
        }
        for bad in [
            "", "-", "+", "1.5", "1e3", "--1", "+-1", " 1", "0x10", "1_000",
        ] {
            assert_eq!(
                varint_from_text(bad),
                Err(NumberTextError::Malformed),
                "{bad}"
            );
        }
    }

    #[test]
    fn integers_print_like_big_integer_to_string() {
        let big = [
            0x11u8, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee,
            0xff, 0x01, 0x23,
        ];
        assert_eq!(
            varint_to_text(&big).as_deref(),
            Ok("5830260182622385135042017849058395095331")
        );
        assert_eq!(varint_to_text(&[0xff, 0x38]).as_deref(), Ok("-200"));
        assert_eq!(varint_to_text(&[0x00]).as_deref(), Ok("0"));
        assert_eq!(varint_to_text(&[]).as_deref(), Ok("0"));
        assert_eq!(varint_to_text(&[0xff, 0xff, 0x80]).as_deref(), Ok("-128"));
    }

    #[test]
    fn decimals_print_like_big_decimal_to_string() {
        let d = |unscaled: &str, scale| {
            let bytes = varint_from_text(unscaled).expect("integer");
            decimal_to_text(&bytes, scale).expect("printable")
        };
        assert_eq!(d("123123123123", 6), "123123.123123");
        assert_eq!(d("123", 0), "123");
        assert_eq!(d("-123", 14), "-1.23E-12");
        assert_eq!(d("5", 3), "0.005");
        assert_eq!(d("-5", 3), "-0.005");
        assert_eq!(d("12", -3), "1.2E+4");
        assert_eq!(d("1", 7), "1E-7");
        assert_eq!(d("1", 6), "0.000001");
        assert_eq!(d("0", 2), "0.00");
        assert_eq!(d("0", -2), "0E+2");
        assert_eq!(d("123", 3), "0.123");
        assert_eq!(d("7", i32::MIN), "7E+2147483648");
        assert_eq!(d("7", i32::MAX), "7E-2147483647");
    }

    /// Digits that are not a repetition of a short pattern, so a wrong split shows.
    fn digits(count: usize) -> String {
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        (0..count)
            .map(|i| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let digit = (state % 10) as u8;
                // No leading zero, so the text is its own canonical form.
                char::from(b'0' + if i == 0 { digit.max(1) } else { digit })
            })
            .collect()
    }

    #[test]
    fn long_numbers_round_trip_across_every_split() {
        for count in [
            LEAF_DIGITS - 1,
            LEAF_DIGITS,
            LEAF_DIGITS + 1,
            2 * LEAF_DIGITS,
            2 * LEAF_DIGITS + 1,
            5 * LEAF_DIGITS + 17,
        ] {
            let text = digits(count);
            let bytes = varint_from_text(&text).expect("integer");
            assert_eq!(varint_to_text(&bytes).as_deref(), Ok(text.as_str()));
            let negative = format!("-{text}");
            let bytes = varint_from_text(&negative).expect("integer");
            assert_eq!(varint_to_text(&bytes).as_deref(), Ok(negative.as_str()));
        }
    }

    #[test]
    fn split_parse_agrees_with_the_digit_loop() {
        let text = digits(9 * LEAF_DIGITS + 5);
        let split = magnitude_of(text.as_bytes(), &mut Vec::new());
        let direct = BigUint::parse_bytes(text.as_bytes(), 10).expect("digits");
        assert_eq!(split, direct);
    }

    /// 300,000 digits (a literal that took 14 s with the former byte-at-a-time conversion)
    /// convert both ways in a debug build in well under a second each.
    #[test]
    fn three_hundred_thousand_digits_convert_both_ways() {
        let text = digits(300_000);
        let bytes = varint_from_text(&text).expect("integer");
        assert_eq!(varint_to_text(&bytes).as_deref(), Ok(text.as_str()));
        let decimal = decimal_to_text(&bytes, 299_999).expect("printable");
        assert_eq!(decimal, format!("{}.{}", &text[..1], &text[1..]));
    }

    #[test]
    fn numbers_past_the_limit_are_refused_both_ways() {
        let too_long = "7".repeat(MAX_DIGITS + 1);
        assert_eq!(
            varint_from_text(&too_long),
            Err(NumberTextError::TooManyDigits {
                digits: MAX_DIGITS + 1,
                max: MAX_DIGITS
            })
        );
        let padded = format!("-{}{}", "0".repeat(MAX_DIGITS), "9".repeat(10));
        assert_eq!(varint_from_text(&padded).map(|b| b.len()), Ok(5));
        let huge = vec![0x7f; MAX_DIGITS / 2];
        assert!(matches!(
            varint_to_text(&huge),
            Err(NumberTextError::TooLargeForText {
                max: MAX_DIGITS,
                ..
            })
        ));
        assert!(decimal_to_text(&huge, 3).is_err());
        assert_eq!(
            NumberTextError::TooManyDigits { digits: 5, max: 4 }.to_string(),
            "a number of 5 digits exceeds the maximum of 4 digits"
        );
    }
}
