//! The message layouts that differ between protocol v3, v4 and v5, byte by byte where the
//! spec fixes them, and round trips everywhere else.

use bytes::{Bytes, BytesMut};
use cql::frame::primitives::Value;
use cql::frame::request::{
    Batch, BatchQuery, BatchStatement, Execute, Prepare, Query, QueryParameters, Request,
};
use cql::frame::response::{
    error_code, ColumnSpec, ErrorBody, ErrorExtra, Prepared, PreparedMetadata, Response,
    ResultBody, ResultMetadata, Rows,
};
use cql::frame::{
    decode_request, decode_response, encode_request_frame_for, encode_response_frame_for,
    parse_header, ProtocolVersion, HEADER_LEN,
};
use cql::types::ColumnType;

const V3: ProtocolVersion = ProtocolVersion::V3;
const V4: ProtocolVersion = ProtocolVersion::V4;
const V5: ProtocolVersion = ProtocolVersion::V5;

fn body_of(version: ProtocolVersion, request: &Request) -> Bytes {
    let mut out = BytesMut::new();
    request.encode_for(version, &mut out);
    out.freeze()
}

fn round_trip(version: ProtocolVersion, request: &Request) -> Bytes {
    let frame = encode_request_frame_for(version, 1, request, None).freeze();
    let header = parse_header(&frame).expect("a header");
    assert_eq!(header.version, version.request_byte());
    let decoded = decode_request(&header, &frame.slice(HEADER_LEN..), None, 1 << 20);
    assert_eq!(decoded.as_ref(), Ok(request), "{version:?}");
    body_of(version, request)
}

fn params() -> QueryParameters {
    QueryParameters {
        consistency: 1,
        values: vec![Value::Bytes(Bytes::from_static(&[0, 0, 0, 7]))],
        page_size: Some(100),
        keyspace: Some("ks".into()),
        now_in_seconds: Some(1_700_000_000),
        ..QueryParameters::default()
    }
}

#[test]
fn v5_query_flags_are_an_int_and_carry_keyspace_and_now() {
    let query = Request::Query(Query {
        query: "SELECT 1".into(),
        params: params(),
    });
    let body = round_trip(V5, &query);
    // [long string] query, [consistency], then the [int] flags: values, page size,
    // keyspace (0x80) and now_in_seconds (0x100).
    assert_eq!(&body[12..14], &[0, 1]);
    assert_eq!(&body[14..18], &[0, 0, 0x01, 0x85]);
    assert_eq!(&body[body.len() - 8..body.len() - 4], &[0, 2, b'k', b's']);
    assert_eq!(&body[body.len() - 4..], &1_700_000_000i32.to_be_bytes());
    // v4 has a flags byte and no keyspace: the same request loses both v5 fields.
    let v4 = body_of(V4, &query);
    assert_eq!(v4[14], 0x05);
    assert_eq!(v4.len(), body.len() - 3 - 4 - 4);
}

#[test]
fn v5_execute_prepare_and_batch() {
    let execute = Request::Execute(Execute {
        id: Bytes::from_static(&[1; 16]),
        result_metadata_id: Some(Bytes::from_static(&[2; 16])),
        params: params(),
    });
    let body = round_trip(V5, &execute);
    assert_eq!(
        &body[18..20],
        &[0, 16],
        "the metadata id follows the statement id"
    );
    let prepare = Request::Prepare(Prepare {
        query: "SELECT ?".into(),
        keyspace: Some("ks".into()),
    });
    let body = round_trip(V5, &prepare);
    assert_eq!(&body[12..16], &[0, 0, 0, 1]);
    round_trip(
        V5,
        &Request::Prepare(Prepare {
            query: "SELECT ?".into(),
            keyspace: None,
        }),
    );
    let batch = Request::Batch(Batch {
        kind: 1,
        statements: vec![BatchStatement {
            query: BatchQuery::Text("INSERT".into()),
            values: vec![Value::Null],
        }],
        consistency: 4,
        serial_consistency: None,
        default_timestamp: Some(5),
        value_names: false,
        keyspace: Some("ks".into()),
        now_in_seconds: Some(9),
    });
    round_trip(V5, &batch);
}

#[test]
fn v3_has_no_unset_values() {
    let mut with_unset = params();
    with_unset.keyspace = None;
    with_unset.now_in_seconds = None;
    with_unset.values = vec![Value::Unset, Value::Null];
    let query = Request::Query(Query {
        query: "INSERT".into(),
        params: with_unset,
    });
    let frame = encode_request_frame_for(V3, 1, &query, None).freeze();
    let header = parse_header(&frame).expect("a header");
    let Ok(Request::Query(decoded)) =
        decode_request(&header, &frame.slice(HEADER_LEN..), None, 1 << 20)
    else {
        panic!("not a query");
    };
    assert_eq!(decoded.params.values, vec![Value::Null, Value::Null]);
}

fn spec(name: &str, ty: ColumnType) -> ColumnSpec {
    ColumnSpec {
        keyspace: "ks".into(),
        table: "t".into(),
        name: name.into(),
        ty,
    }
}

fn response_body(version: ProtocolVersion, response: &Response, warnings: &[String]) -> Bytes {
    let frame = encode_response_frame_for(version, 0, response, warnings, None).freeze();
    let header = parse_header(&frame).expect("a header");
    assert_eq!(header.version, version.response_byte());
    let body = frame.slice(HEADER_LEN..);
    let decoded = decode_response(&header, &body, None, 1 << 20).expect("decodes");
    assert_eq!(&decoded.response, response, "{version:?}");
    body
}

fn prepared() -> Prepared {
    Prepared {
        id: Bytes::from_static(&[0xAA; 2]),
        result_metadata_id: Bytes::from_static(&[0xBB; 2]),
        metadata: PreparedMetadata {
            pk_indexes: vec![0],
            columns: vec![spec("k", ColumnType::Int)],
        },
        result_metadata: ResultMetadata::empty(),
    }
}

#[test]
fn prepared_results_per_version() {
    let response = Response::Result(ResultBody::Prepared(prepared()));
    let v5 = response_body(V5, &response, &[]);
    assert_eq!(&v5[4..12], &[0, 2, 0xAA, 0xAA, 0, 2, 0xBB, 0xBB]);
    let v4 = response_body(
        V4,
        &Response::Result(ResultBody::Prepared(Prepared {
            result_metadata_id: Bytes::new(),
            ..prepared()
        })),
        &[],
    );
    assert_eq!(v4.len(), v5.len() - 4);
    // v3 has no partition-key indexes: flags, column count, then the specs.
    let mut v3_prepared = prepared();
    v3_prepared.result_metadata_id = Bytes::new();
    v3_prepared.metadata.pk_indexes.clear();
    let v3 = response_body(
        V3,
        &Response::Result(ResultBody::Prepared(v3_prepared)),
        &[],
    );
    assert_eq!(&v3[8..16], &[0, 0, 0, 1, 0, 0, 0, 1]);
    assert_eq!(&v3[16..20], &[0, 2, b'k', b's']);
}

#[test]
fn v5_rows_announce_changed_metadata() {
    let rows = Response::Result(ResultBody::Rows(Rows {
        metadata: ResultMetadata {
            columns: vec![spec("v", ColumnType::Int)].into(),
            paging_state: None,
            no_metadata: false,
            new_metadata_id: Some(Bytes::from_static(&[7; 16])),
        },
        rows: vec![vec![Some(Bytes::from_static(&[0, 0, 0, 1]))]],
    }));
    let body = response_body(V5, &rows, &[]);
    assert_eq!(
        &body[4..8],
        &[0, 0, 0, 0x09],
        "Global_tables_spec | Metadata_changed"
    );
    assert_eq!(&body[12..14], &[0, 16]);
}

#[test]
fn v3_names_newer_types_as_custom_and_drops_warnings() {
    let rows = Rows {
        metadata: ResultMetadata {
            columns: vec![spec("d", ColumnType::Date)].into(),
            paging_state: None,
            no_metadata: false,
            new_metadata_id: None,
        },
        rows: Vec::new(),
    };
    let mut out = BytesMut::new();
    Response::Result(ResultBody::Rows(rows)).encode_body_for(V3, &mut out);
    let class = b"org.apache.cassandra.db.marshal.SimpleDateType";
    let tail = &out[out.len() - 4 - class.len() - 4..out.len() - 4];
    assert_eq!(&tail[..2], &[0, 0], "a custom type");
    assert_eq!(&tail[4..], class);
    let frame = encode_response_frame_for(V3, 0, &Response::Ready, &["w".into()], None);
    assert_eq!(&frame[..], &[0x83, 0, 0, 0, 0x02, 0, 0, 0, 0]);
}

#[test]
fn v3_errors_map_what_v3_lacks() {
    let failure = ErrorBody {
        code: error_code::FUNCTION_FAILURE,
        message: "boom".into(),
        extra: ErrorExtra::FunctionFailure {
            keyspace: "ks".into(),
            function: "f".into(),
            arg_types: vec!["int".into()],
        },
    };
    let mut out = BytesMut::new();
    Response::Error(failure).encode_body_for(V3, &mut out);
    assert_eq!(&out[..4], &error_code::INVALID.to_be_bytes());
    assert_eq!(&out[4..], &[0, 4, b'b', b'o', b'o', b'm']);
}
