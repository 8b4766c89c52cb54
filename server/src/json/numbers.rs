//! Decimal text of `varint` and `decimal` values, as Java's `BigInteger.toString` and
//! `BigDecimal.toString` write them.

/// Decimal digits of a big-endian two's-complement integer (`-` for negatives).
pub(crate) fn varint_string(bytes: &[u8]) -> String {
    crate::functions::numeric::varint_to_string(bytes)
}

/// Java's `BigDecimal.toString`: plain notation when the scale is not negative and the
/// adjusted exponent is at least -6, else one digit, a fraction and `E±n`.
pub(crate) fn decimal_string(unscaled: &[u8], scale: i32) -> String {
    let text = varint_string(unscaled);
    let (sign, digits) = match text.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", text.as_str()),
    };
    let scale = i64::from(scale);
    let adjusted = digits.len() as i64 - 1 - scale;
    if scale >= 0 && adjusted >= -6 {
        if scale == 0 {
            return format!("{sign}{digits}");
        }
        let scale = scale as usize;
        if digits.len() > scale {
            let (int, frac) = digits.split_at(digits.len() - scale);
            return format!("{sign}{int}.{frac}");
        }
        let zeros = "0".repeat(scale - digits.len());
        return format!("{sign}0.{zeros}{digits}");
    }
    let (first, rest) = digits.split_at(1);
    let fraction = if rest.is_empty() {
        String::new()
    } else {
        format!(".{rest}")
    };
    let exp_sign = if adjusted >= 0 { "+" } else { "" };
    format!("{sign}{first}{fraction}E{exp_sign}{adjusted}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::values::varint_bytes;

    #[test]
    fn varints_print_like_biginteger() {
        for n in [
            "0",
            "1",
            "-1",
            "127",
            "128",
            "-128",
            "-129",
            "123123123123123123123",
        ] {
            let bytes = varint_bytes(n).unwrap();
            assert_eq!(varint_string(&bytes), n);
        }
    }

    #[test]
    fn decimals_print_like_bigdecimal() {
        let d = |unscaled: &str, scale| decimal_string(&varint_bytes(unscaled).unwrap(), scale);
        assert_eq!(d("123123123123", 6), "123123.123123");
        assert_eq!(d("123", 0), "123");
        assert_eq!(d("-123", 12 + 2), "-1.23E-12");
        assert_eq!(d("5", 3), "0.005");
        assert_eq!(d("12", -3), "1.2E+4");
        assert_eq!(d("1", 7), "1E-7");
    }
}
