//! `RestrictionError`: WHERE clauses that break the primary-key rules: partition and clustering restrictions, slices, IN, tokens, filtering.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// WHERE clauses that break the primary-key rules: partition and clustering restrictions, slices, IN, tokens, filtering.
#[derive(Debug, thiserror::Error)]
pub enum RestrictionError {}
