//! Resolution of written types (`ast::CqlType`) into `ColumnType`, with Cassandra's rules on
//! where non-frozen collections may appear.

use cql::statement::ast::CqlType;
use cql::types::ColumnType;

use crate::error::{CqlError, CqlResult};

/// Resolves a type as written in DDL. `top_level` is true for a column's own type, where
/// non-frozen collections are allowed; nested collections must be frozen.
pub fn resolve_type(ty: &CqlType, keyspace: &str, top_level: bool) -> CqlResult<ColumnType> {
    resolve(ty, keyspace, top_level, false)
}

fn resolve(ty: &CqlType, keyspace: &str, top_level: bool, frozen: bool) -> CqlResult<ColumnType> {
    let nested = |inner: &CqlType| resolve(inner, keyspace, false, frozen);
    match ty {
        CqlType::Native(native) => Ok(native.clone()),
        CqlType::Frozen(inner) => Ok(resolve(inner, keyspace, top_level, true)?.frozen()),
        CqlType::List(element) => {
            check_nested_frozen(top_level, frozen, ty)?;
            let element = Box::new(nested(element)?);
            Ok(ColumnType::List { element, frozen })
        }
        CqlType::Set(element) => {
            check_nested_frozen(top_level, frozen, ty)?;
            let element = Box::new(nested(element)?);
            Ok(ColumnType::Set { element, frozen })
        }
        CqlType::Map(key, value) => {
            check_nested_frozen(top_level, frozen, ty)?;
            let key = Box::new(nested(key)?);
            let value = Box::new(nested(value)?);
            Ok(ColumnType::Map { key, value, frozen })
        }
        CqlType::Tuple(items) => Ok(ColumnType::Tuple(
            items
                .iter()
                .map(|item| resolve(item, keyspace, false, true))
                .collect::<CqlResult<_>>()?,
        )),
        CqlType::Custom(class) => Ok(ColumnType::Custom(class.clone())),
        CqlType::Udt(name) => {
            let ks = name.keyspace.as_ref().map_or(keyspace, |k| k.name.as_str());
            Err(CqlError::invalid(format!(
                "Unknown type {}.{}",
                ks, name.name.name
            )))
        }
        CqlType::Vector(_, _) => Err(CqlError::invalid(
            "vector types are not supported yet".to_string(),
        )),
    }
}

fn check_nested_frozen(top_level: bool, frozen: bool, ty: &CqlType) -> CqlResult<()> {
    if !top_level && !frozen {
        return Err(CqlError::invalid(format!(
            "Non-frozen collections are not allowed inside collections: {ty}"
        )));
    }
    Ok(())
}
