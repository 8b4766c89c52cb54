//! Re-adding a dropped column (`ALTER TABLE ADD`): Cassandra 5.0 takes it back only with a
//! type its old cells can still be read as (`AbstractType.isSerializationCompatibleWith`),
//! of the same kind, and never in a counter table (`AlterTableStatement.AddColumns`).

use cql::types::ColumnType;
use storage::{ColumnKind, TableDef};

use crate::error::{CqlResult, DdlError};

/// Refuses re-adding `name` as `ty` (static when `is_static`) where Cassandra does, with its
/// messages; a column never dropped is always fine.
pub(crate) fn check_readded(
    table: &TableDef,
    name: &str,
    ty: &ColumnType,
    is_static: bool,
) -> CqlResult<()> {
    let Some(dropped) = table.dropped_columns.iter().rev().find(|d| d.name == name) else {
        return Ok(());
    };
    if !serialization_compatible(ty, &dropped.ty) {
        return Err(DdlError::ReaddedIncompatibleType {
            column: name.to_string(),
            ty: Box::new(ty.clone()),
            previous: Box::new(dropped.ty.clone()),
        }
        .into());
    }
    let was_static = dropped.kind == ColumnKind::Static;
    if was_static != is_static {
        return Err(DdlError::ReaddedIncompatibleKind {
            column: name.to_string(),
            is_static,
            was_static,
        }
        .into());
    }
    if table.columns.iter().any(|c| c.ty.is_counter()) {
        return Err(DdlError::ReaddedCounter {
            column: name.to_string(),
        }
        .into());
    }
    Ok(())
}

/// Whether cells written as `old` read correctly as `new`: the same type, a simple type that
/// reads the old bytes with the same fixed length, or a non-frozen collection whose keys sort
/// the same and whose values are themselves compatible. Frozen and user types must match.
fn serialization_compatible(new: &ColumnType, old: &ColumnType) -> bool {
    use ColumnType as T;
    if new == old {
        return true;
    }
    match (new, old) {
        (
            T::List {
                element: new,
                frozen: false,
            },
            T::List {
                element: old,
                frozen: false,
            },
        ) => serialization_compatible(new, old),
        (
            T::Set {
                element: new,
                frozen: false,
            },
            T::Set {
                element: old,
                frozen: false,
            },
        ) => sorts_the_same(new, old),
        (
            T::Map {
                key: new_key,
                value: new_value,
                frozen: false,
            },
            T::Map {
                key: old_key,
                value: old_value,
                frozen: false,
            },
        ) => sorts_the_same(new_key, old_key) && serialization_compatible(new_value, old_value),
        _ if is_simple(new) && is_simple(old) => {
            reads_value_of(new, old) && fixed_length(new) == fixed_length(old)
        }
        _ => false,
    }
}

fn is_simple(ty: &ColumnType) -> bool {
    !ty.is_collection()
        && !matches!(
            ty,
            ColumnType::Udt { .. } | ColumnType::Tuple(_) | ColumnType::Vector { .. }
        )
}

/// Whether values of `old` are valid values of `new` (`isValueCompatibleWith`).
fn reads_value_of(new: &ColumnType, old: &ColumnType) -> bool {
    use ColumnType as T;
    match new {
        T::Blob => true,
        T::Text => matches!(old, T::Ascii),
        T::Bigint => matches!(old, T::Timestamp),
        T::Timestamp => matches!(old, T::Bigint),
        T::Varint => matches!(old, T::Int | T::Bigint | T::Timestamp),
        _ => false,
    }
}

/// Whether `new` orders the bytes of `old` values as `old` does (`isCompatibleWith`).
fn sorts_the_same(new: &ColumnType, old: &ColumnType) -> bool {
    use ColumnType as T;
    new == old
        || matches!(
            (new, old),
            (T::Text, T::Ascii) | (T::Blob, T::Text | T::Ascii)
        )
}

/// The byte length every value of `ty` has, if fixed.
fn fixed_length(ty: &ColumnType) -> Option<usize> {
    use ColumnType as T;
    match ty {
        T::Boolean => Some(1),
        T::Int | T::Float | T::Date => Some(4),
        T::Bigint | T::Double | T::Timestamp | T::Time | T::Counter => Some(8),
        T::Uuid | T::Timeuuid => Some(16),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(element: ColumnType) -> ColumnType {
        ColumnType::Set {
            element: Box::new(element),
            frozen: false,
        }
    }

    #[test]
    fn compatible_types_follow_cassandra() {
        use ColumnType as T;
        assert!(serialization_compatible(&set(T::Text), &set(T::Text)));
        assert!(serialization_compatible(&set(T::Text), &set(T::Ascii)));
        assert!(!serialization_compatible(&set(T::Int), &set(T::Text)));
        assert!(serialization_compatible(&T::Blob, &T::Text));
        assert!(!serialization_compatible(&T::Blob, &T::Int));
        assert!(serialization_compatible(&T::Bigint, &T::Timestamp));
        assert!(!serialization_compatible(&T::Varint, &T::Int));
        assert!(!serialization_compatible(&T::Int, &set(T::Int)));
        let frozen = T::Set {
            element: Box::new(T::Int),
            frozen: true,
        };
        assert!(!serialization_compatible(&frozen, &set(T::Int)));
    }
}
