//! The label values of the request metrics: request opcodes, statement kinds and CQL error
//! codes, each a fixed table so a request finds its counters by index.

use cql::frame::response::error_code;
use cql::statement::ast::Statement;

/// Request opcodes by their byte, then `other` for a byte that is none of them.
pub(crate) const OPCODES: [(u8, &str); 9] = [
    (0x01, "STARTUP"),
    (0x05, "OPTIONS"),
    (0x07, "QUERY"),
    (0x09, "PREPARE"),
    (0x0A, "EXECUTE"),
    (0x0B, "REGISTER"),
    (0x0D, "BATCH"),
    (0x0F, "AUTH_RESPONSE"),
    (0xFF, "other"),
];

/// The index of `opcode` in [`OPCODES`].
pub(crate) fn opcode_index(opcode: u8) -> usize {
    OPCODES
        .iter()
        .position(|(byte, _)| *byte == opcode)
        .unwrap_or(OPCODES.len() - 1)
}

/// What kind of statement a request ran (its `kind` label).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum StatementKind {
    /// No statement (STARTUP, OPTIONS, REGISTER...), or one that did not parse.
    #[default]
    None,
    /// `SELECT`.
    Select,
    /// `INSERT`.
    Insert,
    /// `UPDATE`.
    Update,
    /// `DELETE`.
    Delete,
    /// `BEGIN BATCH` or the BATCH opcode.
    Batch,
    /// `TRUNCATE`.
    Truncate,
    /// `CREATE`, `ALTER` or `DROP` of keyspaces, tables, indexes and types.
    Schema,
    /// `USE`.
    Use,
    /// Roles and permissions.
    Auth,
    /// `DESCRIBE`.
    Describe,
    /// `EXPLAIN [ANALYZE]` (ours).
    Explain,
}

/// Every kind, in index order (`kind as usize`).
pub(crate) const KINDS: [StatementKind; 12] = [
    StatementKind::None,
    StatementKind::Select,
    StatementKind::Insert,
    StatementKind::Update,
    StatementKind::Delete,
    StatementKind::Batch,
    StatementKind::Truncate,
    StatementKind::Schema,
    StatementKind::Use,
    StatementKind::Auth,
    StatementKind::Describe,
    StatementKind::Explain,
];

impl StatementKind {
    /// The kind of `statement`.
    pub(crate) fn of(statement: &Statement) -> StatementKind {
        match statement {
            Statement::Select(_) => StatementKind::Select,
            Statement::Insert(_) => StatementKind::Insert,
            Statement::Update(_) => StatementKind::Update,
            Statement::Delete(_) => StatementKind::Delete,
            Statement::Batch(_) => StatementKind::Batch,
            Statement::Use(_) => StatementKind::Use,
            Statement::Truncate(_) => StatementKind::Truncate,
            Statement::Describe(_) => StatementKind::Describe,
            Statement::Explain(_) => StatementKind::Explain,
            Statement::Role(_) | Statement::Permission(_) => StatementKind::Auth,
            Statement::CreateKeyspace(_)
            | Statement::AlterKeyspace(_)
            | Statement::DropKeyspace { .. }
            | Statement::CreateTable(_)
            | Statement::AlterTable(_)
            | Statement::DropTable { .. }
            | Statement::CreateIndex(_)
            | Statement::DropIndex { .. }
            | Statement::CreateView(_)
            | Statement::AlterView { .. }
            | Statement::DropView { .. }
            | Statement::CreateType(_)
            | Statement::AlterType(_)
            | Statement::DropType { .. }
            | Statement::Disabled(_) => StatementKind::Schema,
        }
    }

    /// The label value.
    pub(crate) fn name(self) -> &'static str {
        match self {
            StatementKind::None => "none",
            StatementKind::Select => "select",
            StatementKind::Insert => "insert",
            StatementKind::Update => "update",
            StatementKind::Delete => "delete",
            StatementKind::Batch => "batch",
            StatementKind::Truncate => "truncate",
            StatementKind::Schema => "schema",
            StatementKind::Use => "use",
            StatementKind::Auth => "auth",
            StatementKind::Describe => "describe",
            StatementKind::Explain => "explain",
        }
    }
}

/// CQL error codes and their names in the protocol spec, then `other`.
pub(crate) const ERROR_CODES: [(i32, &str); 19] = [
    (error_code::SERVER_ERROR, "server_error"),
    (error_code::PROTOCOL_ERROR, "protocol_error"),
    (error_code::BAD_CREDENTIALS, "bad_credentials"),
    (error_code::UNAVAILABLE, "unavailable"),
    (error_code::OVERLOADED, "overloaded"),
    (error_code::IS_BOOTSTRAPPING, "is_bootstrapping"),
    (error_code::TRUNCATE_ERROR, "truncate_error"),
    (error_code::WRITE_TIMEOUT, "write_timeout"),
    (error_code::READ_TIMEOUT, "read_timeout"),
    (error_code::READ_FAILURE, "read_failure"),
    (error_code::FUNCTION_FAILURE, "function_failure"),
    (error_code::WRITE_FAILURE, "write_failure"),
    (error_code::SYNTAX_ERROR, "syntax_error"),
    (error_code::UNAUTHORIZED, "unauthorized"),
    (error_code::INVALID, "invalid"),
    (error_code::CONFIG_ERROR, "config_error"),
    (error_code::ALREADY_EXISTS, "already_exists"),
    (error_code::UNPREPARED, "unprepared"),
    (-1, "other"),
];

/// The index of `code` in [`ERROR_CODES`].
pub(crate) fn error_index(code: i32) -> usize {
    ERROR_CODES
        .iter()
        .position(|(known, _)| *known == code)
        .unwrap_or(ERROR_CODES.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_listed_in_index_order() {
        for (i, kind) in KINDS.iter().enumerate() {
            assert_eq!(*kind as usize, i, "{kind:?}");
        }
    }

    #[test]
    fn statements_opcodes_and_codes_find_their_labels() {
        let kind = |text: &str| StatementKind::of(&cql::statement::parse(text).unwrap().statement);
        assert_eq!(kind("SELECT * FROM ks.t").name(), "select");
        assert_eq!(
            kind("CREATE TABLE ks.t (k int PRIMARY KEY)").name(),
            "schema"
        );
        assert_eq!(kind("TRUNCATE ks.t").name(), "truncate");
        assert_eq!(kind("LIST ROLES").name(), "auth");
        assert_eq!(OPCODES[opcode_index(0x0A)].1, "EXECUTE");
        assert_eq!(OPCODES[opcode_index(0x42)].1, "other");
        assert_eq!(ERROR_CODES[error_index(0x2200)].1, "invalid");
        assert_eq!(ERROR_CODES[error_index(0x7777)].1, "other");
    }
}
