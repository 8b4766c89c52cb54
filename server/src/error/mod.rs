//! `CqlError`: every failure a request can meet, and the only place that chooses its CQL error
//! code (`error_body`). The `match` there has no `_` arm, so a new variant cannot compile
//! without a code.
//!
//! The planner and executor raise typed errors, one enum per concern (the submodules); each
//! variant carries the facts (keyspace, table, column, value, limit) and prints Cassandra's
//! message. `CqlError` wraps them, and `error_body` gives every enum its code. The protocol
//! layer raises [`ProtocolError`], statement text that does not parse is a [`SyntaxError`],
//! and the server's own failures (storage, lost tasks, bugs) are [`InternalError`]s.
//!
//! Each `#[error]` variant names the Java origin of its message on an `/// Origin:` doc line
//! (`origin_tests` refuses a variant without one), or says `ours` where Cassandra has no
//! counterpart, so that drift from 5.0's wording shows.
//!
//! Failures whose wire answer carries more than a message are enums too
//! ([`AlreadyExists`], [`FunctionFailure`], [`ReadFailure`]) and give those fields from their
//! variants; an [`InjectedError`] (a fault rule's answer, test controls) carries its code's
//! fields as the rule set them. Only two variants of `CqlError` are not an enum of their own: `Unprepared`
//! (the id) and `ParserInvalid` (text that is the parser's own).

mod access;
mod already_exists;
mod credentials;
mod ddl;
mod describe;
mod failure;
mod function;
mod index;
mod injected;
mod internal;
mod modify;
mod options;
#[cfg(test)]
mod origin_tests;
mod protocol;
mod request;
mod restriction;
mod schema;
mod select;
mod syntax;
mod table_option;
mod unauthorized;
mod user_type;
mod value;
mod view;

pub(crate) use access::AccessError;
pub(crate) use already_exists::AlreadyExists;
pub(crate) use credentials::CredentialsError;
pub(crate) use ddl::DdlError;
pub(crate) use describe::DescribeError;
pub(crate) use failure::{FunctionFailure, ReadFailure};
pub(crate) use function::FunctionError;
pub(crate) use index::IndexError;
pub(crate) use injected::{failure_reason_name, InjectedError, InjectedKind, FAILURE_REASONS};
pub(crate) use internal::InternalError;
pub(crate) use modify::ModifyError;
pub(crate) use options::OptionsError;
pub(crate) use protocol::ProtocolError;
pub(crate) use request::RequestError;
pub(crate) use restriction::RestrictionError;
pub(crate) use schema::SchemaError;
pub(crate) use select::SelectError;
#[cfg(test)]
pub(crate) use select::ALLOW_FILTERING_MESSAGE;
pub(crate) use syntax::SyntaxError;
pub(crate) use table_option::TableOptionError;
pub(crate) use unauthorized::UnauthorizedError;
pub(crate) use user_type::UserTypeError;
pub(crate) use value::ValueError;
pub(crate) use view::ViewError;

use bytes::Bytes;
use cql::frame::response::{error_code, ErrorBody, ErrorExtra};
use storage::StorageError;

/// A request failure, shaped by what the client must be told.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CqlError {
    /// Framing, version or message-order fault (0x000A).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Protocol(#[from] ProtocolError),
    /// Statement text that does not parse (0x2000).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Syntax(#[from] SyntaxError),
    /// A check of Cassandra's grammar actions that answers Invalid rather than a syntax error
    /// (`cql::statement::ParseErrorKind::Invalid`): the parser's own message (0x2200).
    /// Origin: ours — carries the grammar action's own message (cql crate), whose origin is named there
    #[error("{0}")]
    ParserInvalid(String),
    /// A test control (ours) that could not be carried out (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Control(#[from] crate::control::ControlError),
    /// CREATE of a keyspace or table that exists (0x2400).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    AlreadyExists(#[from] AlreadyExists),
    /// EXECUTE of an unknown prepared id (0x2500).
    /// Origin: exceptions/PreparedQueryNotFoundException.java makeMessage
    #[error("Prepared query with ID {} not found (either the query was not prepared on this host (maybe the host has been restarted?) or you have prepared too many queries and it has been evicted from the internal cache)", hex(.0))]
    Unprepared(Bytes),
    /// A `THROW_ON_OVERLOAD` client's request of `request_bytes` (header, body and
    /// bookkeeping) that does not fit the in-flight byte limits; it may retry later (0x1001).
    /// Origin: transport/CQLMessageHandler.java (OverloadedException on THROW_ON_OVERLOAD)
    #[error("Server is in overloaded state. Cannot accept more requests at this point")]
    Overloaded { request_bytes: usize },
    /// A function failed while executing, e.g. a division by zero (0x1400).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    FunctionFailure(#[from] FunctionFailure),
    /// A read that failed on this node, e.g. on too many tombstones (0x1300).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    ReadFailure(#[from] ReadFailure),
    /// Storage failure or server bug (0x0000).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Server(#[from] InternalError),
    /// An error a fault rule answers with (test controls): its own code and fields.
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Injected(#[from] InjectedError),
    /// A name the schema does not have (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// Keyspace or table DDL against the rules (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Ddl(#[from] DdlError),
    /// DDL options refused as configuration (0x2300).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Options(#[from] OptionsError),
    /// Table options refused as configuration (0x2300).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    TableOption(#[from] TableOptionError),
    /// Index DDL against the rules (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Index(#[from] IndexError),
    /// User-type DDL against the rules (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    UserType(#[from] UserTypeError),
    /// Materialized-view DDL against the rules (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    View(#[from] ViewError),
    /// DESCRIBE of something missing (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Describe(#[from] DescribeError),
    /// Role or permission management that cannot be done (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Access(#[from] AccessError),
    /// A role without the permission (0x2100).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Denied(#[from] UnauthorizedError),
    /// Authentication that failed (0x0100).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Credentials(#[from] CredentialsError),
    /// A WHERE clause against the primary-key rules (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Restriction(#[from] RestrictionError),
    /// A SELECT clause Cassandra refuses (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Select(#[from] SelectError),
    /// An INSERT, UPDATE, DELETE or BATCH against the rules (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Modify(#[from] ModifyError),
    /// A value that does not fit its receiver (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Value(#[from] ValueError),
    /// Bound values or statement kinds that do not fit the request (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Request(#[from] RequestError),
    /// A function call refused before it runs (0x2200).
    /// Origin: ours — wraps an enum whose variants name their origins
    #[error(transparent)]
    Function(#[from] FunctionError),
}

/// Lower-case hex of `bytes`, as Cassandra prints prepared ids.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl CqlError {
    /// The wire form of this error: code, message and the code's extra fields.
    pub(crate) fn error_body(&self) -> ErrorBody {
        let message = self.to_string();
        let (code, extra) = match self {
            CqlError::Protocol(_) => (error_code::PROTOCOL_ERROR, ErrorExtra::None),
            CqlError::Syntax(_) => (error_code::SYNTAX_ERROR, ErrorExtra::None),
            CqlError::ParserInvalid(_) | CqlError::Control(_) => {
                (error_code::INVALID, ErrorExtra::None)
            }
            CqlError::AlreadyExists(exists) => (
                error_code::ALREADY_EXISTS,
                ErrorExtra::AlreadyExists {
                    keyspace: exists.keyspace().to_string(),
                    table: exists.table().to_string(),
                },
            ),
            CqlError::Unprepared(id) => (
                error_code::UNPREPARED,
                ErrorExtra::Unprepared { id: id.clone() },
            ),
            CqlError::Overloaded { .. } => (error_code::OVERLOADED, ErrorExtra::None),
            CqlError::FunctionFailure(failure) => (
                error_code::FUNCTION_FAILURE,
                ErrorExtra::FunctionFailure {
                    keyspace: "system".into(),
                    function: failure.function().to_string(),
                    arg_types: failure.arg_types(),
                },
            ),
            CqlError::ReadFailure(failure) => (
                error_code::READ_FAILURE,
                ErrorExtra::ReadFailure {
                    consistency: failure.consistency(),
                    received: 0,
                    block_for: 1,
                    num_failures: 1,
                    reason: failure.reason(),
                    data_present: false,
                },
            ),
            CqlError::Server(_) | CqlError::Modify(ModifyError::ConditionalBatchIn) => {
                (error_code::SERVER_ERROR, ErrorExtra::None)
            }
            CqlError::Injected(injected) => injected.kind.code_and_extra(),
            CqlError::Schema(_)
            | CqlError::Ddl(_)
            | CqlError::Index(_)
            | CqlError::UserType(_)
            | CqlError::View(_)
            | CqlError::Describe(_)
            | CqlError::Access(_)
            | CqlError::Restriction(_)
            | CqlError::Select(_)
            | CqlError::Modify(_)
            | CqlError::Value(_)
            | CqlError::Request(_)
            | CqlError::Function(_) => (error_code::INVALID, ErrorExtra::None),
            CqlError::Options(_) | CqlError::TableOption(_) => {
                (error_code::CONFIG_ERROR, ErrorExtra::None)
            }
            CqlError::Denied(_) => (error_code::UNAUTHORIZED, ErrorExtra::None),
            CqlError::Credentials(_) => (error_code::BAD_CREDENTIALS, ErrorExtra::None),
        };
        ErrorBody {
            code,
            message,
            extra,
        }
    }
}

impl From<StorageError> for CqlError {
    /// A key the request gave that storage cannot encode is the request's fault (Invalid);
    /// every other storage failure is the server's, with storage's own words.
    fn from(err: StorageError) -> Self {
        match err {
            StorageError::UnsupportedKeyType { .. } | StorageError::InvalidKeyValue { .. } => {
                ValueError::UnencodableKey(Box::new(err)).into()
            }
            StorageError::Database(_)
            | StorageError::Transaction(_)
            | StorageError::Table(_)
            | StorageError::Engine(_)
            | StorageError::Commit(_)
            | StorageError::Durability(_)
            | StorageError::Corrupt { .. }
            | StorageError::FormatVersion { .. }
            | StorageError::NewerFormat { .. }
            | StorageError::UnknownTable { .. }
            | StorageError::UnknownSnapshot { .. }
            | StorageError::GroupFailed { .. }
            | StorageError::CommitLog { .. }
            | StorageError::CommitLogReplay { .. }
            | StorageError::CommitLogStopped { .. }
            | StorageError::CommitLogVersion { .. }
            | StorageError::DiskFull { .. }
            | StorageError::Damaged { .. }
            | StorageError::StartupDiskFailure { .. }
            | StorageError::DataFile { .. }
            | StorageError::Recovering
            | StorageError::WriterStart(_)
            | StorageError::WriterGone => InternalError::Storage(Box::new(err)).into(),
        }
    }
}

impl From<cql::statement::ParseError> for CqlError {
    fn from(err: cql::statement::ParseError) -> Self {
        use cql::statement::ParseErrorKind as Kind;
        match err.kind {
            Kind::Invalid(message) => CqlError::ParserInvalid(message),
            Kind::Syntax { .. } | Kind::Lexer(_) | Kind::Recognition(_) | Kind::TooDeep { .. } => {
                SyntaxError::Parse(err).into()
            }
        }
    }
}

/// Result alias for request handling.
pub(crate) type CqlResult<T> = Result<T, CqlError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn storage_errors_split_into_the_requests_and_the_servers() {
        let bad_key = CqlError::from(StorageError::InvalidKeyValue {
            ty: "int".into(),
            reason: "expected 4 bytes".into(),
        });
        assert_eq!(bad_key.error_body().code, 0x2200);
        assert_eq!(
            bad_key.error_body().message,
            "invalid int key value: expected 4 bytes"
        );
        let full = CqlError::from(StorageError::DiskFull { free: 1, needed: 2 });
        assert_eq!(full.error_body().code, 0x0000);
        assert!(full
            .error_body()
            .message
            .starts_with("storage error: not enough free disk space"));
    }

    #[test]
    fn protocol_syntax_server_and_overload_errors_keep_their_codes_and_words() {
        let cases = [
            (
                CqlError::from(ProtocolError::UnsupportedVersion { version: 0x87 }),
                0x000A,
                cql::frame::unsupported_version_message(0x87),
            ),
            (
                CqlError::from(ProtocolError::BetaWithoutFlag {
                    version: cql::frame::ProtocolVersion::V6,
                }),
                0x000A,
                "Beta version of the protocol used (6/v6-beta), but USE_BETA flag is unset"
                    .to_string(),
            ),
            (
                ProtocolError::Malformed(cql::frame::FrameError::Truncated { field: "query" })
                    .into(),
                0x000A,
                "Invalid or malformed message: Not enough bytes to read query".into(),
            ),
            (
                ProtocolError::RefusedValue(cql::frame::FrameError::UnknownConsistency(42)).into(),
                0x000A,
                "Unknown code 42 for a consistency level".into(),
            ),
            (
                SyntaxError::UnknownProperty {
                    property: "nonsense".into(),
                }
                .into(),
                0x2000,
                "Unknown property 'nonsense'".into(),
            ),
            (
                InternalError::WriterStopped.into(),
                0x0000,
                "the storage writer stopped".into(),
            ),
            (
                CqlError::Overloaded { request_bytes: 64 },
                0x1001,
                "Server is in overloaded state. Cannot accept more requests at this point".into(),
            ),
        ];
        for (err, code, message) in cases {
            let body = err.error_body();
            assert_eq!((body.code, body.message), (code, message));
        }
    }

    #[test]
    fn parse_errors_are_syntax_errors_but_the_grammars_invalid_checks() {
        let syntax = CqlError::from(cql::statement::ParseError {
            line: 1,
            column: 7,
            at_end: false,
            kind: cql::statement::ParseErrorKind::Lexer(
                "no viable alternative at character '#'".into(),
            ),
        });
        assert_eq!(syntax.error_body().code, 0x2000);
        assert_eq!(
            syntax.to_string(),
            "line 1:7 no viable alternative at character '#'"
        );
        let invalid = CqlError::from(cql::statement::ParseError {
            line: 1,
            column: 0,
            at_end: false,
            kind: cql::statement::ParseErrorKind::Invalid("Only expressions are supported.".into()),
        });
        assert_eq!(invalid.error_body().code, 0x2200);
        assert_eq!(invalid.to_string(), "Only expressions are supported.");
    }

    #[test]
    fn already_exists_carries_keyspace_and_table() {
        let err = CqlError::from(AlreadyExists::Keyspace {
            keyspace: "ks".into(),
        });
        let body = err.error_body();
        assert_eq!(body.code, 0x2400);
        assert_eq!(body.message, "Cannot add existing keyspace \"ks\"");
        assert!(
            matches!(body.extra, ErrorExtra::AlreadyExists { ref keyspace, .. } if keyspace == "ks")
        );
    }

    #[test]
    fn unprepared_message_names_the_id() {
        let err = CqlError::Unprepared(Bytes::from_static(&[0xab, 0x01]));
        let body = err.error_body();
        assert_eq!(body.code, 0x2500);
        assert!(body
            .message
            .starts_with("Prepared query with ID ab01 not found"));
    }
}
