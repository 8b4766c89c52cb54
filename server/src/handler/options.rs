//! OPTIONS → SUPPORTED (native_protocol_v4.spec section 4.2.4).

use cql::frame::response::Response;

use super::Reply;
use crate::system::local::CQL_VERSION;

/// The SUPPORTED map: `CQL_VERSION` and `COMPRESSION` are mandatory for the Python driver.
pub(super) fn handle() -> Reply {
    Reply::new(Response::Supported(vec![
        (
            "COMPRESSION".to_string(),
            vec!["lz4".to_string(), "snappy".to_string()],
        ),
        ("CQL_VERSION".to_string(), vec![CQL_VERSION.to_string()]),
        (
            "PROTOCOL_VERSIONS".to_string(),
            vec!["3/v3".to_string(), "4/v4".to_string(), "5/v5".to_string()],
        ),
    ]))
}
