//! The way in: the listener, the connection threads, each connection's framing, envelopes, TLS, in-flight limits and shutdown, and the session a connection carries.

pub(crate) mod answer;
pub(crate) mod clients;
mod cluster_listeners;
pub(crate) mod connection;
pub(crate) mod envelope;
pub(crate) mod framing;
pub(crate) mod inflight;
pub(crate) mod listener;
pub(crate) mod session;
pub(crate) mod shutdown;
pub(crate) mod threads;
pub(crate) mod tls;
pub(crate) mod tls_session;
