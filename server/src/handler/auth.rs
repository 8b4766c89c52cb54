//! AUTH_RESPONSE. Authentication is not enabled (the server never sends AUTHENTICATE), so an
//! AUTH_RESPONSE is out of order.

use super::Reply;
use crate::error::{CqlError, CqlResult};

/// Rejects the unexpected message.
pub(super) fn handle() -> CqlResult<Reply> {
    Err(CqlError::Protocol(
        "Unexpected message AUTH_RESPONSE: authentication is not enabled on this server".into(),
    ))
}
