//! `SelectError`: SELECT clauses Cassandra refuses: selectors, aggregates, GROUP BY, ORDER BY, ANN, LIMIT and paging.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// SELECT clauses Cassandra refuses: selectors, aggregates, GROUP BY, ORDER BY, ANN, LIMIT and paging.
#[derive(Debug, thiserror::Error)]
pub enum SelectError {}
