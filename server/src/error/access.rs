//! `AccessError`: Role and permission management (CREATE ROLE, GRANT, LIST ...) that cannot be done.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// Role and permission management (CREATE ROLE, GRANT, LIST ...) that cannot be done.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {}
