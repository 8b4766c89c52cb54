//! `Schema`: one immutable snapshot of everything a statement can name — the user catalog
//! from storage plus the system keyspaces, whose tables are virtual (built on read from this
//! snapshot and the node state). Requests take an `Arc<Schema>` and never see a half-applied
//! schema change.

pub(crate) mod table_def;

use std::collections::BTreeMap;
use std::sync::{Arc, OnceLock};

use md5::{Digest, Md5};
use storage::{Catalog, KeyspaceDef, TableDef};
use uuid::Uuid;

pub(crate) mod system_keyspaces;

/// Where a table's rows come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TableKind {
    /// Rows stored in redb.
    User,
    /// Rows generated from the schema and node state (`system*` keyspaces).
    Virtual,
}

/// A resolved table.
#[derive(Debug, Clone)]
pub(crate) struct TableRef {
    /// The table's definition.
    pub def: Arc<TableDef>,
    /// Where its rows live.
    pub kind: TableKind,
}

/// A schema snapshot.
#[derive(Debug)]
pub(crate) struct Schema {
    /// User keyspaces and tables, as persisted.
    pub catalog: Catalog,
    /// `system.local.schema_version`: a digest of the whole schema, so it changes with every
    /// effective DDL and is stable across restarts.
    pub version: Uuid,
    /// Whether the test-control keyspace is part of it (the node's test controls are on).
    pub controls: bool,
}

/// The system keyspaces, built once.
pub(crate) fn system_keyspaces() -> &'static BTreeMap<String, KeyspaceDef> {
    static SYSTEM: OnceLock<BTreeMap<String, KeyspaceDef>> = OnceLock::new();
    SYSTEM.get_or_init(system_keyspaces::system_keyspaces)
}

/// Whether `name` is one of the system keyspaces (not user-modifiable).
pub(crate) fn is_system_keyspace(name: &str) -> bool {
    system_keyspaces().contains_key(name)
}

impl Schema {
    /// Builds a snapshot over `catalog`.
    pub(crate) fn new(catalog: Catalog) -> Schema {
        let version = digest(&catalog);
        Schema {
            catalog,
            version,
            controls: false,
        }
    }

    /// This snapshot with the test-control keyspace when `controls`.
    pub(crate) fn with_controls(mut self, controls: bool) -> Schema {
        self.controls = controls;
        self
    }

    /// A system or virtual keyspace of this snapshot by name.
    fn system_keyspace(&self, name: &str) -> Option<&KeyspaceDef> {
        if self.controls && name == crate::control::KEYSPACE {
            return Some(crate::control::keyspace_def());
        }
        system_keyspaces().get(name)
    }

    /// A keyspace by exact name, user or system.
    pub(crate) fn keyspace(&self, name: &str) -> Option<&KeyspaceDef> {
        self.catalog
            .keyspaces
            .get(name)
            .or_else(|| self.system_keyspace(name))
    }

    /// A table by exact keyspace and table name.
    pub(crate) fn table(&self, keyspace: &str, table: &str) -> Option<TableRef> {
        if let Some(ks) = self.catalog.keyspaces.get(keyspace) {
            return ks.tables.get(table).map(|def| TableRef {
                def: def.clone(),
                kind: TableKind::User,
            });
        }
        self.system_keyspace(keyspace)?
            .tables
            .get(table)
            .map(|def| TableRef {
                def: def.clone(),
                kind: TableKind::Virtual,
            })
    }

    /// Every keyspace, system ones first (as Cassandra lists them), then user ones by name.
    pub(crate) fn all_keyspaces(&self) -> impl Iterator<Item = &KeyspaceDef> {
        let controls = self.controls.then(crate::control::keyspace_def);
        system_keyspaces()
            .values()
            .chain(controls)
            .chain(self.catalog.keyspaces.values())
    }

    /// User keyspaces only.
    pub(crate) fn user_keyspaces(&self) -> impl Iterator<Item = &KeyspaceDef> {
        self.catalog.keyspaces.values()
    }
}

/// An MD5 digest of the user schema, shaped as a UUID (Cassandra's schema version is an
/// MD5-based UUID too).
fn digest(catalog: &Catalog) -> Uuid {
    let mut hasher = Md5::new();
    for ks in catalog.keyspaces.values() {
        hasher.update(format!(
            "ks {} {:?} {}\n",
            ks.name, ks.replication, ks.durable_writes
        ));
        for table in ks.tables.values() {
            hasher.update(format!(
                "table {} {} {:?}\n",
                table.id, table.name, table.params
            ));
            for col in &table.columns {
                hasher.update(format!(
                    "col {} {} {} {} {:?}\n",
                    col.name,
                    col.ty,
                    col.kind.as_str(),
                    col.position,
                    col.order
                ));
            }
            // Indexes, a view's definition and dropped columns are schema too: Cassandra's
            // version changes with CREATE INDEX or ALTER MATERIALIZED VIEW as with any DDL.
            for index in &table.indexes {
                hasher.update(format!("index {index:?}\n"));
            }
            if let Some(view) = &table.view {
                hasher.update(format!("view {view:?}\n"));
            }
            for dropped in &table.dropped_columns {
                hasher.update(format!("dropped {dropped:?}\n"));
            }
        }
        for ty in ks.types.values() {
            hasher.update(format!("type {ty:?}\n"));
        }
    }
    let mut bytes: [u8; 16] = hasher.finalize().into();
    bytes[6] = (bytes[6] & 0x0f) | 0x30;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    Uuid::from_bytes(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_changes_with_the_catalog() {
        let empty = Schema::new(Catalog::default());
        let mut catalog = Catalog::default();
        catalog.keyspaces.insert(
            "ks".into(),
            KeyspaceDef {
                name: "ks".into(),
                replication: BTreeMap::new(),
                durable_writes: true,
                tables: BTreeMap::new(),
                types: BTreeMap::new(),
            },
        );
        let one = Schema::new(catalog);
        assert_ne!(empty.version, one.version);
        assert_eq!(empty.version, Schema::new(Catalog::default()).version);
    }

    #[test]
    fn version_changes_with_indexes_and_types() {
        let base =
            crate::planner::select::tests::schema(&["CREATE TABLE t (k int PRIMARY KEY, v int)"]);
        let mut catalog = base.catalog.clone();
        let ks = catalog.keyspaces.get_mut("ks").expect("ks");
        let mut table = storage::TableDef::clone(&ks.tables["t"]);
        table.indexes.push(storage::IndexDef {
            id: Uuid::from_u128(9),
            name: "t_v_idx".into(),
            column: table.columns[1].id,
            target: storage::IndexTargetKind::Values,
            custom_class: None,
            options: BTreeMap::new(),
        });
        ks.tables.insert("t".into(), Arc::new(table));
        let indexed = Schema::new(catalog.clone());
        assert_ne!(
            base.version, indexed.version,
            "CREATE INDEX changes the version"
        );
        let ks = catalog.keyspaces.get_mut("ks").expect("ks");
        ks.types.insert(
            "address".into(),
            Arc::new(storage::UserTypeDef {
                keyspace: "ks".into(),
                name: "address".into(),
                fields: vec![("street".into(), cql::types::ColumnType::Text)],
            }),
        );
        let typed = Schema::new(catalog);
        assert_ne!(
            indexed.version, typed.version,
            "CREATE TYPE changes the version"
        );
        assert_eq!(typed.version, Schema::new(typed.catalog.clone()).version);
    }

    #[test]
    fn system_tables_resolve() {
        let schema = Schema::new(Catalog::default());
        let local = schema.table("system", "local").unwrap();
        assert_eq!(local.kind, TableKind::Virtual);
        assert!(schema.table("system_schema", "columns").is_some());
        assert!(schema.table("system", "nope").is_none());
    }
}
