//! Numbers read from option text as Java reads them (`Integer.parseInt`, `Long.parseLong`,
//! `Double.parseDouble`, `Float.parseFloat`, commons-lang `StringUtils.isNumeric`), so that
//! the options Cassandra accepts or refuses are accepted or refused here alike.

/// `Integer.parseInt`: an optional sign and decimal digits, in `i32`'s range.
pub(crate) fn parse_int(text: &str) -> Option<i32> {
    java_integer_text(text).then(|| text.parse().ok()).flatten()
}

/// `Long.parseLong`: an optional sign and decimal digits, in `i64`'s range.
pub(crate) fn parse_long(text: &str) -> Option<i64> {
    java_integer_text(text).then(|| text.parse().ok()).flatten()
}

/// `Double.parseDouble`: surrounding whitespace ignored, an optional `f`/`d` suffix, `NaN`
/// and `Infinity` spelled as Java spells them (hexadecimal forms are not taken here).
pub(crate) fn parse_double(text: &str) -> Option<f64> {
    let trimmed = text.trim_matches(|c: char| c <= ' ');
    let unsigned = trimmed.trim_start_matches(['+', '-']);
    if unsigned == "NaN" || unsigned == "Infinity" {
        return trimmed.replace("Infinity", "inf").parse().ok();
    }
    let body = unsigned
        .strip_suffix(['f', 'F', 'd', 'D'])
        .unwrap_or(unsigned);
    let decimal = !body.is_empty()
        && body.chars().any(|c| c.is_ascii_digit())
        && body
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'));
    if !decimal || trimmed.len() - unsigned.len() > 1 {
        return None;
    }
    let sign = &trimmed[..trimmed.len() - unsigned.len()];
    format!("{sign}{body}").parse().ok()
}

/// `Float.parseFloat`, with the same rules as [`parse_double`].
pub(crate) fn parse_float(text: &str) -> Option<f32> {
    parse_double(text).map(|d| d as f32)
}

/// commons-lang `StringUtils.isNumeric`: non-empty and only digits (no sign, no point).
pub(crate) fn is_numeric(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Java's `%f`: six digits after the point.
pub(crate) fn java_fixed(value: f64) -> String {
    format!("{value:.6}")
}

fn java_integer_text(text: &str) -> bool {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_take_a_sign_and_digits_only() {
        assert_eq!(parse_int("+7"), Some(7));
        assert_eq!(parse_int("-7"), Some(-7));
        assert_eq!(parse_int(" 7"), None);
        assert_eq!(parse_int("7.0"), None);
        assert_eq!(parse_int("2147483648"), None);
        assert_eq!(parse_long("2147483648"), Some(2_147_483_648));
    }

    #[test]
    fn doubles_read_as_java_reads_them() {
        assert_eq!(parse_double(" 0.5 "), Some(0.5));
        assert_eq!(parse_double("1e3"), Some(1000.0));
        assert_eq!(parse_double("2d"), Some(2.0));
        assert_eq!(parse_double(".5"), Some(0.5));
        assert_eq!(parse_double("-Infinity"), Some(f64::NEG_INFINITY));
        assert!(parse_double("NaN").is_some_and(f64::is_nan));
        assert_eq!(parse_double("inf"), None);
        assert_eq!(parse_double("nan"), None);
        assert_eq!(parse_double("abc"), None);
        assert_eq!(parse_double("--1"), None);
        assert_eq!(parse_double(""), None);
    }

    #[test]
    fn numeric_means_digits_only() {
        assert!(is_numeric("32"));
        assert!(!is_numeric("-1"));
        assert!(!is_numeric(""));
        assert!(!is_numeric("1.5"));
        assert_eq!(java_fixed(-0.4), "-0.400000");
    }
}
