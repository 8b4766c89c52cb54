//! The vocabulary every DDL executor shares: a computed [`Change`] (storage operations, the
//! resulting catalog, the event), writing one table into a catalog, and Cassandra's name
//! rule. The DDL files (`ddl`, `index_ddl`, `user_types`, `view_ddl`, `rename`) import it and
//! not each other's dispatch.

use std::sync::Arc;

use cql::frame::response::{SchemaChange, SchemaChangeTarget, SchemaChangeType};
use storage::{Catalog, CatalogOp};

/// A computed schema change: the storage operations, the resulting catalog and the event.
pub(crate) struct Change {
    pub(crate) ops: Vec<CatalogOp>,
    pub(crate) catalog: Catalog,
    pub(crate) event: SchemaChange,
}

/// The longest keyspace, table or index name Cassandra accepts.
pub(crate) const NAME_LENGTH: usize = 48;

/// Whether `name` is a valid keyspace, table, view or index name: 1 to 48 ASCII letters,
/// digits or underscores.
pub(crate) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_LENGTH
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `def` written into a copy of `current` (created or updated, as `change` says).
pub(crate) fn put_table(
    current: &Catalog,
    def: storage::TableDef,
    change: SchemaChangeType,
) -> Change {
    let def = Arc::new(def);
    let mut catalog = current.clone();
    if let Some(ks) = catalog.keyspaces.get_mut(&def.keyspace) {
        ks.tables.insert(def.name.clone(), def.clone());
    }
    let target = SchemaChangeTarget::Table {
        keyspace: def.keyspace.clone(),
        table: def.name.clone(),
    };
    Change {
        ops: vec![CatalogOp::PutTable(def)],
        catalog,
        event: SchemaChange { change, target },
    }
}
