//! QUERY (native_protocol_v4.spec section 4.1.4) and the `<query_parameters>` it shares with
//! EXECUTE: consistency, a flags byte, then the optional parts in flag order.

use bytes::{Bytes, BytesMut};

use crate::frame::primitives::{
    bounded_vec, read_byte, read_consistency, read_int, read_long, read_long_string,
    read_shared_bytes, read_short, read_string, read_value, short_len, write_byte, write_bytes,
    write_consistency, write_int, write_long, write_long_string, write_short, write_string,
    write_value, Value,
};
use crate::frame::{FrameError, ProtocolVersion};

/// The `<flags>` bits of `<query_parameters>` (a `[byte]` in v4).
pub mod query_flags {
    /// `[short] n` then n `[value]`s follow.
    pub const VALUES: u8 = 0x01;
    /// The Rows result must carry No_metadata.
    pub const SKIP_METADATA: u8 = 0x02;
    /// `<result_page_size>` `[int]` follows.
    pub const PAGE_SIZE: u8 = 0x04;
    /// `<paging_state>` `[bytes]` follows.
    pub const WITH_PAGING_STATE: u8 = 0x08;
    /// `<serial_consistency>` `[consistency]` follows.
    pub const WITH_SERIAL_CONSISTENCY: u8 = 0x10;
    /// `<timestamp>` `[long]` (microseconds) follows.
    pub const WITH_DEFAULT_TIMESTAMP: u8 = 0x20;
    /// Each value is preceded by its bind marker name (only with [`VALUES`]).
    pub const WITH_NAMES_FOR_VALUES: u8 = 0x40;
    /// v5: a `[string]` keyspace follows the timestamp (flags are an `[int]` in v5).
    pub const WITH_KEYSPACE: u32 = 0x80;
    /// v5: an `[int]` "now" in seconds follows the keyspace.
    pub const WITH_NOW_IN_SECONDS: u32 = 0x100;
}

use query_flags as qf;

/// A QUERY body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// The statement text.
    pub query: String,
    /// Consistency, bound values, paging and timestamp.
    pub params: QueryParameters,
}

impl Query {
    pub(crate) fn decode(
        buf: &mut &[u8],
        body: &Bytes,
        version: ProtocolVersion,
    ) -> Result<Query, FrameError> {
        let query = read_long_string(buf, "query")?.to_owned();
        let params = QueryParameters::decode(buf, body, version)?;
        Ok(Query { query, params })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        write_long_string(out, &self.query);
        self.params.encode(out, version);
    }
}

/// `<query_parameters>` of QUERY and EXECUTE.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct QueryParameters {
    /// The `[consistency]` of the operation.
    pub consistency: u16,
    /// Bound values in order (flag 0x01).
    pub values: Vec<Value>,
    /// Bind marker names, one per value (flag 0x40); `None` when values are positional.
    pub value_names: Option<Vec<String>>,
    /// Flag 0x02: answer Rows without column specs.
    pub skip_metadata: bool,
    /// Flag 0x04: the requested page size, as sent (zero or negative means no paging).
    pub page_size: Option<i32>,
    /// Flag 0x08: where the previous page stopped; `None` also when sent as null.
    pub paging_state: Option<Bytes>,
    /// Flag 0x10: consistency of the Paxos phase of conditional updates.
    pub serial_consistency: Option<u16>,
    /// Flag 0x20: the write timestamp in microseconds, as sent.
    pub default_timestamp: Option<i64>,
    /// v5 flag 0x80: the keyspace to run in instead of the connection's.
    pub keyspace: Option<String>,
    /// v5 flag 0x100: the time, in seconds since the epoch, the request runs at.
    pub now_in_seconds: Option<i32>,
}

impl QueryParameters {
    /// The flags these parameters encode to (the v5-only bits included).
    pub fn flags(&self) -> u32 {
        let mut flags = u32::from(self.v4_flags());
        if self.keyspace.is_some() {
            flags |= qf::WITH_KEYSPACE;
        }
        if self.now_in_seconds.is_some() {
            flags |= qf::WITH_NOW_IN_SECONDS;
        }
        flags
    }

    /// The flags of v3 and v4, which fit in a byte.
    fn v4_flags(&self) -> u8 {
        let mut flags = 0;
        if !self.values.is_empty() || self.value_names.is_some() {
            flags |= qf::VALUES;
        }
        if self.value_names.is_some() {
            flags |= qf::WITH_NAMES_FOR_VALUES;
        }
        if self.skip_metadata {
            flags |= qf::SKIP_METADATA;
        }
        if self.page_size.is_some() {
            flags |= qf::PAGE_SIZE;
        }
        if self.paging_state.is_some() {
            flags |= qf::WITH_PAGING_STATE;
        }
        if self.serial_consistency.is_some() {
            flags |= qf::WITH_SERIAL_CONSISTENCY;
        }
        if self.default_timestamp.is_some() {
            flags |= qf::WITH_DEFAULT_TIMESTAMP;
        }
        flags
    }

    /// Reads `<query_parameters>`. Unknown flag bits are ignored, as Cassandra does; the
    /// names flag without the values flag is ignored, as the spec says.
    pub(crate) fn decode(
        buf: &mut &[u8],
        body: &Bytes,
        version: ProtocolVersion,
    ) -> Result<QueryParameters, FrameError> {
        let consistency = read_consistency(buf, "consistency")?;
        let flags = read_flags(buf, version)?;
        let has = |bit: u8| flags & u32::from(bit) != 0;
        let mut params = QueryParameters {
            consistency,
            skip_metadata: has(qf::SKIP_METADATA),
            ..QueryParameters::default()
        };
        if has(qf::VALUES) {
            let count = usize::from(read_short(buf, "values count")?);
            params.values = bounded_vec(count, buf, 4);
            let mut names = has(qf::WITH_NAMES_FOR_VALUES).then(|| bounded_vec(count, buf, 6));
            for _ in 0..count {
                if let Some(names) = names.as_mut() {
                    names.push(read_string(buf, "value name")?.to_owned());
                }
                params.values.push(read_bound_value(buf, body, version)?);
            }
            params.value_names = names;
        }
        if has(qf::PAGE_SIZE) {
            params.page_size = Some(read_int(buf, "result_page_size")?);
        }
        if has(qf::WITH_PAGING_STATE) {
            params.paging_state = read_shared_bytes(buf, body, "paging_state")?;
        }
        if has(qf::WITH_SERIAL_CONSISTENCY) {
            params.serial_consistency = Some(read_consistency(buf, "serial_consistency")?);
        }
        if has(qf::WITH_DEFAULT_TIMESTAMP) {
            params.default_timestamp = Some(read_default_timestamp(buf)?);
        }
        (params.keyspace, params.now_in_seconds) = read_v5_tail(buf, flags, version)?;
        Ok(params)
    }

    /// Writes `<query_parameters>`. With names, a missing name is written empty.
    pub(crate) fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        let flags = self.flags();
        write_consistency(out, self.consistency);
        write_flags(out, flags, version);
        if flags & u32::from(qf::VALUES) != 0 {
            let count = short_len(self.values.len());
            write_short(out, count);
            for (i, value) in self.values.iter().take(usize::from(count)).enumerate() {
                if let Some(names) = &self.value_names {
                    write_string(out, names.get(i).map_or("", String::as_str));
                }
                write_value(out, value);
            }
        }
        if let Some(page_size) = self.page_size {
            write_int(out, page_size);
        }
        if let Some(state) = &self.paging_state {
            write_bytes(out, Some(state));
        }
        if let Some(serial) = self.serial_consistency {
            write_consistency(out, serial);
        }
        if let Some(timestamp) = self.default_timestamp {
            write_long(out, timestamp);
        }
        write_v5_tail(out, self.keyspace.as_deref(), self.now_in_seconds, version);
    }
}

/// Reads the `<flags>` of query parameters or a BATCH: a `[byte]` before v5, an `[int]` in v5.
pub(crate) fn read_flags(buf: &mut &[u8], version: ProtocolVersion) -> Result<u32, FrameError> {
    if version.is_v5() {
        Ok(read_int(buf, "flags")? as u32)
    } else {
        Ok(u32::from(read_byte(buf, "flags")?))
    }
}

/// Writes `flags` as [`read_flags`] reads them (the v5 bits dropped before v5).
pub(crate) fn write_flags(out: &mut BytesMut, flags: u32, version: ProtocolVersion) {
    if version.is_v5() {
        write_int(out, flags as i32);
    } else {
        write_byte(out, (flags & 0x7F) as u8);
    }
}

/// A bound `[value]`: before v4 every negative length is null (Cassandra's `readBoundValue`),
/// so "not set" does not exist.
pub(crate) fn read_bound_value(
    buf: &mut &[u8],
    body: &Bytes,
    version: ProtocolVersion,
) -> Result<Value, FrameError> {
    if !version.has_unset_values() && buf.first().is_some_and(|b| b & 0x80 != 0) {
        read_int(buf, "value")?;
        return Ok(Value::Null);
    }
    read_value(buf, body, "value")
}

/// The v5 fields after the timestamp: the keyspace (flag 0x80) and `now_in_seconds`
/// (flag 0x100); nothing before v5.
pub(crate) fn read_v5_tail(
    buf: &mut &[u8],
    flags: u32,
    version: ProtocolVersion,
) -> Result<(Option<String>, Option<i32>), FrameError> {
    if !version.is_v5() {
        return Ok((None, None));
    }
    let keyspace = if flags & qf::WITH_KEYSPACE != 0 {
        Some(read_string(buf, "keyspace")?.to_owned())
    } else {
        None
    };
    let now = if flags & qf::WITH_NOW_IN_SECONDS != 0 {
        Some(read_int(buf, "now_in_seconds")?)
    } else {
        None
    };
    Ok((keyspace, now))
}

/// Writes what [`read_v5_tail`] reads.
pub(crate) fn write_v5_tail(
    out: &mut BytesMut,
    keyspace: Option<&str>,
    now_in_seconds: Option<i32>,
    version: ProtocolVersion,
) {
    if !version.is_v5() {
        return;
    }
    if let Some(keyspace) = keyspace {
        write_string(out, keyspace);
    }
    if let Some(now) = now_in_seconds {
        write_int(out, now);
    }
}

/// Reads the `<timestamp>` of query parameters (or a BATCH): any `[long]` but `i64::MIN`,
/// refused as Cassandra's `QueryOptions` codec refuses it.
pub(crate) fn read_default_timestamp(buf: &mut &[u8]) -> Result<i64, FrameError> {
    let ts = read_long(buf, "timestamp")?;
    if ts == i64::MIN {
        return Err(FrameError::TimestampOutOfBounds { got: ts });
    }
    Ok(ts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::request::tests::round_trip;
    use crate::frame::request::Request;
    use crate::frame::Opcode;

    fn full_params() -> QueryParameters {
        QueryParameters {
            consistency: 0x0006,
            values: vec![
                Value::Bytes(Bytes::from_static(&[0, 0, 0, 1])),
                Value::Null,
                Value::Unset,
            ],
            value_names: None,
            skip_metadata: true,
            page_size: Some(5000),
            paging_state: Some(Bytes::from_static(b"state")),
            serial_consistency: Some(0x0009),
            default_timestamp: Some(1_700_000_000_000_000),
            keyspace: None,
            now_in_seconds: None,
        }
    }

    #[test]
    fn query_round_trips() {
        round_trip(&Request::Query(Query {
            query: "SELECT 1".into(),
            params: full_params(),
        }));
        let mut named = full_params();
        named.value_names = Some(vec!["a".into(), "b".into(), "c".into()]);
        round_trip(&Request::Query(Query {
            query: "INSERT".into(),
            params: named,
        }));
        round_trip(&Request::Query(Query {
            query: String::new(),
            params: QueryParameters::default(),
        }));
    }

    #[test]
    fn query_body_is_exact() {
        let query = Query {
            query: "USE ks".into(),
            params: QueryParameters {
                consistency: 1,
                values: vec![Value::Null],
                page_size: Some(100),
                ..QueryParameters::default()
            },
        };
        let body = round_trip(&Request::Query(query));
        let mut expected = vec![0, 0, 0, 6];
        expected.extend_from_slice(b"USE ks");
        expected.extend_from_slice(&[0, 1, 0x05, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 100]);
        assert_eq!(&body[..], &expected[..]);
    }

    #[test]
    fn bad_values_are_rejected_with_their_field() {
        let mut body = vec![0, 0, 0, 1, b'x', 0, 1, 0x01, 0, 1];
        body.extend_from_slice(&(-3i32).to_be_bytes());
        let err = Request::decode(Opcode::Query, &Bytes::from(body)).unwrap_err();
        assert_eq!(err.to_string(), "Invalid length -3 for value");
        let body = Bytes::from_static(&[0, 0, 0, 1, b'x', 0, 1, 0x04, 0, 0]);
        let err = Request::decode(Opcode::Query, &body).unwrap_err();
        assert_eq!(err.to_string(), "Not enough bytes to read result_page_size");
    }

    #[test]
    fn names_flag_without_values_is_ignored() {
        let body = Bytes::from_static(&[0, 0, 0, 0, 0, 1, 0x40]);
        let Request::Query(query) = Request::decode(Opcode::Query, &body).unwrap() else {
            panic!("not a query");
        };
        assert_eq!(query.params.value_names, None);
    }
}
