//! `CredentialsError`: Authentication that failed (code 0x0100).
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// Authentication that failed (code 0x0100).
#[derive(Debug, thiserror::Error)]
pub enum CredentialsError {}
