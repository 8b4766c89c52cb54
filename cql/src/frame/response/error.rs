//! ERROR (native_protocol_v4.spec sections 4.2.1 and 9): `[int]` code, `[string]` message, and
//! per-code extra fields. This is the one wire form of every error; choosing the code for a
//! failure is the server's `error` module's job.

use bytes::{Bytes, BytesMut};

use crate::frame::primitives::{
    read_byte, read_consistency, read_int, read_short_bytes, read_string, read_string_list, share,
    write_byte, write_consistency, write_int, write_short_bytes, write_string, write_string_list,
};
use crate::frame::{FrameError, ProtocolVersion};

/// Error codes (native_protocol_v4.spec section 9).
pub mod error_code {
    /// Something unexpected happened on the server (a bug).
    pub const SERVER_ERROR: i32 = 0x0000;
    /// A protocol violation by the client.
    pub const PROTOCOL_ERROR: i32 = 0x000A;
    /// Authentication failed.
    pub const BAD_CREDENTIALS: i32 = 0x0100;
    /// Not enough replicas alive. Extra: consistency, required, alive.
    pub const UNAVAILABLE: i32 = 0x1000;
    /// The server is overloaded.
    pub const OVERLOADED: i32 = 0x1001;
    /// The node is bootstrapping.
    pub const IS_BOOTSTRAPPING: i32 = 0x1002;
    /// A TRUNCATE failed.
    pub const TRUNCATE_ERROR: i32 = 0x1003;
    /// A write timed out. Extra: consistency, received, block_for, write type.
    pub const WRITE_TIMEOUT: i32 = 0x1100;
    /// A read timed out. Extra: consistency, received, block_for, data present.
    pub const READ_TIMEOUT: i32 = 0x1200;
    /// A read failed. Extra: consistency, received, block_for, failures, data present.
    pub const READ_FAILURE: i32 = 0x1300;
    /// A user function failed. Extra: keyspace, function, argument types.
    pub const FUNCTION_FAILURE: i32 = 0x1400;
    /// A write failed. Extra: consistency, received, block_for, failures, write type.
    pub const WRITE_FAILURE: i32 = 0x1500;
    /// The statement does not parse.
    pub const SYNTAX_ERROR: i32 = 0x2000;
    /// The user lacks a permission.
    pub const UNAUTHORIZED: i32 = 0x2100;
    /// The statement is invalid (unknown table, type mismatch, ...).
    pub const INVALID: i32 = 0x2200;
    /// The configuration is invalid.
    pub const CONFIG_ERROR: i32 = 0x2300;
    /// CREATE of an existing keyspace or table. Extra: keyspace, table.
    pub const ALREADY_EXISTS: i32 = 0x2400;
    /// An unknown prepared id. Extra: the id.
    pub const UNPREPARED: i32 = 0x2500;
}

/// An ERROR body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorBody {
    /// One of [`error_code`].
    pub code: i32,
    /// The message, in Cassandra's words where clients depend on them.
    pub message: String,
    /// The fields that follow the message for `code`.
    pub extra: ErrorExtra,
}

/// The per-code fields after the message. The encoder writes whatever variant it is given;
/// pairing it with the right code is the caller's job. The decoder picks it by code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorExtra {
    /// No extra fields.
    None,
    /// [`error_code::UNAVAILABLE`].
    Unavailable {
        /// `[consistency]` of the request.
        consistency: u16,
        /// Replicas needed.
        required: i32,
        /// Replicas alive.
        alive: i32,
    },
    /// [`error_code::WRITE_TIMEOUT`].
    WriteTimeout {
        /// `[consistency]` of the request.
        consistency: u16,
        /// Acknowledgements received.
        received: i32,
        /// Acknowledgements needed.
        block_for: i32,
        /// `SIMPLE`, `BATCH`, `UNLOGGED_BATCH`, `COUNTER`, `BATCH_LOG`, `CAS`, `VIEW` or `CDC`.
        write_type: String,
    },
    /// [`error_code::READ_TIMEOUT`].
    ReadTimeout {
        /// `[consistency]` of the request.
        consistency: u16,
        /// Responses received.
        received: i32,
        /// Responses needed.
        block_for: i32,
        /// Whether the replica asked for data answered.
        data_present: bool,
    },
    /// [`error_code::READ_FAILURE`].
    ReadFailure {
        /// `[consistency]` of the request.
        consistency: u16,
        /// Responses received.
        received: i32,
        /// Responses needed.
        block_for: i32,
        /// Replicas that failed.
        num_failures: i32,
        /// Why each replica failed, in v5's reason map (Cassandra's `RequestFailureReason`
        /// code: 0 `UNKNOWN`, 1 `READ_TOO_MANY_TOMBSTONES`, ...). v4 sends only the count,
        /// so a decoded body has 0.
        reason: u16,
        /// Whether the replica asked for data answered.
        data_present: bool,
    },
    /// [`error_code::FUNCTION_FAILURE`].
    FunctionFailure {
        /// Keyspace of the function.
        keyspace: String,
        /// Function name.
        function: String,
        /// Argument types as CQL types.
        arg_types: Vec<String>,
    },
    /// [`error_code::WRITE_FAILURE`].
    WriteFailure {
        /// `[consistency]` of the request.
        consistency: u16,
        /// Acknowledgements received.
        received: i32,
        /// Acknowledgements needed.
        block_for: i32,
        /// Replicas that failed.
        num_failures: i32,
        /// Why each replica failed, in v5's reason map, as in [`ErrorExtra::ReadFailure`].
        reason: u16,
        /// As in [`ErrorExtra::WriteTimeout`].
        write_type: String,
    },
    /// [`error_code::ALREADY_EXISTS`].
    AlreadyExists {
        /// The keyspace (or the keyspace of the table).
        keyspace: String,
        /// The table, empty when the keyspace itself exists.
        table: String,
    },
    /// [`error_code::UNPREPARED`].
    Unprepared {
        /// The unknown id, so the driver can re-prepare.
        id: Bytes,
    },
}

impl ErrorBody {
    /// An error with no extra fields.
    pub fn new(code: i32, message: impl Into<String>) -> ErrorBody {
        ErrorBody {
            code,
            message: message.into(),
            extra: ErrorExtra::None,
        }
    }

    pub(crate) fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        if version == ProtocolVersion::V3 {
            if let Some(older) = self.as_v3() {
                return older.encode(out, version);
            }
        }
        write_int(out, self.code);
        write_string(out, &self.message);
        self.extra.encode(out, version);
    }

    /// What Cassandra sends a v3 client instead of an error v3 lacks: a read or write
    /// timeout for a read or write failure, Invalid for a function failure.
    fn as_v3(&self) -> Option<ErrorBody> {
        let extra = match &self.extra {
            ErrorExtra::ReadFailure {
                consistency,
                received,
                block_for,
                data_present,
                ..
            } => ErrorExtra::ReadTimeout {
                consistency: *consistency,
                received: *received,
                block_for: *block_for,
                data_present: *data_present,
            },
            ErrorExtra::WriteFailure {
                consistency,
                received,
                block_for,
                write_type,
                ..
            } => ErrorExtra::WriteTimeout {
                consistency: *consistency,
                received: *received,
                block_for: *block_for,
                write_type: write_type.clone(),
            },
            ErrorExtra::FunctionFailure { .. } => ErrorExtra::None,
            _ => return None,
        };
        let code = match self.code {
            error_code::READ_FAILURE => error_code::READ_TIMEOUT,
            error_code::WRITE_FAILURE => error_code::WRITE_TIMEOUT,
            _ => error_code::INVALID,
        };
        Some(ErrorBody {
            code,
            message: self.message.clone(),
            extra,
        })
    }

    pub(crate) fn decode(buf: &mut &[u8], body: &Bytes) -> Result<ErrorBody, FrameError> {
        let code = read_int(buf, "error code")?;
        let message = read_string(buf, "error message")?.to_owned();
        let extra = ErrorExtra::decode(code, buf, body)?;
        Ok(ErrorBody {
            code,
            message,
            extra,
        })
    }
}

/// `(consistency, received, block_for)`, the prefix the timeout and failure extras share.
fn read_counts(buf: &mut &[u8]) -> Result<(u16, i32, i32), FrameError> {
    Ok((
        read_consistency(buf, "consistency")?,
        read_int(buf, "received")?,
        read_int(buf, "block_for")?,
    ))
}

fn write_counts(out: &mut BytesMut, consistency: u16, received: i32, block_for: i32) {
    write_consistency(out, consistency);
    write_int(out, received);
    write_int(out, block_for);
}

impl ErrorExtra {
    fn decode(code: i32, buf: &mut &[u8], body: &Bytes) -> Result<ErrorExtra, FrameError> {
        use error_code as c;
        let owned = |s: &str| s.to_owned();
        Ok(match code {
            c::UNAVAILABLE => ErrorExtra::Unavailable {
                consistency: read_consistency(buf, "consistency")?,
                required: read_int(buf, "required")?,
                alive: read_int(buf, "alive")?,
            },
            c::WRITE_TIMEOUT => {
                let (consistency, received, block_for) = read_counts(buf)?;
                let write_type = owned(read_string(buf, "write_type")?);
                ErrorExtra::WriteTimeout {
                    consistency,
                    received,
                    block_for,
                    write_type,
                }
            }
            c::READ_TIMEOUT => {
                let (consistency, received, block_for) = read_counts(buf)?;
                let data_present = read_byte(buf, "data_present")? != 0;
                ErrorExtra::ReadTimeout {
                    consistency,
                    received,
                    block_for,
                    data_present,
                }
            }
            c::READ_FAILURE => {
                let (consistency, received, block_for) = read_counts(buf)?;
                ErrorExtra::ReadFailure {
                    consistency,
                    received,
                    block_for,
                    num_failures: read_int(buf, "num_failures")?,
                    reason: 0,
                    data_present: read_byte(buf, "data_present")? != 0,
                }
            }
            c::FUNCTION_FAILURE => ErrorExtra::FunctionFailure {
                keyspace: owned(read_string(buf, "keyspace")?),
                function: owned(read_string(buf, "function")?),
                arg_types: read_string_list(buf, "arg_types")?,
            },
            c::WRITE_FAILURE => {
                let (consistency, received, block_for) = read_counts(buf)?;
                ErrorExtra::WriteFailure {
                    consistency,
                    received,
                    block_for,
                    num_failures: read_int(buf, "num_failures")?,
                    reason: 0,
                    write_type: owned(read_string(buf, "write_type")?),
                }
            }
            c::ALREADY_EXISTS => ErrorExtra::AlreadyExists {
                keyspace: owned(read_string(buf, "keyspace")?),
                table: owned(read_string(buf, "table")?),
            },
            c::UNPREPARED => ErrorExtra::Unprepared {
                id: share(body, read_short_bytes(buf, "id")?),
            },
            _ => ErrorExtra::None,
        })
    }

    fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        match self {
            ErrorExtra::None => {}
            ErrorExtra::Unavailable {
                consistency,
                required,
                alive,
            } => {
                write_consistency(out, *consistency);
                write_int(out, *required);
                write_int(out, *alive);
            }
            ErrorExtra::WriteTimeout {
                consistency,
                received,
                block_for,
                write_type,
            } => {
                write_counts(out, *consistency, *received, *block_for);
                write_string(out, write_type);
            }
            ErrorExtra::ReadTimeout {
                consistency,
                received,
                block_for,
                data_present,
            } => {
                write_counts(out, *consistency, *received, *block_for);
                write_byte(out, u8::from(*data_present));
            }
            ErrorExtra::ReadFailure {
                consistency,
                received,
                block_for,
                num_failures,
                reason,
                data_present,
            } => {
                write_counts(out, *consistency, *received, *block_for);
                write_failures(out, *num_failures, *reason, version);
                write_byte(out, u8::from(*data_present));
            }
            ErrorExtra::FunctionFailure {
                keyspace,
                function,
                arg_types,
            } => {
                write_string(out, keyspace);
                write_string(out, function);
                write_string_list(out, arg_types);
            }
            ErrorExtra::WriteFailure {
                consistency,
                received,
                block_for,
                num_failures,
                reason,
                write_type,
            } => {
                write_counts(out, *consistency, *received, *block_for);
                write_failures(out, *num_failures, *reason, version);
                write_string(out, write_type);
            }
            ErrorExtra::AlreadyExists { keyspace, table } => {
                write_string(out, keyspace);
                write_string(out, table);
            }
            ErrorExtra::Unprepared { id } => write_short_bytes(out, id),
        }
    }
}

/// The failures of a read or write failure: their count before v5, in v5 a `<reasonmap>` of
/// `[int]` n pairs of `[inetaddr]` and `[short]` reason: `count` entries of this node's
/// address and the `reason` code (this node is the only replica).
fn write_failures(out: &mut BytesMut, count: i32, reason: u16, version: ProtocolVersion) {
    write_int(out, count);
    if version.is_v5() {
        for _ in 0..count.max(0) {
            write_byte(out, 4);
            out.extend_from_slice(&[127, 0, 0, 1]);
            out.extend_from_slice(&reason.to_be_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::response::tests::round_trip;
    use crate::frame::response::Response;

    #[test]
    fn already_exists_body_is_exact() {
        let body = round_trip(&Response::Error(ErrorBody {
            code: error_code::ALREADY_EXISTS,
            message: "m".into(),
            extra: ErrorExtra::AlreadyExists {
                keyspace: "ks".into(),
                table: "t".into(),
            },
        }));
        assert_eq!(
            &body[..],
            &[0, 0, 0x24, 0, 0, 1, b'm', 0, 2, b'k', b's', 0, 1, b't']
        );
    }

    #[test]
    fn every_extra_round_trips() {
        use error_code as c;
        let cases = [
            (c::SERVER_ERROR, ErrorExtra::None),
            (
                c::UNAVAILABLE,
                ErrorExtra::Unavailable {
                    consistency: 1,
                    required: 2,
                    alive: 1,
                },
            ),
            (
                c::WRITE_TIMEOUT,
                ErrorExtra::WriteTimeout {
                    consistency: 4,
                    received: 1,
                    block_for: 2,
                    write_type: "SIMPLE".into(),
                },
            ),
            (
                c::READ_TIMEOUT,
                ErrorExtra::ReadTimeout {
                    consistency: 4,
                    received: 1,
                    block_for: 2,
                    data_present: true,
                },
            ),
            (
                c::READ_FAILURE,
                ErrorExtra::ReadFailure {
                    consistency: 4,
                    received: 1,
                    block_for: 2,
                    num_failures: 1,
                    reason: 0,
                    data_present: false,
                },
            ),
            (
                c::FUNCTION_FAILURE,
                ErrorExtra::FunctionFailure {
                    keyspace: "ks".into(),
                    function: "f".into(),
                    arg_types: vec!["int".into(), "text".into()],
                },
            ),
            (
                c::WRITE_FAILURE,
                ErrorExtra::WriteFailure {
                    consistency: 4,
                    received: 1,
                    block_for: 2,
                    num_failures: 1,
                    reason: 0,
                    write_type: "BATCH".into(),
                },
            ),
            (
                c::UNPREPARED,
                ErrorExtra::Unprepared {
                    id: Bytes::from_static(&[1, 2, 3]),
                },
            ),
        ];
        for (code, extra) in cases {
            round_trip(&Response::Error(ErrorBody {
                code,
                message: "x".into(),
                extra,
            }));
        }
        round_trip(&Response::Error(ErrorBody::new(
            error_code::INVALID,
            "unknown table",
        )));
    }

    #[test]
    fn a_v5_read_failure_carries_its_reason_in_the_map() {
        let body = ErrorBody {
            code: error_code::READ_FAILURE,
            message: "m".into(),
            extra: ErrorExtra::ReadFailure {
                consistency: 1,
                received: 0,
                block_for: 1,
                num_failures: 1,
                reason: 1,
                data_present: false,
            },
        };
        let mut out = BytesMut::new();
        body.encode(&mut out, ProtocolVersion::V5);
        let mut expected = vec![0, 0, 0x13, 0, 0, 1, b'm', 0, 1, 0, 0, 0, 0, 0, 0, 0, 1];
        expected.extend_from_slice(&[0, 0, 0, 1, 4, 127, 0, 0, 1, 0, 1, 0]);
        assert_eq!(&out[..], &expected[..]);
        let mut v4 = BytesMut::new();
        body.encode(&mut v4, ProtocolVersion::V4);
        assert_eq!(&v4[v4.len() - 5..], &[0, 0, 0, 1, 0]);
    }
}
