//! OPTIONS → SUPPORTED (native_protocol_v4.spec section 4.2.4).

use cql::frame::response::Response;
use cql::frame::SUPPORTED_VERSION_NAMES;

use super::Reply;
use crate::system::local::CQL_VERSION;

/// The SUPPORTED map: `CQL_VERSION` and `COMPRESSION` are mandatory for the Python driver;
/// `PROTOCOL_VERSIONS` as Cassandra 5.0 lists them, the beta `6/v6-beta` included.
pub(super) fn handle() -> Reply {
    Reply::new(Response::Supported(vec![
        (
            "COMPRESSION".to_string(),
            vec!["lz4".to_string(), "snappy".to_string()],
        ),
        ("CQL_VERSION".to_string(), vec![CQL_VERSION.to_string()]),
        (
            "PROTOCOL_VERSIONS".to_string(),
            SUPPORTED_VERSION_NAMES.map(str::to_string).to_vec(),
        ),
    ]))
}
