//! `FunctionError`: Function calls Cassandra refuses before running them: unknown functions, argument counts and types.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// Function calls Cassandra refuses before running them: unknown functions, argument counts and types.
#[derive(Debug, thiserror::Error)]
pub enum FunctionError {}
