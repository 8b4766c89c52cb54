//! `speculative_retry` and `additional_write_policy` as Cassandra 5.0's
//! `SpeculativeRetryPolicy.fromString` reads them: `ALWAYS`, `NEVER` (or `NONE`), a
//! percentile (`99p`, `99.5PERCENTILE`), a fixed time (`50ms`), or `MIN(..)`/`MAX(..)` of
//! one percentile and one fixed time; stored and shown in Cassandra's spelling (`99p`,
//! `50ms`, `MIN(99p,50ms)`).

use crate::error::TableOptionError;
use crate::schema::table_def::java_number::parse_double;

/// One retry policy, kept as the kind `MIN`/`MAX` compare.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Policy {
    Never,
    Fixed(i32),
    Percentile(f64),
    Always,
}

impl Policy {
    /// The kind's name as Cassandra's `SpeculativeRetryPolicy.Kind` prints it.
    fn kind(self) -> &'static str {
        match self {
            Policy::Never => "NEVER",
            Policy::Fixed(_) => "FIXED",
            Policy::Percentile(_) => "PERCENTILE",
            Policy::Always => "ALWAYS",
        }
    }

    fn canonical(self) -> String {
        match self {
            Policy::Never => "NEVER".into(),
            Policy::Always => "ALWAYS".into(),
            Policy::Fixed(ms) => format!("{ms}ms"),
            Policy::Percentile(p) => format!("{}p", four_decimals(p)),
        }
    }
}

/// The stored form of a retry policy written as `text`, or Cassandra's refusal.
pub(crate) fn canonical_retry_policy(text: &str) -> Result<String, TableOptionError> {
    if let Some((function, first, second)) = hybrid_parts(text) {
        return hybrid(text, function, first, second);
    }
    single(text).map(Policy::canonical)
}

fn invalid(text: &str) -> TableOptionError {
    TableOptionError::InvalidRetryPolicy {
        value: text.to_string(),
    }
}

/// `ALWAYS`, `NEVER`/`NONE`, `<n>p`/`<n>percentile` or `<n>ms`, case-insensitively.
fn single(text: &str) -> Result<Policy, TableOptionError> {
    let lower = text.to_ascii_lowercase();
    if lower == "always" {
        return Ok(Policy::Always);
    }
    if lower == "never" || lower == "none" {
        return Ok(Policy::Never);
    }
    let percentile = lower
        .strip_suffix("percentile")
        .or_else(|| lower.strip_suffix('p'));
    if let Some(number) = percentile.filter(|n| number_text(n)) {
        let value = parse_double(number).ok_or_else(|| invalid(text))?;
        if value <= 0.0 || value >= 100.0 {
            return Err(TableOptionError::PercentileOutOfRange {
                value: text.to_string(),
            });
        }
        return Ok(Policy::Percentile(value));
    }
    if let Some(number) = lower.strip_suffix("ms").filter(|n| number_text(n)) {
        let value = parse_double(number).ok_or_else(|| invalid(text))?;
        return Ok(Policy::Fixed(value as i32));
    }
    Err(invalid(text))
}

/// Cassandra's patterns take `[0-9.]+` before the unit.
fn number_text(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
}

/// `MIN(a, b)` or `MAX(a, b)`: the upper-cased function and both arguments, when `text`
/// has that shape (each argument `[0-9.]+[a-z]+`, spaces allowed around the comma).
fn hybrid_parts(text: &str) -> Option<(String, &str, &str)> {
    let open = text.find('(')?;
    let function = text[..open].to_ascii_uppercase();
    if function != "MIN" && function != "MAX" {
        return None;
    }
    let inner = text[open + 1..].strip_suffix(')')?;
    let (first, second) = inner.split_once(',')?;
    let (first, second) = (first.trim_end(), second.trim_start());
    (hybrid_argument(first) && hybrid_argument(second)).then_some((function, first, second))
}

fn hybrid_argument(text: &str) -> bool {
    let unit_start = text
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(unit_start);
    number_text(number) && !unit.is_empty() && unit.bytes().all(|b| b.is_ascii_alphabetic())
}

fn hybrid(
    text: &str,
    function: String,
    first: &str,
    second: &str,
) -> Result<String, TableOptionError> {
    let (first, second) = match (single(first), single(second)) {
        (Ok(first), Ok(second)) => (first, second),
        _ => return Err(invalid(text)),
    };
    if first.kind() == second.kind() {
        return Err(TableOptionError::HybridSameKind {
            value: text.to_string(),
            kind: first.kind(),
        });
    }
    let (percentile, fixed) = match (first, second) {
        (Policy::Percentile(_), fixed @ Policy::Fixed(_)) => (first, fixed),
        (fixed @ Policy::Fixed(_), Policy::Percentile(_)) => (second, fixed),
        // Cassandra casts and fails with a ClassCastException here; refused alike.
        _ => return Err(invalid(text)),
    };
    Ok(format!(
        "{function}({},{})",
        percentile.canonical(),
        fixed.canonical()
    ))
}

/// Java's `DecimalFormat("#.####")`: at most four decimals, no trailing zeros.
fn four_decimals(value: f64) -> String {
    let text = format!("{value:.4}");
    let trimmed = text.trim_end_matches('0').trim_end_matches('.');
    trimmed.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(text: &str) -> String {
        canonical_retry_policy(text).unwrap()
    }

    fn refused(text: &str) -> String {
        canonical_retry_policy(text).unwrap_err().to_string()
    }

    #[test]
    fn valid_policies_take_cassandras_spelling() {
        assert_eq!(stored("99p"), "99p");
        assert_eq!(stored("99.0PERCENTILE"), "99p");
        assert_eq!(stored("99.95percentile"), "99.95p");
        assert_eq!(stored("0.123456p"), "0.1235p");
        assert_eq!(stored("50ms"), "50ms");
        assert_eq!(stored("50.7MS"), "50ms");
        assert_eq!(stored("always"), "ALWAYS");
        assert_eq!(stored("NONE"), "NEVER");
        assert_eq!(stored("never"), "NEVER");
        assert_eq!(stored("min(99p, 50ms)"), "MIN(99p,50ms)");
        assert_eq!(stored("MAX(10ms,90PERCENTILE)"), "MAX(90p,10ms)");
    }

    #[test]
    fn invalid_policies_get_cassandras_messages() {
        assert_eq!(
            refused("dog"),
            "Invalid value dog for option 'speculative_retry'"
        );
        assert_eq!(
            refused("-1ms"),
            "Invalid value -1ms for option 'speculative_retry'"
        );
        assert_eq!(refused(""), "Invalid value  for option 'speculative_retry'");
        assert_eq!(
            refused("..p"),
            "Invalid value ..p for option 'speculative_retry'"
        );
        assert_eq!(
            refused("100p"),
            "Invalid value 100p for PERCENTILE option 'speculative_retry': must be between (0.0 and 100.0)"
        );
        assert_eq!(
            refused("0PERCENTILE"),
            "Invalid value 0PERCENTILE for PERCENTILE option 'speculative_retry': must be between (0.0 and 100.0)"
        );
        assert_eq!(
            refused("MIN(10ms,20ms)"),
            "Invalid value MIN(10ms,20ms) for option 'speculative_retry': MIN()/MAX() arguments should be of different types, but both are of type FIXED"
        );
        assert_eq!(
            refused("MAX(99p,101p)"),
            "Invalid value MAX(99p,101p) for option 'speculative_retry'"
        );
        assert_eq!(
            refused("AVG(99p,10ms)"),
            "Invalid value AVG(99p,10ms) for option 'speculative_retry'"
        );
    }
}
