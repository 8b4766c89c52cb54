//! `ValueError`: Values that do not fit their column: literals, bound values, collections, casts, JSON.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// Values that do not fit their column: literals, bound values, collections, casts, JSON.
#[derive(Debug, thiserror::Error)]
pub enum ValueError {}
