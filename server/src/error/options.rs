//! `OptionsError`: DDL options Cassandra refuses as configuration errors (code 0x2300): replication, compaction, compression, table properties.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// DDL options Cassandra refuses as configuration errors (code 0x2300): replication, compaction, compression, table properties.
#[derive(Debug, thiserror::Error)]
pub enum OptionsError {}
