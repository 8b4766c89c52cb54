//! `UnauthorizedError`: A logged-in role lacking a permission (code 0x2100).
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// A logged-in role lacking a permission (code 0x2100).
#[derive(Debug, thiserror::Error)]
pub enum UnauthorizedError {}
