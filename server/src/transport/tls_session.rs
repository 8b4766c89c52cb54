//! What `system_views.clients` shows of a TLS connection: the negotiated protocol version
//! and cipher suite, named as Cassandra's JSSE engine names them (`TLSv1.3`,
//! `TLS_AES_256_GCM_SHA384`), not as rustls spells them (`TLSv1_3`,
//! `TLS13_AES_256_GCM_SHA384`).

use rustls::{CipherSuite, ProtocolVersion, ServerConnection};

/// The outcome of a connection's TLS handshake.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsSession {
    /// The protocol version, as `SSLSession.getProtocol()` names it (`ssl_protocol`).
    pub protocol: Option<String>,
    /// The cipher suite's IANA name, as `SSLSession.getCipherSuite()` gives it
    /// (`ssl_cipher_suite`).
    pub cipher_suite: Option<String>,
}

impl TlsSession {
    /// The negotiated parameters of `connection` (after its handshake).
    pub(crate) fn of(connection: &ServerConnection) -> TlsSession {
        TlsSession {
            protocol: connection.protocol_version().map(protocol_name),
            cipher_suite: connection
                .negotiated_cipher_suite()
                .map(|suite| cipher_suite_name(suite.suite())),
        }
    }
}

/// A protocol version's JSSE name: `TLSv1.2`, `TLSv1.3`.
fn protocol_name(version: ProtocolVersion) -> String {
    match version {
        ProtocolVersion::SSLv3 => "SSLv3".to_owned(),
        ProtocolVersion::TLSv1_0 => "TLSv1".to_owned(),
        ProtocolVersion::TLSv1_1 => "TLSv1.1".to_owned(),
        ProtocolVersion::TLSv1_2 => "TLSv1.2".to_owned(),
        ProtocolVersion::TLSv1_3 => "TLSv1.3".to_owned(),
        other => format!("{other:?}"),
    }
}

/// A cipher suite's IANA name (which JSSE uses): rustls prefixes its TLS 1.3 suites
/// `TLS13_` where IANA says `TLS_`; the TLS 1.2 names are IANA's already.
fn cipher_suite_name(suite: CipherSuite) -> String {
    let name = suite
        .as_str()
        .map_or_else(|| format!("{suite:?}"), str::to_owned);
    match name.strip_prefix("TLS13_") {
        Some(rest) => format!("TLS_{rest}"),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_jsse_and_iana() {
        assert_eq!(protocol_name(ProtocolVersion::TLSv1_3), "TLSv1.3");
        assert_eq!(protocol_name(ProtocolVersion::TLSv1_2), "TLSv1.2");
        assert_eq!(
            cipher_suite_name(CipherSuite::TLS13_AES_256_GCM_SHA384),
            "TLS_AES_256_GCM_SHA384"
        );
        assert_eq!(
            cipher_suite_name(CipherSuite::TLS13_CHACHA20_POLY1305_SHA256),
            "TLS_CHACHA20_POLY1305_SHA256"
        );
        assert_eq!(
            cipher_suite_name(CipherSuite::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256),
            "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"
        );
    }
}
