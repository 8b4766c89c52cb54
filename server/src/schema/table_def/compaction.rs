//! The `compaction` table option as Cassandra 5.0 reads and validates it
//! (`CompactionParams.fromMap`, `create` and `validate`, and the common part of
//! `AbstractCompactionStrategy.validateOptions`); each strategy's own options are checked in
//! [`super::compaction_strategies`]. The stored map is what `system_schema.tables` and
//! DESCRIBE show: the options as written, the class qualified, and the default thresholds for
//! the strategies that take them.

use std::collections::BTreeMap;

use crate::error::TableOptionError;
use crate::schema::table_def::compaction_strategies::{strategy_options, Strategy};
use crate::schema::table_def::java_hash_order::java_key_set;
use crate::schema::table_def::java_number::{
    is_numeric, java_fixed, parse_float, parse_int, parse_long,
};

const PACKAGE: &str = "org.apache.cassandra.db.compaction.";
pub(crate) const MIN_THRESHOLD: &str = "min_threshold";
pub(crate) const MAX_THRESHOLD: &str = "max_threshold";
const DEFAULT_MIN_THRESHOLD: i32 = 4;
const DEFAULT_MAX_THRESHOLD: i32 = 32;
/// Options every strategy takes; `provide_overlapping_tombstones` is read by
/// `CompactionParams.create`, the others checked by [`common_options`].
const COMMON_OPTIONS: [&str; 7] = [
    "tombstone_threshold",
    "tombstone_compaction_interval",
    "unchecked_tombstone_compaction",
    "log_all",
    "enabled",
    "only_purge_repaired_tombstones",
    "provide_overlapping_tombstones",
];

/// The stored form of `WITH compaction = {raw}`, or Cassandra's refusal.
pub(crate) fn compaction_map(
    raw: BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, TableOptionError> {
    let mut options = raw;
    let class = options
        .remove("class")
        .ok_or(TableOptionError::MissingCompactionClass)?;
    let class = if class.contains('.') {
        class
    } else {
        format!("{PACKAGE}{class}")
    };
    let strategy = class
        .strip_prefix(PACKAGE)
        .and_then(Strategy::named)
        .ok_or_else(|| TableOptionError::UnknownCompactionClass {
            class: class.clone(),
        })?;
    check_overlapping_tombstones(&options)?;
    if strategy.takes_thresholds() {
        for (key, default) in [
            (MIN_THRESHOLD, DEFAULT_MIN_THRESHOLD),
            (MAX_THRESHOLD, DEFAULT_MAX_THRESHOLD),
        ] {
            options
                .entry(key.to_string())
                .or_insert_with(|| default.to_string());
        }
    }
    validate(strategy, &options)?;
    options.insert("class".into(), class);
    Ok(options)
}

/// Whether `strategy` is the leveled one (whose tables default to a 0.1 bloom filter).
pub(crate) fn is_leveled(compaction: &BTreeMap<String, String>) -> bool {
    compaction
        .get("class")
        .is_some_and(|class| class == &format!("{PACKAGE}LeveledCompactionStrategy"))
}

/// `CompactionParams.create`: `provide_overlapping_tombstones`, upper-cased, one of three.
fn check_overlapping_tombstones(
    options: &BTreeMap<String, String>,
) -> Result<(), TableOptionError> {
    let Some(value) = options.get("provide_overlapping_tombstones") else {
        return Ok(());
    };
    let value = value.to_uppercase();
    if ["NONE", "ROW", "CELL"].contains(&value.as_str()) {
        Ok(())
    } else {
        Err(TableOptionError::InvalidOverlappingTombstones { value })
    }
}

/// `CompactionParams.validate`: the strategy's options, then the thresholds.
fn validate(
    strategy: Strategy,
    options: &BTreeMap<String, String>,
) -> Result<(), TableOptionError> {
    common_options(options)?;
    let mut unchecked: Vec<String> = options
        .keys()
        .filter(|key| !COMMON_OPTIONS.contains(&key.as_str()))
        .cloned()
        .collect();
    strategy_options(strategy, options, &mut unchecked)?;
    if !unchecked.is_empty() {
        return Err(TableOptionError::UnknownStrategyOptions {
            options: java_key_set(&unchecked, options.len()),
            strategy: strategy.name(),
        });
    }
    thresholds(options)
}

/// The options `AbstractCompactionStrategy.validateOptions` checks for every strategy.
fn common_options(options: &BTreeMap<String, String>) -> Result<(), TableOptionError> {
    let get = |key: &str| options.get(key).map(String::as_str);
    if let Some(text) = get("tombstone_threshold") {
        let value = parse_float(text).ok_or_else(|| not_parsable(text, "tombstone_threshold"))?;
        if value < 0.0 {
            let value = java_fixed(f64::from(value));
            return Err(TableOptionError::NegativeTombstoneThreshold { value });
        }
    }
    if let Some(text) = get("tombstone_compaction_interval") {
        let value =
            parse_long(text).ok_or_else(|| not_parsable(text, "tombstone_compaction_interval"))?;
        if value < 0 {
            return Err(TableOptionError::NegativeTombstoneInterval { value });
        }
    }
    let not_boolean =
        |value: Option<&str>| value.filter(|v| !is_true_or_false(v)).map(String::from);
    if let Some(value) = not_boolean(get("unchecked_tombstone_compaction")) {
        return Err(TableOptionError::UncheckedTombstoneNotBoolean { value });
    }
    if let Some(value) = not_boolean(get("log_all")) {
        return Err(TableOptionError::LogAllNotBoolean { value });
    }
    if let Some(value) = not_boolean(get("enabled")) {
        return Err(TableOptionError::EnabledNotBoolean { value });
    }
    if let Some(value) = not_boolean(get("only_purge_repaired_tombstones")) {
        return Err(TableOptionError::OnlyPurgeRepairedNotBoolean { value });
    }
    Ok(())
}

/// The thresholds' checks at the end of `CompactionParams.validate`.
fn thresholds(options: &BTreeMap<String, String>) -> Result<(), TableOptionError> {
    let threshold = |option: &'static str, default: i32| match options.get(option) {
        None => Ok(default),
        Some(value) => is_numeric(value)
            .then(|| parse_int(value))
            .flatten()
            .ok_or_else(|| TableOptionError::ThresholdNotInteger {
                value: value.clone(),
                option,
            }),
    };
    let min = threshold(MIN_THRESHOLD, DEFAULT_MIN_THRESHOLD)?;
    let max = threshold(MAX_THRESHOLD, DEFAULT_MAX_THRESHOLD)?;
    if min <= 0 || max <= 0 {
        return Err(TableOptionError::ZeroThreshold);
    }
    if min <= 1 {
        return Err(TableOptionError::MinThresholdBelowTwo { min });
    }
    if min > max {
        return Err(TableOptionError::MinAboveMaxThreshold { min, max });
    }
    Ok(())
}

/// `equalsIgnoreCase("true") || equalsIgnoreCase("false")`.
pub(crate) fn is_true_or_false(value: &str) -> bool {
    value.eq_ignore_ascii_case("true") || value.eq_ignore_ascii_case("false")
}

/// The "is not a parsable int (base10)" refusal of `text` for `option`.
pub(crate) fn not_parsable(text: &str, option: &'static str) -> TableOptionError {
    TableOptionError::NotParsable {
        value: text.to_string(),
        option,
    }
}

#[cfg(test)]
#[path = "compaction_tests.rs"]
mod tests;
