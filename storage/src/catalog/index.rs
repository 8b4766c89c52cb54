//! Secondary-index definitions: what a `CREATE INDEX` adds to its table's [`TableDef`].
//!
//! The definition is part of the table's schema record; the index's entries live in their
//! own redb table (see `crate::index` and `DESIGN.md`).

use std::collections::BTreeMap;

use uuid::Uuid;

use super::ColumnDef;
use super::ColumnId;
use super::TableDef;

/// What part of the column an index covers (Cassandra's `IndexTarget.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexTargetKind {
    /// The column's value (non-collection columns).
    Simple,
    /// `keys(m)`: the keys of a non-frozen map.
    Keys,
    /// `values(c)`: the elements of a non-frozen list or set, the values of a non-frozen map.
    Values,
    /// `entries(m)`: the key/value pairs of a non-frozen map.
    Entries,
    /// `full(c)`: the whole value of a frozen collection.
    Full,
}

impl IndexTargetKind {
    /// The function name of the target in CQL (`keys`, `values`, `entries`, `full`); empty
    /// for a simple target.
    pub fn as_str(self) -> &'static str {
        match self {
            IndexTargetKind::Simple => "",
            IndexTargetKind::Keys => "keys",
            IndexTargetKind::Values => "values",
            IndexTargetKind::Entries => "entries",
            IndexTargetKind::Full => "full",
        }
    }

    /// Parses the [`as_str`](Self::as_str) spelling.
    pub fn parse(s: &str) -> Option<IndexTargetKind> {
        Some(match s {
            "" => IndexTargetKind::Simple,
            "keys" => IndexTargetKind::Keys,
            "values" => IndexTargetKind::Values,
            "entries" => IndexTargetKind::Entries,
            "full" => IndexTargetKind::Full,
            _ => return None,
        })
    }
}

/// One secondary index of a table.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexDef {
    /// Stable id; names the index's entry table, so a dropped and re-created index of the
    /// same name starts empty.
    pub id: Uuid,
    /// The index name, unique within the keyspace.
    pub name: String,
    /// The indexed column.
    pub column: ColumnId,
    /// Which part of the column is indexed.
    pub target: IndexTargetKind,
    /// The index class of a `CUSTOM` index (`class_name`), `None` for a built-in one.
    pub custom_class: Option<String>,
    /// The `WITH OPTIONS` of a custom index.
    pub options: BTreeMap<String, String>,
}

impl IndexDef {
    /// The target as Cassandra spells it in `system_schema.indexes.options['target']`:
    /// `v`, `keys(m)`, `values(l)`, `entries(m)`, `full(f)` (names quoted when needed).
    pub fn target_text(&self, column: &ColumnDef) -> String {
        let name = cql::types::maybe_quote(&column.name);
        match self.target {
            IndexTargetKind::Simple => name,
            kind => format!("{}({name})", kind.as_str()),
        }
    }
}

impl TableDef {
    /// The index called `name`, if this table has one.
    pub fn index(&self, name: &str) -> Option<&IndexDef> {
        self.indexes.iter().find(|i| i.name == name)
    }
}
