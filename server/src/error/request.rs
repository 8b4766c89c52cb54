//! `RequestError`: a request whose parts do not fit together — bound values against the
//! statement's markers, and statements sent where their kind is not allowed.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// A request whose parts do not fit together.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RequestError {
    /// A different number of values than the statement has bind markers.
    /// Origin: cql3/QueryProcessor.java / QueryOptions.prepare ("markers(?) in CQL")
    #[error("There were {markers} markers(?) in CQL but {values} bound variables")]
    ValueCount { markers: usize, values: usize },
    /// Values sent by name to a statement whose marker `index` has no name.
    /// Origin: ours — values by name for a marker without one
    #[error("No value name for bind marker {index}")]
    UnnamedMarker { index: usize },
    /// Values sent by name without one for the marker `name`.
    /// Origin: cql3/QueryOptions.java prepare (named values)
    #[error("Invalid unset value for column {name}")]
    MissingNamedValue { name: String },
    /// A statement other than INSERT, UPDATE or DELETE inside a BATCH.
    /// Origin: transport/messages/BatchMessage.java execute
    #[error("Invalid statement in batch: only UPDATE, INSERT and DELETE statements are allowed.")]
    NotAModification,
}
