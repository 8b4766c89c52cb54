//! `InjectedError`: an error a fault rule answers with (test controls, ours): the failures a
//! Cassandra coordinator reports when replicas are down, slow or failing, or when it is
//! overloaded or bootstrapping, with the fields drivers read and Cassandra's messages.

use std::net::IpAddr;

use cql::frame::response::{error_code, ErrorExtra};

use crate::telemetry::trace::consistency_name;

/// An injected error: what it is, and the message it carries (Cassandra's words unless the
/// rule gave its own).
/// Origin: ours — a test control's fault rule; each kind's default message is the one its
/// Cassandra exception carries (see `InjectedKind`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct InjectedError {
    /// The error and its fields.
    pub(crate) kind: InjectedKind,
    /// The message sent.
    pub(crate) message: String,
}

/// The errors a fault can inject, with their wire fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum InjectedKind {
    /// Not enough replicas alive (0x1000).
    Unavailable {
        consistency: u16,
        required: i32,
        alive: i32,
    },
    /// A read that timed out (0x1200).
    ReadTimeout {
        consistency: u16,
        received: i32,
        block_for: i32,
        data_present: bool,
    },
    /// A write that timed out (0x1100).
    WriteTimeout {
        consistency: u16,
        received: i32,
        block_for: i32,
        write_type: String,
    },
    /// A read that failed on replicas (0x1300); `node` names them in the message.
    ReadFailure {
        consistency: u16,
        received: i32,
        block_for: i32,
        num_failures: i32,
        reason: u16,
        data_present: bool,
        node: IpAddr,
    },
    /// A write that failed on replicas (0x1500); `node` names them in the message.
    WriteFailure {
        consistency: u16,
        received: i32,
        block_for: i32,
        num_failures: i32,
        reason: u16,
        write_type: String,
        node: IpAddr,
    },
    /// The coordinator is overloaded (0x1001).
    Overloaded,
    /// The coordinator is bootstrapping (0x1002).
    IsBootstrapping,
    /// A server-side failure (0x0000).
    ServerError,
}

/// Cassandra 5.0's `RequestFailureReason` names, by code.
pub(crate) const FAILURE_REASONS: &[(&str, u16)] = &[
    ("UNKNOWN", 0),
    ("READ_TOO_MANY_TOMBSTONES", 1),
    ("TIMEOUT", 2),
    ("INCOMPATIBLE_SCHEMA", 3),
    ("READ_SIZE", 4),
    ("NODE_DOWN", 5),
    ("INDEX_NOT_AVAILABLE", 6),
    ("READ_TOO_MANY_INDEXES", 7),
];

/// The name of a failure reason code (the code itself when unknown).
pub(crate) fn failure_reason_name(code: u16) -> String {
    FAILURE_REASONS
        .iter()
        .find(|(_, c)| *c == code)
        .map_or_else(|| code.to_string(), |(name, _)| (*name).to_string())
}

impl InjectedKind {
    /// The message Cassandra sends with this error.
    pub(crate) fn cassandra_message(&self) -> String {
        match self {
            InjectedKind::Unavailable { consistency, .. } => format!(
                "Cannot achieve consistency level {}",
                consistency_name(*consistency)
            ),
            InjectedKind::ReadTimeout { received, .. }
            | InjectedKind::WriteTimeout { received, .. } => {
                format!("Operation timed out - received only {received} responses.")
            }
            InjectedKind::ReadFailure {
                received,
                num_failures,
                reason,
                node,
                ..
            }
            | InjectedKind::WriteFailure {
                received,
                num_failures,
                reason,
                node,
                ..
            } => failure_message(*received, *num_failures, *reason, *node),
            InjectedKind::Overloaded => {
                "Server is in overloaded state. Cannot accept more requests at this point".into()
            }
            InjectedKind::IsBootstrapping => "Cannot read from a bootstrapping node".into(),
            InjectedKind::ServerError => "Injected fault: server error".into(),
        }
    }

    /// The error code and its extra fields.
    pub(crate) fn code_and_extra(&self) -> (i32, ErrorExtra) {
        match self.clone() {
            InjectedKind::Unavailable {
                consistency,
                required,
                alive,
            } => (
                error_code::UNAVAILABLE,
                ErrorExtra::Unavailable {
                    consistency,
                    required,
                    alive,
                },
            ),
            InjectedKind::ReadTimeout {
                consistency,
                received,
                block_for,
                data_present,
            } => (
                error_code::READ_TIMEOUT,
                ErrorExtra::ReadTimeout {
                    consistency,
                    received,
                    block_for,
                    data_present,
                },
            ),
            InjectedKind::WriteTimeout {
                consistency,
                received,
                block_for,
                write_type,
            } => (
                error_code::WRITE_TIMEOUT,
                ErrorExtra::WriteTimeout {
                    consistency,
                    received,
                    block_for,
                    write_type,
                },
            ),
            InjectedKind::ReadFailure {
                consistency,
                received,
                block_for,
                num_failures,
                reason,
                data_present,
                ..
            } => (
                error_code::READ_FAILURE,
                ErrorExtra::ReadFailure {
                    consistency,
                    received,
                    block_for,
                    num_failures,
                    reason,
                    data_present,
                },
            ),
            InjectedKind::WriteFailure {
                consistency,
                received,
                block_for,
                num_failures,
                reason,
                write_type,
                ..
            } => (
                error_code::WRITE_FAILURE,
                ErrorExtra::WriteFailure {
                    consistency,
                    received,
                    block_for,
                    num_failures,
                    reason,
                    write_type,
                },
            ),
            InjectedKind::Overloaded => (error_code::OVERLOADED, ErrorExtra::None),
            InjectedKind::IsBootstrapping => (error_code::IS_BOOTSTRAPPING, ErrorExtra::None),
            InjectedKind::ServerError => (error_code::SERVER_ERROR, ErrorExtra::None),
        }
    }
}

/// `RequestFailureException`'s message: "Operation failed - received R responses and N
/// failures: REASON from /ip:7000, ...".
fn failure_message(received: i32, failures: i32, reason: u16, node: IpAddr) -> String {
    let address = match node {
        IpAddr::V4(ip) => format!("/{ip}:7000"),
        IpAddr::V6(ip) => format!("/[{ip}]:7000"),
    };
    let each = format!("{} from {address}", failure_reason_name(reason));
    let all = vec![each; usize::try_from(failures).unwrap_or(0)].join(", ");
    format!("Operation failed - received {received} responses and {failures} failures: {all}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_cassandras() {
        let unavailable = InjectedKind::Unavailable {
            consistency: 4,
            required: 3,
            alive: 1,
        };
        assert_eq!(
            unavailable.cassandra_message(),
            "Cannot achieve consistency level QUORUM"
        );
        let timeout = InjectedKind::WriteTimeout {
            consistency: 1,
            received: 0,
            block_for: 1,
            write_type: "SIMPLE".into(),
        };
        assert_eq!(
            timeout.cassandra_message(),
            "Operation timed out - received only 0 responses."
        );
        let failure = InjectedKind::ReadFailure {
            consistency: 1,
            received: 0,
            block_for: 1,
            num_failures: 1,
            reason: 1,
            data_present: false,
            node: IpAddr::from([127, 0, 0, 1]),
        };
        assert_eq!(
            failure.cassandra_message(),
            "Operation failed - received 0 responses and 1 failures: \
             READ_TOO_MANY_TOMBSTONES from /127.0.0.1:7000"
        );
        assert_eq!(
            InjectedKind::IsBootstrapping.cassandra_message(),
            "Cannot read from a bootstrapping node"
        );
    }

    #[test]
    fn codes_are_cassandras() {
        let codes: Vec<i32> = [
            InjectedKind::Overloaded,
            InjectedKind::IsBootstrapping,
            InjectedKind::ServerError,
        ]
        .iter()
        .map(|kind| kind.code_and_extra().0)
        .collect();
        assert_eq!(codes, [0x1001, 0x1002, 0x0000]);
        let (code, extra) = InjectedKind::WriteFailure {
            consistency: 1,
            received: 0,
            block_for: 1,
            num_failures: 2,
            reason: 2,
            write_type: "BATCH".into(),
            node: IpAddr::from([127, 0, 0, 1]),
        }
        .code_and_extra();
        assert_eq!(code, 0x1500);
        assert!(matches!(
            extra,
            ErrorExtra::WriteFailure {
                num_failures: 2,
                reason: 2,
                ..
            }
        ));
    }
}
