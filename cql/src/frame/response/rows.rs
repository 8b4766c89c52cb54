//! Rows results (native_protocol_v4.spec section 4.2.5.2): result metadata (flags, column
//! count, paging state, column specs) then `rows_count` rows of `[bytes]` cells.
//!
//! The encoder derives the flags: Global_tables_spec (0x01) when there are columns and all
//! share one keyspace and table, Has_more_pages (0x02) iff there is a paging state,
//! No_metadata (0x04) iff `no_metadata`. Under No_metadata the column count is still the
//! length of `columns` (the server keeps them so rows stay well-formed) but no spec is
//! written; decoding such metadata yields that many placeholder specs (empty names, `blob`).

use std::sync::Arc;

use bytes::{Bytes, BytesMut};

use crate::frame::option::{read_column_type_option, write_column_type_option_for};
use crate::frame::primitives::{
    bounded_vec, int_len, read_int, read_shared_bytes, read_short_bytes, read_string, share,
    write_bytes, write_int, write_short_bytes, write_string,
};
use crate::frame::{FrameError, ProtocolVersion};
use crate::types::ColumnType;

/// The most placeholder specs a No_metadata result may ask the decoder to build: with
/// No_metadata the column count is not backed by bytes, so it needs a limit of its own.
pub const MAX_UNDESCRIBED_COLUMNS: usize = 65_535;

const GLOBAL_TABLES_SPEC: i32 = 0x0001;
const HAS_MORE_PAGES: i32 = 0x0002;
const NO_METADATA: i32 = 0x0004;
/// v5: the result metadata changed since the client's PREPARED; its new id follows.
const METADATA_CHANGED: i32 = 0x0008;

/// A column of a result set, or a bind marker of a prepared statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnSpec {
    /// Keyspace of the table the column belongs to.
    pub keyspace: String,
    /// Table the column belongs to.
    pub table: String,
    /// Column name, alias, or bind marker name.
    pub name: String,
    /// The column's type.
    pub ty: ColumnType,
}

impl ColumnSpec {
    /// A spec that describes nothing (empty names, `blob`): what stands for a column under
    /// No_metadata, where only the column count is written. Allocates nothing.
    pub fn placeholder() -> ColumnSpec {
        ColumnSpec {
            keyspace: String::new(),
            table: String::new(),
            name: String::new(),
            ty: ColumnType::Blob,
        }
    }
}

/// Metadata of a Rows result, also the `<result_metadata>` of a Prepared result.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResultMetadata {
    /// The columns; under `no_metadata` only their count is written. Shared, so a server
    /// can answer every execution of a statement with the specs it planned once.
    pub columns: Arc<[ColumnSpec]>,
    /// Present iff more pages follow (Has_more_pages).
    pub paging_state: Option<Bytes>,
    /// Omit the column specs (the request asked Skip_metadata).
    pub no_metadata: bool,
    /// v5: the current result metadata id, sent (with full metadata) when the id the client
    /// executed with is not it.
    pub new_metadata_id: Option<Bytes>,
}

/// A Rows result.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rows {
    /// Columns and paging state.
    pub metadata: ResultMetadata,
    /// Serialized cells, `None` for null. Each row must hold exactly one cell per column of
    /// the metadata (also under No_metadata): the encoder writes what it is given.
    pub rows: Vec<Vec<Option<Bytes>>>,
}

/// The keyspace and table every column shares, if there are columns and they all do.
pub(crate) fn global_table(columns: &[ColumnSpec]) -> Option<(&str, &str)> {
    let first = columns.first()?;
    columns
        .iter()
        .all(|c| c.keyspace == first.keyspace && c.table == first.table)
        .then_some((first.keyspace.as_str(), first.table.as_str()))
}

/// Writes the column specs after the flags and counts (global spec first when it applies).
pub(crate) fn write_specs(out: &mut BytesMut, columns: &[ColumnSpec], version: ProtocolVersion) {
    let global = global_table(columns);
    if let Some((keyspace, table)) = global {
        write_string(out, keyspace);
        write_string(out, table);
    }
    for column in columns {
        if global.is_none() {
            write_string(out, &column.keyspace);
            write_string(out, &column.table);
        }
        write_string(out, &column.name);
        write_column_type_option_for(out, &column.ty, version);
    }
}

/// Reads `count` column specs, with a global table spec first when `global` is set.
pub(crate) fn read_specs(
    buf: &mut &[u8],
    count: usize,
    global: bool,
) -> Result<Vec<ColumnSpec>, FrameError> {
    let owned = |s: &str| s.to_owned();
    let table = if global {
        Some((
            owned(read_string(buf, "keyspace")?),
            owned(read_string(buf, "table")?),
        ))
    } else {
        None
    };
    let mut columns = bounded_vec(count, buf, 4);
    for _ in 0..count {
        let (keyspace, table) = match &table {
            Some((keyspace, table)) => (keyspace.clone(), table.clone()),
            None => (
                owned(read_string(buf, "keyspace")?),
                owned(read_string(buf, "table")?),
            ),
        };
        let name = owned(read_string(buf, "column name")?);
        let ty = read_column_type_option(buf)?;
        columns.push(ColumnSpec {
            keyspace,
            table,
            name,
            ty,
        });
    }
    Ok(columns)
}

/// Reads a non-negative `[int]` count.
pub(crate) fn read_count(buf: &mut &[u8], field: &'static str) -> Result<usize, FrameError> {
    let count = read_int(buf, field)?;
    usize::try_from(count).map_err(|_| FrameError::InvalidValue {
        field,
        value: i64::from(count),
    })
}

impl ResultMetadata {
    /// Metadata that describes no columns: what PREPARED sends for a non-SELECT statement
    /// (flags No_metadata, column count 0).
    pub fn empty() -> ResultMetadata {
        ResultMetadata {
            columns: Arc::from([]),
            paging_state: None,
            no_metadata: true,
            new_metadata_id: None,
        }
    }

    /// Metadata describing `columns` in full, with no paging state: what a result built by
    /// the server itself (DESCRIBE, LIST ROLES) carries.
    pub fn describing(columns: Arc<[ColumnSpec]>) -> ResultMetadata {
        ResultMetadata {
            columns,
            paging_state: None,
            no_metadata: false,
            new_metadata_id: None,
        }
    }

    /// The flags `[int]` this metadata encodes to in v4.
    pub fn flags(&self) -> i32 {
        self.flags_for(ProtocolVersion::V4)
    }

    /// The flags `[int]` this metadata encodes to in `version`.
    pub fn flags_for(&self, version: ProtocolVersion) -> i32 {
        self.flags_given(version, global_table(&self.columns).is_some())
    }

    /// The flags, given whether the columns share one table (`global`).
    fn flags_given(&self, version: ProtocolVersion, global: bool) -> i32 {
        let mut flags = 0;
        if version.is_v5() && self.new_metadata_id.is_some() {
            flags |= METADATA_CHANGED;
        }
        if !self.no_metadata && global {
            flags |= GLOBAL_TABLES_SPEC;
        }
        if self.paging_state.is_some() {
            flags |= HAS_MORE_PAGES;
        }
        if self.no_metadata {
            flags |= NO_METADATA;
        }
        flags
    }

    pub(crate) fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        // The specs of a list shared with a plan (answered again) are written from their kept
        // encoding; a list made for this answer alone (an LWT's `[applied]`, SELECT JSON) is
        // written afresh and keeps no entry.
        let shared = !self.no_metadata && Arc::strong_count(&self.columns) > 1;
        let specs = shared.then(|| super::encoded_specs::encoded(&self.columns, version));
        let global = match &specs {
            Some(specs) => specs.global,
            None => global_table(&self.columns).is_some(),
        };
        write_int(out, self.flags_given(version, global));
        write_int(out, int_len(self.columns.len()));
        if let Some(state) = &self.paging_state {
            write_bytes(out, Some(state));
        }
        if let Some(id) = self.new_metadata_id.as_ref().filter(|_| version.is_v5()) {
            write_short_bytes(out, id);
        }
        match specs {
            Some(specs) => out.extend_from_slice(&specs.bytes),
            None if !self.no_metadata => write_specs(out, &self.columns, version),
            None => {}
        }
    }

    pub(crate) fn decode(
        buf: &mut &[u8],
        body: &Bytes,
        version: ProtocolVersion,
    ) -> Result<ResultMetadata, FrameError> {
        let flags = read_int(buf, "metadata flags")?;
        let count = read_count(buf, "columns_count")?;
        let paging_state = if flags & HAS_MORE_PAGES != 0 {
            read_shared_bytes(buf, body, "paging_state")?
        } else {
            None
        };
        let new_metadata_id = if version.is_v5() && flags & METADATA_CHANGED != 0 {
            Some(share(body, read_short_bytes(buf, "new_metadata_id")?))
        } else {
            None
        };
        let no_metadata = flags & NO_METADATA != 0;
        let columns = if no_metadata {
            placeholder_columns(count)?
        } else {
            read_specs(buf, count, flags & GLOBAL_TABLES_SPEC != 0)?
        };
        let columns = Arc::from(columns);
        Ok(ResultMetadata {
            columns,
            paging_state,
            no_metadata,
            new_metadata_id,
        })
    }
}

fn placeholder_columns(count: usize) -> Result<Vec<ColumnSpec>, FrameError> {
    if count > MAX_UNDESCRIBED_COLUMNS {
        return Err(FrameError::InvalidValue {
            field: "columns_count",
            value: count as i64,
        });
    }
    Ok(vec![ColumnSpec::placeholder(); count])
}

impl Rows {
    /// About how many bytes the encoded result takes: exact for the rows, an estimate for
    /// the metadata. Encoders reserve it up front rather than growing the buffer.
    pub(crate) fn size_hint(&self) -> usize {
        let cells: usize = self
            .rows
            .iter()
            .flatten()
            .map(|cell| 4 + cell.as_ref().map_or(0, Bytes::len))
            .sum();
        let specs = if self.metadata.no_metadata {
            0
        } else {
            self.metadata.columns.len() * 24
        };
        let paging = self.metadata.paging_state.as_ref().map_or(0, Bytes::len);
        16 + paging + specs + cells
    }

    pub(crate) fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        self.metadata.encode(out, version);
        write_int(out, int_len(self.rows.len()));
        for row in &self.rows {
            for cell in row {
                write_bytes(out, cell.as_deref());
            }
        }
    }

    pub(crate) fn decode(
        buf: &mut &[u8],
        body: &Bytes,
        version: ProtocolVersion,
    ) -> Result<Rows, FrameError> {
        let metadata = ResultMetadata::decode(buf, body, version)?;
        let width = metadata.columns.len();
        let count = read_count(buf, "rows_count")?;
        if width == 0 && count > 0 {
            // Rows without columns take no bytes, so nothing would bound `count`.
            return Err(FrameError::InvalidValue {
                field: "rows_count",
                value: count as i64,
            });
        }
        let mut rows = bounded_vec(count, buf, width.saturating_mul(4));
        for _ in 0..count {
            let mut row = bounded_vec(width, buf, 4);
            for _ in 0..width {
                row.push(read_shared_bytes(buf, body, "cell")?);
            }
            rows.push(row);
        }
        Ok(Rows { metadata, rows })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::response::tests::round_trip;
    use crate::frame::response::{Response, ResultBody};
    use crate::frame::Opcode;

    fn spec(table: &str, name: &str, ty: ColumnType) -> ColumnSpec {
        ColumnSpec {
            keyspace: "ks".into(),
            table: table.into(),
            name: name.into(),
            ty,
        }
    }

    fn rows(metadata: ResultMetadata, rows: Vec<Vec<Option<Bytes>>>) -> Response {
        Response::Result(ResultBody::Rows(Rows { metadata, rows }))
    }

    #[test]
    fn rows_with_global_table_spec_are_exact() {
        let metadata = ResultMetadata {
            columns: vec![
                spec("t", "k", ColumnType::Int),
                spec("t", "v", ColumnType::Text),
            ]
            .into(),
            paging_state: None,
            no_metadata: false,
            new_metadata_id: None,
        };
        let cells = vec![vec![Some(Bytes::from_static(&[0, 0, 0, 1])), None]];
        let body = round_trip(&rows(metadata, cells));
        let expected: &[u8] = &[
            0, 0, 0, 2, // kind Rows
            0, 0, 0, 1, // flags Global_tables_spec
            0, 0, 0, 2, // columns_count
            0, 2, b'k', b's', 0, 1, b't', // global table spec
            0, 1, b'k', 0, 9, // k int
            0, 1, b'v', 0, 0x0D, // v text
            0, 0, 0, 1, // rows_count
            0, 0, 0, 4, 0, 0, 0, 1, // 1
            0xFF, 0xFF, 0xFF, 0xFF, // null
        ];
        assert_eq!(&body[..], expected);
    }

    /// A spec list shared with a plan is written from its kept encoding, one held by its
    /// answer alone afresh: the bytes are the same, with one table or several.
    #[test]
    fn shared_and_unshared_spec_lists_encode_alike() {
        for tables in [["t", "t"], ["t", "u"]] {
            let columns: Arc<[ColumnSpec]> = Arc::from([
                spec(tables[0], "k", ColumnType::Int),
                spec(tables[1], "v", ColumnType::Text),
            ]);
            let metadata = |columns: Arc<[ColumnSpec]>| ResultMetadata {
                columns,
                paging_state: None,
                no_metadata: false,
                new_metadata_id: None,
            };
            let fresh = {
                let mut out = BytesMut::new();
                metadata(Arc::from(&columns[..])).encode(&mut out, ProtocolVersion::V4);
                out
            };
            for _ in 0..2 {
                let mut out = BytesMut::new();
                metadata(columns.clone()).encode(&mut out, ProtocolVersion::V4);
                assert_eq!(out, fresh);
            }
        }
    }

    #[test]
    fn per_column_specs_and_paging_round_trip() {
        let metadata = ResultMetadata {
            columns: vec![
                spec("a", "x", ColumnType::Int),
                spec("b", "y", ColumnType::Uuid),
            ]
            .into(),
            paging_state: Some(Bytes::from_static(b"next")),
            no_metadata: false,
            new_metadata_id: None,
        };
        assert_eq!(metadata.flags(), HAS_MORE_PAGES);
        let cells = vec![vec![None, Some(Bytes::new())]; 3];
        round_trip(&rows(metadata, cells));
        round_trip(&rows(ResultMetadata::default(), vec![]));
    }

    #[test]
    fn no_metadata_keeps_the_column_count() {
        let described = ResultMetadata {
            columns: vec![spec("t", "k", ColumnType::Int); 2].into(),
            paging_state: None,
            no_metadata: true,
            new_metadata_id: None,
        };
        let cells = vec![vec![Some(Bytes::from_static(b"a")), None]];
        let mut out = BytesMut::new();
        Response::Result(ResultBody::Rows(Rows {
            metadata: described,
            rows: cells.clone(),
        }))
        .encode_body(&mut out);
        assert_eq!(&out[4..12], &[0, 0, 0, 4, 0, 0, 0, 2]);
        let decoded = Response::decode(Opcode::Result, &out.freeze()).unwrap();
        let Response::Result(ResultBody::Rows(decoded)) = decoded else {
            panic!("not rows");
        };
        assert_eq!(decoded.rows, cells);
        assert_eq!(decoded.metadata.columns.len(), 2);
        assert_eq!(ResultMetadata::empty().flags(), NO_METADATA);
    }

    #[test]
    fn the_size_hint_covers_undescribed_rows_and_placeholders_are_the_decoded_ones() {
        let metadata = ResultMetadata {
            columns: vec![ColumnSpec::placeholder(); 3].into(),
            paging_state: Some(Bytes::from_static(b"state")),
            no_metadata: true,
            new_metadata_id: None,
        };
        let cells = vec![vec![Some(Bytes::from(vec![7; 100])), None, Some(Bytes::new())]; 20];
        let response = rows(metadata, cells);
        let mut out = BytesMut::new();
        response.encode_body(&mut out);
        assert!(
            response.size_hint() >= out.len(),
            "{} < {}",
            response.size_hint(),
            out.len()
        );
        let Response::Result(ResultBody::Rows(decoded)) =
            Response::decode(Opcode::Result, &out.freeze()).unwrap()
        else {
            panic!("not rows");
        };
        assert_eq!(
            *decoded.metadata.columns,
            vec![ColumnSpec::placeholder(); 3]
        );
    }

    #[test]
    fn hostile_counts_fail_cleanly() {
        // columns_count 2^31-1 with specs, rows_count huge without columns, and too many
        // undescribed columns.
        let cases: [&[u8]; 3] = [
            &[0, 0, 0, 2, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF],
            &[0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF],
            &[0, 0, 0, 2, 0, 0, 0, 4, 0x7F, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0],
        ];
        for case in cases {
            assert!(Response::decode(Opcode::Result, &Bytes::from_static(case)).is_err());
        }
    }
}
