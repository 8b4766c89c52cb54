//! `DdlError`: Keyspace and table DDL (CREATE, ALTER, DROP) that breaks Cassandra's rules.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// Keyspace and table DDL (CREATE, ALTER, DROP) that breaks Cassandra's rules.
#[derive(Debug, thiserror::Error)]
pub enum DdlError {}
