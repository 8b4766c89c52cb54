//! Value wire codec (native_protocol_v4.spec section 6). Filled in by the frame work.
