//! Protocol version negotiation: this server speaks v4 only.
//!
//! A client that opens with another version gets a `PROTOCOL_ERROR` whose message drivers
//! recognise as a version rejection (see `shared/reference/clients.md` section 1.2): the
//! Python driver looks for `unsupported protocol version`, the Java drivers for
//! `Invalid or unsupported protocol version`. Sending the error frame (version byte 0x84,
//! stream 0) and closing the connection is the server's job.

/// The supported versions as Cassandra lists them (`num/descr`, comma separated).
const SUPPORTED_VERSIONS: &str = "4/v4";

/// Cassandra's message for a request in an unsupported protocol `version` (the version byte as
/// sent; the direction bit is masked off, so a client sending 0x42 reads 66).
pub fn unsupported_version_message(version: u8) -> String {
    format!(
        "Invalid or unsupported protocol version ({}); supported versions are ({SUPPORTED_VERSIONS})",
        version & 0x7F
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_cassandra_wording() {
        assert_eq!(
            unsupported_version_message(0x42),
            "Invalid or unsupported protocol version (66); supported versions are (4/v4)"
        );
        assert_eq!(
            unsupported_version_message(0x85),
            "Invalid or unsupported protocol version (5); supported versions are (4/v4)"
        );
    }
}
