//! `<type>AsBlob` and `blobAs<type>` for every native type (Cassandra's
//! `BytesConversionFcts`): the bytes pass through unchanged, and `blobAs<type>` first checks
//! they are a valid value of its type.

use bytes::Bytes;
use cql::types::{codec, ColumnType};

use super::{first, Body, NativeFunction};
use crate::error::{CqlResult, ValueError};

/// The native types with blob conversions, as Cassandra names them in the function names.
const CONVERTIBLE: [(&str, ColumnType); 20] = [
    ("ascii", ColumnType::Ascii),
    ("bigint", ColumnType::Bigint),
    ("boolean", ColumnType::Boolean),
    ("counter", ColumnType::Counter),
    ("date", ColumnType::Date),
    ("decimal", ColumnType::Decimal),
    ("double", ColumnType::Double),
    ("duration", ColumnType::Duration),
    ("float", ColumnType::Float),
    ("inet", ColumnType::Inet),
    ("int", ColumnType::Int),
    ("smallint", ColumnType::Smallint),
    ("text", ColumnType::Text),
    ("time", ColumnType::Time),
    ("timestamp", ColumnType::Timestamp),
    ("timeuuid", ColumnType::Timeuuid),
    ("tinyint", ColumnType::Tinyint),
    ("uuid", ColumnType::Uuid),
    ("varchar", ColumnType::Text),
    ("varint", ColumnType::Varint),
];

/// Every blob conversion signature.
pub(super) fn all() -> Vec<NativeFunction> {
    let mut out = Vec::with_capacity(CONVERTIBLE.len() * 2);
    for (name, ty) in CONVERTIBLE {
        out.push(NativeFunction::new(
            format!("{name}asblob"),
            vec![ty.clone()],
            ColumnType::Blob,
            Body::ToBlob,
        ));
        out.push(NativeFunction::new(
            format!("blobas{name}"),
            vec![ColumnType::Blob],
            ty,
            Body::FromBlob,
        ));
    }
    out
}

/// `blobAs<type>`: the blob, if it is a valid value of the return type.
pub(super) fn from_blob(
    function: &NativeFunction,
    args: &[Option<Bytes>],
) -> CqlResult<Option<Bytes>> {
    let Some(value) = first(args) else {
        return Ok(None);
    };
    codec::validate_value(&function.ret, value).map_err(|_| ValueError::NotABlobOf {
        function: function.qualified_name(),
        value: value.to_vec(),
        ty: function.ret.clone().into(),
    })?;
    Ok(Some(value.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::functions::CallContext;

    fn function(name: &str) -> NativeFunction {
        all()
            .into_iter()
            .find(|f| f.name == name)
            .expect("declared")
    }

    #[test]
    fn blob_conversions_pass_bytes_through() {
        let ctx = CallContext { now_micros: 0 };
        let value = Bytes::from_static(&[0, 0, 0, 7]);
        let blob = function("intasblob")
            .execute(&[Some(value.clone())], &ctx)
            .expect("runs");
        assert_eq!(blob.as_ref(), Some(&value));
        let back = function("blobasint")
            .execute(&[Some(value.clone())], &ctx)
            .expect("valid int");
        assert_eq!(back, Some(value));
        assert_eq!(function("blobasvarchar").ret, ColumnType::Text);
        assert_eq!(function("textasblob").args, vec![ColumnType::Text]);
    }

    #[test]
    fn blob_of_the_wrong_size_is_refused_with_cassandras_message() {
        let ctx = CallContext { now_micros: 0 };
        let err = function("blobasbigint")
            .execute(&[Some(Bytes::from_static(&[0, 0, 0, 0x7b]))], &ctx)
            .expect_err("4 bytes are not a bigint");
        assert_eq!(
            err.to_string(),
            "In call to function system.blobasbigint, value 0x0000007b is not a valid binary representation for type bigint"
        );
    }
}
