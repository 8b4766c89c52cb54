//! `ModifyError`: INSERT, UPDATE, DELETE and BATCH that break Cassandra's rules: operations, conditions, counters, keys.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// INSERT, UPDATE, DELETE and BATCH that break Cassandra's rules: operations, conditions, counters, keys.
#[derive(Debug, thiserror::Error)]
pub enum ModifyError {}
