//! What a control can fail with, for both doors: an HTTP status and a CQL `InvalidRequest`.

/// A control that could not be carried out.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ControlError {
    /// What the request names does not exist (HTTP 404).
    #[error("{0}")]
    NotFound(String),
    /// The request is malformed or asks for what cannot be (HTTP 400).
    #[error("{0}")]
    BadRequest(String),
    /// The controls are off on this node (HTTP 404 on every control route).
    #[error("test controls are off on this node (set test_controls: true)")]
    Disabled,
    /// The control failed while it ran (HTTP 500), e.g. storage refused a write.
    #[error("{0}")]
    Failed(String),
}

impl ControlError {
    /// The HTTP status line this error answers with.
    pub(crate) fn status(&self) -> &'static str {
        match self {
            ControlError::NotFound(_) | ControlError::Disabled => "404 Not Found",
            ControlError::BadRequest(_) => "400 Bad Request",
            ControlError::Failed(_) => "500 Internal Server Error",
        }
    }
}
