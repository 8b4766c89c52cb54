//! Each compaction strategy's own options, as its static `validateOptions` in Cassandra 5.0
//! checks them (`SizeTieredCompactionStrategyOptions`, `LeveledCompactionStrategy`,
//! `TimeWindowCompactionStrategyOptions`, and UCS's in [`super::compaction_unified`]): values are checked,
//! and the options the strategy knows are struck from `unchecked`, so what is left over is
//! refused by the caller as not understood.

use std::collections::BTreeMap;

use crate::error::TableOptionError;
use crate::eval::java_text::java_double;
use crate::schema::table_def::compaction::{
    is_true_or_false, not_parsable, MAX_THRESHOLD, MIN_THRESHOLD,
};
use crate::schema::table_def::compaction_unified::{unified, UNIFIED_OPTIONS};
use crate::schema::table_def::java_number::{parse_double, parse_int, parse_long};

/// The compaction strategies Cassandra 5.0 ships (DateTiered was removed in 5.0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strategy {
    SizeTiered,
    Leveled,
    TimeWindow,
    Unified,
}

impl Strategy {
    /// The strategy whose class, without its package, is `simple_name` (case-sensitive, as
    /// Java class names are).
    pub(crate) fn named(simple_name: &str) -> Option<Strategy> {
        match simple_name {
            "SizeTieredCompactionStrategy" => Some(Strategy::SizeTiered),
            "LeveledCompactionStrategy" => Some(Strategy::Leveled),
            "TimeWindowCompactionStrategy" => Some(Strategy::TimeWindow),
            "UnifiedCompactionStrategy" => Some(Strategy::Unified),
            _ => None,
        }
    }

    /// The class's simple name, as messages print it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Strategy::SizeTiered => "SizeTieredCompactionStrategy",
            Strategy::Leveled => "LeveledCompactionStrategy",
            Strategy::TimeWindow => "TimeWindowCompactionStrategy",
            Strategy::Unified => "UnifiedCompactionStrategy",
        }
    }

    /// Whether the strategy takes `min_threshold`/`max_threshold` (all but UCS), which
    /// Cassandra then stores with their defaults when they are not given.
    pub(crate) fn takes_thresholds(self) -> bool {
        self != Strategy::Unified
    }
}

/// Checks `strategy`'s own options and strikes them from `unchecked`.
pub(crate) fn strategy_options(
    strategy: Strategy,
    options: &BTreeMap<String, String>,
    unchecked: &mut Vec<String>,
) -> Result<(), TableOptionError> {
    match strategy {
        Strategy::SizeTiered => size_tiered(options, unchecked)?,
        Strategy::Leveled => {
            leveled(options, unchecked)?;
            size_tiered(options, unchecked)?;
        }
        Strategy::TimeWindow => {
            time_window(options, unchecked)?;
            size_tiered(options, unchecked)?;
        }
        Strategy::Unified => {
            unified(options)?;
            strike(unchecked, &UNIFIED_OPTIONS);
        }
    }
    if strategy.takes_thresholds() {
        strike(unchecked, &[MIN_THRESHOLD, MAX_THRESHOLD]);
    }
    Ok(())
}

fn strike(unchecked: &mut Vec<String>, known: &[&str]) {
    unchecked.retain(|key| !known.contains(&key.as_str()));
}

/// `SizeTieredCompactionStrategyOptions.validateOptions` (also run by LCS and TWCS).
fn size_tiered(
    options: &BTreeMap<String, String>,
    unchecked: &mut Vec<String>,
) -> Result<(), TableOptionError> {
    if let Some(text) = options.get("min_sstable_size") {
        let size = parse_long(text).ok_or_else(|| not_parsable(text, "min_sstable_size"))?;
        if size < 0 {
            return Err(TableOptionError::NegativeMinSstableSize { size });
        }
    }
    // Cassandra names the default value, not the option, when a bucket does not parse.
    let bucket = |key: &str, default: f64, printed: &'static str| match options.get(key) {
        None => Ok(default),
        Some(text) => parse_double(text).ok_or_else(|| not_parsable(text, printed)),
    };
    let low = bucket("bucket_low", 0.5, "0.5")?;
    let high = bucket("bucket_high", 1.5, "1.5")?;
    if high <= low {
        return Err(TableOptionError::BucketHighNotAboveLow {
            high: java_double(high),
            low: java_double(low),
        });
    }
    strike(
        unchecked,
        &["min_sstable_size", "bucket_low", "bucket_high"],
    );
    Ok(())
}

/// `LeveledCompactionStrategy.validateOptions`: `sstable_size_in_mb` and `fanout_size`.
fn leveled(
    options: &BTreeMap<String, String>,
    unchecked: &mut Vec<String>,
) -> Result<(), TableOptionError> {
    let size_text = options
        .get("sstable_size_in_mb")
        .map_or("1", String::as_str);
    for option in ["sstable_size_in_mb", "fanout_size"] {
        let Some(text) = options.get(option) else {
            continue;
        };
        // Cassandra prints the sstable size's text when the fanout does not parse.
        let printed = if option == "fanout_size" {
            size_text
        } else {
            text
        };
        let value = parse_int(text).ok_or_else(|| not_parsable(printed, option))?;
        if value < 1 {
            return Err(TableOptionError::LeveledSizeNotPositive { option, value });
        }
    }
    strike(
        unchecked,
        &[
            "sstable_size_in_mb",
            "fanout_size",
            "single_sstable_uplevel",
        ],
    );
    Ok(())
}

/// `TimeWindowCompactionStrategyOptions.validateOptions`.
fn time_window(
    options: &BTreeMap<String, String>,
    unchecked: &mut Vec<String>,
) -> Result<(), TableOptionError> {
    let units: [(&'static str, &[&str]); 2] = [
        (
            "timestamp_resolution",
            &["SECONDS", "MILLISECONDS", "MICROSECONDS", "NANOSECONDS"],
        ),
        ("compaction_window_unit", &["MINUTES", "HOURS", "DAYS"]),
    ];
    for (option, valid) in units {
        if let Some(value) = options.get(option).filter(|v| !valid.contains(&v.as_str())) {
            return Err(TableOptionError::InvalidTimeUnit {
                value: value.clone(),
                option,
            });
        }
    }
    if let Some(text) = options.get("compaction_window_size") {
        let size = parse_int(text).ok_or_else(|| not_parsable(text, "compaction_window_size"))?;
        if size < 1 {
            return Err(TableOptionError::WindowSizeBelowOne { size });
        }
    }
    let check = "expired_sstable_check_frequency_seconds";
    if let Some(text) = options.get(check) {
        let value = parse_long(text).ok_or_else(|| not_parsable(text, check))?;
        if value < 0 {
            return Err(TableOptionError::NegativeExpiredCheck { value });
        }
    }
    if let Some(value) = options.get("unsafe_aggressive_sstable_expiration") {
        if !is_true_or_false(value) {
            let value = value.clone();
            return Err(TableOptionError::UnsafeExpirationNotBoolean { value });
        }
        if value.eq_ignore_ascii_case("true") {
            return Err(TableOptionError::UnsafeExpirationNotAllowed);
        }
    }
    strike(
        unchecked,
        &[
            "compaction_window_size",
            "compaction_window_unit",
            "timestamp_resolution",
            check,
            "unsafe_aggressive_sstable_expiration",
        ],
    );
    Ok(())
}
