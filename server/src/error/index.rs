//! `IndexError`: CREATE and DROP INDEX (secondary, SAI, vector) that break Cassandra's rules.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// CREATE and DROP INDEX (secondary, SAI, vector) that break Cassandra's rules.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {}
