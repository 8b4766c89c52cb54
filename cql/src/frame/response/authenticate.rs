//! AUTHENTICATE (native_protocol_v4.spec section 4.2.3): the authenticator's class name as a
//! `[string]`. The variant is [`super::Response::Authenticate`].

use bytes::BytesMut;

use crate::frame::primitives::{read_string, write_string};
use crate::frame::FrameError;

pub(crate) fn encode(out: &mut BytesMut, authenticator: &str) {
    write_string(out, authenticator);
}

pub(crate) fn decode(buf: &mut &[u8]) -> Result<String, FrameError> {
    Ok(read_string(buf, "authenticator")?.to_owned())
}

#[cfg(test)]
mod tests {
    use crate::frame::response::tests::round_trip;
    use crate::frame::response::Response;

    #[test]
    fn authenticate_round_trips() {
        let body = round_trip(&Response::Authenticate {
            authenticator: "org.apache.cassandra.auth.PasswordAuthenticator".into(),
        });
        assert_eq!(&body[..2], &[0, 47]);
    }
}
