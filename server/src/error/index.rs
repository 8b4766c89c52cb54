//! `IndexError`: CREATE and DROP INDEX (secondary, SAI, vector) that break Cassandra's rules.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

use cql::types::{maybe_quote, ColumnType};
use storage::IndexTargetKind;

/// CREATE and DROP INDEX (secondary, SAI, vector) that break Cassandra's rules.
#[derive(Debug, thiserror::Error)]
pub(crate) enum IndexError {
    /// `USING 'org.apache.cassandra.index.sasi.SASIIndex'`.
    /// Origin: cql3/statements/schema/CreateIndexStatement.java validate (SASI_INDEX_DISABLED)
    #[error("SASI indexes are disabled. Enable in cassandra.yaml to use.")]
    SasiDisabled,
    /// Origin: cql3/statements/schema/CreateIndexStatement.java apply
    #[error("Index '{index}' already exists")]
    IndexExists { index: String },
    /// An index equal to an existing one but for its name.
    /// Origin: cql3/statements/schema/CreateIndexStatement.java apply
    #[error("Index {index} is a duplicate of existing index {existing}")]
    DuplicateIndex { index: String, existing: String },
    /// Origin: cql3/statements/schema/CreateIndexStatement.java apply
    #[error("Secondary indexes on counter tables aren't supported")]
    CounterTable,
    /// Origin: cql3/statements/schema/CreateIndexStatement.java apply
    #[error("Secondary indexes on materialized views aren't supported")]
    MaterializedView,
    /// A CUSTOM (storage-attached) index without a target: SAI's `validateOptions` finds no
    /// column for the empty target.
    /// Origin: index/sai/StorageAttachedIndex.java validateOptions (empty target)
    #[error("Failed to retrieve target column for: ")]
    CustomWithoutTarget,
    /// Origin: cql3/statements/schema/CreateIndexStatement.java apply (CUSTOM_CREATE_WITHOUT_COLUMN)
    #[error("Only CUSTOM indexes can be created without specifying a target column")]
    NoTarget,
    /// Origin: cql3/statements/schema/CreateIndexStatement.java apply (CUSTOM_MULTIPLE_COLUMNS)
    #[error("Only CUSTOM indexes support multiple columns")]
    MultipleTargets,
    /// A CUSTOM (storage-attached) index over several targets, each as CQL writes it
    /// (`v`, `keys(m)`), joined as the index's `target` option.
    /// Origin: index/sai/StorageAttachedIndex.java validateOptions
    #[error("A storage-attached index cannot be created over multiple columns: {}", .targets.join(", "))]
    CustomMultipleTargets { targets: Vec<String> },
    /// Origin: index/sai/StorageAttachedIndex.java validateOptions
    #[error("Cannot create more than one storage-attached index on the same column: {column}")]
    SecondSaiOnColumn { column: String },
    /// DROP INDEX of an index no table of the keyspace has (the stray quote is Cassandra's).
    /// Origin: cql3/statements/schema/DropIndexStatement.java apply
    #[error("Index '{keyspace}.{index}' doesn't exist'")]
    UnknownIndex { keyspace: String, index: String },
    /// DROP of a column that indexes depend on.
    /// Origin: cql3/statements/schema/AlterTableStatement.java DropColumns.dropColumn
    #[error(
        "Cannot drop column {column} because it has dependent secondary indexes ({})",
        .indexes.join(", ")
    )]
    DependentIndexes {
        column: String,
        indexes: Vec<String>,
    },
    /// Origin: cql3/statements/schema/CreateIndexStatement.java validateIndexTarget
    #[error("Secondary indexes are not supported on collections containing durations")]
    DurationInCollection,
    /// Origin: cql3/statements/schema/CreateIndexStatement.java validateIndexTarget
    #[error("Secondary indexes are not supported on tuples containing durations")]
    DurationInTuple,
    /// Origin: cql3/statements/schema/CreateIndexStatement.java validateIndexTarget
    #[error("Secondary indexes are not supported on UDTs containing durations")]
    DurationInUdt,
    /// Origin: cql3/statements/schema/CreateIndexStatement.java validateIndexTarget
    #[error("Secondary indexes are not supported on duration columns")]
    DurationColumn,
    /// Origin: cql3/statements/schema/CreateIndexStatement.java validateIndexTarget
    #[error(
        "Cannot create secondary index on the only partition key column {}",
        maybe_quote(.column)
    )]
    OnlyPartitionKey { column: String },
    /// A `keys()`, `values()` or `entries()` index on a frozen collection.
    /// Origin: cql3/statements/schema/CreateIndexStatement.java validateIndexTarget
    #[error(
        "Cannot create {}() index on frozen column {name}. Frozen collections are immutable and must be fully indexed by using the 'full({name})' modifier",
        .kind.as_str(),
        name = maybe_quote(.column)
    )]
    FrozenNotFull {
        kind: IndexTargetKind,
        column: String,
    },
    /// Origin: cql3/statements/schema/CreateIndexStatement.java validateIndexTarget
    #[error("full() indexes can only be created on frozen collections")]
    FullOnNonFrozen,
    /// Origin: cql3/statements/schema/CreateIndexStatement.java validateIndexTarget
    #[error(
        "Cannot create {}() index on {}. Non-collection columns only support simple indexes",
        .kind.as_str(),
        maybe_quote(.column)
    )]
    NonSimpleOnNonCollection {
        kind: IndexTargetKind,
        column: String,
    },
    /// A `keys()` or `entries()` index on a column that is not a non-frozen map.
    /// Origin: cql3/statements/schema/CreateIndexStatement.java validateIndexTarget
    #[error(
        "Cannot create index on {} of column {} with non-map type",
        .kind.as_str(),
        maybe_quote(.column)
    )]
    KeysOnNonMap {
        kind: IndexTargetKind,
        column: String,
    },
    /// Origin: cql3/statements/schema/CreateIndexStatement.java validateIndexTarget
    #[error("Cannot create index on non-frozen UDT column {}", maybe_quote(.column))]
    NonFrozenUdt { column: String },
    /// A write giving an index a value of 64 KiB or more.
    /// Origin: index/internal/CassandraIndex.java validateIndexedValue
    #[error(
        "Cannot index value of size {size} for index {index} on {keyspace}.{table}({column}) (maximum allowed size={max})"
    )]
    ValueTooLarge {
        size: usize,
        index: String,
        keyspace: String,
        table: String,
        column: String,
        max: usize,
    },
    /// SAI vector options on a column that is not a vector.
    /// Origin: index/sai/disk/v1/IndexWriterConfig.java fromOptions
    #[error("CQL type {ty} cannot have vector options")]
    VectorOptionsOnNonVector { ty: ColumnType },
    /// A vector graph option (`maximum_node_connections`, `construction_beam_width`) that
    /// is not an integer.
    /// Origin: index/sai/disk/v1/IndexWriterConfig.java fromOptions
    #[error(
        "{} {value} is not a valid integer for index {index}",
        graph_option_label(.option)
    )]
    GraphOptionNotInteger {
        option: String,
        value: String,
        index: String,
    },
    /// Origin: index/sai/disk/v1/IndexWriterConfig.java fromOptions
    #[error(
        "{} for index {index} cannot be <= 0 or > {max}, was {value}",
        graph_option_label(.option)
    )]
    GraphOptionOutOfRange {
        option: String,
        index: String,
        max: i64,
        value: i64,
    },
    /// Origin: index/sai/disk/v1/IndexWriterConfig.java fromOptions
    #[error(
        "Similarity function {} was not recognized for index {index}. Valid values are: EUCLIDEAN, DOT_PRODUCT, COSINE",
        .value.to_uppercase()
    )]
    UnknownSimilarity { value: String, index: String },
    /// Origin: index/sai/StorageAttachedIndex.java VECTOR_NON_FLOAT_ERROR
    #[error("SAI ANN indexes are only allowed on vector columns with float elements")]
    NonFloatVector,
    /// Origin: index/sai/StorageAttachedIndex.java VECTOR_1_DIMENSION_COSINE_ERROR
    #[error("Cosine similarity is not supported for single-dimension vectors")]
    CosineOnOneDimension,
}

/// How Cassandra's messages name a numeric option of a vector index's graph.
fn graph_option_label(option: &str) -> &str {
    match option {
        "maximum_node_connections" => "Maximum number of connections",
        "construction_beam_width" => "Construction beam width",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_messages_quote_the_column_as_cql_does() {
        let err = IndexError::FrozenNotFull {
            kind: IndexTargetKind::Keys,
            column: "Odd".into(),
        };
        assert_eq!(
            err.to_string(),
            "Cannot create keys() index on frozen column \"Odd\". Frozen collections are immutable and must be fully indexed by using the 'full(\"Odd\")' modifier"
        );
        let err = IndexError::KeysOnNonMap {
            kind: IndexTargetKind::Entries,
            column: "v".into(),
        };
        assert_eq!(
            err.to_string(),
            "Cannot create index on entries of column v with non-map type"
        );
    }
}
