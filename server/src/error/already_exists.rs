//! `AlreadyExists`: CREATE of a keyspace, table or view that exists (code 0x2400), whose
//! wire answer names the keyspace and table besides the message.

/// CREATE of something that exists (`AlreadyExistsException`).
#[derive(Debug, thiserror::Error)]
pub(crate) enum AlreadyExists {
    /// CREATE KEYSPACE of an existing keyspace.
    /// Origin: exceptions/AlreadyExistsException.java AlreadyExistsException(String)
    #[error("Cannot add existing keyspace \"{keyspace}\"")]
    Keyspace { keyspace: String },
    /// CREATE TABLE or CREATE MATERIALIZED VIEW of an existing table or view.
    /// Origin: exceptions/AlreadyExistsException.java AlreadyExistsException(String, String)
    #[error("Cannot add already existing table \"{table}\" to keyspace \"{keyspace}\"")]
    Table { keyspace: String, table: String },
}

impl AlreadyExists {
    /// The keyspace the answer names.
    pub(crate) fn keyspace(&self) -> &str {
        match self {
            AlreadyExists::Keyspace { keyspace } | AlreadyExists::Table { keyspace, .. } => {
                keyspace
            }
        }
    }

    /// The table the answer names; empty for a keyspace.
    pub(crate) fn table(&self) -> &str {
        match self {
            AlreadyExists::Keyspace { .. } => "",
            AlreadyExists::Table { table, .. } => table,
        }
    }
}
