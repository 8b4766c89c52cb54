//! Protocol versions: v3, v4, v5 and the beta v6, as Cassandra 5.0 serves them, and the
//! negotiation messages.
//!
//! A client that opens with another version gets a `PROTOCOL_ERROR` whose message drivers
//! recognise as a version rejection (see `shared/reference/clients.md` section 1.2): the
//! Python driver looks for `unsupported protocol version`, the Java drivers for
//! `Invalid or unsupported protocol version`. Sending the error frame and closing the
//! connection is the server's job.

/// The supported versions as Cassandra lists them (`num/descr`, comma separated).
const SUPPORTED_VERSIONS: &str = "3/v3, 4/v4, 5/v5, 6/v6-beta";

/// The versions SUPPORTED's `PROTOCOL_VERSIONS` lists (Cassandra's `supportedVersions()`).
pub const SUPPORTED_VERSION_NAMES: [&str; 4] = ["3/v3", "4/v4", "5/v5", "6/v6-beta"];

/// A protocol version this server speaks. The first message of a connection chooses it;
/// every later message must carry the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// native_protocol_v3.spec: no unset values, warnings or custom payloads; no
    /// partition-key indexes in PREPARED; date, time, smallint, tinyint and duration travel
    /// as custom types.
    V3,
    /// native_protocol_v4.spec.
    V4,
    /// native_protocol_v5.spec: frames in checksummed segments once the connection is set
    /// up, `[int]` query flags, a keyspace and `now_in_seconds` per request, and the result
    /// metadata id in PREPARED, EXECUTE and Rows.
    V5,
    /// Cassandra 5.0's `6/v6-beta`: v5's framing and message bodies under version byte 6,
    /// taken only on envelopes carrying the `USE_BETA` flag.
    V6,
}

impl ProtocolVersion {
    /// The version a request's version byte names (direction bit clear), if supported.
    pub fn from_request_byte(byte: u8) -> Option<ProtocolVersion> {
        match byte {
            0x03 => Some(ProtocolVersion::V3),
            0x04 => Some(ProtocolVersion::V4),
            0x05 => Some(ProtocolVersion::V5),
            0x06 => Some(ProtocolVersion::V6),
            _ => None,
        }
    }

    /// The version number (3 to 6).
    pub fn number(self) -> u8 {
        match self {
            ProtocolVersion::V3 => 3,
            ProtocolVersion::V4 => 4,
            ProtocolVersion::V5 => 5,
            ProtocolVersion::V6 => 6,
        }
    }

    /// The version byte of a request frame.
    pub fn request_byte(self) -> u8 {
        self.number()
    }

    /// The version byte of a response frame (direction bit set).
    pub fn response_byte(self) -> u8 {
        0x80 | self.number()
    }

    /// Whether `[value]`s may be "not set" (-2): v4 and later.
    pub fn has_unset_values(self) -> bool {
        self >= ProtocolVersion::V4
    }

    /// Whether responses carry warnings and custom payloads: v4 and later.
    pub fn has_warnings(self) -> bool {
        self >= ProtocolVersion::V4
    }

    /// Whether query, batch and prepare flags are `[int]`s with a keyspace and
    /// `now_in_seconds`, prepared statements carry a result metadata id, and the connection
    /// switches to segments: v5 and later (Cassandra's `isGreaterOrEqualTo(V5)`).
    pub fn is_v5(self) -> bool {
        self >= ProtocolVersion::V5
    }

    /// Whether the version is a beta one, taken only with the `USE_BETA` flag: v6.
    pub fn is_beta(self) -> bool {
        self == ProtocolVersion::V6
    }

    /// How Cassandra names it in messages (`4/v4`, `6/v6-beta`).
    pub fn description(self) -> String {
        if self.is_beta() {
            format!("{0}/v{0}-beta", self.number())
        } else {
            format!("{0}/v{0}", self.number())
        }
    }
}

/// Cassandra's message for a request in an unsupported protocol `version` (the version byte as
/// sent; the direction bit is masked off, so a client sending 0x42 reads 66).
pub fn unsupported_version_message(version: u8) -> String {
    format!(
        "Invalid or unsupported protocol version ({}); supported versions are ({SUPPORTED_VERSIONS})",
        version & 0x7F
    )
}

/// Cassandra's message (`Envelope.Decoder.decodeFlags`) for an envelope in a beta `version`
/// without the `USE_BETA` flag.
pub fn beta_without_flag_message(version: ProtocolVersion) -> String {
    format!(
        "Beta version of the protocol used ({}), but USE_BETA flag is unset",
        version.description()
    )
}

/// Cassandra's message for a message whose version differs from the connection's.
pub fn version_mismatch_message(got: ProtocolVersion, connection: ProtocolVersion) -> String {
    format!(
        "Invalid message version. Got {} but previous messages on this connection had version {}",
        got.description(),
        connection.description()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_cassandra_wording() {
        assert_eq!(
            unsupported_version_message(0x42),
            "Invalid or unsupported protocol version (66); supported versions are (3/v3, 4/v4, 5/v5, 6/v6-beta)"
        );
        assert_eq!(
            unsupported_version_message(0x87),
            "Invalid or unsupported protocol version (7); supported versions are (3/v3, 4/v4, 5/v5, 6/v6-beta)"
        );
        assert_eq!(
            beta_without_flag_message(ProtocolVersion::V6),
            "Beta version of the protocol used (6/v6-beta), but USE_BETA flag is unset"
        );
        assert_eq!(SUPPORTED_VERSION_NAMES.join(", "), SUPPORTED_VERSIONS);
        assert_eq!(
            version_mismatch_message(ProtocolVersion::V4, ProtocolVersion::V3),
            "Invalid message version. Got 4/v4 but previous messages on this connection had version 3/v3"
        );
    }

    #[test]
    fn version_bytes() {
        for (byte, version) in [
            (3, ProtocolVersion::V3),
            (4, ProtocolVersion::V4),
            (5, ProtocolVersion::V5),
            (6, ProtocolVersion::V6),
        ] {
            assert_eq!(ProtocolVersion::from_request_byte(byte), Some(version));
            assert_eq!(version.request_byte(), byte);
            assert_eq!(version.response_byte(), 0x80 | byte);
        }
        assert!(ProtocolVersion::V6.is_v5() && ProtocolVersion::V6.is_beta());
        assert!(!ProtocolVersion::V5.is_beta());
        for byte in [0, 1, 2, 7, 0x42, 0x84] {
            assert_eq!(ProtocolVersion::from_request_byte(byte), None);
        }
    }
}
