//! Protocol frames: what a driver sends for a bound QUERY, and what the server answers to a
//! 100-row SELECT.

use bytes::{Bytes, BytesMut};
use cql::frame::encode_request_frame;
use cql::frame::request::{Query, QueryParameters, Request, Value};
use cql::frame::response::{ColumnSpec, Response, ResultBody, ResultMetadata, Rows};
use cql::types::ColumnType;
use uuid::Uuid;

use crate::statements::SELECT_SLICE;

/// `LOCAL_ONE`, the scylla driver's default consistency.
const LOCAL_ONE: u16 = 0x000A;

/// A complete QUERY request frame (header and body, uncompressed) for [`SELECT_SLICE`] with
/// its three values bound, a page size and a client timestamp, as a driver sends it.
pub fn query_request_frame() -> BytesMut {
    let request = Request::Query(Query {
        query: SELECT_SLICE.to_string(),
        params: QueryParameters {
            consistency: LOCAL_ONE,
            values: vec![
                Value::Bytes(Bytes::from_static(b"sensor-0042")),
                Value::Bytes(Bytes::copy_from_slice(&7i32.to_be_bytes())),
                Value::Bytes(Bytes::copy_from_slice(&1_700_000_000_000i64.to_be_bytes())),
            ],
            value_names: None,
            skip_metadata: false,
            page_size: Some(5000),
            paging_state: None,
            serial_consistency: None,
            default_timestamp: Some(1_763_683_200_000_000),
            keyspace: None,
            now_in_seconds: None,
        },
    });
    encode_request_frame(1, &request, None)
}

/// The column specs of [`rows_result`]: uuid, text, int, double and a 64-byte blob.
fn result_columns() -> Vec<ColumnSpec> {
    let column = |name: &str, ty: ColumnType| ColumnSpec {
        keyspace: "bench".into(),
        table: "readings".into(),
        name: name.into(),
        ty,
    };
    vec![
        column("id", ColumnType::Uuid),
        column("name", ColumnType::Text),
        column("count", ColumnType::Int),
        column("score", ColumnType::Double),
        column("payload", ColumnType::Blob),
    ]
}

/// A RESULT Rows response of `rows` rows × 5 columns (uuid, text, int, double, 64-byte blob),
/// with full metadata (no Skip_metadata), about 140 bytes of cells per row.
pub fn rows_result(rows: usize) -> Response {
    let payload = Bytes::from(vec![0xAB; 64]);
    let rows = (0..rows)
        .map(|i| {
            let id = Uuid::from_u128(0x0123_4567_89ab_cdef_0000_0000_0000_0000 | i as u128);
            vec![
                Some(Bytes::copy_from_slice(id.as_bytes())),
                Some(Bytes::from(format!("row name number {i:05}"))),
                Some(Bytes::copy_from_slice(&(i as i32).to_be_bytes())),
                Some(Bytes::copy_from_slice(&(i as f64 * 0.5).to_be_bytes())),
                Some(payload.clone()),
            ]
        })
        .collect();
    Response::Result(ResultBody::Rows(Rows {
        metadata: ResultMetadata {
            columns: result_columns().into(),
            paging_state: None,
            no_metadata: false,
            new_metadata_id: None,
        },
        rows,
    }))
}
