//! Materialized-view definitions: what `CREATE MATERIALIZED VIEW` adds to the view's own
//! [`TableDef`](super::TableDef).
//!
//! A view is a table (its own id, columns, key and options) whose record carries a
//! [`ViewDef`]: the base table, whether it selected `*`, its WHERE clause as CQL text, and
//! the restrictions beyond `IS NOT NULL` the writer checks on each base row. A view's columns
//! keep the ids of the base columns they copy, so a base cell is stored in the view as it is.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The view side of a table that is a materialized view.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewDef {
    /// The base table's id.
    #[serde(with = "crate::catalog::uuid_text")]
    pub base_id: Uuid,
    /// The base table's name (same keyspace).
    pub base_name: String,
    /// `SELECT *`: columns added to the base later join the view.
    pub include_all_columns: bool,
    /// The WHERE clause as Cassandra shows it in `system_schema.views.where_clause`.
    pub where_clause: String,
    /// Restrictions on base primary-key columns other than `IS NOT NULL`.
    #[serde(default)]
    pub filters: Vec<ViewFilter>,
}

/// One restriction of a view's WHERE clause on a base primary-key column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ViewFilter {
    /// The restricted base column's id.
    pub column: u32,
    /// The comparison.
    pub op: ViewFilterOp,
    /// The serialized values compared with (one, or several for `IN`).
    pub values: Vec<Vec<u8>>,
}

/// The comparisons a view's WHERE clause may use on key columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ViewFilterOp {
    /// `=`
    Eq,
    /// `<`
    Lt,
    /// `<=`
    Lte,
    /// `>`
    Gt,
    /// `>=`
    Gte,
    /// `IN (...)`
    In,
}

impl ViewFilterOp {
    /// Whether a value ordered as `ordering` against the filter's value passes (for `In`,
    /// against one of its values).
    pub fn accepts(self, ordering: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            ViewFilterOp::Eq | ViewFilterOp::In => ordering == Equal,
            ViewFilterOp::Lt => ordering == Less,
            ViewFilterOp::Lte => ordering != Greater,
            ViewFilterOp::Gt => ordering == Greater,
            ViewFilterOp::Gte => ordering != Less,
        }
    }
}

impl super::TableDef {
    /// Whether this table is a materialized view.
    pub fn is_view(&self) -> bool {
        self.view.is_some()
    }
}

impl super::Catalog {
    /// The views of the base table `base_id`, by name.
    pub fn views_of(&self, base_id: Uuid) -> Vec<&std::sync::Arc<super::TableDef>> {
        self.keyspaces
            .values()
            .flat_map(|ks| ks.tables.values())
            .filter(|t| t.view.as_ref().is_some_and(|v| v.base_id == base_id))
            .collect()
    }
}
