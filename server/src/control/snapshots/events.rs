//! The SCHEMA_CHANGE events a restore or a reset sends: those the equivalent DDL would send,
//! so that drivers' schema metadata follows. Keyspaces gone are dropped (their tables and
//! types with them, as for `DROP KEYSPACE`); keyspaces new are created, then their types and
//! tables; in a keyspace kept, tables and types gone are dropped, new ones created, and
//! changed ones (any difference, the table id included) updated, as `ALTER` would.

use std::collections::BTreeMap;
use std::sync::Arc;

use cql::frame::response::{SchemaChange, SchemaChangeTarget, SchemaChangeType};
use storage::{Catalog, KeyspaceDef, TableDef};

/// The events that take a driver's metadata from `before` to `after`, in the order the DDL
/// would send them.
pub(crate) fn schema_changes(before: &Catalog, after: &Catalog) -> Vec<SchemaChange> {
    let mut out = Vec::new();
    for name in before.keyspaces.keys() {
        if !after.keyspaces.contains_key(name) {
            out.push(keyspace(SchemaChangeType::Dropped, name));
        }
    }
    for (name, new) in &after.keyspaces {
        match before.keyspaces.get(name) {
            Some(old) => changed_keyspace(old, new, &mut out),
            None => {
                out.push(keyspace(SchemaChangeType::Created, name));
                for ty in new.types.keys() {
                    out.push(user_type(SchemaChangeType::Created, name, ty));
                }
                for table in bases_then_views(&new.tables) {
                    out.push(table_change(SchemaChangeType::Created, table));
                }
            }
        }
    }
    out
}

/// The events of a keyspace in both catalogs.
fn changed_keyspace(old: &KeyspaceDef, new: &KeyspaceDef, out: &mut Vec<SchemaChange>) {
    let ks = &new.name;
    // Views before their bases, as DROP needs them.
    let mut gone: Vec<&Arc<TableDef>> = bases_then_views(&old.tables)
        .into_iter()
        .filter(|t| !new.tables.contains_key(&t.name))
        .collect();
    gone.reverse();
    out.extend(
        gone.into_iter()
            .map(|t| table_change(SchemaChangeType::Dropped, t)),
    );
    for name in old.types.keys().filter(|n| !new.types.contains_key(*n)) {
        out.push(user_type(SchemaChangeType::Dropped, ks, name));
    }
    if old.replication != new.replication || old.durable_writes != new.durable_writes {
        out.push(keyspace(SchemaChangeType::Updated, ks));
    }
    for (name, ty) in &new.types {
        match old.types.get(name) {
            None => out.push(user_type(SchemaChangeType::Created, ks, name)),
            Some(was) if was != ty => out.push(user_type(SchemaChangeType::Updated, ks, name)),
            Some(_) => {}
        }
    }
    for table in bases_then_views(&new.tables) {
        match old.tables.get(&table.name) {
            None => out.push(table_change(SchemaChangeType::Created, table)),
            Some(was) if was != table => out.push(table_change(SchemaChangeType::Updated, table)),
            Some(_) => {}
        }
    }
}

/// A keyspace's tables, base tables first, then materialized views.
fn bases_then_views(tables: &BTreeMap<String, Arc<TableDef>>) -> Vec<&Arc<TableDef>> {
    let (views, mut bases): (Vec<_>, Vec<_>) = tables.values().partition(|t| t.is_view());
    bases.extend(views);
    bases
}

fn keyspace(change: SchemaChangeType, name: &str) -> SchemaChange {
    SchemaChange {
        change,
        target: SchemaChangeTarget::Keyspace {
            keyspace: name.to_string(),
        },
    }
}

fn user_type(change: SchemaChangeType, keyspace: &str, name: &str) -> SchemaChange {
    SchemaChange {
        change,
        target: SchemaChangeTarget::Type {
            keyspace: keyspace.to_string(),
            name: name.to_string(),
        },
    }
}

fn table_change(change: SchemaChangeType, table: &TableDef) -> SchemaChange {
    SchemaChange {
        change,
        target: SchemaChangeTarget::Table {
            keyspace: table.keyspace.clone(),
            table: table.name.clone(),
        },
    }
}
