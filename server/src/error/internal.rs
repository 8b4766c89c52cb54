//! `InternalError`: a failure that is the server's, not the request's (code 0x0000) — storage
//! failing, a task lost, or a state the planner should have made impossible (a bug).
//!
//! Each variant carries what is known of the failure and prints the message clients have
//! always been sent; its CQL code is chosen in `super::CqlError::error_body`.

use storage::StorageError;
use tokio::task::JoinError;

/// A failure that is the server's, not the request's.
#[derive(Debug, thiserror::Error)]
pub(crate) enum InternalError {
    /// Storage failed (every `StorageError` but a key the request gave that cannot be
    /// encoded, which is the request's fault). Boxed: redb's errors are large.
    /// Origin: ours — server failure (0x0000): the storage engine failing
    #[error("storage error: {0}")]
    Storage(Box<StorageError>),
    /// The storage writer's queue or reply channel closed: the node is shutting down.
    /// Origin: ours — server failure (0x0000): the storage writer shutting down
    #[error("the storage writer stopped")]
    WriterStopped,
    /// The blocking task of an unbounded read panicked or was cancelled.
    /// Origin: ours — server failure (0x0000): a lost read task
    #[error("read task failed: {0}")]
    ReadTaskFailed(#[source] JoinError),
    /// A read given an unlimited budget that still stopped for budget.
    /// Origin: ours — server failure (0x0000): a read budget bug
    #[error("an unbounded read ran out of budget")]
    UnboundedReadOverBudget,
    /// The blocking task checking a password panicked or was cancelled.
    /// Origin: ours — server failure (0x0000): a lost password check
    #[error("authentication task failed: {0}")]
    AuthenticationTaskFailed(#[source] JoinError),
    /// bcrypt refused to hash (it does not for any input it accepts).
    /// Origin: ours — server failure (0x0000): bcrypt failing
    #[error("cannot hash the password: {0}")]
    PasswordHash(#[source] bcrypt::BcryptError),
    /// A request handler panicked; the panic is logged, the client told only this.
    /// Origin: ours — server failure (0x0000): a handler panic
    #[error("internal error handling the request")]
    HandlerPanicked,
    /// A prepared statement's plan of another kind than the statement.
    /// Origin: ours — server failure (0x0000): a planner bug
    #[error("statement planned as another kind")]
    PlannedAsAnotherKind,
    /// An index scan over a plan that chose no index.
    /// Origin: ours — server failure (0x0000): a planner bug
    #[error("index range without an index")]
    IndexRangeWithoutIndex,
    /// Stored bytes that do not decode as their column's type.
    /// Origin: ours — server failure (0x0000): stored bytes that do not decode
    #[error("undecodable stored value: {0}")]
    UndecodableStoredValue(#[source] cql::types::codec::ValueError),
    /// A stored user-type value whose field lengths overrun it.
    /// Origin: ours — server failure (0x0000): a stored user-type value that does not decode
    #[error("malformed user type value")]
    MalformedUserType,
    /// An aggregate's result read per row instead of per group.
    /// Origin: ours — server failure (0x0000): an executor bug
    #[error("an aggregate's result read outside its group")]
    AggregateOutsideGroup,
    /// A selector term (`term` as written) that should have been bound before the scan.
    /// Origin: ours — server failure (0x0000): a planner bug
    #[error("selector term {term} was not bound before the scan")]
    UnboundSelectorTerm { term: String },
    /// A term evaluated as a function call that is not one (`term` as written).
    /// Origin: ours — server failure (0x0000): an evaluator bug
    #[error("{term} is not a function call")]
    NotAFunctionCall { term: String },
    /// A term resolved as a call that is not one (`term` as written).
    /// Origin: ours — server failure (0x0000): an evaluator bug
    #[error("{term} is not a call")]
    NotACall { term: String },
    /// The native function behind an arithmetic operator (`_add`, ...) is missing.
    /// Origin: ours — server failure (0x0000): a missing native function
    #[error("operator function {function} is not declared")]
    UndeclaredOperator { function: &'static str },
    /// The native function behind unary minus is missing.
    /// Origin: ours — server failure (0x0000): a missing native function
    #[error("negation function is not declared")]
    UndeclaredNegation,
}
