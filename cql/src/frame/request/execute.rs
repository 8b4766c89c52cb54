//! EXECUTE (native_protocol_v4.spec section 4.1.6): a prepared statement id as
//! `[short bytes]` followed by the same `<query_parameters>` as QUERY; in v5 the result
//! metadata id the client holds comes between them.

use bytes::{Bytes, BytesMut};

use super::QueryParameters;
use crate::frame::primitives::{read_short_bytes, share, write_short_bytes};
use crate::frame::{FrameError, ProtocolVersion};

/// An EXECUTE body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Execute {
    /// The id the PREPARED result returned.
    pub id: Bytes,
    /// v5: the result metadata id the client's PREPARED result carried (`[short bytes]`).
    pub result_metadata_id: Option<Bytes>,
    /// Consistency, bound values, paging and timestamp.
    pub params: QueryParameters,
}

impl Execute {
    pub(crate) fn decode(
        buf: &mut &[u8],
        body: &Bytes,
        version: ProtocolVersion,
    ) -> Result<Execute, FrameError> {
        let id = share(body, read_short_bytes(buf, "id")?);
        let result_metadata_id = if version.is_v5() {
            Some(share(body, read_short_bytes(buf, "result_metadata_id")?))
        } else {
            None
        };
        let params = QueryParameters::decode(buf, body, version)?;
        Ok(Execute {
            id,
            result_metadata_id,
            params,
        })
    }

    pub(crate) fn encode(&self, out: &mut BytesMut, version: ProtocolVersion) {
        write_short_bytes(out, &self.id);
        if version.is_v5() {
            write_short_bytes(out, self.result_metadata_id.as_deref().unwrap_or_default());
        }
        self.params.encode(out, version);
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
            result_metadata_id: None,
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
