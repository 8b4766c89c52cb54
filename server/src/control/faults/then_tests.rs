//! Tests of `then`: outcomes, error details and their defaults, and the wire bodies the
//! injected errors make in each protocol version.

use std::net::IpAddr;

use bytes::Bytes;
use cql::frame::response::{ErrorBody, ErrorExtra, Response};
use cql::frame::ProtocolVersion;
use serde_json::json;

use super::*;
use crate::control::faults::facts::{Kind, Message, Target};

fn facts(consistency: u16, write_type: &'static str) -> Facts {
    Facts {
        message: Message::Execute,
        kind: Kind::Insert,
        texts: vec!["INSERT INTO t (k) VALUES (?)".into()],
        targets: vec![Target::default()],
        consistency: Some(consistency),
        client: IpAddr::from([127, 0, 0, 1]),
        local: IpAddr::from([127, 0, 0, 1]),
        prepared_id: Some(Bytes::from_static(&[0xab, 0xcd])),
        write_type,
    }
}

fn then(body: Value) -> Then {
    Then::from_json(&body).expect("a valid then")
}

/// The error body a `then` answers a request of `facts` with.
fn body(then_json: Value, facts: &Facts) -> ErrorBody {
    match then(then_json).outcome {
        Outcome::Error(spec) => spec.error_for(facts).error_body(),
        other => panic!("not an error: {other:?}"),
    }
}

/// The body of the frame that carries `body` in `version`, after the 9-byte header.
fn wire(body: &ErrorBody, version: ProtocolVersion) -> Vec<u8> {
    let frame = cql::frame::encode_response_frame_for(
        version,
        0,
        &Response::Error(body.clone()),
        &[],
        None,
    );
    frame[9..].to_vec()
}

#[test]
fn outcomes_are_one_of_error_drop_close_with_or_without_a_delay() {
    assert_eq!(then(json!({"drop": true})).outcome, Outcome::Drop);
    assert_eq!(then(json!({"close": true})).outcome, Outcome::Close);
    let delayed = then(json!({"delay_ms": 250}));
    assert_eq!(
        (delayed.delay, delayed.outcome),
        (Some(Duration::from_millis(250)), Outcome::Answer)
    );
    let late_error = then(json!({"error": "overloaded", "delay_ms": 10}));
    assert!(matches!(late_error.outcome, Outcome::Error(_)));
    for (bad, words) in [
        (json!({}), "needs \"error\""),
        (json!({"drop": true, "close": true}), "takes one of"),
        (json!({"error": "nope"}), "unknown error nope"),
        (
            json!({"error": "overloaded", "alive": 1}),
            "unknown field \"alive\"",
        ),
        (
            json!({"drop": true, "required": 1}),
            "unknown field \"required\"",
        ),
        (json!({"delay_ms": -1}), "\"delay_ms\" must be an integer"),
        (
            json!({"error": "write_timeout", "write_type": "FAST"}),
            "unknown write_type FAST",
        ),
        (json!("drop"), "must be an object"),
    ] {
        let err = Then::from_json(&bad).expect_err("refused");
        assert!(err.to_string().contains(words), "{bad}: {err}");
    }
}

#[test]
fn details_default_from_the_request() {
    let unavailable = body(json!({"error": "unavailable"}), &facts(4, "SIMPLE"));
    assert_eq!(unavailable.code, 0x1000);
    assert_eq!(
        unavailable.message,
        "Cannot achieve consistency level QUORUM"
    );
    assert_eq!(
        unavailable.extra,
        ErrorExtra::Unavailable {
            consistency: 4,
            required: 1,
            alive: 0
        }
    );
    let three = body(json!({"error": "unavailable"}), &facts(3, "SIMPLE"));
    assert!(matches!(
        three.extra,
        ErrorExtra::Unavailable {
            required: 3,
            alive: 2,
            ..
        }
    ));
    let timeout = body(
        json!({"error": "write_timeout"}),
        &facts(1, "UNLOGGED_BATCH"),
    );
    assert_eq!(
        timeout.message,
        "Operation timed out - received only 0 responses."
    );
    assert_eq!(
        timeout.extra,
        ErrorExtra::WriteTimeout {
            consistency: 1,
            received: 0,
            block_for: 1,
            write_type: "UNLOGGED_BATCH".into()
        }
    );
}

#[test]
fn details_given_win() {
    let given = json!({
        "error": "unavailable", "consistency": "quorum", "required": 3, "alive": 1
    });
    let unavailable = body(given, &facts(1, "SIMPLE"));
    assert_eq!(
        unavailable.extra,
        ErrorExtra::Unavailable {
            consistency: 4,
            required: 3,
            alive: 1
        }
    );
    let read = body(
        json!({"error": "read_timeout", "received": "2", "block_for": 2, "data_present": "false"}),
        &facts(6, "SIMPLE"),
    );
    assert_eq!(
        read.extra,
        ErrorExtra::ReadTimeout {
            consistency: 6,
            received: 2,
            block_for: 2,
            data_present: false
        }
    );
    let failure = body(
        json!({"error": "read_failure", "reason": "READ_TOO_MANY_TOMBSTONES", "num_failures": 1}),
        &facts(1, "SIMPLE"),
    );
    assert_eq!(
        failure.message,
        "Operation failed - received 0 responses and 1 failures: \
         READ_TOO_MANY_TOMBSTONES from /127.0.0.1:7000"
    );
    let message = body(
        json!({"error": "server_error", "message": "disk on fire"}),
        &facts(1, "SIMPLE"),
    );
    assert_eq!(
        (message.code, message.message.as_str()),
        (0, "disk on fire")
    );
}

#[test]
fn unprepared_carries_the_id_sent() {
    let unprepared = body(json!({"error": "unprepared"}), &facts(1, "SIMPLE"));
    assert_eq!(unprepared.code, 0x2500);
    assert_eq!(
        unprepared.extra,
        ErrorExtra::Unprepared {
            id: Bytes::from_static(&[0xab, 0xcd])
        }
    );
}

#[test]
fn listed_as_given() {
    let listed = then(json!({
        "error": "write_failure", "reason": 2, "write_type": "cas", "delay_ms": 5
    }))
    .to_json();
    assert_eq!(
        listed,
        json!({"error": "write_failure", "reason": "TIMEOUT", "write_type": "CAS", "delay_ms": 5})
    );
}

#[test]
fn every_error_encodes_cassandras_body() {
    let f = facts(4, "SIMPLE");
    let cases = [
        (
            "unavailable",
            vec![0, 0, 0x10, 0x00],
            vec![0, 4, 0, 0, 0, 1, 0, 0, 0, 0],
        ),
        ("overloaded", vec![0, 0, 0x10, 0x01], vec![]),
        ("is_bootstrapping", vec![0, 0, 0x10, 0x02], vec![]),
        (
            "write_timeout",
            vec![0, 0, 0x11, 0x00],
            vec![
                0, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 6, b'S', b'I', b'M', b'P', b'L', b'E',
            ],
        ),
        (
            "read_timeout",
            vec![0, 0, 0x12, 0x00],
            vec![0, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0],
        ),
        ("server_error", vec![0, 0, 0, 0], vec![]),
        ("unprepared", vec![0, 0, 0x25, 0x00], vec![0, 2, 0xab, 0xcd]),
    ];
    for (error, code, extra) in cases {
        let body = body(json!({ "error": error }), &f);
        let bytes = wire(&body, ProtocolVersion::V4);
        assert_eq!(&bytes[..4], &code[..], "{error}");
        let message_len = usize::from(u16::from_be_bytes([bytes[4], bytes[5]]));
        assert_eq!(
            &bytes[6..6 + message_len],
            body.message.as_bytes(),
            "{error}"
        );
        assert_eq!(&bytes[6 + message_len..], &extra[..], "{error}");
    }
}

#[test]
fn failures_send_the_reason_map_in_v5_and_the_count_before() {
    let f = facts(1, "SIMPLE");
    let failure = body(
        json!({"error": "write_failure", "reason": "TIMEOUT", "message": "m"}),
        &f,
    );
    let counts = [0, 1, 0, 0, 0, 0, 0, 0, 0, 1];
    let mut v4 = vec![0, 0, 0x15, 0x00, 0, 1, b'm'];
    v4.extend_from_slice(&counts);
    v4.extend_from_slice(&[0, 0, 0, 1]);
    v4.extend_from_slice(&[0, 6, b'S', b'I', b'M', b'P', b'L', b'E']);
    assert_eq!(wire(&failure, ProtocolVersion::V4), v4);
    let mut v5 = vec![0, 0, 0x15, 0x00, 0, 1, b'm'];
    v5.extend_from_slice(&counts);
    v5.extend_from_slice(&[0, 0, 0, 1, 4, 127, 0, 0, 1, 0, 2]);
    v5.extend_from_slice(&[0, 6, b'S', b'I', b'M', b'P', b'L', b'E']);
    assert_eq!(wire(&failure, ProtocolVersion::V5), v5);
    let read = body(
        json!({"error": "read_failure", "reason": 1, "data_present": true, "message": "m"}),
        &f,
    );
    let mut v5 = vec![0, 0, 0x13, 0x00, 0, 1, b'm'];
    v5.extend_from_slice(&counts);
    v5.extend_from_slice(&[0, 0, 0, 1, 4, 127, 0, 0, 1, 0, 1, 1]);
    assert_eq!(wire(&read, ProtocolVersion::V5), v5);
}

#[test]
fn v3_gets_timeouts_for_failures() {
    let f = facts(1, "BATCH");
    let failure = body(json!({"error": "write_failure", "message": "m"}), &f);
    let bytes = wire(&failure, ProtocolVersion::V3);
    assert_eq!(&bytes[..4], &[0, 0, 0x11, 0x00]);
    assert_eq!(
        &bytes[7..],
        &[0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 5, b'B', b'A', b'T', b'C', b'H']
    );
}
