//! AUTH_RESPONSE: the SASL PLAIN exchange of PasswordAuthenticator. One token carries the
//! credentials; a match answers AUTH_SUCCESS and the connection acts as that role. bcrypt is
//! slow on purpose (tens of milliseconds), so the check runs on the blocking pool.

use std::sync::Arc;

use cql::frame::request::AuthResponse;
use cql::frame::response::Response;

use super::Reply;
use crate::auth::authenticator;
use crate::error::{CqlResult, InternalError, ProtocolError};
use crate::node::Node;
use crate::transport::session::Session;

/// Checks the credentials of an AUTH_RESPONSE.
pub(super) async fn handle(
    node: &Arc<Node>,
    session: &Arc<Session>,
    response: AuthResponse,
) -> CqlResult<Reply> {
    if !session.is_authenticating() {
        return Err(ProtocolError::ExpectingStartup {
            opcode: "AUTH_RESPONSE",
        }
        .into());
    }
    let token = response.token.unwrap_or_default();
    let (username, password) = authenticator::decode_plain(&token)?;
    let checking = node.clone();
    let role = tokio::task::spawn_blocking(move || {
        authenticator::authenticate(&checking, &username, &password)
    })
    .await
    .map_err(InternalError::AuthenticationTaskFailed)??;
    session.log_in(role);
    Ok(Reply::new(Response::AuthSuccess(None)))
}
