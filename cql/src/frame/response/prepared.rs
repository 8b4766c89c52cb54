//! Prepared results (native_protocol_v4.spec section 4.2.5.4): the statement id as
//! `[short bytes]` (then in v5 the result metadata id), the bind-marker metadata (with the
//! partition-key indexes v4 added), and the metadata of the rows an EXECUTE will return.

use bytes::{Bytes, BytesMut};

use super::rows::{global_table, read_count, read_specs, write_specs};
use super::{ColumnSpec, ResultMetadata};
use crate::frame::primitives::{
    bounded_vec, int_len, read_int, read_short, read_short_bytes, share, write_int, write_short,
    write_short_bytes,
};
use crate::frame::{FrameError, ProtocolVersion};

const GLOBAL_TABLES_SPEC: i32 = 0x0001;

/// The bind markers of a prepared statement.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PreparedMetadata {
    /// For each partition-key column in order, the index of its bind marker; empty when some
    /// partition-key component is not a plain bind marker.
    pub pk_indexes: Vec<u16>,
    /// One spec per bind marker, in order.
    pub columns: Vec<ColumnSpec>,
}

/// A Prepared result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// The statement id (deterministic, valid on every connection).
    pub id: Bytes,
    /// v5: the id of the result metadata, which EXECUTE sends back so the server can tell
    /// the client when the columns changed.
    pub result_metadata_id: Bytes,
    /// The bind markers.
    pub metadata: PreparedMetadata,
    /// What EXECUTE will return; [`ResultMetadata::empty`] for non-SELECT statements.
    pub result_metadata: ResultMetadata,
}

impl PreparedMetadata {
    /// `<flags><columns_count><pk_count><pk_index>*[global table spec]<col_spec>*`.
    pub(crate) fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        let flags = if global_table(&self.columns).is_some() {
            GLOBAL_TABLES_SPEC
        } else {
            0
        };
        write_int(out, flags);
        write_int(out, int_len(self.columns.len()));
        if version >= ProtocolVersion::V4 {
            write_int(out, int_len(self.pk_indexes.len()));
            for index in &self.pk_indexes {
                write_short(out, *index);
            }
        }
        write_specs(out, &self.columns, version);
    }

    pub(crate) fn decode(
        buf: &mut &[u8],
        version: ProtocolVersion,
    ) -> Result<PreparedMetadata, FrameError> {
        let flags = read_int(buf, "metadata flags")?;
        let columns_count = read_count(buf, "columns_count")?;
        let pk_count = if version >= ProtocolVersion::V4 {
            read_count(buf, "pk_count")?
        } else {
            0
        };
        let mut pk_indexes = bounded_vec(pk_count, buf, 2);
        for _ in 0..pk_count {
            pk_indexes.push(read_short(buf, "pk_index")?);
        }
        let columns = read_specs(buf, columns_count, flags & GLOBAL_TABLES_SPEC != 0)?;
        Ok(PreparedMetadata {
            pk_indexes,
            columns,
        })
    }
}

impl Prepared {
    pub(crate) fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        write_short_bytes(out, &self.id);
        if version.is_v5() {
            write_short_bytes(out, &self.result_metadata_id);
        }
        self.metadata.encode(out, version);
        self.result_metadata.encode(out, version);
    }

    pub(crate) fn decode(
        buf: &mut &[u8],
        body: &Bytes,
        version: ProtocolVersion,
    ) -> Result<Prepared, FrameError> {
        let id = share(body, read_short_bytes(buf, "id")?);
        let result_metadata_id = if version.is_v5() {
            share(body, read_short_bytes(buf, "result_metadata_id")?)
        } else {
            Bytes::new()
        };
        let metadata = PreparedMetadata::decode(buf, version)?;
        let result_metadata = ResultMetadata::decode(buf, body, version)?;
        Ok(Prepared {
            id,
            result_metadata_id,
            metadata,
            result_metadata,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::response::tests::round_trip;
    use crate::frame::response::{Response, ResultBody};
    use crate::types::ColumnType;

    fn spec(table: &str, name: &str, ty: ColumnType) -> ColumnSpec {
        ColumnSpec {
            keyspace: "ks".into(),
            table: table.into(),
            name: name.into(),
            ty,
        }
    }

    #[test]
    fn prepared_with_pk_indexes_is_exact() {
        let prepared = Prepared {
            id: Bytes::from_static(&[0xAA, 0xBB]),
            metadata: PreparedMetadata {
                pk_indexes: vec![1, 0],
                columns: vec![
                    spec("t", "b", ColumnType::Int),
                    spec("t", "a", ColumnType::Int),
                ],
            },
            result_metadata: ResultMetadata::empty(),
            result_metadata_id: bytes::Bytes::new(),
        };
        let body = round_trip(&Response::Result(ResultBody::Prepared(prepared)));
        let expected: &[u8] = &[
            0, 0, 0, 4, // kind Prepared
            0, 2, 0xAA, 0xBB, // id
            0, 0, 0, 1, // flags Global_tables_spec
            0, 0, 0, 2, // columns_count
            0, 0, 0, 2, 0, 1, 0, 0, // pk_count 2: [1, 0]
            0, 2, b'k', b's', 0, 1, b't', // global table spec
            0, 1, b'b', 0, 9, 0, 1, b'a', 0, 9, // bind markers
            0, 0, 0, 4, 0, 0, 0, 0, // result metadata: No_metadata, 0 columns
        ];
        assert_eq!(&body[..], expected);
    }

    #[test]
    fn prepared_select_round_trips() {
        let prepared = Prepared {
            id: Bytes::from_static(&[7; 16]),
            metadata: PreparedMetadata {
                pk_indexes: vec![],
                columns: vec![
                    spec("t", "k", ColumnType::Text),
                    spec("u", "[limit]", ColumnType::Int),
                ],
            },
            result_metadata: ResultMetadata {
                columns: vec![spec("t", "v", ColumnType::Blob)].into(),
                paging_state: None,
                no_metadata: false,
                new_metadata_id: None,
            },
            result_metadata_id: bytes::Bytes::new(),
        };
        round_trip(&Response::Result(ResultBody::Prepared(prepared)));
    }
}
