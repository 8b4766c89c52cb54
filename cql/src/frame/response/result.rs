//! RESULT (native_protocol_v4.spec section 4.2.5): an `[int]` kind then the kind's body.
//! Rows live in [`super::rows`], Prepared in [`super::prepared`], Schema_change in
//! [`super::schema_change`]; Void and Set_keyspace are simple enough to stay here.

use bytes::{Bytes, BytesMut};

use super::{Prepared, Rows, SchemaChange};
use crate::frame::primitives::{read_int, read_string, write_int, write_string};
use crate::frame::{FrameError, ProtocolVersion};

/// RESULT kinds.
pub mod result_kind {
    /// No information (DML, TRUNCATE, a no-op DDL).
    pub const VOID: i32 = 0x0001;
    /// A result set.
    pub const ROWS: i32 = 0x0002;
    /// The answer to `USE`.
    pub const SET_KEYSPACE: i32 = 0x0003;
    /// The answer to PREPARE.
    pub const PREPARED: i32 = 0x0004;
    /// The answer to DDL that changed the schema.
    pub const SCHEMA_CHANGE: i32 = 0x0005;
}

/// A RESULT body.
#[derive(Debug, Clone, PartialEq)]
pub enum ResultBody {
    /// Kind 0x0001.
    Void,
    /// Kind 0x0002.
    Rows(Rows),
    /// Kind 0x0003: the keyspace's real name.
    SetKeyspace(String),
    /// Kind 0x0004.
    Prepared(Prepared),
    /// Kind 0x0005.
    SchemaChange(SchemaChange),
}

impl ResultBody {
    /// The kind `[int]` of this result.
    pub fn kind(&self) -> i32 {
        match self {
            ResultBody::Void => result_kind::VOID,
            ResultBody::Rows(_) => result_kind::ROWS,
            ResultBody::SetKeyspace(_) => result_kind::SET_KEYSPACE,
            ResultBody::Prepared(_) => result_kind::PREPARED,
            ResultBody::SchemaChange(_) => result_kind::SCHEMA_CHANGE,
        }
    }

    /// About how many bytes the encoded body takes (see [`Rows`]'s estimate).
    pub(crate) fn size_hint(&self) -> usize {
        match self {
            ResultBody::Rows(rows) => 4 + rows.size_hint(),
            ResultBody::Void
            | ResultBody::SetKeyspace(_)
            | ResultBody::Prepared(_)
            | ResultBody::SchemaChange(_) => 128,
        }
    }

    pub(crate) fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        write_int(out, self.kind());
        match self {
            ResultBody::Void => {}
            ResultBody::Rows(rows) => rows.encode(out, version),
            ResultBody::SetKeyspace(keyspace) => write_string(out, keyspace),
            ResultBody::Prepared(prepared) => prepared.encode(out, version),
            ResultBody::SchemaChange(change) => change.encode(out),
        }
    }

    pub(crate) fn decode(
        buf: &mut &[u8],
        body: &Bytes,
        version: ProtocolVersion,
    ) -> Result<ResultBody, FrameError> {
        Ok(match read_int(buf, "result kind")? {
            result_kind::VOID => ResultBody::Void,
            result_kind::ROWS => ResultBody::Rows(Rows::decode(buf, body, version)?),
            result_kind::SET_KEYSPACE => {
                ResultBody::SetKeyspace(read_string(buf, "keyspace")?.to_owned())
            }
            result_kind::PREPARED => ResultBody::Prepared(Prepared::decode(buf, body, version)?),
            result_kind::SCHEMA_CHANGE => ResultBody::SchemaChange(SchemaChange::decode(buf)?),
            other => {
                return Err(FrameError::InvalidValue {
                    field: "result kind",
                    value: i64::from(other),
                })
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::response::tests::round_trip;
    use crate::frame::response::Response;
    use crate::frame::Opcode;

    #[test]
    fn void_and_set_keyspace_are_exact() {
        let body = round_trip(&Response::Result(ResultBody::Void));
        assert_eq!(&body[..], &[0, 0, 0, 1]);
        let body = round_trip(&Response::Result(ResultBody::SetKeyspace("ks".into())));
        assert_eq!(&body[..], &[0, 0, 0, 3, 0, 2, b'k', b's']);
    }

    #[test]
    fn unknown_kinds_are_rejected() {
        let err = Response::decode(Opcode::Result, &Bytes::from_static(&[0, 0, 0, 9])).unwrap_err();
        assert_eq!(err.to_string(), "Invalid value 9 for result kind");
    }
}
