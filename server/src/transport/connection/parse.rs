//! The envelopes of a connection's read buffer, one at a time, and the protocol faults
//! that end it.

use cql::frame::{self, response::Response};
use tracing::{debug, warn};

use super::buffers::Io;
use crate::error::CqlError;
use crate::transport::envelope::{Envelope, Parsed};
use crate::transport::session::Session;

/// The next whole envelope in the read buffer, if any; the first one chooses the connection's
/// protocol version. A framing fault queues its error and stops reading.
pub(super) fn next_envelope<R, W>(
    session: &Session,
    io: &mut Io<R, W>,
    max_frame: usize,
    reading: &mut bool,
) -> Option<Envelope> {
    let chosen = session.chosen_protocol();
    match io.framing.next(&mut io.input, max_frame, chosen) {
        Parsed::Incomplete { needed } => {
            io.input.reserve(needed);
            None
        }
        Parsed::Envelope(envelope) => {
            if chosen.is_none() {
                if let Some(version) =
                    frame::ProtocolVersion::from_request_byte(envelope.header.version)
                {
                    session.choose_protocol(version);
                }
            }
            Some(envelope)
        }
        Parsed::Fatal { stream, error } => {
            log_protocol_error(&error);
            let version = reply_version(&error).unwrap_or_else(|| session.protocol());
            let response = Response::Error(error.error_body());
            let frame = frame::encode_response_frame_for(version, stream, &response, &[], None);
            io.queue(frame);
            *reading = false;
            None
        }
    }
}

/// The version a framing fault is answered in when it is not the connection's: a beta
/// version refused for its missing flag is answered in that version, as Cassandra's
/// `ProtocolException` forces it.
fn reply_version(error: &CqlError) -> Option<frame::ProtocolVersion> {
    match error {
        CqlError::Protocol(crate::error::ProtocolError::BetaWithoutFlag { version }) => {
            Some(*version)
        }
        _ => None,
    }
}

/// Logs a framing fault as Cassandra does (`ExceptionHandlers.logClientNetworkingExceptions`):
/// a driver probing for the newest protocol version it can use (the beta v6 without its flag
/// included) is no news (DEBUG); any other protocol fault is a client's, logged at WARN at
/// most once a minute across connections (Cassandra's `NoSpamLogger`) so one bad client
/// cannot flood the log.
fn log_protocol_error(error: &CqlError) {
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{SystemTime, UNIX_EPOCH};
    static LAST_WARNED: AtomicU64 = AtomicU64::new(0);
    if matches!(
        error,
        CqlError::Protocol(
            crate::error::ProtocolError::UnsupportedVersion { .. }
                | crate::error::ProtocolError::BetaWithoutFlag { .. }
        )
    ) {
        debug!(cause = %error, "closing connection after a protocol version probe");
        return;
    }
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let last = LAST_WARNED.load(Ordering::Relaxed);
    if now >= last + 60
        && LAST_WARNED
            .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    {
        warn!("Protocol exception with client networking: {error}");
    } else {
        debug!(cause = %error, "closing connection after a protocol error");
    }
}
