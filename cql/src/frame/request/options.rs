//! OPTIONS (native_protocol_v4.spec section 4.1.3): asks the server for SUPPORTED.
//!
//! The body should be empty; like Cassandra, anything in it is ignored, so there is no
//! OPTIONS struct, only [`super::Request::Options`].

/// Reads an OPTIONS body: there is nothing to read, and leftover bytes are ignored.
pub(crate) fn decode(buf: &mut &[u8]) {
    let _ = buf;
}
