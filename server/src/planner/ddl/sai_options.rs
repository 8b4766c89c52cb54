//! The options of a storage-attached index (`StorageAttachedIndex.validateOptions` and
//! `IndexWriterConfig.fromOptions` in Cassandra 5.0): the known option names, the vector
//! options (`similarity_function`, `maximum_node_connections`, `construction_beam_width`)
//! and the rules on vector columns, with Cassandra's messages.

use std::collections::BTreeMap;

use cql::types::ColumnType;

use crate::error::{CqlResult, IndexError, OptionsError};
use crate::eval::functions::vector_fcts::Similarity;
use crate::planner::common::sai_terms;

/// The option names an SAI index accepts.
const VALID_OPTIONS: &[&str] = &[
    "target",
    "class_name",
    "maximum_node_connections",
    "construction_beam_width",
    "similarity_function",
    "optimize_for",
    "case_sensitive",
    "normalize",
    "ascii",
];

/// The client warning Cassandra 5.0 gives when an SAI index is made on a vector column.
pub(crate) const VECTOR_USAGE_WARNING: &str = "SAI ANN indexes on vector columns are experimental and are not recommended for production use.\n\
They don't yet support SELECT queries with:\n \
* Consistency level higher than ONE/LOCAL_ONE.\n \
* Paging.\n \
* No LIMIT clauses.\n \
* PER PARTITION LIMIT clauses.\n \
* GROUP BY clauses.\n \
* Aggregation functions.\n \
* Filters on columns without a SAI index.";

const MAX_NODE_CONNECTIONS: i64 = 512;
const MAX_BEAM_WIDTH: i64 = 3200;

/// The fully qualified class name, which Cassandra matches case-sensitively.
const SAI_CLASS: &str = "org.apache.cassandra.index.sai.StorageAttachedIndex";

/// Whether `class` names the storage-attached index: the short names in any case, the full
/// class name exactly.
pub(crate) fn is_sai_class(class: &str) -> bool {
    class == SAI_CLASS
        || class.eq_ignore_ascii_case("sai")
        || class.eq_ignore_ascii_case("StorageAttachedIndex")
}

/// The similarity an index on a vector column scores with (cosine unless its options say
/// otherwise).
pub(crate) fn similarity_of(options: &BTreeMap<String, String>) -> Similarity {
    options
        .get("similarity_function")
        .and_then(|v| Similarity::from_option(v))
        .unwrap_or(Similarity::Cosine)
}

/// Refuses option names an SAI index does not know.
///
/// # Errors
/// A configuration error naming the unknown options, as Cassandra's.
pub(crate) fn check_known(options: &BTreeMap<String, String>) -> CqlResult<()> {
    let unknown: Vec<&str> = options
        .keys()
        .map(String::as_str)
        .filter(|k| !VALID_OPTIONS.contains(k))
        .collect();
    if !unknown.is_empty() {
        return Err(OptionsError::UnknownSaiOptions {
            options: unknown.into_iter().map(str::to_string).collect(),
        }
        .into());
    }
    Ok(())
}

/// Validates the options of an SAI index named `index` on a column of type `ty`.
///
/// # Errors
///
/// Unknown options (a configuration error, as in Cassandra), vector options on a column
/// that is not a vector, out-of-range or unparsable values, a vector of non-floats, cosine
/// on one dimension.
pub(crate) fn validate(
    index: &str,
    column: &storage::ColumnDef,
    target: storage::IndexTargetKind,
    options: &BTreeMap<String, String>,
) -> CqlResult<()> {
    let ty = &column.ty;
    check_known(options)?;
    sai_terms::check_analysis(column, target, options)?;
    let vector_options = [
        "maximum_node_connections",
        "construction_beam_width",
        "similarity_function",
    ];
    let ColumnType::Vector { element, dimension } = ty else {
        if vector_options.iter().any(|o| options.contains_key(*o)) {
            return Err(IndexError::VectorOptionsOnNonVector { ty: ty.clone() }.into());
        }
        return sai_terms::check_type(column, target);
    };
    let bounded = |option: &str, max: i64| -> Result<(), IndexError> {
        let Some(text) = options.get(option) else {
            return Ok(());
        };
        let value: i64 = text
            .parse()
            .map_err(|_| IndexError::GraphOptionNotInteger {
                option: option.to_string(),
                value: text.clone(),
                index: index.to_string(),
            })?;
        if value <= 0 || value > max {
            return Err(IndexError::GraphOptionOutOfRange {
                option: option.to_string(),
                index: index.to_string(),
                max,
                value,
            });
        }
        Ok(())
    };
    bounded("maximum_node_connections", MAX_NODE_CONNECTIONS)?;
    bounded("construction_beam_width", MAX_BEAM_WIDTH)?;
    if let Some(value) = options.get("similarity_function") {
        if Similarity::from_option(value).is_none() {
            return Err(IndexError::UnknownSimilarity {
                value: value.clone(),
                index: index.to_string(),
            }
            .into());
        }
    }
    if **element != ColumnType::Float {
        return Err(IndexError::NonFloatVector.into());
    }
    if *dimension == 1 && similarity_of(options) == Similarity::Cosine {
        return Err(IndexError::CosineOnOneDimension.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn message(ty: &ColumnType, pairs: &[(&str, &str)]) -> String {
        let column = storage::ColumnDef {
            id: storage::ColumnId(1),
            name: "v".into(),
            ty: ty.clone(),
            kind: storage::ColumnKind::Regular,
            position: -1,
            order: storage::ClusteringOrder::None,
        };
        validate(
            "idx",
            &column,
            storage::IndexTargetKind::Simple,
            &options(pairs),
        )
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default()
    }

    #[test]
    fn vector_options_are_checked_with_cassandras_messages() {
        let v3 = ColumnType::Vector {
            element: Box::new(ColumnType::Float),
            dimension: 3,
        };
        assert_eq!(message(&v3, &[("similarity_function", "dot_product")]), "");
        assert!(message(&v3, &[("bad_option", "x")]).contains("are not understood by"));
        assert_eq!(
            message(&v3, &[("maximum_node_connections", "513")]),
            "Maximum number of connections for index idx cannot be <= 0 or > 512, was 513"
        );
        assert_eq!(
            message(&v3, &[("construction_beam_width", "dog")]),
            "Construction beam width dog is not a valid integer for index idx"
        );
        assert!(message(&v3, &[("similarity_function", "bad")]).contains("was not recognized"));
        let ints = ColumnType::Vector {
            element: Box::new(ColumnType::Int),
            dimension: 3,
        };
        assert!(message(&ints, &[]).contains("float elements"));
        assert_eq!(
            message(&ColumnType::Int, &[("similarity_function", "cosine")]),
            "CQL type int cannot have vector options"
        );
        assert!(is_sai_class("SAI") && is_sai_class("storageattachedindex"));
        assert!(!is_sai_class(
            "org.apache.cassandra.index.sai.STORAGEATTACHEDINDEX"
        ));
    }
}
