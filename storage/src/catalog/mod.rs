//! The schema model: keyspaces, tables and columns, as an in-memory [`Catalog`] value.
//!
//! The catalog is persisted as JSON records in the redb `schema` table (see [`persist`] and
//! `DESIGN.md`) and loaded by `Store::open`. It is a plain value: the server keeps it in an
//! `Arc` snapshot and changes it by sending [`CatalogOp`](crate::CatalogOp)s through the writer,
//! then swapping in the updated value. Column types are stored as their CQL text and parsed
//! back by [`type_text`].

pub(crate) mod persist;

mod index;
mod params;
pub(crate) mod role;
pub mod type_text;
pub(crate) mod uuid_text;
mod view;

use std::collections::BTreeMap;
use std::sync::Arc;

use cql::types::ColumnType;
use uuid::Uuid;

pub use index::IndexDef;
pub use index::IndexTargetKind;
pub use params::TableParams;
pub use role::RoleDef;
pub use view::ViewDef;
pub use view::ViewFilter;
pub use view::ViewFilterOp;

/// Every keyspace and table the node knows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    /// Keyspaces by name.
    pub keyspaces: BTreeMap<String, KeyspaceDef>,
    /// Roles by name (not part of the schema: they do not change its version).
    pub roles: BTreeMap<String, RoleDef>,
}

impl Catalog {
    /// The table `keyspace.name`, if both exist.
    pub fn table(&self, keyspace: &str, name: &str) -> Option<&Arc<TableDef>> {
        self.keyspaces.get(keyspace)?.tables.get(name)
    }

    /// The table with the given id, searching every keyspace.
    pub fn table_by_id(&self, id: Uuid) -> Option<&Arc<TableDef>> {
        self.keyspaces
            .values()
            .flat_map(|ks| ks.tables.values())
            .find(|t| t.id == id)
    }
}

/// A keyspace and its tables.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyspaceDef {
    /// The keyspace name.
    pub name: String,
    /// The replication map, e.g. `{'class': 'SimpleStrategy', 'replication_factor': '1'}`.
    pub replication: BTreeMap<String, String>,
    /// `durable_writes`, kept for `system_schema.keyspaces`.
    pub durable_writes: bool,
    /// Tables by name. Persisted as separate records, not inside the keyspace record.
    pub tables: BTreeMap<String, Arc<TableDef>>,
    /// User-defined types by name. Persisted as separate records.
    pub types: BTreeMap<String, Arc<UserTypeDef>>,
}

/// A user-defined type: its fields with their resolved types.
#[derive(Debug, Clone, PartialEq)]
pub struct UserTypeDef {
    /// The keyspace it belongs to.
    pub keyspace: String,
    /// The type name.
    pub name: String,
    /// Field names and types, in declaration order.
    pub fields: Vec<(String, ColumnType)>,
}

impl UserTypeDef {
    /// The column type of this UDT, frozen or not.
    pub fn column_type(&self, frozen: bool) -> ColumnType {
        ColumnType::Udt {
            keyspace: self.keyspace.clone(),
            name: self.name.clone(),
            fields: self.fields.clone(),
            frozen,
        }
    }
}

/// Whether `ty` is, or contains, the user type `keyspace.name`.
pub fn references_type(ty: &ColumnType, keyspace: &str, name: &str) -> bool {
    match ty {
        ColumnType::Udt {
            keyspace: k,
            name: n,
            fields,
            ..
        } => {
            (k == keyspace && n == name)
                || fields
                    .iter()
                    .any(|(_, f)| references_type(f, keyspace, name))
        }
        ColumnType::List { element, .. } | ColumnType::Set { element, .. } => {
            references_type(element, keyspace, name)
        }
        ColumnType::Map { key, value, .. } => {
            references_type(key, keyspace, name) || references_type(value, keyspace, name)
        }
        ColumnType::Tuple(items) => items.iter().any(|t| references_type(t, keyspace, name)),
        ColumnType::Vector { element, .. } => references_type(element, keyspace, name),
        _ => false,
    }
}

/// `ty` with every occurrence of the user type `new` (same keyspace and name) replaced by
/// its new definition, keeping each occurrence's frozenness.
pub fn replace_type(ty: &ColumnType, new: &UserTypeDef) -> ColumnType {
    let recurse = |t: &ColumnType| Box::new(replace_type(t, new));
    match ty {
        ColumnType::Udt {
            keyspace,
            name,
            fields,
            frozen,
        } => {
            if *keyspace == new.keyspace && *name == new.name {
                new.column_type(*frozen)
            } else {
                ColumnType::Udt {
                    keyspace: keyspace.clone(),
                    name: name.clone(),
                    fields: fields
                        .iter()
                        .map(|(n, f)| (n.clone(), replace_type(f, new)))
                        .collect(),
                    frozen: *frozen,
                }
            }
        }
        ColumnType::List { element, frozen } => ColumnType::List {
            element: recurse(element),
            frozen: *frozen,
        },
        ColumnType::Set { element, frozen } => ColumnType::Set {
            element: recurse(element),
            frozen: *frozen,
        },
        ColumnType::Map { key, value, frozen } => ColumnType::Map {
            key: recurse(key),
            value: recurse(value),
            frozen: *frozen,
        },
        ColumnType::Vector { element, dimension } => ColumnType::Vector {
            element: recurse(element),
            dimension: *dimension,
        },
        ColumnType::Tuple(items) => {
            ColumnType::Tuple(items.iter().map(|t| replace_type(t, new)).collect())
        }
        other => other.clone(),
    }
}

/// A table: its id, columns and options.
#[derive(Debug, Clone, PartialEq)]
pub struct TableDef {
    /// Stable id; names the table's data in storage, so a dropped and re-created table of the
    /// same name never sees the old rows.
    pub id: Uuid,
    /// The keyspace name.
    pub keyspace: String,
    /// The table name.
    pub name: String,
    /// Columns in `SELECT *` order: partition key by position, clustering by position, then
    /// the rest sorted by name.
    pub columns: Vec<ColumnDef>,
    /// Indexes into `columns` of the partition-key columns, by position.
    pub partition_key: Vec<usize>,
    /// Indexes into `columns` of the clustering columns, by position.
    pub clustering_key: Vec<usize>,
    /// Table options.
    pub params: TableParams,
    /// The id the next added column gets; ids are never reused.
    pub next_column_id: u32,
    /// Columns dropped from this table, for `system_schema.dropped_columns`.
    pub dropped_columns: Vec<DroppedColumn>,
    /// Secondary indexes, in creation order.
    pub indexes: Vec<IndexDef>,
    /// Set when this table is a materialized view (see [`ViewDef`]).
    pub view: Option<ViewDef>,
}

/// A column id, stable within a table and never reused: a dropped then re-added column gets a
/// new id, so cells written under the old one never resurrect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ColumnId(pub u32);

/// One column of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    /// The stable column id cells are stored under.
    pub id: ColumnId,
    /// The column name.
    pub name: String,
    /// The column type (for a DESC clustering column, the plain type; see `order`).
    pub ty: ColumnType,
    /// Partition key, clustering, regular or static.
    pub kind: ColumnKind,
    /// Index within the partition key or clustering key; `-1` for regular and static columns.
    pub position: i32,
    /// The clustering order; `None` for non-clustering columns.
    pub order: ClusteringOrder,
}

/// The role of a column, spelled as `system_schema.columns.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnKind {
    /// Part of the partition key.
    PartitionKey,
    /// A clustering column.
    Clustering,
    /// A regular column.
    Regular,
    /// A static column (one value per partition).
    Static,
}

impl ColumnKind {
    /// The `system_schema.columns.kind` spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ColumnKind::PartitionKey => "partition_key",
            ColumnKind::Clustering => "clustering",
            ColumnKind::Regular => "regular",
            ColumnKind::Static => "static",
        }
    }

    /// Parses the `as_str` spelling.
    pub fn parse(s: &str) -> Option<ColumnKind> {
        Some(match s {
            "partition_key" => ColumnKind::PartitionKey,
            "clustering" => ColumnKind::Clustering,
            "regular" => ColumnKind::Regular,
            "static" => ColumnKind::Static,
            _ => return None,
        })
    }
}

/// The clustering order of a column, spelled as `system_schema.columns.clustering_order`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClusteringOrder {
    /// Ascending (the default for clustering columns).
    Asc,
    /// Descending: stored as the bitwise NOT of the ascending key bytes.
    Desc,
    /// Not a clustering column.
    None,
}

impl ClusteringOrder {
    /// The `system_schema.columns.clustering_order` spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ClusteringOrder::Asc => "asc",
            ClusteringOrder::Desc => "desc",
            ClusteringOrder::None => "none",
        }
    }

    /// Parses the `as_str` spelling.
    pub fn parse(s: &str) -> Option<ClusteringOrder> {
        Some(match s {
            "asc" => ClusteringOrder::Asc,
            "desc" => ClusteringOrder::Desc,
            "none" => ClusteringOrder::None,
            _ => return None,
        })
    }
}

/// A dropped column, as `system_schema.dropped_columns` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct DroppedColumn {
    /// The dropped column's name.
    pub name: String,
    /// Its type at the time it was dropped.
    pub ty: ColumnType,
    /// Its kind (regular or static).
    pub kind: ColumnKind,
    /// When it was dropped, in microseconds since the epoch.
    pub dropped_time_micros: i64,
    /// The id its cells are stored under (absent in records written before it was kept).
    /// A column re-added under the same name takes this id back, and its cells written at
    /// or before `dropped_time_micros` stay hidden.
    pub id: Option<ColumnId>,
}

impl TableDef {
    /// Builds a table from columns in any order: sorts them into `SELECT *` order, computes
    /// `partition_key` and `clustering_key`, and sets `next_column_id` past the largest id.
    pub fn new(
        id: Uuid,
        keyspace: impl Into<String>,
        name: impl Into<String>,
        mut columns: Vec<ColumnDef>,
        params: TableParams,
    ) -> TableDef {
        sort_columns(&mut columns);
        let next_column_id = columns.iter().map(|c| c.id.0 + 1).max().unwrap_or(0);
        let mut table = TableDef {
            id,
            keyspace: keyspace.into(),
            name: name.into(),
            columns,
            partition_key: Vec::new(),
            clustering_key: Vec::new(),
            params,
            next_column_id,
            dropped_columns: Vec::new(),
            indexes: Vec::new(),
            view: None,
        };
        table.reindex();
        table
    }

    /// Recomputes `partition_key` and `clustering_key` from `columns` (after sorting them).
    pub fn reindex(&mut self) {
        sort_columns(&mut self.columns);
        let of_kind = |kind| {
            self.columns
                .iter()
                .enumerate()
                .filter(|(_, c)| c.kind == kind)
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        };
        self.partition_key = of_kind(ColumnKind::PartitionKey);
        self.clustering_key = of_kind(ColumnKind::Clustering);
    }

    /// The column called `name`.
    pub fn column(&self, name: &str) -> Option<&ColumnDef> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The column with id `id`.
    pub fn column_by_id(&self, id: ColumnId) -> Option<&ColumnDef> {
        self.columns.iter().find(|c| c.id == id)
    }

    /// The partition-key columns, by position.
    pub fn partition_key_columns(&self) -> impl Iterator<Item = &ColumnDef> + '_ {
        self.partition_key
            .iter()
            .filter_map(|&i| self.columns.get(i))
    }

    /// The clustering columns, by position.
    pub fn clustering_columns(&self) -> impl Iterator<Item = &ColumnDef> + '_ {
        self.clustering_key
            .iter()
            .filter_map(|&i| self.columns.get(i))
    }

    /// The regular and static columns, in `SELECT *` order.
    pub fn regular_and_static_columns(&self) -> impl Iterator<Item = &ColumnDef> + '_ {
        self.columns
            .iter()
            .filter(|c| matches!(c.kind, ColumnKind::Regular | ColumnKind::Static))
    }

    /// Whether the table's non-key columns are counters.
    pub fn is_counter_table(&self) -> bool {
        self.regular_and_static_columns().any(|c| c.ty.is_counter())
    }

    /// Whether the table has static columns.
    pub fn has_static_columns(&self) -> bool {
        self.columns.iter().any(|c| c.kind == ColumnKind::Static)
    }
}

fn kind_rank(kind: ColumnKind) -> u8 {
    match kind {
        ColumnKind::PartitionKey => 0,
        ColumnKind::Clustering => 1,
        ColumnKind::Static => 2,
        ColumnKind::Regular => 3,
    }
}

/// Cassandra's `SELECT *` order: partition key by position, clustering by position, then the
/// static columns and then the regular columns, each by name (`selectOrderIterator`).
fn sort_columns(columns: &mut [ColumnDef]) {
    columns.sort_by(|a, b| {
        kind_rank(a.kind)
            .cmp(&kind_rank(b.kind))
            .then(a.position.cmp(&b.position))
            .then_with(|| a.name.cmp(&b.name))
    });
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `CREATE TABLE ks.t (p int, q text, c1 bigint, c2 text, v text, s int static,
    /// PRIMARY KEY ((p, q), c1, c2)) WITH CLUSTERING ORDER BY (c1 ASC, c2 DESC)`.
    pub(crate) fn sample_table() -> TableDef {
        let col = |id, name: &str, ty, kind, position, order| ColumnDef {
            id: ColumnId(id),
            name: name.into(),
            ty,
            kind,
            position,
            order,
        };
        use ClusteringOrder as O;
        use ColumnKind as K;
        TableDef::new(
            Uuid::from_u128(0x1234),
            "ks",
            "t",
            vec![
                col(4, "v", ColumnType::Text, K::Regular, -1, O::None),
                col(2, "c1", ColumnType::Bigint, K::Clustering, 0, O::Asc),
                col(1, "q", ColumnType::Text, K::PartitionKey, 1, O::None),
                col(5, "s", ColumnType::Int, K::Static, -1, O::None),
                col(0, "p", ColumnType::Int, K::PartitionKey, 0, O::None),
                col(3, "c2", ColumnType::Text, K::Clustering, 1, O::Desc),
            ],
            TableParams::default(),
        )
    }

    #[test]
    fn columns_are_in_select_star_order() {
        let t = sample_table();
        let names: Vec<_> = t.columns.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["p", "q", "c1", "c2", "s", "v"]);
        assert_eq!(t.partition_key, [0, 1]);
        assert_eq!(t.clustering_key, [2, 3]);
        assert_eq!(t.next_column_id, 6);
        assert_eq!(t.column("v").map(|c| c.id), Some(ColumnId(4)));
        assert_eq!(
            t.column_by_id(ColumnId(5)).map(|c| c.name.as_str()),
            Some("s")
        );
        assert_eq!(t.regular_and_static_columns().count(), 2);
        assert!(!t.is_counter_table());
        assert!(t.has_static_columns());
    }

    #[test]
    fn kind_and_order_spellings_round_trip() {
        for k in [
            ColumnKind::PartitionKey,
            ColumnKind::Clustering,
            ColumnKind::Regular,
            ColumnKind::Static,
        ] {
            assert_eq!(ColumnKind::parse(k.as_str()), Some(k));
        }
        for o in [
            ClusteringOrder::Asc,
            ClusteringOrder::Desc,
            ClusteringOrder::None,
        ] {
            assert_eq!(ClusteringOrder::parse(o.as_str()), Some(o));
        }
    }
}
