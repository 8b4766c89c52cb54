//! REGISTER → READY; the connection then receives the events it asked for on stream -1.

use cql::frame::request::Register;
use cql::frame::response::Response;

use super::Reply;
use crate::transport::session::Session;

/// Records the event types.
pub(super) fn handle(session: &Session, register: &Register) -> Reply {
    let first = session.register(&register.events);
    Reply {
        response: Response::Ready,
        warnings: Vec::new(),
        start_events: first,
    }
}
