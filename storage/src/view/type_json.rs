//! A column type as self-contained JSON: user types carry their fields, so the writer can
//! rebuild key layouts without the catalog's type records.

use cql::types::ColumnType;
use serde::{Deserialize, Serialize};

use crate::catalog::type_text::parse_type;
use crate::error::StorageError;

/// A [`ColumnType`] in a form serde can write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum TypeJson {
    /// A type without user types inside, as its CQL text.
    Text(String),
    /// `list<..>`, frozen or not.
    List(Box<TypeJson>, bool),
    /// `set<..>`, frozen or not.
    Set(Box<TypeJson>, bool),
    /// `map<.., ..>`, frozen or not.
    Map(Box<TypeJson>, Box<TypeJson>, bool),
    /// `tuple<..>`.
    Tuple(Vec<TypeJson>),
    /// A user type: keyspace, name, fields, frozen.
    Udt(String, String, Vec<(String, TypeJson)>, bool),
}

fn has_udt(ty: &ColumnType) -> bool {
    match ty {
        ColumnType::Udt { .. } => true,
        ColumnType::List { element, .. } | ColumnType::Set { element, .. } => has_udt(element),
        ColumnType::Map { key, value, .. } => has_udt(key) || has_udt(value),
        ColumnType::Tuple(items) => items.iter().any(has_udt),
        _ => false,
    }
}

impl TypeJson {
    /// The JSON form of `ty`.
    pub(crate) fn from_type(ty: &ColumnType) -> TypeJson {
        if !has_udt(ty) {
            return TypeJson::Text(ty.to_string());
        }
        let boxed = |t: &ColumnType| Box::new(TypeJson::from_type(t));
        match ty {
            ColumnType::List { element, frozen } => TypeJson::List(boxed(element), *frozen),
            ColumnType::Set { element, frozen } => TypeJson::Set(boxed(element), *frozen),
            ColumnType::Map { key, value, frozen } => {
                TypeJson::Map(boxed(key), boxed(value), *frozen)
            }
            ColumnType::Tuple(items) => {
                TypeJson::Tuple(items.iter().map(TypeJson::from_type).collect())
            }
            ColumnType::Udt {
                keyspace,
                name,
                fields,
                frozen,
            } => TypeJson::Udt(
                keyspace.clone(),
                name.clone(),
                fields
                    .iter()
                    .map(|(n, t)| (n.clone(), TypeJson::from_type(t)))
                    .collect(),
                *frozen,
            ),
            other => TypeJson::Text(other.to_string()),
        }
    }

    /// The type back.
    ///
    /// # Errors
    /// [`StorageError::Corrupt`] for type text that does not parse.
    pub(crate) fn to_type(&self) -> Result<ColumnType, StorageError> {
        let boxed = |t: &TypeJson| t.to_type().map(Box::new);
        Ok(match self {
            TypeJson::Text(text) => parse_type(text)
                .map_err(|e| StorageError::corrupt(format!("view type {text:?}: {e}")))?,
            TypeJson::List(element, frozen) => ColumnType::List {
                element: boxed(element)?,
                frozen: *frozen,
            },
            TypeJson::Set(element, frozen) => ColumnType::Set {
                element: boxed(element)?,
                frozen: *frozen,
            },
            TypeJson::Map(key, value, frozen) => ColumnType::Map {
                key: boxed(key)?,
                value: boxed(value)?,
                frozen: *frozen,
            },
            TypeJson::Tuple(items) => ColumnType::Tuple(
                items
                    .iter()
                    .map(TypeJson::to_type)
                    .collect::<Result<_, _>>()?,
            ),
            TypeJson::Udt(keyspace, name, fields, frozen) => ColumnType::Udt {
                keyspace: keyspace.clone(),
                name: name.clone(),
                fields: fields
                    .iter()
                    .map(|(n, t)| Ok((n.clone(), t.to_type()?)))
                    .collect::<Result<_, StorageError>>()?,
                frozen: *frozen,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_types_round_trip_with_their_fields() {
        let udt = ColumnType::Udt {
            keyspace: "ks".into(),
            name: "u".into(),
            fields: vec![
                ("a".into(), ColumnType::Int),
                ("b".into(), ColumnType::Text),
            ],
            frozen: true,
        };
        for ty in [
            ColumnType::Int,
            ColumnType::Map {
                key: Box::new(ColumnType::Text),
                value: Box::new(udt.clone()),
                frozen: true,
            },
            udt,
        ] {
            assert_eq!(TypeJson::from_type(&ty).to_type().unwrap(), ty);
        }
    }
}
