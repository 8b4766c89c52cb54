//! Bodies of `CompositeType` and `DynamicCompositeType` values (custom types named by their
//! Java class), whose order is `AbstractCompositeType.compareCustom`: component by component,
//! each by its own type (in reverse for a `ReversedType`), then by its end-of-component byte
//! as a signed byte; the value that runs out first sorts first. A dynamic composite's
//! component first sorts by the class names of the type it names, as
//! `DynamicCompositeType.asComparableBytes` does ([`composite::type_sort_key`]).
//!
//! ```text
//! body  = item* 0x00
//! item  = 0x02 [names] component eoc
//!               names: a dynamic composite's type sort key, each string escaped and
//!                      terminated as a text component's body; the last is the full class
//!                      string, which decoding parses back
//!               component: the type's own component (tag, body), inverted when reversed
//!               eoc: the end-of-component byte with its sign bit flipped
//! ```
//!
//! The end marker `0x00` sorts before any item, so a shorter value sorts first; every item
//! is prefix-free. Decoding writes each component back with its 2-byte length; a dynamic
//! component's header names its type by the alias the declaration gives it, else by its full
//! class, as `DynamicCompositeType.build` writes it (so values that compare equal are one
//! key, however their headers were written).

use cql::types::composite::{self, Header};
use cql::types::marshal::{parse_class_type, ClassType, Composite};
use cql::types::ColumnType;

use super::component;
use super::reader::Reader;
use crate::error::StorageError;

const END: u8 = 0x00;
const ITEM: u8 = 0x02;

/// Appends the body of a serialized composite value of `composite`.
pub(super) fn encode(
    ty: &ColumnType,
    composite: &Composite,
    value: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), StorageError> {
    match composite {
        Composite::Static(types) => {
            let parts = composite::components(value)
                .ok_or_else(|| component::invalid(ty, "not a composite"))?;
            if parts.len() > types.len() {
                return Err(component::invalid(ty, "more components than the type has"));
            }
            for ((part, eoc), class) in parts.into_iter().zip(types) {
                out.push(ITEM);
                component::encode(&class.ty, class.reversed, part, out)?;
                out.push(eoc ^ 0x80);
            }
        }
        Composite::Dynamic(aliases) => {
            let parts = composite::dynamic_components(aliases, value)
                .map_err(|reason| component::invalid(ty, reason))?;
            for part in parts {
                out.push(ITEM);
                for name in composite::type_sort_key(&part.ty) {
                    component::encode(&ColumnType::Text, false, name.as_bytes(), out)?;
                }
                component::encode(&part.ty.ty, part.ty.reversed, part.value, out)?;
                out.push(part.eoc ^ 0x80);
            }
        }
    }
    out.push(END);
    Ok(())
}

/// Decodes a body written by [`encode`] into the serialized value.
pub(super) fn decode(composite: &Composite, r: &mut Reader<'_>) -> Result<Vec<u8>, StorageError> {
    let mut out = Vec::new();
    let mut index = 0;
    loop {
        match r.byte()? {
            END => return Ok(out),
            ITEM => {
                let (header, class) = match composite {
                    Composite::Static(types) => {
                        let class = types
                            .get(index)
                            .ok_or_else(|| StorageError::corrupt("row key: composite component"))?;
                        (None, class.clone())
                    }
                    Composite::Dynamic(aliases) => {
                        let class = dynamic_type(r)?;
                        let alias = aliases.iter().rev().find(|(_, ty)| *ty == class);
                        (Some(alias.map(|(alias, _)| *alias)), class)
                    }
                };
                let value = r.inverted(class.reversed, |r| component::decode_from(&class.ty, r))?;
                let eoc = r.byte()? ^ 0x80;
                // Only a dynamic component without an alias is named by its class.
                let name = if header == Some(None) {
                    class.class()
                } else {
                    String::new()
                };
                let header = header.map(|alias| alias.map_or(Header::Class(&name), Header::Alias));
                composite::write_component(&mut out, header, &value)
                    .map_err(|_| StorageError::corrupt("row key: composite component length"))?;
                composite::end_last_component(&mut out, eoc);
                index += 1;
            }
            _ => return Err(StorageError::corrupt("row key: composite item marker")),
        }
    }
}

/// Reads a dynamic component's type sort key back: the strings before the full class
/// string are only for order.
fn dynamic_type(r: &mut Reader<'_>) -> Result<ClassType, StorageError> {
    let corrupt = || StorageError::corrupt("row key: dynamic composite type");
    let first = component::decode_from(&ColumnType::Text, r)?;
    let reversed = first == b"ReversedType";
    // Then the simple and full class names, then the full class string.
    let names = if reversed { 3 } else { 2 };
    let mut class = Vec::new();
    for _ in 0..names {
        class = component::decode_from(&ColumnType::Text, r)?;
    }
    let class = std::str::from_utf8(&class).map_err(|_| corrupt())?;
    let ty = parse_class_type(class).map_err(|_| corrupt())?;
    Ok(ClassType {
        ty: ty.ty,
        reversed,
    })
}
