//! `UnifiedCompactionStrategy`'s own options as Apache Cassandra 5.0's
//! `Controller.validateOptions` and `UnifiedCompactionStrategy.parseScalingParameter` check
//! them. The sizes (`target_sstable_size`, `flush_size_override`) are taken by name only:
//! their values are not checked here yet.

use std::collections::BTreeMap;

use crate::error::TableOptionError;
use crate::schema::table_def::compaction::{is_true_or_false, not_parsable};
use crate::schema::table_def::java_number::{parse_int, parse_long};

/// The options of Apache Cassandra 5.0's UCS controller.
pub(crate) const UNIFIED_OPTIONS: [&str; 11] = [
    "scaling_parameters",
    "base_shard_count",
    "target_sstable_size",
    "sstable_growth",
    "min_sstable_size",
    "flush_size_override",
    "max_sstables_to_compact",
    "expired_sstable_check_frequency_seconds",
    "unsafe_aggressive_sstable_expiration",
    "overlap_inclusion_method",
    "parallelize_output_shards",
];

/// `Controller.validateOptions`: the values of the options UCS knows.
pub(crate) fn unified(options: &BTreeMap<String, String>) -> Result<(), TableOptionError> {
    let get = |key: &str| options.get(key).map(String::as_str);
    if let Some(text) = get("scaling_parameters") {
        for parameter in text.split(',') {
            scaling_parameter(parameter.trim())?;
        }
    }
    if let Some(text) = get("base_shard_count") {
        let count = parse_int(text).ok_or_else(|| not_parsable(text, "base_shard_count"))?;
        if count <= 0 {
            let (option, value) = ("base_shard_count", i64::from(count));
            return Err(TableOptionError::NotPositive { option, value });
        }
    }
    if let Some(text) = get("max_sstables_to_compact") {
        parse_int(text).ok_or_else(|| not_parsable(text, "max_sstables_to_compact"))?;
    }
    let check = "expired_sstable_check_frequency_seconds";
    if let Some(text) = get(check) {
        let value = parse_long(text).ok_or_else(|| TableOptionError::NotParsableLong {
            value: text.to_string(),
            option: check,
        })?;
        if value <= 0 {
            return Err(TableOptionError::NotPositive {
                option: check,
                value,
            });
        }
    }
    if let Some(value) =
        get("unsafe_aggressive_sstable_expiration").filter(|v| !is_true_or_false(v))
    {
        let value = value.to_string();
        return Err(TableOptionError::UnifiedUnsafeExpirationNotBoolean { value });
    }
    if let Some(value) = get("overlap_inclusion_method") {
        if !["NONE", "SINGLE", "TRANSITIVE"].contains(&value.to_uppercase().as_str()) {
            let value = value.to_string();
            return Err(TableOptionError::InvalidOverlapInclusionMethod { value });
        }
    }
    Ok(())
}

/// `UnifiedCompactionStrategy.parseScalingParameter`: `N`, `L<fan>`, `T<fan>` (fan at least
/// 2) or a signed integer, case-sensitively.
fn scaling_parameter(text: &str) -> Result<(), TableOptionError> {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let fan = text.strip_prefix('L').or_else(|| text.strip_prefix('T'));
    if text == "N" {
        return Ok(());
    }
    if let Some(fan) = fan.filter(|f| digits(f)) {
        let value = parse_int(fan).ok_or_else(|| number_format(fan))?;
        if value < 2 {
            let parameter = text.to_string();
            return Err(TableOptionError::FanFactorBelowTwo { parameter });
        }
        return Ok(());
    }
    if digits(text.strip_prefix(['+', '-']).unwrap_or(text)) {
        return parse_int(text)
            .map(|_| ())
            .ok_or_else(|| number_format(text));
    }
    Err(TableOptionError::ScalingParameterPattern {
        parameter: text.to_string(),
    })
}

/// The `NumberFormatException` Cassandra wraps when a scaling parameter overflows an int.
fn number_format(text: &str) -> TableOptionError {
    TableOptionError::UnifiedValidationThrew {
        cause: format!("java.lang.NumberFormatException For input string: \"{text}\""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(entries: &[(&str, &str)]) -> String {
        let options = entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        unified(&options).unwrap_err().to_string()
    }

    #[test]
    fn valid_options_pass() {
        let options = [
            ("scaling_parameters", "T4, L10, N, -2, +3"),
            ("base_shard_count", "4"),
            ("max_sstables_to_compact", "0"),
            ("overlap_inclusion_method", "single"),
            ("unsafe_aggressive_sstable_expiration", "FALSE"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        assert!(unified(&options).is_ok());
    }

    #[test]
    fn invalid_options_get_cassandras_messages() {
        let cases: [(&[(&str, &str)], &str); 8] = [
            (&[("scaling_parameters", "T4,X")], "Scaling parameter X must match N|L[0-9]+|T[0-9]+|[+-]?[0-9]+"),
            (&[("scaling_parameters", "t4")], "Scaling parameter t4 must match N|L[0-9]+|T[0-9]+|[+-]?[0-9]+"),
            (&[("scaling_parameters", "L1")], "Fan factor cannot be lower than 2 in L1"),
            (&[("base_shard_count", "0")], "Invalid configuration, base_shard_count should be positive: 0"),
            (&[("base_shard_count", "many")], "many is not a parsable int (base10) for base_shard_count"),
            (&[("expired_sstable_check_frequency_seconds", "x")], "x is not a parsable long (base10) for expired_sstable_check_frequency_seconds"),
            (&[("unsafe_aggressive_sstable_expiration", "yes")], "unsafe_aggressive_sstable_expiration should either be 'true' or 'false', not yes"),
            (&[("overlap_inclusion_method", "ALL")], "Invalid overlap inclusion method ALL. The valid options are [NONE, SINGLE, TRANSITIVE]."),
        ];
        for (entries, message) in cases {
            assert_eq!(refused(entries), message, "{entries:?}");
        }
    }
}
