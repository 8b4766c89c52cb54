//! SUPPORTED (native_protocol_v4.spec section 4.2.4): a `[string multimap]` of STARTUP options
//! and their possible values. The variant is [`super::Response::Supported`]; which keys to
//! advertise (`CQL_VERSION` and `COMPRESSION` are mandatory for the Python driver) is the
//! server's choice.

use bytes::BytesMut;

use crate::frame::primitives::{read_string_multimap, write_string_multimap};
use crate::frame::FrameError;

pub(crate) fn encode(out: &mut BytesMut, options: &[(String, Vec<String>)]) {
    write_string_multimap(out, options);
}

pub(crate) fn decode(buf: &mut &[u8]) -> Result<Vec<(String, Vec<String>)>, FrameError> {
    read_string_multimap(buf, "SUPPORTED options")
}

#[cfg(test)]
mod tests {
    use crate::frame::response::tests::round_trip;
    use crate::frame::response::Response;

    #[test]
    fn supported_round_trips_in_order() {
        let body = round_trip(&Response::Supported(vec![
            ("CQL_VERSION".into(), vec!["3.4.7".into()]),
            ("COMPRESSION".into(), vec![]),
        ]));
        assert_eq!(&body[..4], &[0, 2, 0, 11]);
    }
}
