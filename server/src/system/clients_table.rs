//! `system_views.clients`: one row per open client connection, with the columns of
//! Cassandra 5.0's `ClientsTable` (address, stage, protocol version, driver, user, keyspace,
//! requests, TLS).

use cql::types::CqlValue;

use super::{bigint, text, NamedRow};
use crate::node::Node;
use crate::transport::session::Session;

/// The rows of the open connections.
pub(crate) fn rows(node: &Node) -> Vec<NamedRow> {
    node.clients().open().iter().map(|s| row(s)).collect()
}

fn row(session: &Session) -> NamedRow {
    let options = session.startup_options();
    let option = |key: &str| {
        options
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .and_then(|(_, v)| text(v.clone()))
    };
    let stage = if session.is_authenticating() {
        "authenticating"
    } else if session.is_started() {
        "ready"
    } else {
        "established"
    };
    let protocol = session
        .chosen_protocol()
        .map(|v| CqlValue::Int(i32::from(v.number())));
    let encrypted = session.is_encrypted();
    let tls = session.tls();
    vec![
        ("address", Some(CqlValue::Inet(session.peer.ip()))),
        ("port", Some(CqlValue::Int(i32::from(session.peer.port())))),
        ("hostname", text(session.peer.ip().to_string())),
        (
            "username",
            text(session.user().unwrap_or_else(|| "anonymous".into())),
        ),
        ("connection_stage", text(stage)),
        ("protocol_version", protocol),
        (
            "client_options",
            Some(CqlValue::Map(
                options
                    .iter()
                    .map(|(k, v)| (CqlValue::Text(k.clone()), CqlValue::Text(v.clone())))
                    .collect(),
            )),
        ),
        ("driver_name", option("DRIVER_NAME")),
        ("driver_version", option("DRIVER_VERSION")),
        ("keyspace_name", session.keyspace().and_then(text)),
        ("request_count", bigint(session.requests())),
        ("ssl_enabled", Some(CqlValue::Boolean(encrypted))),
        (
            "ssl_protocol",
            tls.and_then(|t| t.protocol.clone()).and_then(text),
        ),
        (
            "ssl_cipher_suite",
            tls.and_then(|t| t.cipher_suite.clone()).and_then(text),
        ),
        (
            "authentication_mode",
            text(if session.user().is_some() {
                "Password"
            } else {
                "Unauthenticated"
            }),
        ),
    ]
}
