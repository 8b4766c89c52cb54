//! `UserTypeError`: CREATE, ALTER and DROP TYPE that break Cassandra's rules.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// CREATE, ALTER and DROP TYPE that break Cassandra's rules.
#[derive(Debug, thiserror::Error)]
pub enum UserTypeError {}
