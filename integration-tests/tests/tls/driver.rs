//! The scylla driver (rustls) against each TLS policy.

use std::sync::Arc;
use std::time::Duration;

use integration_tests::{RawConnection, TestServer};
use scylla::client::session::Session;
use scylla::client::session_builder::SessionBuilder;
use scylla::errors::NewSessionError;
use server::config::{ClientAuth, ClientEncryption, PemSource, TlsPolicy, TlsVersion};
use server::Config;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::certs::Pki;

async fn start(encryption: ClientEncryption) -> TestServer {
    TestServer::start_with(Config {
        client_encryption: encryption,
        ..Config::default()
    })
    .await
}

async fn connect(
    server: &TestServer,
    tls: Option<Arc<rustls::ClientConfig>>,
) -> Result<Session, NewSessionError> {
    let builder = SessionBuilder::new()
        .known_node_addr(server.addr)
        .connection_timeout(Duration::from_secs(5));
    let builder = match tls {
        Some(config) => builder.tls_context(Some(config)),
        None => builder,
    };
    builder.build().await
}

/// A keyspace, a table, a write and a read back through `session`.
async fn round_trip(session: &Session, keyspace: &str) {
    session
        .query_unpaged(
            format!(
                "CREATE KEYSPACE {keyspace} WITH replication = \
                 {{'class': 'SimpleStrategy', 'replication_factor': 1}}"
            ),
            (),
        )
        .await
        .expect("create keyspace");
    session
        .query_unpaged(
            format!("CREATE TABLE {keyspace}.t (k int PRIMARY KEY, v text)"),
            (),
        )
        .await
        .expect("create table");
    session
        .query_unpaged(
            format!("INSERT INTO {keyspace}.t (k, v) VALUES (?, ?)"),
            (1, "over tls"),
        )
        .await
        .expect("insert");
    let rows = session
        .query_unpaged(format!("SELECT v FROM {keyspace}.t WHERE k = 1"), ())
        .await
        .expect("select")
        .into_rows_result()
        .expect("rows");
    let (v,): (String,) = rows.single_row().expect("one row");
    assert_eq!(v, "over tls");
}

/// Whether the server closes `socket` without answering within a few seconds.
async fn closed_without_answer(mut socket: TcpStream) -> bool {
    let mut buf = [0u8; 64];
    matches!(
        tokio::time::timeout(Duration::from_secs(5), socket.read(&mut buf)).await,
        Ok(Ok(0)) | Ok(Err(_))
    )
}

#[tokio::test]
async fn tls_required_serves_the_driver_over_tls() {
    let pki = Pki::new();
    let server = start(ClientEncryption::required(&pki.keystore)).await;
    let session = connect(&server, Some(pki.client()))
        .await
        .expect("TLS session");
    round_trip(&session, "tls_required").await;
    // Many requests in flight on the TLS connections, answered whole.
    let prepared = session
        .prepare("SELECT v FROM tls_required.t WHERE k = ?")
        .await
        .expect("prepare");
    let reads = (0..200).map(|_| session.execute_unpaged(&prepared, (1,)));
    for result in futures::future::join_all(reads).await {
        let rows = result.expect("read").into_rows_result().expect("rows");
        assert_eq!(rows.rows_num(), 1);
    }
    drop(session);
    server.stop().await;
}

#[tokio::test]
async fn tls_required_refuses_plain_text_clients() {
    let pki = Pki::new();
    let server = start(ClientEncryption::required(&pki.keystore)).await;
    assert!(connect(&server, None).await.is_err());
    // A plain STARTUP gets no answer: the connection is closed.
    let mut socket = TcpStream::connect(server.addr).await.expect("connect");
    let startup = cql::frame::request::Request::Startup(cql::frame::request::Startup {
        options: vec![("CQL_VERSION".into(), "3.0.0".into())],
    });
    socket
        .write_all(&cql::frame::encode_request_frame(0, &startup, None))
        .await
        .expect("write");
    assert!(closed_without_answer(socket).await);
    server.stop().await;
}

#[tokio::test]
async fn optional_tls_serves_both_on_one_port() {
    let pki = Pki::new();
    let server = start(ClientEncryption {
        policy: TlsPolicy::Optional,
        ..ClientEncryption::required(&pki.keystore)
    })
    .await;
    let tls = connect(&server, Some(pki.client())).await.expect("TLS");
    round_trip(&tls, "optional_tls").await;
    let plain = connect(&server, None).await.expect("plain");
    let rows = plain
        .query_unpaged("SELECT v FROM optional_tls.t WHERE k = 1", ())
        .await
        .expect("plain read")
        .into_rows_result()
        .expect("rows");
    assert_eq!(rows.rows_num(), 1);
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    drop((tls, plain));
    server.stop().await;
}

#[tokio::test]
async fn client_certificate_required() {
    let pki = Pki::new();
    let server = start(ClientEncryption {
        client_auth: ClientAuth::Required,
        truststore: PemSource::File(pki.ca.clone()),
        ..ClientEncryption::required(&pki.keystore)
    })
    .await;
    let session = connect(&server, Some(pki.client_with_certificate()))
        .await
        .expect("session with a client certificate");
    round_trip(&session, "mutual_tls").await;
    assert!(
        connect(&server, Some(pki.client())).await.is_err(),
        "a client without a certificate was accepted"
    );
    assert!(
        connect(&server, Some(pki.rogue_client())).await.is_err(),
        "a certificate from an untrusted CA was accepted"
    );
    drop(session);
    server.stop().await;
}

#[tokio::test]
async fn tls_handshake_must_complete_in_time() {
    let pki = Pki::new();
    let server = TestServer::start_with(Config {
        client_encryption: ClientEncryption::required(&pki.keystore),
        handshake_timeout: Duration::from_millis(300),
        ..Config::default()
    })
    .await;
    // Connected, silent: closed at the handshake timeout.
    let silent = TcpStream::connect(server.addr).await.expect("connect");
    assert!(closed_without_answer(silent).await);
    // A ClientHello's first bytes and then nothing: the same.
    let mut partial = TcpStream::connect(server.addr).await.expect("connect");
    partial
        .write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01])
        .await
        .expect("write");
    assert!(closed_without_answer(partial).await);
    // The server still serves TLS clients.
    let session = connect(&server, Some(pki.client())).await.expect("TLS");
    drop(session);
    server.stop().await;
}

#[tokio::test]
async fn tls_off_answers_a_client_hello_with_the_version_error() {
    let pki = Pki::new();
    let server = TestServer::start().await;
    assert!(connect(&server, Some(pki.client())).await.is_err());
    // A ClientHello read as a CQL header: version byte 0x16.
    let mut socket = TcpStream::connect(server.addr).await.expect("connect");
    socket
        .write_all(&[0x16, 0x03, 0x01, 0x00, 0x05, 0x01, 0x00, 0x00, 0x00])
        .await
        .expect("write");
    let mut answer = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(5), socket.read_to_end(&mut answer)).await;
    let text = String::from_utf8_lossy(&answer);
    assert!(
        text.contains("Invalid or unsupported protocol version (22)"),
        "{text}"
    );
    server.stop().await;
}

/// `ssl_enabled`, `ssl_protocol` and `ssl_cipher_suite` of the connections `session` sees in
/// `system_views.clients`.
async fn clients_tls(session: &Session) -> Vec<(bool, Option<String>, Option<String>)> {
    session
        .query_unpaged(
            "SELECT ssl_enabled, ssl_protocol, ssl_cipher_suite FROM system_views.clients",
            (),
        )
        .await
        .expect("clients")
        .into_rows_result()
        .expect("rows")
        .rows()
        .expect("typed rows")
        .collect::<Result<_, _>>()
        .expect("decoded rows")
}

/// A TLS client's row in `system_views.clients` names its protocol and cipher suite as
/// Cassandra (JSSE) does: `TLSv1.3`, and the suite by its IANA name.
#[tokio::test]
async fn clients_view_names_the_negotiated_protocol_and_cipher_suite() {
    let pki = Pki::new();
    let server = start(ClientEncryption::required(&pki.keystore)).await;
    let session = connect(&server, Some(pki.client())).await.expect("TLS");
    let rows = clients_tls(&session).await;
    assert!(!rows.is_empty());
    let tls13 = [
        "TLS_AES_256_GCM_SHA384",
        "TLS_AES_128_GCM_SHA256",
        "TLS_CHACHA20_POLY1305_SHA256",
    ];
    for (enabled, protocol, suite) in &rows {
        assert!(enabled);
        assert_eq!(protocol.as_deref(), Some("TLSv1.3"));
        assert!(tls13.contains(&suite.as_deref().unwrap_or("")), "{suite:?}");
    }
    drop(session);
    server.stop().await;

    let server = start(ClientEncryption {
        protocols: vec![TlsVersion::Tls12],
        ..ClientEncryption::required(&pki.keystore)
    })
    .await;
    let session = connect(&server, Some(pki.client())).await.expect("TLS 1.2");
    for (enabled, protocol, suite) in clients_tls(&session).await {
        assert!(enabled);
        assert_eq!(protocol.as_deref(), Some("TLSv1.2"));
        let suite = suite.unwrap_or_default();
        assert!(suite.starts_with("TLS_ECDHE_"), "{suite}");
    }
    drop(session);
    server.stop().await;
}
