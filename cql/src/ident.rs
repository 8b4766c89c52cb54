//! CQL identifiers: which words are reserved, and how a name is written back so it reads as
//! the same identifier (quoted when it must be). Below both the statement grammar and the
//! type model, which both print names.

/// Cassandra 5.0's reserved keywords (`cql3/reserved_keywords.txt`), upper-case and sorted.
/// (Trunk adds `CONSTRAINT`, `LENGTH` and `CHECK`; 5.0 does not reserve them.)
const RESERVED_KEYWORDS: [&str; 57] = [
    "ADD",
    "ALLOW",
    "ALTER",
    "AND",
    "APPLY",
    "ASC",
    "AUTHORIZE",
    "BATCH",
    "BEGIN",
    "BY",
    "COLUMNFAMILY",
    "CREATE",
    "DELETE",
    "DESC",
    "DESCRIBE",
    "DROP",
    "ENTRIES",
    "EXECUTE",
    "FROM",
    "FULL",
    "GRANT",
    "IF",
    "IN",
    "INDEX",
    "INFINITY",
    "INSERT",
    "INTO",
    "IS",
    "KEYSPACE",
    "LIMIT",
    "MATERIALIZED",
    "MODIFY",
    "NAN",
    "NORECURSIVE",
    "NOT",
    "NULL",
    "OF",
    "ON",
    "OR",
    "ORDER",
    "PRIMARY",
    "RENAME",
    "REVOKE",
    "SCHEMA",
    "SELECT",
    "SET",
    "TABLE",
    "TO",
    "TOKEN",
    "TRUNCATE",
    "UNLOGGED",
    "UPDATE",
    "USE",
    "USING",
    "VIEW",
    "WHERE",
    "WITH",
];

/// Whether `word` is a reserved CQL keyword that must be quoted to be used as an identifier
/// (case-insensitive, Cassandra's `ReservedKeywords.isReserved`).
pub fn is_reserved_keyword(word: &str) -> bool {
    word.len() <= 12
        && RESERVED_KEYWORDS
            .binary_search(&word.to_ascii_uppercase().as_str())
            .is_ok()
}

/// Writes an identifier the way Cassandra's `ColumnIdentifier.maybeQuote` does: bare when it is
/// lower-case alphanumeric starting with a letter, double-quoted otherwise.
pub fn maybe_quote(name: &str) -> String {
    let plain = name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if plain && !is_reserved_keyword(name) {
        name.to_string()
    } else {
        format!("\"{}\"", name.replace('"', "\"\""))
    }
}
