//! Java's text forms, as Cassandra prints values: `Double.toString`, `Float.toString` and
//! `InetAddress.getHostAddress` (CAST to text, JSON, DESCRIBE).

use std::net::IpAddr;

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
}
