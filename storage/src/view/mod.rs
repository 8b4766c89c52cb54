//! Materialized views: each view row derived from its base row, written in the base write's
//! transaction.
//!
//! A view holds, for every base row, exactly the row [`view_row`] derives from it (and
//! nothing for a base row it filters out), so the writer keeps it by comparing the derivation
//! of the base row before and after each request: a view key that changed (a row moved
//! between view partitions) or vanished is removed, the new derivation is stored whole. The
//! derivation reads no clock: expiring data is copied with its expiry, so the view row dies
//! when the base data does.
//!
//! The writer cannot see the catalog, so each base table's view layouts are kept in the
//! `view_targets` table (base id -> JSON [`ViewTargets`]), written in the transaction that
//! changes them (`CatalogOp::PutViews`).

#[cfg(test)]
pub(crate) mod store_tests;

mod plan;
mod row;
mod type_json;

use std::sync::Arc;

use redb::ReadableTable;
use redb::TableError;
use redb::WriteTransaction;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::catalog::ClusteringOrder;
use crate::catalog::ColumnDef;
use crate::catalog::ColumnId;
use crate::catalog::ColumnKind;
use crate::catalog::TableDef;
use crate::catalog::TableParams;
use crate::catalog::ViewFilter;
use crate::error::StorageError;
use crate::store::tables::VIEW_TARGETS;

pub(crate) use plan::RequestChanges;
pub(crate) use plan::StoredState;
pub(crate) use plan::ViewPlan;
pub(crate) use row::view_row;
use type_json::TypeJson;

/// One column of a table layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct ColumnShape {
    id: u32,
    name: String,
    ty: TypeJson,
    kind: String,
    position: i32,
    order: String,
}

/// The columns of a base table or a view: what key building and row derivation need.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct TableShape {
    #[serde(with = "crate::catalog::uuid_text")]
    id: Uuid,
    columns: Vec<ColumnShape>,
    #[serde(default)]
    filters: Vec<ViewFilter>,
}

/// The persisted `view_targets` record of a base table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct ViewTargets {
    base: TableShape,
    views: Vec<TableShape>,
}

/// A base table and its views, as the writer uses them.
#[derive(Debug, Clone)]
pub(crate) struct ViewSet {
    /// The base table's columns and key.
    pub(crate) base: TableDef,
    /// Each view's columns and key, with its filters.
    pub(crate) views: Vec<(TableDef, Vec<ViewFilter>)>,
}

fn shape(table: &TableDef) -> TableShape {
    TableShape {
        id: table.id,
        columns: table
            .columns
            .iter()
            .map(|c| ColumnShape {
                id: c.id.0,
                name: c.name.clone(),
                ty: TypeJson::from_type(&c.ty),
                kind: c.kind.as_str().into(),
                position: c.position,
                order: c.order.as_str().into(),
            })
            .collect(),
        filters: table
            .view
            .as_ref()
            .map(|v| v.filters.clone())
            .unwrap_or_default(),
    }
}

fn table_of(shape: &TableShape) -> Result<TableDef, StorageError> {
    let bad = |what: &str| StorageError::corrupt(format!("view targets of {}: {what}", shape.id));
    let columns = shape
        .columns
        .iter()
        .map(|c| {
            Ok(ColumnDef {
                id: ColumnId(c.id),
                name: c.name.clone(),
                ty: c.ty.to_type()?,
                kind: ColumnKind::parse(&c.kind).ok_or_else(|| bad("column kind"))?,
                position: c.position,
                order: ClusteringOrder::parse(&c.order).ok_or_else(|| bad("clustering order"))?,
            })
        })
        .collect::<Result<Vec<_>, StorageError>>()?;
    Ok(TableDef::new(
        shape.id,
        "",
        "",
        columns,
        TableParams::default(),
    ))
}

/// The `view_targets` value for `base` and its `views` (`None`: no views, remove it).
pub(crate) fn encode_targets(base: &TableDef, views: &[Arc<TableDef>]) -> Option<Vec<u8>> {
    if views.is_empty() {
        return None;
    }
    let targets = ViewTargets {
        base: shape(base),
        views: views.iter().map(|v| shape(v)).collect(),
    };
    // Strings, numbers and byte lists always serialize.
    Some(serde_json::to_vec(&targets).unwrap_or_default())
}

fn decode_targets(base_id: Uuid, bytes: &[u8]) -> Result<ViewSet, StorageError> {
    let targets: ViewTargets = serde_json::from_slice(bytes)
        .map_err(|e| StorageError::corrupt(format!("view targets of {base_id}: {e}")))?;
    let views = targets
        .views
        .iter()
        .map(|v| Ok((table_of(v)?, v.filters.clone())))
        .collect::<Result<Vec<_>, StorageError>>()?;
    Ok(ViewSet {
        base: table_of(&targets.base)?,
        views,
    })
}

/// The views the writer keeps for `base_id` (`None` when it has none).
pub(crate) fn load_targets(
    txn: &WriteTransaction,
    base_id: Uuid,
) -> Result<Option<ViewSet>, StorageError> {
    let table = match txn.open_table(VIEW_TARGETS) {
        Ok(table) => table,
        Err(TableError::TableDoesNotExist(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let Some(value) = table.get(base_id.as_bytes().as_slice())? else {
        return Ok(None);
    };
    decode_targets(base_id, value.value()).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::tests::sample_table;

    #[test]
    fn targets_round_trip() {
        let base = sample_table();
        let mut view = sample_table();
        view.id = Uuid::from_u128(9);
        let bytes = encode_targets(&base, &[Arc::new(view.clone())]).unwrap();
        let set = decode_targets(base.id, &bytes).unwrap();
        assert_eq!(set.base.columns, base.columns);
        assert_eq!(set.views[0].0.columns, view.columns);
        assert_eq!(set.views[0].0.id, view.id);
        assert!(encode_targets(&base, &[]).is_none());
    }
}
