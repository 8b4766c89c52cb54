//! `FunctionFailure` and `ReadFailure`: statements that were valid but failed while running
//! (codes 0x1400 and 0x1300), whose wire answers carry more than the message: the failed
//! function and its argument types, or the read's consistency and failure reason.

use std::net::IpAddr;

use super::ValueError;

/// A native function that failed while executing (`FunctionExecutionException`). Every
/// native function lives in keyspace `system`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum FunctionFailure {
    /// `fromJson` of text that is not JSON; `cause` is the JSON parser's account.
    /// Origin: cql3/functions/FromJsonFct.java execute, in exceptions/FunctionExecutionException.java create
    #[error("execution of 'system.fromjson[text]' failed: Could not decode JSON string '{text}': {cause}")]
    FromJsonSyntax { text: String, cause: String },
    /// `fromJson` of JSON that does not fit the receiving column's type.
    /// Origin: cql3/functions/FromJsonFct.java execute, in exceptions/FunctionExecutionException.java create
    #[error("execution of 'system.fromjson[text]' failed: {0}")]
    FromJsonValue(Box<ValueError>),
    /// An arithmetic operator (or date arithmetic) that failed, e.g. `int / int` by zero;
    /// `cause` is Java's exception message (`/ by zero`).
    /// Origin: exceptions/OperationExecutionException.java create
    #[error(
        "the operation '{} {symbol} {}' failed: {cause}",
        .arg_types.first().map_or("", String::as_str),
        .arg_types.get(1).map_or("", String::as_str)
    )]
    Operation {
        /// The function behind the operator (`_divide`, ...).
        function: String,
        /// Its argument types as CQL names them.
        arg_types: Vec<String>,
        symbol: char,
        cause: String,
    },
}

impl FunctionFailure {
    /// The failed function's name, without its keyspace.
    pub(crate) fn function(&self) -> &str {
        match self {
            FunctionFailure::FromJsonSyntax { .. } | FunctionFailure::FromJsonValue(_) => {
                "fromjson"
            }
            FunctionFailure::Operation { function, .. } => function,
        }
    }

    /// The failed function's argument types.
    pub(crate) fn arg_types(&self) -> Vec<String> {
        match self {
            FunctionFailure::FromJsonSyntax { .. } | FunctionFailure::FromJsonValue(_) => {
                vec!["text".into()]
            }
            FunctionFailure::Operation { arg_types, .. } => arg_types.clone(),
        }
    }
}

/// Cassandra's `RequestFailureReason.READ_TOO_MANY_TOMBSTONES`, sent in v5's reason map.
const READ_TOO_MANY_TOMBSTONES: u16 = 1;

/// A read that failed on this node (`ReadFailureException`).
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadFailure {
    /// A scan passed `tombstone_failure_threshold`; `node` is this node's address as the
    /// message names it, `consistency` the request's.
    /// Origin: exceptions/RequestFailureException.java buildErrorMessage (ReadFailureException)
    #[error(
        "Operation failed - received 0 responses and 1 failures: READ_TOO_MANY_TOMBSTONES from {}",
        internode_address(*.node)
    )]
    TooManyTombstones { node: IpAddr, consistency: u16 },
}

impl ReadFailure {
    /// The request's consistency level.
    pub(crate) fn consistency(&self) -> u16 {
        match self {
            ReadFailure::TooManyTombstones { consistency, .. } => *consistency,
        }
    }

    /// Cassandra's `RequestFailureReason` code.
    pub(crate) fn reason(&self) -> u16 {
        match self {
            ReadFailure::TooManyTombstones { .. } => READ_TOO_MANY_TOMBSTONES,
        }
    }
}

/// `/ip:7000`, as Cassandra names a replica in failure messages.
fn internode_address(node: IpAddr) -> String {
    match node {
        IpAddr::V4(ip) => format!("/{ip}:7000"),
        IpAddr::V6(ip) => format!("/[{ip}]:7000"),
    }
}
