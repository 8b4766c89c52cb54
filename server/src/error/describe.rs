//! `DescribeError`: DESCRIBE of something the schema does not have.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// DESCRIBE of something the schema does not have.
#[derive(Debug, thiserror::Error)]
pub enum DescribeError {}
