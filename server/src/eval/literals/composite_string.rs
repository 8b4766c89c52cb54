//! A `CompositeType` or `DynamicCompositeType` value from a constant, as Cassandra reads
//! any constant for a custom type: its text through the type's `fromString`
//! (`AbstractCompositeType.fromString`). Parts split on unescaped `:` (`cql::types::composite`);
//! a `CompositeType` reads part *i* as its *i*-th type and may leave trailing components out;
//! a `DynamicCompositeType` part is `alias@value` or `class@value`. A lone `!` or `_` part ends
//! the value with an end-of-component byte of 1 or -1 (a slice bound).

use cql::types::composite::{self, Header};
use cql::types::marshal::{self, Composite};
use cql::types::{codec, ColumnType, CqlValue};

use super::tuple_string::field_from_string;
use super::Receiver;
use crate::error::ValueError;

/// The serialized composite `text` is for `receiver`, a column of `composite`'s type.
pub(super) fn composite_from_text(
    text: &str,
    kind: &'static str,
    receiver: Receiver<'_>,
    composite: &Composite,
) -> Result<CqlValue, ValueError> {
    let mut out = Vec::new();
    let mut end = None;
    for (i, part) in composite::split(text).into_iter().enumerate() {
        if let Some(eoc) = composite::end_marker(part) {
            end = Some(eoc);
            break;
        }
        match composite {
            Composite::Static(types) => {
                let Some(ty) = types.get(i) else {
                    return Err(ValueError::ConstantNotOfType {
                        kind,
                        text: text.to_string(),
                        column: receiver.name.to_string(),
                        ty: receiver.ty.clone().into(),
                    });
                };
                let value = component(&composite::unescape(part), receiver.name, &ty.ty)?;
                composite::write_component(&mut out, None, &value)?;
            }
            Composite::Dynamic(aliases) => {
                let (name, value) = dynamic_part(part)?;
                let alias = match name.as_bytes() {
                    [alias] => aliases.iter().find(|(a, _)| a == alias),
                    _ => None,
                };
                let (header, ty) = match alias {
                    Some((alias, ty)) => (Header::Alias(*alias), ty.ty.clone()),
                    None => (Header::Class(name), marshal::parse_class(name)?),
                };
                let value = component(&composite::unescape(value), receiver.name, &ty)?;
                composite::write_component(&mut out, Some(header), &value)?;
            }
        }
    }
    if let Some(eoc) = end {
        composite::end_last_component(&mut out, eoc);
    }
    Ok(CqlValue::Blob(out))
}

/// A dynamic part's type name and value text: Java's `part.split("@")`, which must give two
/// pieces (trailing empty pieces dropped).
fn dynamic_part(part: &str) -> Result<(&str, &str), ValueError> {
    let mut pieces: Vec<&str> = part.split('@').collect();
    while pieces.len() > 1 && pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    match pieces[..] {
        [name, value] => Ok((name, value)),
        _ => Err(ValueError::CompositeComponent {
            part: part.to_string(),
        }),
    }
}

/// One component's bytes: its text by its type's `fromString`.
fn component(text: &str, column: &str, ty: &ColumnType) -> Result<Vec<u8>, ValueError> {
    let value = match ty {
        ColumnType::Custom(_) => {
            let receiver = Receiver { name: column, ty };
            match Composite::of(ty) {
                Some(inner) => composite_from_text(text, "STRING", receiver, &inner)?,
                None => field_from_string(text, column, &ColumnType::Blob)?,
            }
        }
        _ => field_from_string(text, column, ty)?,
    };
    let mut bytes = Vec::new();
    codec::serialize_value(&value, &mut bytes);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(class: &str, text: &str) -> Result<Vec<u8>, String> {
        let ty = marshal::parse_class(class).expect("class");
        let composite = Composite::of(&ty).expect("composite");
        let receiver = Receiver { name: "b", ty: &ty };
        match composite_from_text(text, "STRING", receiver, &composite) {
            Ok(CqlValue::Blob(bytes)) => Ok(bytes),
            Ok(other) => panic!("{other:?}"),
            Err(err) => Err(err.to_string()),
        }
    }

    const ASCII_INT: &str = "CompositeType(AsciiType, Int32Type)";

    #[test]
    fn composite_parts_read_by_their_types() {
        assert_eq!(
            read(ASCII_INT, "abc:123"),
            Ok(vec![0, 3, b'a', b'b', b'c', 0, 0, 4, 0, 0, 0, 123, 0])
        );
        // Trailing components may be left out; `\:` is a colon in a part.
        assert_eq!(read(ASCII_INT, "abc"), Ok(vec![0, 3, b'a', b'b', b'c', 0]));
        assert_eq!(
            read(ASCII_INT, "a\\:b"),
            Ok(vec![0, 3, b'a', b':', b'b', 0])
        );
        assert_eq!(read(ASCII_INT, ""), Ok(Vec::new()));
        // An empty part is the type's empty value.
        assert_eq!(
            read(ASCII_INT, ":1"),
            Ok(vec![0, 0, 0, 0, 4, 0, 0, 0, 1, 0])
        );
        // A slice bound's end-of-component byte.
        assert_eq!(read(ASCII_INT, "a:!"), Ok(vec![0, 1, b'a', 1]));
        assert_eq!(read(ASCII_INT, "a:_"), Ok(vec![0, 1, b'a', 0xFF]));
        assert_eq!(
            read(ASCII_INT, "abc:x"),
            Err("Unable to make int from 'x'".to_string())
        );
        assert!(read(ASCII_INT, "a:1:2").is_err());
    }

    #[test]
    fn dynamic_parts_name_their_types() {
        let class = "DynamicCompositeType(s => UTF8Type, i => Int32Type)";
        assert_eq!(
            read(class, "s@foo:i@32"),
            Ok(vec![
                0x80, b's', 0, 3, b'f', b'o', b'o', 0, 0x80, b'i', 0, 4, 0, 0, 0, 32, 0
            ])
        );
        let mut by_class = vec![0, 9];
        by_class.extend_from_slice(b"Int32Type");
        by_class.extend_from_slice(&[0, 4, 0, 0, 0, 7, 0]);
        assert_eq!(read(class, "Int32Type@7"), Ok(by_class));
        assert_eq!(
            read(class, "foo"),
            Err("Invalid component representation: foo".to_string())
        );
        assert_eq!(
            read(class, "x@1"),
            Err(
                "Unable to find abstract-type class 'org.apache.cassandra.db.marshal.x'"
                    .to_string()
            )
        );
    }
}
