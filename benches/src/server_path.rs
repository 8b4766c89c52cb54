//! The server in process, without a socket: an in-memory node and one session that has done
//! STARTUP, created `bench.readings` and prepared [`INSERT_PREPARED`] and [`SELECT_POINT`].
//! Requests go in as complete frames and answers come out as complete frames, through the
//! same decode → handle → encode path a connection runs.

use bytes::{Bytes, BytesMut};
use cql::frame::request::{Execute, Prepare, Query, QueryParameters, Request, Startup, Value};
use cql::frame::response::{Response, ResultBody};
use cql::frame::{encode_request_frame, parse_header, HEADER_LEN};
use server::bench::BenchNode;
use server::Config;
use uuid::Uuid;

use crate::statements::{CREATE_KEYSPACE, CREATE_READINGS, INSERT_PREPARED, SELECT_POINT};

/// `LOCAL_ONE`, the scylla driver's default consistency.
const LOCAL_ONE: u16 = 0x000A;

/// The server's default `native_transport_max_frame_size`.
pub const MAX_FRAME: usize = 16 * 1024 * 1024;

/// An in-memory node with a ready session and the two prepared statement ids.
pub struct InProcess {
    /// The node (in-memory store) with its session past STARTUP.
    pub node: BenchNode,
    /// The id of [`INSERT_PREPARED`].
    pub insert_id: Bytes,
    /// The id of [`SELECT_POINT`].
    pub select_id: Bytes,
}

impl InProcess {
    /// Opens the node and prepares the statements. Call inside a tokio runtime. The test
    /// controls' query log records nothing: these benchmarks measure the request path.
    ///
    /// # Panics
    /// When the node cannot be opened or a setup request fails: a benchmark cannot go on.
    pub async fn start() -> InProcess {
        InProcess::start_with_query_log(0).await
    }

    /// [`InProcess::start`] with the query log keeping `size` entries (0: off).
    ///
    /// # Panics
    /// As [`InProcess::start`].
    pub async fn start_with_query_log(size: usize) -> InProcess {
        let config = Config {
            data_dir: None,
            query_log_size: size,
            ..Config::default()
        };
        let node = BenchNode::open(config).expect("in-memory node");
        let mut fixture = InProcess {
            node,
            insert_id: Bytes::new(),
            select_id: Bytes::new(),
        };
        let startup = Request::Startup(Startup {
            options: vec![("CQL_VERSION".into(), "3.0.0".into())],
        });
        fixture.request(&startup).await;
        for ddl in [CREATE_KEYSPACE, CREATE_READINGS] {
            fixture.request(&query(ddl)).await;
        }
        fixture.insert_id = fixture.prepare(INSERT_PREPARED).await;
        fixture.select_id = fixture.prepare(SELECT_POINT).await;
        fixture
    }

    async fn prepare(&self, text: &str) -> Bytes {
        let prepare = Request::Prepare(Prepare {
            query: text.to_string(),
            keyspace: None,
        });
        match self.request(&prepare).await {
            Response::Result(ResultBody::Prepared(prepared)) => prepared.id,
            other => panic!("PREPARE answered {other:?}"),
        }
    }

    /// Handles a decoded request and returns the decoded response (for setup and checks).
    ///
    /// # Panics
    /// When the answer does not decode.
    pub async fn request(&self, request: &Request) -> Response {
        let frame = encode_request_frame(1, request, None).freeze();
        let answer = self.round_trip(&frame).await;
        let header = parse_header(&answer).expect("a whole header");
        let body = Bytes::copy_from_slice(&answer[HEADER_LEN..]);
        let opcode = cql::frame::Opcode::try_from(header.opcode).expect("a response opcode");
        Response::decode(opcode, &body).expect("a valid response")
    }

    /// One request frame in, its answer frame out: decode, handle, encode.
    ///
    /// # Panics
    /// When `frame` holds no whole header.
    pub async fn round_trip(&self, frame: &Bytes) -> BytesMut {
        let header = parse_header(frame).expect("a whole header");
        let body = frame.slice(HEADER_LEN..);
        self.node.answer(&header, body).await
    }
}

/// A QUERY frame of `text` (consistency LOCAL_ONE, no values, unpaged).
pub fn query_frame(text: &str) -> Bytes {
    encode_request_frame(1, &query(text), None).freeze()
}

fn query(text: &str) -> Request {
    Request::Query(Query {
        query: text.to_string(),
        params: QueryParameters {
            consistency: LOCAL_ONE,
            ..QueryParameters::default()
        },
    })
}

fn bytes(value: &[u8]) -> Value {
    Value::Bytes(Bytes::copy_from_slice(value))
}

/// The bound primary key of row `n` (as the end-to-end benchmark writes it).
fn key_values(n: u64) -> Vec<Value> {
    vec![
        bytes(format!("sensor-{:06}", n % 100).as_bytes()),
        bytes(&((n % 16) as i32).to_be_bytes()),
        bytes(&(n as i64).to_be_bytes()),
        bytes(Uuid::from_u128(u128::from(n) | 0x4000 << 64).as_bytes()),
    ]
}

/// The six bound values of row `n`.
pub fn row_values(n: u64) -> Vec<Value> {
    let mut values = key_values(n);
    values.push(bytes(&(n as f64 * 0.25).to_be_bytes()));
    values.push(bytes(format!("reading {n:010} within range").as_bytes()));
    values
}

/// EXECUTE parameters as the scylla driver sends them for a prepared statement.
fn params(values: Vec<Value>, skip_metadata: bool) -> QueryParameters {
    QueryParameters {
        consistency: LOCAL_ONE,
        values,
        value_names: None,
        skip_metadata,
        page_size: Some(5000),
        paging_state: None,
        serial_consistency: None,
        default_timestamp: None,
        keyspace: None,
        now_in_seconds: None,
    }
}

/// An EXECUTE request frame of the prepared INSERT for row `n`.
pub fn execute_insert_frame(id: &Bytes, n: u64) -> Bytes {
    let request = Request::Execute(Execute {
        id: id.clone(),
        params: params(row_values(n), false),
        result_metadata_id: None,
    });
    encode_request_frame(1, &request, None).freeze()
}

/// An EXECUTE request frame of the prepared point SELECT of row `n` (Skip_metadata, as
/// drivers send it once they hold the result metadata).
pub fn execute_select_frame(id: &Bytes, n: u64) -> Bytes {
    let request = Request::Execute(Execute {
        id: id.clone(),
        params: params(key_values(n), true),
        result_metadata_id: None,
    });
    encode_request_frame(1, &request, None).freeze()
}
