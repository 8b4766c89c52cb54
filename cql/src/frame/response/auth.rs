//! AUTH_CHALLENGE and AUTH_SUCCESS (native_protocol_v4.spec sections 4.2.7 and 4.2.8): each a
//! single `[bytes]` token, carried by [`super::Response::AuthChallenge`] and
//! [`super::Response::AuthSuccess`] and coded in [`super::Response`] itself. This file holds
//! their tests.

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use crate::frame::response::tests::round_trip;
    use crate::frame::response::Response;

    #[test]
    fn auth_tokens_round_trip() {
        let body = round_trip(&Response::AuthSuccess(Some(Bytes::new())));
        assert_eq!(&body[..], &[0, 0, 0, 0]);
        let body = round_trip(&Response::AuthChallenge(None));
        assert_eq!(&body[..], &[0xFF; 4]);
    }
}
