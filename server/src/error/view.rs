//! `ViewError`: Materialized-view DDL that breaks Cassandra's rules.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// Materialized-view DDL that breaks Cassandra's rules.
#[derive(Debug, thiserror::Error)]
pub enum ViewError {}
