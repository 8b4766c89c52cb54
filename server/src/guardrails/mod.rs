//! Cassandra 5.0's guardrails on IN restrictions (`Guardrails.partitionKeysInSelect` and
//! `Guardrails.inSelectCartesianProduct`) and on written values (`columnValueSize`,
//! `collectionSize`, `itemsPerCollection`): past the warn threshold the statement gets a
//! client warning, past the fail threshold it is refused with an Invalid error; -1 turns
//! either off. The messages are Cassandra's.

use crate::error::{CqlResult, DdlError};
use crate::telemetry::warnings;

/// A guardrail's two thresholds (`*_warn_threshold`, `*_fail_threshold`); -1 disables one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Threshold {
    /// Above this the query succeeds with a warning.
    pub warn: i64,
    /// Above this the query is refused.
    pub fail: i64,
}

impl Threshold {
    /// Both thresholds off, as in Cassandra's defaults.
    pub const DISABLED: Threshold = Threshold { warn: -1, fail: -1 };

    fn exceeded(limit: i64, value: u64) -> bool {
        u64::try_from(limit).is_ok_and(|limit| value > limit)
    }
}

/// Fails past `threshold.fail` with the guardrail's error (`fail`, given the threshold), warns
/// past `threshold.warn` with Cassandra's "Guardrail <name> violated: " before `warn`'s message.
fn guard(
    threshold: Threshold,
    name: &str,
    value: u64,
    fail: impl FnOnce(i64) -> DdlError,
    warn: impl FnOnce(i64) -> String,
) -> CqlResult<()> {
    if Threshold::exceeded(threshold.fail, value) {
        return Err(fail(threshold.fail).into());
    }
    if Threshold::exceeded(threshold.warn, value) {
        let message = warn(threshold.warn);
        warnings::warn(format!("Guardrail {name} violated: {message}"));
    }
    Ok(())
}

/// Guards the number of partition keys an IN restriction selects on `table`.
///
/// # Errors
/// [`DdlError::PartitionKeysInSelect`] past the fail threshold.
pub(crate) fn partition_keys_in_select(
    threshold: Threshold,
    table: &str,
    keys: u64,
) -> CqlResult<()> {
    guard(
        threshold,
        "partition_keys_in_select",
        keys,
        |threshold| DdlError::PartitionKeysInSelect {
            table: table.to_string(),
            keys,
            threshold,
        },
        |warn| {
            format!("Query with partition keys in IN clause on table {table}, with number of partition keys {keys} exceeds warning threshold of {warn}.")
        },
    )
}

/// Guards the size of the cartesian product of the IN restrictions on the `what` columns
/// (`"partition key"` or `"clustering key"`).
///
/// # Errors
/// [`DdlError::InSelectCartesianProduct`] past the fail threshold.
pub(crate) fn in_select_cartesian_product(
    threshold: Threshold,
    what: &str,
    size: u64,
) -> CqlResult<()> {
    guard(
        threshold,
        "in_select_cartesian_product",
        size,
        |threshold| DdlError::InSelectCartesianProduct {
            what: what.to_string(),
            size,
            threshold,
        },
        |warn| {
            format!("The cartesian product of the IN restrictions on {what} produces {size} values, this exceeds warning threshold of {warn}.")
        },
    )
}

/// Guards the size in bytes of one value (or collection element key) written to `column`.
///
/// # Errors
/// [`DdlError::ColumnValueSize`] past the fail threshold.
pub(crate) fn column_value_size(threshold: Threshold, column: &str, size: u64) -> CqlResult<()> {
    guard(
        threshold,
        "column_value_size",
        size,
        |threshold| DdlError::ColumnValueSize {
            column: column.to_string(),
            size,
            threshold,
        },
        |warn| {
            format!("Value of column {column} has size {size}, this exceeds the warning threshold of {warn}.")
        },
    )
}

/// Guards the size of the collection a statement writes to `column` (its cells' data size).
///
/// # Errors
/// [`DdlError::CollectionSize`] past the fail threshold.
pub(crate) fn collection_size(threshold: Threshold, column: &str, size: u64) -> CqlResult<()> {
    guard(
        threshold,
        "collection_size",
        size,
        |threshold| DdlError::CollectionSize {
            column: column.to_string(),
            size,
            threshold,
        },
        |warn| {
            format!("Detected collection {column} of size {size}, this exceeds the warning threshold of {warn}.")
        },
    )
}

/// Guards the number of items a statement writes to the collection `column`.
///
/// # Errors
/// [`DdlError::ItemsPerCollection`] past the fail threshold.
pub(crate) fn items_per_collection(
    threshold: Threshold,
    column: &str,
    items: u64,
) -> CqlResult<()> {
    guard(
        threshold,
        "items_per_collection",
        items,
        |threshold| DdlError::ItemsPerCollection {
            column: column.to_string(),
            items,
            threshold,
        },
        |warn| {
            format!("Detected collection {column} with {items} items, this exceeds the warning threshold of {warn}.")
        },
    )
}

/// Checks a partition's size as Cassandra's SSTable writer does (no client to tell: the
/// message is logged, at error level past the fail threshold); whether it was over either.
/// `what` names the partition (`ks.t:key`).
pub(crate) fn partition_size(threshold: Threshold, what: &str, size: u64) -> bool {
    let message = |level: &str, limit: i64| {
        format!("Guardrail partition_size violated: Partition {what} has size {size}, this exceeds the {level} threshold of {limit}.")
    };
    if Threshold::exceeded(threshold.fail, size) {
        tracing::error!("{}", message("failure", threshold.fail));
        return true;
    }
    if Threshold::exceeded(threshold.warn, size) {
        tracing::warn!("{}", message("warning", threshold.warn));
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_size_is_over_past_either_threshold() {
        let threshold = Threshold {
            warn: 100,
            fail: 1000,
        };
        assert!(!partition_size(threshold, "ks.t:1", 100));
        assert!(partition_size(threshold, "ks.t:1", 101));
        assert!(partition_size(threshold, "ks.t:1", 5000));
        assert!(!partition_size(Threshold::DISABLED, "ks.t:1", u64::MAX));
    }

    #[test]
    fn disabled_thresholds_never_fire() {
        assert!(partition_keys_in_select(Threshold::DISABLED, "t", u64::MAX).is_ok());
        assert!(
            in_select_cartesian_product(Threshold::DISABLED, "clustering key", 1 << 40).is_ok()
        );
    }

    #[tokio::test]
    async fn past_the_fail_threshold_the_query_is_refused_with_cassandras_message() {
        let threshold = Threshold { warn: 2, fail: 5 };
        let err = in_select_cartesian_product(threshold, "clustering key", 6).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Guardrail in_select_cartesian_product violated: Aborting query because the cartesian product of the IN restrictions on clustering key produces 6 values, this exceeds fail threshold of 5."
        );
        let (result, warnings) =
            warnings::collect(async { partition_keys_in_select(threshold, "t", 3) }).await;
        assert!(result.is_ok());
        assert_eq!(
            warnings,
            ["Guardrail partition_keys_in_select violated: Query with partition keys in IN clause on table t, with number of partition keys 3 exceeds warning threshold of 2."]
        );
        let (result, warnings) =
            warnings::collect(async { partition_keys_in_select(threshold, "t", 2) }).await;
        assert!(result.is_ok() && warnings.is_empty());
    }
}
