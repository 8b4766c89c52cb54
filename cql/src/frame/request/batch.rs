//! BATCH (native_protocol_v4.spec section 4.1.7): a batch type, the statements with their
//! values, then consistency, a flags byte (an `[int]` in v5) and the optional serial
//! consistency and timestamp (and in v5 keyspace and `now_in_seconds`).
//!
//! The 0x40 "names for values" flag is recorded but, like Cassandra's `BatchMessage` codec,
//! values are always read without names: the spec itself calls that feature unimplementable
//! (CASSANDRA-10246). The four low flag bits make no sense for a batch and are rejected.

use bytes::{Bytes, BytesMut};

use super::query::query_flags as qf;
use crate::frame::primitives::{
    bounded_vec, read_byte, read_consistency, read_long_string, read_short, read_short_bytes,
    share, short_len, write_byte, write_consistency, write_long, write_long_string, write_short,
    write_short_bytes, write_value, Value,
};
use crate::frame::request::query::{
    read_bound_value, read_flags, read_v5_tail, write_flags, write_v5_tail,
};
use crate::frame::{FrameError, ProtocolVersion};

/// Batch types.
const LOGGED: u8 = 0;
const COUNTER: u8 = 2;

/// A BATCH body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// 0 logged, 1 unlogged, 2 counter (checked on decode).
    pub kind: u8,
    /// The statements in order.
    pub statements: Vec<BatchStatement>,
    /// The `[consistency]` of the batch.
    pub consistency: u16,
    /// Flag 0x10: consistency of the Paxos phase of conditional updates.
    pub serial_consistency: Option<u16>,
    /// Flag 0x20: the write timestamp in microseconds, as sent.
    pub default_timestamp: Option<i64>,
    /// Flag 0x40 as sent; values are read without names regardless (see the module docs).
    pub value_names: bool,
    /// v5 flag 0x80: the keyspace to run in instead of the connection's.
    pub keyspace: Option<String>,
    /// v5 flag 0x100: the time, in seconds since the epoch, the batch runs at.
    pub now_in_seconds: Option<i32>,
}

/// The statement of one batch entry: text or a prepared id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchQuery {
    /// Kind 0: statement text as a `[long string]`.
    Text(String),
    /// Kind 1: a prepared id as `[short bytes]`.
    Prepared(Bytes),
}

/// One entry of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BatchStatement {
    /// What to run.
    pub query: BatchQuery,
    /// Its bound values in order.
    pub values: Vec<Value>,
}

impl Batch {
    pub(crate) fn decode(
        buf: &mut &[u8],
        body: &Bytes,
        version: ProtocolVersion,
    ) -> Result<Batch, FrameError> {
        let kind = read_byte(buf, "batch type")?;
        if kind > COUNTER {
            return Err(FrameError::InvalidValue {
                field: "batch type",
                value: i64::from(kind),
            });
        }
        let count = usize::from(read_short(buf, "statements count")?);
        let mut statements = bounded_vec(count, buf, 5);
        for _ in 0..count {
            statements.push(BatchStatement::decode(buf, body, version)?);
        }
        let consistency = read_consistency(buf, "consistency")?;
        let flags = read_flags(buf, version)?;
        if flags & 0x0F != 0 {
            return Err(FrameError::InvalidValue {
                field: "batch flags",
                value: i64::from(flags),
            });
        }
        let serial_consistency = if flags & u32::from(qf::WITH_SERIAL_CONSISTENCY) != 0 {
            Some(read_consistency(buf, "serial_consistency")?)
        } else {
            None
        };
        let default_timestamp = if flags & u32::from(qf::WITH_DEFAULT_TIMESTAMP) != 0 {
            Some(super::query::read_default_timestamp(buf)?)
        } else {
            None
        };
        let (keyspace, now_in_seconds) = read_v5_tail(buf, flags, version)?;
        Ok(Batch {
            kind,
            statements,
            consistency,
            serial_consistency,
            default_timestamp,
            value_names: flags & u32::from(qf::WITH_NAMES_FOR_VALUES) != 0,
            keyspace,
            now_in_seconds,
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        write_byte(out, self.kind);
        let count = short_len(self.statements.len());
        write_short(out, count);
        for statement in self.statements.iter().take(usize::from(count)) {
            statement.encode(out);
        }
        write_consistency(out, self.consistency);
        let mut flags = 0u32;
        if self.serial_consistency.is_some() {
            flags |= u32::from(qf::WITH_SERIAL_CONSISTENCY);
        }
        if self.default_timestamp.is_some() {
            flags |= u32::from(qf::WITH_DEFAULT_TIMESTAMP);
        }
        if self.value_names {
            flags |= u32::from(qf::WITH_NAMES_FOR_VALUES);
        }
        if self.keyspace.is_some() {
            flags |= qf::WITH_KEYSPACE;
        }
        if self.now_in_seconds.is_some() {
            flags |= qf::WITH_NOW_IN_SECONDS;
        }
        write_flags(out, flags, version);
        if let Some(serial) = self.serial_consistency {
            write_consistency(out, serial);
        }
        if let Some(timestamp) = self.default_timestamp {
            write_long(out, timestamp);
        }
        write_v5_tail(out, self.keyspace.as_deref(), self.now_in_seconds, version);
    }

    /// Whether this is a logged batch (type 0).
    pub fn is_logged(&self) -> bool {
        self.kind == LOGGED
    }

    /// Whether this is a counter batch (type 2).
    pub fn is_counter(&self) -> bool {
        self.kind == COUNTER
    }
}

impl BatchStatement {
    fn decode(
        buf: &mut &[u8],
        body: &Bytes,
        version: ProtocolVersion,
    ) -> Result<BatchStatement, FrameError> {
        let query = match read_byte(buf, "query kind")? {
            0 => BatchQuery::Text(read_long_string(buf, "query")?.to_owned()),
            1 => BatchQuery::Prepared(share(body, read_short_bytes(buf, "id")?)),
            other => {
                return Err(FrameError::InvalidValue {
                    field: "query kind",
                    value: i64::from(other),
                })
            }
        };
        let count = usize::from(read_short(buf, "values count")?);
        let mut values = bounded_vec(count, buf, 4);
        for _ in 0..count {
            values.push(read_bound_value(buf, body, version)?);
        }
        Ok(BatchStatement { query, values })
    }

    fn encode(&self, out: &mut BytesMut) {
        match &self.query {
            BatchQuery::Text(text) => {
                write_byte(out, 0);
                write_long_string(out, text);
            }
            BatchQuery::Prepared(id) => {
                write_byte(out, 1);
                write_short_bytes(out, id);
            }
        }
        let count = short_len(self.values.len());
        write_short(out, count);
        for value in self.values.iter().take(usize::from(count)) {
            write_value(out, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::request::tests::round_trip;
    use crate::frame::request::Request;
    use crate::frame::Opcode;

    fn sample() -> Batch {
        Batch {
            kind: 1,
            statements: vec![
                BatchStatement {
                    query: BatchQuery::Text("INSERT INTO t (k) VALUES (?)".into()),
                    values: vec![Value::Bytes(Bytes::from_static(&[0, 0, 0, 7]))],
                },
                BatchStatement {
                    query: BatchQuery::Prepared(Bytes::from_static(&[9; 16])),
                    values: vec![Value::Null, Value::Unset],
                },
            ],
            consistency: 4,
            serial_consistency: Some(8),
            default_timestamp: Some(-5),
            value_names: false,
            keyspace: None,
            now_in_seconds: None,
        }
    }

    #[test]
    fn batch_round_trips() {
        let batch = sample();
        assert!(!batch.is_logged() && !batch.is_counter());
        round_trip(&Request::Batch(batch));
        let mut named = sample();
        named.value_names = true;
        named.serial_consistency = None;
        round_trip(&Request::Batch(named));
    }

    #[test]
    fn invalid_types_kinds_and_flags_are_rejected() {
        let err = Request::decode(Opcode::Batch, &Bytes::from_static(&[3, 0, 0])).unwrap_err();
        assert_eq!(err.to_string(), "Invalid value 3 for batch type");
        let body = Bytes::from_static(&[0, 0, 1, 2, 0, 0]);
        let err = Request::decode(Opcode::Batch, &body).unwrap_err();
        assert_eq!(err.to_string(), "Invalid value 2 for query kind");
        let body = Bytes::from_static(&[0, 0, 0, 0, 1, 0x04]);
        let err = Request::decode(Opcode::Batch, &body).unwrap_err();
        assert_eq!(err.to_string(), "Invalid value 4 for batch flags");
    }
}
