//! The vocabulary every schema planner shares: a computed [`SchemaChangePlan`] (storage
//! operations, the resulting catalog, the event, the warnings), writing one table into a
//! catalog, and Cassandra's name rule. The statement files (`keyspace`, `table`, `index`,
//! `user_type`, `view`, `rename`) import it and not each other's dispatch.

use std::sync::Arc;

use cql::frame::response::{SchemaChange, SchemaChangeTarget, SchemaChangeType};
use storage::{Catalog, CatalogOp};

/// What a schema statement changes, computed against the catalog current under the DDL
/// lock: the executor writes `ops` durably in one storage request, installs `catalog` as the
/// new schema, sends `warnings` to the client and answers (and broadcasts) `event`.
#[derive(Debug)]
pub(crate) struct SchemaChangePlan {
    /// The storage operations, in the order the writer applies them.
    pub(crate) ops: Vec<CatalogOp>,
    /// The whole catalog once the change is made.
    pub(crate) catalog: Catalog,
    /// The SCHEMA_CHANGE result and event.
    pub(crate) event: SchemaChange,
    /// Client warnings the statement sends (Cassandra's `ClientWarn`).
    pub(crate) warnings: Vec<String>,
}

impl SchemaChangePlan {
    /// A change without warnings.
    pub(crate) fn new(ops: Vec<CatalogOp>, catalog: Catalog, event: SchemaChange) -> Self {
        SchemaChangePlan {
            ops,
            catalog,
            event,
            warnings: Vec::new(),
        }
    }
}

/// The longest keyspace name Cassandra accepts (`SchemaConstants.NAME_LENGTH`).
pub(crate) const NAME_LENGTH: usize = 48;

/// The longest table or view name Cassandra 4.0.x/5.0.x accept since CASSANDRA-20425
/// (`SchemaConstants.TABLE_NAME_LENGTH`): 255 bytes of a file name less a table id's 33.
pub(crate) const TABLE_NAME_LENGTH: usize = 222;

/// Whether `name` is a valid keyspace name: 1 to 48 ASCII letters, digits or underscores.
pub(crate) fn valid_name(name: &str) -> bool {
    word_characters(name, NAME_LENGTH)
}

/// Whether `name` is a valid table or view name: 1 to 222 ASCII letters, digits or
/// underscores.
pub(crate) fn valid_table_name(name: &str) -> bool {
    word_characters(name, TABLE_NAME_LENGTH)
}

fn word_characters(name: &str, max_length: usize) -> bool {
    !name.is_empty()
        && name.len() <= max_length
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A schema event of `change` on `target`.
pub(crate) fn event(change: SchemaChangeType, target: SchemaChangeTarget) -> SchemaChange {
    SchemaChange { change, target }
}

/// The event of a change to table (or view) `table` of `keyspace`.
pub(crate) fn table_event(change: SchemaChangeType, keyspace: &str, table: &str) -> SchemaChange {
    event(
        change,
        SchemaChangeTarget::Table {
            keyspace: keyspace.to_string(),
            table: table.to_string(),
        },
    )
}

/// `def` written into a copy of `current` (created or updated, as `change` says).
pub(crate) fn put_table(
    current: &Catalog,
    def: storage::TableDef,
    change: SchemaChangeType,
) -> SchemaChangePlan {
    let def = Arc::new(def);
    let mut catalog = current.clone();
    if let Some(ks) = catalog.keyspaces.get_mut(&def.keyspace) {
        ks.tables.insert(def.name.clone(), def.clone());
    }
    let event = table_event(change, &def.keyspace, &def.name);
    SchemaChangePlan::new(vec![CatalogOp::PutTable(def)], catalog, event)
}
