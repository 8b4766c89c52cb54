//! EXECUTE (native_protocol_v4.spec section 4.1.6): a prepared statement id as
//! `[short bytes]` followed by the same `<query_parameters>` as QUERY.

use bytes::{Bytes, BytesMut};

use super::QueryParameters;
use crate::frame::primitives::{read_short_bytes, share, write_short_bytes};
use crate::frame::FrameError;

/// An EXECUTE body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execute {
    /// The id the PREPARED result returned.
    pub id: Bytes,
    /// Consistency, bound values, paging and timestamp.
    pub params: QueryParameters,
}

impl Execute {
    pub(crate) fn decode(buf: &mut &[u8], body: &Bytes) -> Result<Execute, FrameError> {
        let id = share(body, read_short_bytes(buf, "id")?);
        let params = QueryParameters::decode(buf, body)?;
        Ok(Execute { id, params })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut) {
        write_short_bytes(out, &self.id);
        self.params.encode(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::request::tests::round_trip;
    use crate::frame::request::{Request, Value};

    #[test]
    fn execute_round_trips() {
        let body = round_trip(&Request::Execute(Execute {
            id: Bytes::from_static(&[0xAB; 16]),
            params: QueryParameters {
                consistency: 1,
                values: vec![Value::Bytes(Bytes::from_static(b"k"))],
                skip_metadata: true,
                page_size: Some(1024),
                ..QueryParameters::default()
            },
        }));
        assert_eq!(&body[..2], &[0, 16]);
        assert_eq!(body[20], 0x01 | 0x02 | 0x04);
    }
}
