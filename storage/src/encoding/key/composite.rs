//! Bodies of `CompositeType` values (a custom type named by its Java class), whose order is
//! `AbstractCompositeType.compareCustom`: component by component, each by its own type, then
//! by its end-of-component byte as a signed byte; the value that runs out first sorts first.
//!
//! ```text
//! body  = item* 0x00
//! item  = 0x02 component eoc   the component type's own component (tag, body), then the
//!                              end-of-component byte with its sign bit flipped
//! ```
//!
//! The end marker `0x00` sorts before any item, so a shorter value sorts first; every item
//! is prefix-free. Decoding writes each component back with its 2-byte length. A
//! `DynamicCompositeType` (each component names its own type) is not keyed yet.

use cql::types::composite;
use cql::types::marshal::Composite;
use cql::types::ColumnType;

use super::component;
use super::reader::Reader;
use crate::error::StorageError;

const END: u8 = 0x00;
const ITEM: u8 = 0x02;

/// The component types of `ty` when it is a `CompositeType`.
pub(super) fn types_of(ty: &ColumnType) -> Option<Vec<ColumnType>> {
    match Composite::of(ty)? {
        Composite::Static(types) => Some(types),
        Composite::Dynamic(_) => None,
    }
}

/// Appends the body of a serialized `CompositeType` value of `types`.
pub(super) fn encode(
    ty: &ColumnType,
    types: &[ColumnType],
    value: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), StorageError> {
    let parts =
        composite::components(value).ok_or_else(|| component::invalid(ty, "not a composite"))?;
    if parts.len() > types.len() {
        return Err(component::invalid(ty, "more components than the type has"));
    }
    for ((part, eoc), ty) in parts.into_iter().zip(types) {
        out.push(ITEM);
        component::encode(ty, false, part, out)?;
        out.push(eoc ^ 0x80);
    }
    out.push(END);
    Ok(())
}

/// Decodes a body written by [`encode`] into the serialized value.
pub(super) fn decode(types: &[ColumnType], r: &mut Reader<'_>) -> Result<Vec<u8>, StorageError> {
    let mut out = Vec::new();
    let mut types = types.iter();
    loop {
        match r.byte()? {
            END => return Ok(out),
            ITEM => {
                let ty = types
                    .next()
                    .ok_or_else(|| StorageError::corrupt("row key: composite component"))?;
                let value = component::decode_from(ty, r)?;
                let eoc = r.byte()? ^ 0x80;
                composite::write_component(&mut out, None, &value)
                    .map_err(|_| StorageError::corrupt("row key: composite component length"))?;
                composite::end_last_component(&mut out, eoc);
            }
            _ => return Err(StorageError::corrupt("row key: composite item marker")),
        }
    }
}
