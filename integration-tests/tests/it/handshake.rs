//! Connection set-up: driver handshake, version negotiation, compression, framing faults.

use cql::frame::request::Request;
use cql::frame::response::Response;
use integration_tests::query_single_row;
use integration_tests::{RawConnection, TestServer};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn driver_connects_and_reads_system_local() {
    let server = TestServer::start().await;
    let session = server.session().await;
    let rows = session
        .query_unpaged("SELECT cluster_name, release_version, partitioner, tokens FROM system.local WHERE key = 'local'", &[])
        .await
        .unwrap()
        .into_rows_result()
        .unwrap();
    let (cluster, release, partitioner, tokens): (String, String, String, Vec<String>) =
        rows.single_row().unwrap();
    assert_eq!(cluster, "Test Cluster");
    assert_eq!(release, "5.0.0");
    assert_eq!(partitioner, "org.apache.cassandra.dht.Murmur3Partitioner");
    assert_eq!(tokens.len(), 1);
    assert!(tokens[0].parse::<i64>().is_ok());
    let state = session.get_cluster_state();
    assert_eq!(state.get_nodes_info().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn newer_protocol_versions_are_refused_with_cassandras_message() {
    let server = TestServer::start().await;
    for version in [0x42u8, 0x41, 0x07, 0x02] {
        let mut raw = RawConnection::connect(server.addr).await;
        // OPTIONS header with the given version byte.
        raw.send_bytes(&[version, 0, 0, 0, 0x05, 0, 0, 0, 0]).await;
        let (header_version, stream, response) = raw.recv().await.expect("error frame");
        assert_eq!(header_version, 0x84);
        assert_eq!(stream, 0);
        let Response::Error(err) = response else {
            panic!("expected ERROR, got {response:?}")
        };
        assert_eq!(err.code, 0x000A);
        assert_eq!(
            err.message,
            format!(
                "Invalid or unsupported protocol version ({}); supported versions are (3/v3, 4/v4, 5/v5, 6/v6-beta)",
                version
            )
        );
        assert!(
            raw.recv().await.is_none(),
            "connection must be closed after the error"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn options_and_startup_answer_as_cassandra() {
    let server = TestServer::start().await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.send(3, &Request::Options).await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, 3);
    let Response::Supported(options) = response else {
        panic!("{response:?}")
    };
    let get = |k: &str| {
        options
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(get("CQL_VERSION"), Some(vec!["3.4.7".to_string()]));
    assert_eq!(
        get("PROTOCOL_VERSIONS"),
        Some(
            ["3/v3", "4/v4", "5/v5", "6/v6-beta"]
                .map(str::to_string)
                .to_vec()
        )
    );
    assert_eq!(
        get("COMPRESSION"),
        Some(vec!["lz4".to_string(), "snappy".to_string()])
    );
    // A query before STARTUP is a protocol error on its stream.
    raw.query(5, "SELECT * FROM system.local").await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, 5);
    let Response::Error(err) = response else {
        panic!("{response:?}")
    };
    assert_eq!(err.code, 0x000A);
    assert_eq!(
        err.message,
        "Unexpected message QUERY, expecting STARTUP or OPTIONS"
    );
    raw.startup().await;
    // A second STARTUP is refused as Cassandra refuses it, and the connection carries on.
    let again = Request::Startup(cql::frame::request::Startup {
        options: vec![("CQL_VERSION".into(), "3.0.0".into())],
    });
    raw.send(6, &again).await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, 6);
    let Response::Error(err) = response else {
        panic!("{response:?}")
    };
    assert_eq!(
        (err.code, err.message.as_str()),
        (
            0x000A,
            "Unexpected message STARTUP, the connection is already initialized"
        )
    );
    raw.send(7, &Request::Options).await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert!(
        stream == 7 && matches!(response, Response::Supported(_)),
        "{response:?}"
    );
    raw.query(8, "SELECT release_version FROM system.local")
        .await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert!(
        stream == 8 && matches!(response, Response::Result(_)),
        "{response:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compressed_sessions_work() {
    let server = TestServer::start().await;
    for compression in [
        scylla::frame::Compression::Lz4,
        scylla::frame::Compression::Snappy,
    ] {
        let session = server.session_with_compression(compression).await;
        session
            .query_unpaged(
                "CREATE KEYSPACE IF NOT EXISTS c WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
                &[],
            )
            .await
            .unwrap();
        session
            .query_unpaged(
                "CREATE TABLE IF NOT EXISTS c.t (k int PRIMARY KEY, v text)",
                &[],
            )
            .await
            .unwrap();
        let long = "x".repeat(10_000);
        session
            .query_unpaged("INSERT INTO c.t (k, v) VALUES (1, ?)", (long.clone(),))
            .await
            .unwrap();
        let (v,): (String,) =
            query_single_row(&session, "SELECT v FROM c.t WHERE k = 1", &[]).await;
        assert_eq!(v, long);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_frame_is_refused_and_others_carry_on() {
    let server = TestServer::start().await;
    let session = server.session().await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    // A QUERY header claiming 1 GiB: refused before any body is read.
    raw.send_bytes(&[0x04, 0, 0, 9, 0x07, 0x40, 0, 0, 0]).await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, 9);
    let Response::Error(err) = response else {
        panic!("{response:?}")
    };
    assert_eq!(err.code, 0x000A);
    assert!(err
        .message
        .starts_with("Request is too big: length 1073741824 exceeds maximum allowed length"));
    assert!(raw.recv().await.is_none());
    // The driver's connections are unaffected.
    session
        .query_unpaged("SELECT key FROM system.local", &[])
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_body_answers_an_error_and_the_connection_lives() {
    let server = TestServer::start().await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    // QUERY whose long string claims 100 bytes but carries 3.
    raw.send_bytes(&[
        0x04, 0, 0, 7, 0x07, 0, 0, 0, 7, 0, 0, 0, 100, b'a', b'b', b'c',
    ])
    .await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, 7);
    assert!(
        matches!(response, Response::Error(ref e) if e.code == 0x000A),
        "{response:?}"
    );
    // Unknown opcode: also an error on its stream.
    raw.send_bytes(&[0x04, 0, 0, 8, 0x33, 0, 0, 0, 0]).await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, 8);
    assert!(
        matches!(response, Response::Error(ref e) if e.code == 0x000A),
        "{response:?}"
    );
    // Still usable.
    raw.send(11, &Request::Options).await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, 11);
    assert!(matches!(response, Response::Supported(_)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_requests_in_flight_on_one_connection() {
    let server = TestServer::start().await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    for stream in 1..=200i16 {
        raw.query(stream, "SELECT key FROM system.local WHERE key = 'local'")
            .await;
    }
    let mut seen = std::collections::HashSet::new();
    for _ in 1..=200 {
        let (_, stream, response) = raw.recv().await.unwrap();
        assert!(matches!(response, Response::Result(_)), "{response:?}");
        assert!(seen.insert(stream));
    }
    assert_eq!(seen.len(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registered_connections_receive_schema_change_events() {
    use cql::frame::request::Register;
    use cql::frame::response::{Event, SchemaChangeTarget, SchemaChangeType};
    let server = TestServer::start().await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    raw.send(
        1,
        &Request::Register(Register {
            events: vec!["SCHEMA_CHANGE".into()],
        }),
    )
    .await;
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, 1);
    assert!(matches!(response, Response::Ready));
    let session = server.session().await;
    session
        .query_unpaged("CREATE KEYSPACE ev WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}", &[])
        .await
        .unwrap();
    session
        .query_unpaged("CREATE TABLE ev.t (k int PRIMARY KEY)", &[])
        .await
        .unwrap();
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, -1);
    let Response::Event(Event::SchemaChange(change)) = response else {
        panic!("{response:?}")
    };
    assert_eq!(change.change, SchemaChangeType::Created);
    assert_eq!(
        change.target,
        SchemaChangeTarget::Keyspace {
            keyspace: "ev".into()
        }
    );
    let (_, stream, response) = raw.recv().await.unwrap();
    assert_eq!(stream, -1);
    let Response::Event(Event::SchemaChange(change)) = response else {
        panic!("{response:?}")
    };
    assert_eq!(
        change.target,
        SchemaChangeTarget::Table {
            keyspace: "ev".into(),
            table: "t".into()
        }
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_requests_past_the_in_flight_limit_are_all_answered() {
    let config = server::Config {
        max_requests_per_connection: 2,
        ..server::Config::default()
    };
    let server = TestServer::start_with(config).await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.startup().await;
    // Fifty requests in one write: the server reads two at a time and answers all of them.
    let mut bytes = Vec::new();
    for stream in 1..=50i16 {
        let query = cql::frame::request::Query {
            query: "SELECT key FROM system.local WHERE key = 'local'".into(),
            params: integration_tests::default_params(),
        };
        let frame = cql::frame::encode_request_frame(stream, &Request::Query(query), None);
        bytes.extend_from_slice(&frame);
    }
    raw.send_bytes(&bytes).await;
    let mut seen = std::collections::HashSet::new();
    for _ in 1..=50 {
        let (_, stream, response) = raw.recv().await.unwrap();
        assert!(matches!(response, Response::Result(_)), "{response:?}");
        assert!(seen.insert(stream));
    }
    // A framing fault after a good request: both are answered, then the connection closes.
    let mut bytes = cql::frame::encode_request_frame(60, &Request::Options, None).to_vec();
    bytes.push(0x03);
    raw.send_bytes(&bytes).await;
    let mut answers = Vec::new();
    for _ in 0..2 {
        let (_, stream, response) = raw.recv().await.unwrap();
        answers.push((stream, matches!(response, Response::Error(_))));
    }
    answers.sort();
    assert_eq!(answers, [(0, true), (60, false)]);
    assert!(raw.recv().await.is_none(), "the connection is closed");
}

/// Past `native_transport_max_concurrent_connections` a new client is closed at once (it
/// would otherwise hang in the accept backlog); once a slot frees, clients get in again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connections_past_the_limit_are_closed_at_once() {
    let config = server::Config {
        max_connections: 2,
        ..server::Config::default()
    };
    let server = TestServer::start_with(config).await;
    let mut first = RawConnection::connect(server.addr).await;
    first.startup().await;
    let mut second = RawConnection::connect(server.addr).await;
    second.startup().await;
    let started = std::time::Instant::now();
    let mut third = RawConnection::connect(server.addr).await;
    third.send(0, &Request::Options).await;
    assert!(
        third.recv().await.is_none(),
        "the third connection is closed"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "closed at once, not left hanging"
    );
    drop(first);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let mut again = RawConnection::connect(server.addr).await;
        again.send(0, &Request::Options).await;
        if let Some((_, _, Response::Supported(_))) = again.recv().await {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "a freed slot is never reused"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    drop(second);
    server.stop().await;
}

/// Reads one segment payload (whole envelopes) from a v5 connection after the handshake.
async fn read_segment_payload(
    stream: &mut tokio::net::TcpStream,
    decoder: &mut cql::frame::segment::SegmentDecoder,
) -> Option<bytes::Bytes> {
    use tokio::io::AsyncReadExt;
    let mut input = bytes::BytesMut::new();
    loop {
        if let Some(payload) = decoder.decode(&mut input).expect("valid segments") {
            return Some(payload);
        }
        if stream.read_buf(&mut input).await.ok()? == 0 {
            return None;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn v5_switches_to_segments_after_ready_and_a_corrupt_segment_closes_only_its_connection() {
    use cql::frame::request::{Query, QueryParameters, Startup};
    use cql::frame::segment::{encode_segments, SegmentDecoder};
    use cql::frame::{encode_request_frame_for, parse_header, ProtocolVersion, HEADER_LEN};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let server = TestServer::start().await;
    let v5 = ProtocolVersion::V5;
    let mut stream = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let startup = Request::Startup(Startup {
        options: vec![("CQL_VERSION".into(), "3.0.0".into())],
    });
    stream
        .write_all(&encode_request_frame_for(v5, 1, &startup, None))
        .await
        .unwrap();
    let mut ready = [0u8; HEADER_LEN];
    stream.read_exact(&mut ready).await.unwrap();
    assert_eq!(
        ready,
        [0x85, 0, 0, 1, 0x02, 0, 0, 0, 0],
        "READY is a plain v5 envelope"
    );

    let query = Request::Query(Query {
        query: "SELECT release_version FROM system.local".into(),
        params: QueryParameters {
            consistency: 1,
            ..QueryParameters::default()
        },
    });
    let mut segments = bytes::BytesMut::new();
    encode_segments(
        &encode_request_frame_for(v5, 2, &query, None),
        false,
        &mut segments,
    );
    stream.write_all(&segments).await.unwrap();
    let mut decoder = SegmentDecoder::new(false, 1 << 20);
    let payload = read_segment_payload(&mut stream, &mut decoder)
        .await
        .expect("an answer in a segment");
    let header = parse_header(&payload).unwrap();
    assert_eq!(
        (header.version, header.stream, header.opcode),
        (0x85, 2, 0x08)
    );

    // Flip a payload byte: the CRC32 no longer matches, and the server answers a protocol
    // error and closes this connection.
    segments[8] ^= 0xFF;
    stream.write_all(&segments).await.unwrap();
    let payload = read_segment_payload(&mut stream, &mut decoder)
        .await
        .expect("an error in a segment");
    let header = parse_header(&payload).unwrap();
    assert_eq!(header.opcode, 0x00, "an ERROR");
    assert_eq!(
        &payload[HEADER_LEN..HEADER_LEN + 4],
        &0x000Au32.to_be_bytes()
    );
    assert!(read_segment_payload(&mut stream, &mut decoder)
        .await
        .is_none());
    // Other connections are untouched.
    let session = server.session().await;
    session
        .query_unpaged("SELECT release_version FROM system.local", &[])
        .await
        .expect("another connection still works");
}

/// Cassandra 5.0's `6/v6-beta`: without the `USE_BETA` flag refused in that version with its
/// message and PROTOCOL_ERROR; with it, v5's handshake and segments under version byte 6.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn v6_beta_needs_the_use_beta_flag_and_then_speaks_v5_framing() {
    use cql::frame::request::{Query, QueryParameters, Startup};
    use cql::frame::segment::{encode_segments, SegmentDecoder};
    use cql::frame::{encode_request_frame_for, flags, parse_header, ProtocolVersion, HEADER_LEN};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let server = TestServer::start().await;
    let mut raw = RawConnection::connect(server.addr).await;
    raw.send_bytes(&[0x06, 0, 0, 0, 0x05, 0, 0, 0, 0]).await;
    let (header_version, stream, response) = raw.recv().await.expect("error frame");
    assert_eq!((header_version, stream), (0x86, 0));
    let Response::Error(err) = response else {
        panic!("expected ERROR, got {response:?}")
    };
    assert_eq!(
        (err.code, err.message.as_str()),
        (
            0x000A,
            "Beta version of the protocol used (6/v6-beta), but USE_BETA flag is unset"
        )
    );
    assert!(raw.recv().await.is_none(), "closed after the error");

    let v6 = ProtocolVersion::V6;
    let beta = |stream: i16, request: &Request| {
        let mut frame = encode_request_frame_for(v6, stream, request, None);
        frame[1] |= flags::USE_BETA;
        frame
    };
    let mut socket = tokio::net::TcpStream::connect(server.addr).await.unwrap();
    let startup = Request::Startup(Startup {
        options: vec![("CQL_VERSION".into(), "3.0.0".into())],
    });
    socket.write_all(&beta(1, &startup)).await.unwrap();
    let mut ready = [0u8; HEADER_LEN];
    socket.read_exact(&mut ready).await.unwrap();
    assert_eq!(ready, [0x86, 0, 0, 1, 0x02, 0, 0, 0, 0], "READY in v6");
    let query = Request::Query(Query {
        query: "SELECT native_protocol_version FROM system.local".into(),
        params: QueryParameters {
            consistency: 1,
            ..QueryParameters::default()
        },
    });
    let mut segments = bytes::BytesMut::new();
    encode_segments(&beta(2, &query), false, &mut segments);
    socket.write_all(&segments).await.unwrap();
    let mut decoder = SegmentDecoder::new(false, 1 << 20);
    let payload = read_segment_payload(&mut socket, &mut decoder)
        .await
        .expect("an answer in a segment");
    let header = parse_header(&payload).unwrap();
    assert_eq!(
        (header.version, header.stream, header.opcode),
        (0x86, 2, 0x08),
        "a RESULT in v6 inside a v5 segment"
    );
}
