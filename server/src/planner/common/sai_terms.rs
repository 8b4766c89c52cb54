//! What a storage-attached index may index and analyze (Cassandra 5.0's
//! `StorageAttachedIndex.validateOptions`, `AbstractAnalyzer.fromOptions` and
//! `NonTokenizingOptions`): the supported value types, analysis options only on text and
//! never on primary key columns, boolean option values.

use std::collections::BTreeMap;

use cql::types::ColumnType;
use storage::index::{is_string, term_type, Analyzer, ANALYZER_OPTIONS};
use storage::{ColumnDef, ColumnKind, IndexTargetKind};

use crate::error::{CqlResult, RestrictionError};

/// The analysis options among `options`.
fn analysis_options(options: &BTreeMap<String, String>) -> Vec<(&String, &String)> {
    options
        .iter()
        .filter(|(k, _)| ANALYZER_OPTIONS.contains(&k.as_str()))
        .collect()
}

/// Checks the analysis options of an index on `column` with `target`.
///
/// # Errors
/// Analysis options on a primary key column or a non-text value, or a value other than
/// `true`/`false`.
pub(crate) fn check_analysis(
    column: &ColumnDef,
    target: IndexTargetKind,
    options: &BTreeMap<String, String>,
) -> CqlResult<()> {
    let analysis = analysis_options(options);
    if analysis.is_empty() {
        return Ok(());
    }
    if !matches!(column.kind, ColumnKind::Regular | ColumnKind::Static) {
        return Err(RestrictionError::AnalysisOnKeyColumn {
            options: crate::describe::text::quoted_map(analysis),
        }
        .into());
    }
    match term_type(&column.ty, target) {
        Some(ty) if is_string(ty) => {
            Analyzer::validate(options).map_err(|e| RestrictionError::AnalysisOption(e).into())
        }
        ty => Err(RestrictionError::NotAnalyzable {
            ty: cql_name(ty, &column.ty, target),
        }
        .into()),
    }
}

/// The CQL type name Cassandra prints for an index's value type (a map entry is its
/// `CompositeType`'s name... printed here as the map's key and value).
fn cql_name(ty: Option<&ColumnType>, column: &ColumnType, target: IndexTargetKind) -> String {
    match (ty, column) {
        (Some(ty), _) => ty.to_string(),
        (None, ColumnType::Map { key, value, .. }) if target == IndexTargetKind::Entries => {
            format!("{key}, {value}")
        }
        (None, other) => other.to_string(),
    }
}

/// Whether SAI indexes values of `ty` (its `SUPPORTED_TYPES`, frozen values, vectors).
fn supported(ty: &ColumnType) -> bool {
    match ty {
        ColumnType::Ascii
        | ColumnType::Bigint
        | ColumnType::Date
        | ColumnType::Double
        | ColumnType::Float
        | ColumnType::Int
        | ColumnType::Smallint
        | ColumnType::Text
        | ColumnType::Time
        | ColumnType::Timestamp
        | ColumnType::Timeuuid
        | ColumnType::Tinyint
        | ColumnType::Uuid
        | ColumnType::Inet
        | ColumnType::Varint
        | ColumnType::Decimal
        | ColumnType::Boolean
        | ColumnType::Vector { .. }
        | ColumnType::Tuple(_) => true,
        ColumnType::List { frozen, .. }
        | ColumnType::Set { frozen, .. }
        | ColumnType::Map { frozen, .. }
        | ColumnType::Udt { frozen, .. } => *frozen,
        _ => false,
    }
}

/// Checks that SAI can index the values `target` takes from `column`.
///
/// # Errors
/// `Unsupported type: <type>` (blob, counter, duration, non-frozen UDTs, ...).
pub(crate) fn check_type(column: &ColumnDef, target: IndexTargetKind) -> CqlResult<()> {
    let unsupported = |ty: &ColumnType| RestrictionError::UnsupportedIndexType { ty: ty.clone() };
    match (term_type(&column.ty, target), &column.ty) {
        (Some(ty), _) if supported(ty) => Ok(()),
        (Some(ty), _) => Err(unsupported(ty).into()),
        (
            None,
            ColumnType::Map {
                key,
                value,
                frozen: false,
            },
        ) => {
            for part in [key.as_ref(), value.as_ref()] {
                if !supported(part) {
                    return Err(unsupported(part).into());
                }
            }
            Ok(())
        }
        (None, _) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(name: &str, ty: ColumnType, kind: ColumnKind) -> ColumnDef {
        ColumnDef {
            id: storage::ColumnId(1),
            name: name.into(),
            ty,
            kind,
            position: -1,
            order: storage::ClusteringOrder::None,
        }
    }

    fn options(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn message(r: CqlResult<()>) -> String {
        r.err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn analysis_is_for_text_outside_the_primary_key() {
        let text = column("t", ColumnType::Text, ColumnKind::Regular);
        let off = options(&[("case_sensitive", "false")]);
        assert_eq!(
            message(check_analysis(&text, IndexTargetKind::Simple, &off)),
            ""
        );
        let int = column("i", ColumnType::Int, ColumnKind::Regular);
        assert_eq!(
            message(check_analysis(&int, IndexTargetKind::Simple, &off)),
            "CQL type int cannot be analyzed."
        );
        let key = column("c", ColumnType::Text, ColumnKind::Clustering);
        assert_eq!(
            message(check_analysis(&key, IndexTargetKind::Simple, &off)),
            "Analysis options are not supported on primary key columns, but found {'case_sensitive': 'false'}"
        );
        let bad = options(&[("normalize", "maybe")]);
        assert_eq!(
            message(check_analysis(&text, IndexTargetKind::Simple, &bad)),
            "Illegal value for boolean option 'normalize': maybe"
        );
    }

    #[test]
    fn blob_counter_and_duration_are_not_indexed() {
        let blob = column("b", ColumnType::Blob, ColumnKind::Regular);
        assert_eq!(
            message(check_type(&blob, IndexTargetKind::Simple)),
            "Unsupported type: blob"
        );
        let list = ColumnType::List {
            element: Box::new(ColumnType::Blob),
            frozen: false,
        };
        let list = column("l", list, ColumnKind::Regular);
        assert_eq!(
            message(check_type(&list, IndexTargetKind::Values)),
            "Unsupported type: blob"
        );
        assert_eq!(message(check_type(&list, IndexTargetKind::Full)), "");
        let int = column("i", ColumnType::Int, ColumnKind::Regular);
        assert_eq!(message(check_type(&int, IndexTargetKind::Simple)), "");
    }
}
