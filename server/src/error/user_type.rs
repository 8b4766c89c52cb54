//! `UserTypeError`: CREATE, ALTER and DROP TYPE that break Cassandra's rules.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

use cql::statement::ast::CqlType;
use cql::types::maybe_quote;

/// CREATE, ALTER and DROP TYPE that break Cassandra's rules.
#[derive(Debug, thiserror::Error)]
pub(crate) enum UserTypeError {
    /// Origin: cql3/statements/schema/CreateTypeStatement.java validate / AlterTypeStatement.AddField
    #[error("A user type cannot contain counters")]
    CounterField,
    /// Origin: cql3/statements/schema/CreateTypeStatement.java validate / AlterTypeStatement.AddField
    #[error("A user type cannot contain non-frozen UDTs")]
    NonFrozenUdtField,
    /// Origin: cql3/statements/schema/CreateTypeStatement.java apply
    #[error("A user type with name '{name}' already exists")]
    TypeExists { name: String },
    /// CREATE TYPE naming a field twice.
    /// Origin: cql3/statements/schema/CreateTypeStatement.java validate
    #[error("Duplicate field name '{field}' in type '{name}'")]
    DuplicateField { field: String, name: String },
    /// ALTER TYPE of a type the keyspace does not have.
    /// Origin: cql3/statements/schema/AlterTypeStatement.java apply
    #[error("Type {keyspace}.{name} doesn't exist")]
    UnknownType { keyspace: String, name: String },
    /// DROP TYPE of a type the keyspace does not have.
    /// Origin: cql3/statements/schema/DropTypeStatement.java apply
    #[error("Type '{keyspace}.{name}' doesn't exist")]
    UnknownTypeToDrop { keyspace: String, name: String },
    /// Origin: cql3/statements/schema/AlterTypeStatement.java AddField.apply
    #[error(
        "Cannot add field {field} to type {}.{}: a field with name {field} already exists",
        maybe_quote(.keyspace),
        maybe_quote(.name)
    )]
    FieldExists {
        field: String,
        keyspace: String,
        name: String,
    },
    /// ALTER TYPE ADD of a field whose type refers back to the type.
    /// Origin: cql3/statements/schema/AlterTypeStatement.java AddField.apply
    #[error(
        "Cannot add new field {field} of type {ty} to user type {}.{} as it would create a circular reference",
        maybe_quote(.keyspace),
        maybe_quote(.name)
    )]
    CircularField {
        field: String,
        ty: Box<CqlType>,
        keyspace: String,
        name: String,
    },
    /// ALTER TYPE ADD on a type that tables (`ks.table`) use in their partition key.
    /// Origin: cql3/statements/schema/AlterTypeStatement.java AddField.apply
    #[error(
        "Cannot add new field {field} of type {ty} to user type {}.{} as the type is being used in partition key by the following tables: {}",
        maybe_quote(.keyspace),
        maybe_quote(.name),
        .tables.join(", ")
    )]
    UsedInPartitionKey {
        field: String,
        ty: Box<CqlType>,
        keyspace: String,
        name: String,
        tables: Vec<String>,
    },
    /// ALTER TYPE RENAME of a field the type does not have ("Unkown" is Cassandra's spelling).
    /// Origin: cql3/statements/schema/AlterTypeStatement.java RenameFields.apply ("Unkown" is 5.0's spelling)
    #[error(
        "Unkown field {field} in user type {}.{}",
        maybe_quote(.keyspace),
        maybe_quote(.name)
    )]
    UnknownField {
        field: String,
        keyspace: String,
        name: String,
    },
    /// ALTER TYPE RENAME leaving two fields with one name.
    /// Origin: cql3/statements/schema/AlterTypeStatement.java RenameFields.apply
    #[error(
        "Duplicate field name {field} in type {}.{}",
        maybe_quote(.keyspace),
        maybe_quote(.name)
    )]
    DuplicateFieldAfterRename {
        field: String,
        keyspace: String,
        name: String,
    },
    /// Origin: cql3/statements/schema/DropTypeStatement.java apply
    #[error(
        "Cannot drop user type '{keyspace}.{name}' as it is still used by user types {}",
        .types.join(", ")
    )]
    UsedByTypes {
        keyspace: String,
        name: String,
        types: Vec<String>,
    },
    /// Origin: cql3/statements/schema/DropTypeStatement.java apply
    #[error(
        "Cannot drop user type '{keyspace}.{name}' as it is still used by tables {}",
        .tables.join(", ")
    )]
    UsedByTables {
        keyspace: String,
        name: String,
        tables: Vec<String>,
    },
}
