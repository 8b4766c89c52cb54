//! The CQL server.
