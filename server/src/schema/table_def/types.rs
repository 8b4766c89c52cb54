//! Resolution of written types (`ast::CqlType`) into `ColumnType`, with Cassandra's rules on
//! where non-frozen collections and durations may appear.

use std::collections::BTreeMap;
use std::sync::Arc;

use cql::statement::ast::CqlType;
use cql::types::ColumnType;
use storage::UserTypeDef;

use crate::error::{CqlResult, DdlError, OptionsError, SyntaxError};

/// The user types of a keyspace, by name.
pub(crate) type UserTypes = BTreeMap<String, Arc<UserTypeDef>>;

/// Where a type is resolved: its keyspace and that keyspace's user types.
#[derive(Clone, Copy)]
pub(crate) struct TypeScope<'a> {
    pub keyspace: &'a str,
    pub types: &'a UserTypes,
}

/// Resolves a type as written in DDL. `top_level` is true for a column's own type, where
/// non-frozen collections and UDTs are allowed; nested ones must be frozen.
pub(crate) fn resolve_type(
    ty: &CqlType,
    scope: TypeScope<'_>,
    top_level: bool,
) -> CqlResult<ColumnType> {
    resolve(ty, scope, top_level, false)
}

fn resolve(
    ty: &CqlType,
    scope: TypeScope<'_>,
    top_level: bool,
    frozen: bool,
) -> CqlResult<ColumnType> {
    let keyspace = scope.keyspace;
    let nested = |inner: &CqlType| resolve(inner, scope, false, frozen);
    match ty {
        CqlType::Native(native) => Ok(native.clone()),
        CqlType::Frozen(inner) => {
            if matches!(**inner, CqlType::Native(_) | CqlType::Custom(_)) {
                return Err(DdlError::FrozenNonCollection.into());
            }
            check_durations(inner, || format!("frozen<{inner}>"))?;
            Ok(resolve(inner, scope, top_level, true)?.frozen())
        }
        CqlType::List(element) => {
            check_nested_frozen(top_level, frozen, ty)?;
            check_durations(ty, || ty.to_string())?;
            let element = Box::new(nested(element)?);
            Ok(ColumnType::List { element, frozen })
        }
        CqlType::Set(element) => {
            check_nested_frozen(top_level, frozen, ty)?;
            check_durations(ty, || ty.to_string())?;
            let element = Box::new(nested(element)?);
            Ok(ColumnType::Set { element, frozen })
        }
        CqlType::Map(key, value) => {
            check_nested_frozen(top_level, frozen, ty)?;
            check_durations(ty, || ty.to_string())?;
            let key = Box::new(nested(key)?);
            let value = Box::new(nested(value)?);
            Ok(ColumnType::Map { key, value, frozen })
        }
        CqlType::Tuple(items) => Ok(ColumnType::Tuple(
            items
                .iter()
                .map(|item| resolve(item, scope, false, true))
                .collect::<CqlResult<_>>()?,
        )),
        CqlType::Custom(class) => custom(class),
        CqlType::Udt(name) => {
            let ks = name.keyspace.as_ref().map_or(keyspace, |k| k.name.as_str());
            if ks != keyspace {
                return Err(DdlError::ForeignUserType {
                    keyspace: keyspace.to_string(),
                    type_keyspace: ks.to_string(),
                }
                .into());
            }
            let Some(def) = scope.types.get(&name.name.name) else {
                return Err(DdlError::UnknownType {
                    keyspace: ks.to_string(),
                    name: name.name.name.clone(),
                }
                .into());
            };
            if !top_level && !frozen {
                return Err(DdlError::NonFrozenUdtInCollection { ty: ty.to_string() }.into());
            }
            Ok(def.column_type(frozen))
        }
        CqlType::Vector(element, dimension) => {
            let dimension = u32::try_from(*dimension).ok().filter(|d| *d > 0).ok_or(
                DdlError::NonPositiveVectorDimension {
                    dimension: *dimension,
                },
            )?;
            // `VectorType.getInstance` freezes its element type.
            let element = Box::new(resolve(element, scope, false, true)?.frozen());
            Ok(ColumnType::Vector { element, dimension })
        }
    }
}

/// `CQL3Type.Raw.RawCustom.prepare`: the class through Cassandra's `TypeParser`; a class of
/// a CQL type is that type, a composite keeps its full class name.
fn custom(class: &str) -> CqlResult<ColumnType> {
    use cql::types::marshal::{parse_class, MarshalError};
    parse_class(class).map_err(|err| match err {
        MarshalError::Syntax(message) => SyntaxError::TypeClass(message).into(),
        other => OptionsError::TypeClass(other).into(),
    })
}

/// `CQL3Type.Raw.RawCollection.prepare`: no counter inside a collection, and a duration cannot
/// be a set element or a map key (their order would not be the duration's meaning). `shown` is
/// the type as the message prints it.
fn check_durations(ty: &CqlType, shown: impl FnOnce() -> String) -> CqlResult<()> {
    let is_duration = |t: &CqlType| matches!(t, CqlType::Native(ColumnType::Duration));
    let is_counter = |t: &CqlType| matches!(t, CqlType::Native(ColumnType::Counter));
    let counter = match ty {
        CqlType::List(element) | CqlType::Set(element) => is_counter(element),
        CqlType::Map(key, value) => is_counter(key) || is_counter(value),
        _ => false,
    };
    if counter {
        return Err(DdlError::CounterInCollection { ty: shown() }.into());
    }
    match ty {
        CqlType::Set(element) if is_duration(element) => {
            Err(DdlError::DurationInSet { ty: shown() }.into())
        }
        CqlType::Map(key, _) if is_duration(key) => {
            Err(DdlError::DurationMapKey { ty: shown() }.into())
        }
        _ => Ok(()),
    }
}

/// Checks a collection `ty`: nested in another, it must be frozen; its elements (`inner`)
/// cannot be non-frozen UDTs unless it is frozen itself. Messages name the outer collection,
/// as Cassandra's `throwNestedNonFrozenError` does.
fn check_nested_frozen(top_level: bool, frozen: bool, ty: &CqlType) -> CqlResult<()> {
    if !top_level && !frozen {
        return Err(DdlError::NonFrozenCollectionInCollection { ty: ty.to_string() }.into());
    }
    let elements: Vec<&CqlType> = match ty {
        CqlType::List(e) | CqlType::Set(e) => vec![e],
        CqlType::Map(k, v) => vec![k, v],
        _ => Vec::new(),
    };
    if !frozen && elements.iter().any(|e| matches!(e, CqlType::Udt(_))) {
        return Err(DdlError::NonFrozenUdtInCollection { ty: ty.to_string() }.into());
    }
    Ok(())
}

/// Whether `ty` is a non-frozen UDT with a non-frozen collection field, which Cassandra 5.0
/// refuses as a column type (`CreateTableStatement.builder`, `AlterTableStatement`).
pub(crate) fn non_frozen_udt_with_non_frozen_collection(ty: &ColumnType) -> bool {
    match ty {
        ColumnType::Udt {
            frozen: false,
            fields,
            ..
        } => fields.iter().any(|(_, field)| field.is_multi_cell()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(ty: &CqlType) -> String {
        let types = UserTypes::new();
        let scope = TypeScope {
            keyspace: "ks",
            types: &types,
        };
        match resolve_type(ty, scope, true) {
            Err(e) => e.to_string(),
            Ok(t) => format!("resolved to {t}"),
        }
    }

    #[test]
    fn durations_are_refused_in_sets_and_map_keys() {
        let duration = || Box::new(CqlType::Native(ColumnType::Duration));
        assert_eq!(
            message(&CqlType::Set(duration())),
            "Durations are not allowed inside sets: set<duration>"
        );
        assert_eq!(
            message(&CqlType::Frozen(Box::new(CqlType::Set(duration())))),
            "Durations are not allowed inside sets: frozen<set<duration>>"
        );
        assert_eq!(
            message(&CqlType::Map(
                duration(),
                Box::new(CqlType::Native(ColumnType::Int))
            )),
            "Durations are not allowed as map keys: map<duration, int>"
        );
        assert_eq!(
            message(&CqlType::List(duration())),
            "resolved to list<duration>"
        );
        assert_eq!(
            message(&CqlType::Set(Box::new(CqlType::Native(
                ColumnType::Counter
            )))),
            "Counters are not allowed inside collections: set<counter>"
        );
        assert_eq!(
            message(&CqlType::Frozen(Box::new(CqlType::Native(
                ColumnType::Text
            )))),
            "frozen<> is only allowed on collections, tuples, and user-defined types"
        );
    }
}
