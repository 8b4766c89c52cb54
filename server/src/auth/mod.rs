//! Who a client is and what it may do: the password authenticator and the role-based authorizer.

pub(crate) mod authenticator;
pub(crate) mod authorizer;
pub(crate) mod required;
