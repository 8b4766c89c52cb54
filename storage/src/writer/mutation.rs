//! Write requests ([`WriteBatch`]: row writes and catalog changes) and how one is applied
//! inside the writer's group transaction.
//!
//! A request is applied in two steps. `prepare` only reads: it checks every row write names a
//! live table, merges each update with the existing row and decodes whatever it needs, so a
//! corrupt row or unknown table fails that request alone before it has changed anything.
//! `apply` then writes; a redb error there (or any redb error at all) fails the whole group,
//! since the transaction may hold partial changes.

use std::collections::BTreeMap;
use std::sync::Arc;

use redb::ReadableTable;
use redb::WriteTransaction;
use uuid::Uuid;

use crate::catalog::persist;
use crate::catalog::persist::keyspace_key;
use crate::catalog::persist::table_key;
use crate::catalog::persist::type_key;
use crate::catalog::KeyspaceDef;
use crate::catalog::RoleDef;
use crate::catalog::TableDef;
use crate::catalog::UserTypeDef;
use crate::encoding::range_tombstone;
use crate::encoding::range_tombstone::RangeTombstone;
use crate::encoding::row;
use crate::encoding::row::StoredRow;
use crate::error::StorageError;
use crate::hash::fast::TableIds;
use crate::index::IndexChanges;
use crate::index::IndexPlan;
use crate::runs::stored::seal_large_head;
use crate::runs::stored::Head;
use crate::store::tables::data_table;
use crate::store::tables::rt_table_name;
use crate::store::tables::SCHEMA;
use crate::view::RequestChanges;
use crate::view::StoredState;
use crate::view::ViewPlan;
use crate::writer::counter;
use crate::writer::counter::CounterSource;
use crate::writer::counter::CounterWrite;

/// One write request: applied atomically, in one transaction with the other requests of its
/// group, and acknowledged once that transaction commits.
#[derive(Debug, Clone, Default)]
pub struct WriteBatch {
    /// Row writes, applied after the catalog changes.
    pub rows: Vec<RowWrite>,
    /// Catalog changes, applied first and in order.
    pub catalog: Vec<CatalogOp>,
    /// Range and partition deletions, applied in the same transaction.
    pub range_tombstones: Vec<RangeTombstoneWrite>,
    /// Counter increments and deletions, applied in order after the row writes
    /// (see [`crate::writer::counter`]).
    pub counters: Vec<CounterWrite>,
}

/// An update of one row, merged with the existing row inside the writer
/// (see [`row::merge`]).
#[derive(Debug, Clone)]
pub struct RowWrite {
    /// The table's id; the write fails with [`StorageError::UnknownTable`] if the catalog does
    /// not hold it (for example after `DROP TABLE`).
    pub table_id: Uuid,
    /// The row key, built by [`crate::encoding::key`].
    pub key: Vec<u8>,
    /// The cells, marker and deletion to merge in.
    pub update: StoredRow,
}

/// One range tombstone to add to a partition.
#[derive(Debug, Clone)]
pub struct RangeTombstoneWrite {
    /// The CQL table.
    pub table_id: Uuid,
    /// The partition prefix (token + partition key), as `encoding::key` builds it.
    pub partition: Vec<u8>,
    /// The deleted range, in clustering suffixes of that partition.
    pub tombstone: RangeTombstone,
}

/// A catalog change. The server applies the same change to its in-memory [`Catalog`](crate::Catalog)
/// once the write is acknowledged.
#[derive(Debug, Clone)]
pub enum CatalogOp {
    /// Creates or replaces a keyspace record; `tables` is ignored (tables are separate
    /// records).
    PutKeyspace(KeyspaceDef),
    /// Drops a keyspace: its record, its tables' records and their data.
    DropKeyspace(String),
    /// Creates or alters a table.
    PutTable(Arc<TableDef>),
    /// Drops a table's record and its data.
    DropTable {
        /// The keyspace name.
        keyspace: String,
        /// The table name.
        name: String,
        /// The table id (names its data table).
        id: Uuid,
    },
    /// Creates or alters a user-defined type.
    PutType(Arc<UserTypeDef>),
    /// Drops a user-defined type's record.
    DropType {
        /// The keyspace name.
        keyspace: String,
        /// The type name.
        name: String,
    },
    /// Deletes every row of a table.
    TruncateTable {
        /// The table id.
        id: Uuid,
    },
    /// Creates or alters a role.
    PutRole(RoleDef),
    /// Drops a role's record.
    DropRole(String),
    /// Sets the materialized views of a base table (after their `PutTable`/`DropTable` in
    /// the same request): the writer keeps them from then on, and builds new ones from the
    /// base rows stored. Empty `views`: the base has none left.
    PutViews {
        /// The base table as the request leaves it.
        base: Arc<TableDef>,
        /// Its views as the request leaves them.
        views: Vec<Arc<TableDef>>,
    },
}

/// Why applying a request failed.
#[derive(Debug)]
pub(crate) enum ApplyError {
    /// Only this request fails; the transaction is untouched by it.
    Request(StorageError),
    /// The transaction may hold partial changes: the whole group fails.
    Group(StorageError),
}

fn group_on_redb(e: StorageError) -> ApplyError {
    match e {
        StorageError::Corrupt { .. }
        | StorageError::UnknownTable { .. }
        | StorageError::InvalidKeyValue { .. }
        | StorageError::UnsupportedKeyType { .. } => ApplyError::Request(e),
        other => ApplyError::Group(other),
    }
}

/// What a prepared request will write.
#[derive(Default)]
struct Plan {
    /// Schema records to put (`Some`) or remove (`None`).
    schema: Vec<(String, Option<Vec<u8>>)>,
    /// Data tables to delete.
    delete_tables: Vec<Uuid>,
    /// Table ids that become live / dead, in order.
    table_changes: Vec<(Uuid, bool)>,
    /// Row values to write, by table then key (`None` removes the row).
    rows: BTreeMap<(Uuid, Vec<u8>), Option<Vec<u8>>>,
    /// Encoded tombstone lists by (table, partition prefix).
    range_tombstones: BTreeMap<(Uuid, Vec<u8>), Vec<u8>>,
    /// Secondary-index entries and index tables to write.
    index: IndexPlan,
    /// Materialized-view layouts to record.
    views: ViewPlan,
}

/// Applies one request in `txn`. `live_tables` is the set of table ids rows may be written
/// to; it is updated by the request's catalog changes. Returns the index entries written, for
/// the change feed once the transaction commits.
pub(crate) fn apply(
    txn: &WriteTransaction,
    live_tables: &mut TableIds,
    batch: &WriteBatch,
) -> Result<IndexChanges, ApplyError> {
    let plan = prepare(txn, live_tables, batch).map_err(group_on_redb)?;
    write(txn, live_tables, plan).map_err(ApplyError::Group)
}

/// A row or partition of one table: (table id, row key or partition prefix).
type TableKey = (Uuid, Vec<u8>);

/// Reads and checks everything one request will write, and plans it; writes nothing (see
/// the module doc).
fn prepare(
    txn: &WriteTransaction,
    live_tables: &TableIds,
    batch: &WriteBatch,
) -> Result<Plan, StorageError> {
    let mut plan = Plan::default();
    for op in &batch.catalog {
        prepare_catalog_op(txn, op, &mut plan)?;
    }
    // Rows as stored before this request, kept only for tables with indexes.
    let mut originals: BTreeMap<TableKey, Option<StoredRow>> = BTreeMap::new();
    // The live tables as this request's catalog changes leave them (copied only then).
    let changed;
    let live = if plan.table_changes.is_empty() {
        live_tables
    } else {
        changed = live_after(live_tables, &plan.table_changes);
        &changed
    };
    let mut merged = merge_rows(txn, live, batch, &mut plan, &mut originals)?;
    merge_counters(txn, live, batch, &plan, &mut merged)?;
    let lists = add_range_tombstones(txn, live, batch, &plan)?;
    let changes = RequestChanges {
        merged: &merged,
        originals: &originals,
        tombstones: &lists,
    };
    plan_view_rows(txn, &changes, &mut plan)?;
    plan_row_values(txn, merged, &originals, &mut plan)?;
    for (slot, list) in lists {
        plan.range_tombstones
            .insert(slot, range_tombstone::encode(&list));
    }
    Ok(plan)
}

/// The live tables once the request's catalog changes (`(id, alive)`, in order) are made.
fn live_after(live_tables: &TableIds, table_changes: &[(Uuid, bool)]) -> TableIds {
    let mut live = live_tables.clone();
    for (id, alive) in table_changes {
        if *alive {
            live.insert(*id);
        } else {
            live.remove(id);
        }
    }
    live
}

/// Merges each row write with the row as this request leaves it so far (its earlier writes,
/// else the stored row). Keeps the stored rows of tables with indexes or views in
/// `originals`.
fn merge_rows(
    txn: &WriteTransaction,
    live: &TableIds,
    batch: &WriteBatch,
    plan: &mut Plan,
    originals: &mut BTreeMap<TableKey, Option<StoredRow>>,
) -> Result<BTreeMap<TableKey, StoredRow>, StorageError> {
    let mut merged: BTreeMap<TableKey, StoredRow> = BTreeMap::new();
    for write in &batch.rows {
        if !live.contains(&write.table_id) {
            return Err(StorageError::UnknownTable { id: write.table_id });
        }
        let slot = (write.table_id, write.key.clone());
        let existing = match merged.remove(&slot) {
            Some(row) => Some(row),
            None => {
                let stored = read_row(txn, write.table_id, &write.key, plan)?;
                if !plan.index.targets(txn, write.table_id)?.is_empty()
                    || plan.views.views(txn, write.table_id)?.is_some()
                {
                    originals.insert(slot.clone(), stored.clone());
                }
                stored
            }
        };
        let row = match existing {
            Some(existing) => row::merge(existing, write.update.clone()),
            None => write.update.clone(),
        };
        merged.insert(slot, row);
    }
    Ok(merged)
}

/// Applies the request's counter writes, in order, to the merged rows (see
/// [`counter::apply_all`]).
fn merge_counters(
    txn: &WriteTransaction,
    live: &TableIds,
    batch: &WriteBatch,
    plan: &Plan,
    merged: &mut BTreeMap<TableKey, StoredRow>,
) -> Result<(), StorageError> {
    if batch.counters.is_empty() {
        return Ok(());
    }
    if let Some(write) = batch.counters.iter().find(|w| !live.contains(&w.table_id)) {
        return Err(StorageError::UnknownTable { id: write.table_id });
    }
    let mut source = TxnCounterSource { txn, plan, batch };
    counter::apply_all(&batch.counters, merged, &mut source)
}

/// Each partition's tombstone list with the request's range tombstones added.
fn add_range_tombstones(
    txn: &WriteTransaction,
    live: &TableIds,
    batch: &WriteBatch,
    plan: &Plan,
) -> Result<BTreeMap<TableKey, Vec<RangeTombstone>>, StorageError> {
    let mut lists: BTreeMap<TableKey, Vec<RangeTombstone>> = BTreeMap::new();
    for write in &batch.range_tombstones {
        if !live.contains(&write.table_id) {
            return Err(StorageError::UnknownTable { id: write.table_id });
        }
        let slot = (write.table_id, write.partition.clone());
        let mut list = match lists.remove(&slot) {
            Some(list) => list,
            None => read_tombstones(txn, write.table_id, &write.partition, plan)?,
        };
        range_tombstone::add(&mut list, write.tombstone.clone());
        lists.insert(slot, list);
    }
    Ok(lists)
}

/// Plans the materialized-view rows the request's changes derive.
fn plan_view_rows(
    txn: &WriteTransaction,
    changes: &RequestChanges<'_>,
    plan: &mut Plan,
) -> Result<(), StorageError> {
    let mut view_rows = BTreeMap::new();
    let mut views = std::mem::take(&mut plan.views);
    views.maintain(
        txn,
        changes,
        &mut PlanState { txn, plan: &*plan },
        &mut view_rows,
    )?;
    plan.views = views;
    plan.rows.extend(view_rows);
    Ok(())
}

/// Plans the merged rows' values (an empty row is removed) and their index entries.
fn plan_row_values(
    txn: &WriteTransaction,
    merged: BTreeMap<TableKey, StoredRow>,
    originals: &BTreeMap<TableKey, Option<StoredRow>>,
    plan: &mut Plan,
) -> Result<(), StorageError> {
    for (slot, row) in merged {
        if let Some(old) = originals.get(&slot) {
            let new = (!row.is_empty()).then_some(&row);
            plan.index
                .row_changed(txn, slot.0, &slot.1, old.as_ref(), new)?;
        }
        let value = (!row.is_empty()).then(|| row::encode(&row));
        plan.rows.insert(slot, value);
    }
    Ok(())
}

/// The current row, unless this request truncates or drops its table first.
fn read_row(
    txn: &WriteTransaction,
    table_id: Uuid,
    key: &[u8],
    plan: &Plan,
) -> Result<Option<StoredRow>, StorageError> {
    if plan.delete_tables.contains(&table_id) {
        return Ok(None);
    }
    let value = crate::runs::stored::get(txn, table_id, key)?;
    value.map(|v| row::decode_shared(&v)).transpose()
}

/// The stored state before a request, for view maintenance.
struct PlanState<'a> {
    txn: &'a WriteTransaction,
    plan: &'a Plan,
}

impl StoredState for PlanState<'_> {
    fn row(&mut self, table_id: Uuid, key: &[u8]) -> Result<Option<StoredRow>, StorageError> {
        read_row(self.txn, table_id, key, self.plan)
    }

    fn tombstones(
        &mut self,
        table_id: Uuid,
        prefix: &[u8],
    ) -> Result<Vec<RangeTombstone>, StorageError> {
        read_tombstones(self.txn, table_id, prefix, self.plan)
    }
}

/// Stored rows and tombstones for counter writes, with the request's own range tombstones.
struct TxnCounterSource<'a> {
    txn: &'a WriteTransaction,
    plan: &'a Plan,
    batch: &'a WriteBatch,
}

impl CounterSource for TxnCounterSource<'_> {
    fn row(&mut self, table_id: Uuid, key: &[u8]) -> Result<Option<StoredRow>, StorageError> {
        read_row(self.txn, table_id, key, self.plan)
    }

    fn tombstones(
        &mut self,
        table_id: Uuid,
        partition: &[u8],
    ) -> Result<Vec<RangeTombstone>, StorageError> {
        let mut list = read_tombstones(self.txn, table_id, partition, self.plan)?;
        list.extend(
            self.batch
                .range_tombstones
                .iter()
                .filter(|w| w.table_id == table_id && w.partition == partition)
                .map(|w| w.tombstone.clone()),
        );
        Ok(list)
    }
}

fn read_tombstones(
    txn: &WriteTransaction,
    table_id: Uuid,
    partition: &[u8],
    plan: &Plan,
) -> Result<Vec<RangeTombstone>, StorageError> {
    if plan.delete_tables.contains(&table_id) {
        return Ok(Vec::new());
    }
    crate::store::tables::stored_range_tombstones(txn, table_id, partition)
}

fn prepare_catalog_op(
    txn: &WriteTransaction,
    op: &CatalogOp,
    plan: &mut Plan,
) -> Result<(), StorageError> {
    match op {
        CatalogOp::PutKeyspace(ks) => plan
            .schema
            .push((keyspace_key(&ks.name), Some(persist::encode_keyspace(ks)))),
        CatalogOp::DropKeyspace(name) => plan_drop_keyspace(txn, name, plan)?,
        CatalogOp::PutType(t) => plan.schema.push((
            type_key(&t.keyspace, &t.name),
            Some(persist::encode_type(t)),
        )),
        CatalogOp::DropType { keyspace, name } => {
            plan.schema.push((type_key(keyspace, name), None));
        }
        CatalogOp::PutTable(t) => {
            plan.schema.push((
                table_key(&t.keyspace, &t.name),
                Some(persist::encode_table(t)),
            ));
            let cleared = plan.delete_tables.contains(&t.id);
            plan.index.put_table(txn, t, cleared)?;
            plan.table_changes.push((t.id, true));
        }
        CatalogOp::DropTable { keyspace, name, id } => {
            plan.schema.push((table_key(keyspace, name), None));
            plan.index.drop_table(txn, *id)?;
            plan.views.drop_base(*id);
            plan.delete_tables.push(*id);
            plan.table_changes.push((*id, false));
        }
        CatalogOp::PutViews { base, views } => {
            let cleared = plan.delete_tables.contains(&base.id);
            plan.views
                .put_views(txn, base, views, cleared, &mut plan.rows)?;
        }
        CatalogOp::TruncateTable { id } => {
            plan.index.truncate(txn, *id)?;
            plan.delete_tables.push(*id);
        }
        CatalogOp::PutRole(role) => plan.schema.push((
            crate::catalog::role::role_key(&role.name),
            Some(crate::catalog::role::encode_role(role)),
        )),
        CatalogOp::DropRole(name) => {
            plan.schema
                .push((crate::catalog::role::role_key(name), None));
        }
    }
    Ok(())
}

/// Plans dropping keyspace `name`: its record, its tables (records, indexes, views and
/// data) and its user types' records.
fn plan_drop_keyspace(
    txn: &WriteTransaction,
    name: &str,
    plan: &mut Plan,
) -> Result<(), StorageError> {
    plan.schema.push((keyspace_key(name), None));
    for (key, id) in tables_of_keyspace(txn, name)? {
        plan.schema.push((key, None));
        plan.index.drop_table(txn, id)?;
        plan.views.drop_base(id);
        plan.delete_tables.push(id);
        plan.table_changes.push((id, false));
    }
    for key in types_of_keyspace(txn, name)? {
        plan.schema.push((key, None));
    }
    Ok(())
}

/// The schema keys and ids of the tables recorded under keyspace `name`.
fn tables_of_keyspace(
    txn: &WriteTransaction,
    name: &str,
) -> Result<Vec<(String, Uuid)>, StorageError> {
    let schema = txn.open_table(SCHEMA)?;
    let prefix = table_key(name, "");
    let mut out = Vec::new();
    for entry in schema.range(prefix.as_str()..)? {
        let (key, value) = entry?;
        let key = key.value();
        if !key.starts_with(&prefix) {
            break;
        }
        let record = persist::parse_table_record(key, value.value())?;
        let id = Uuid::parse_str(&record.id)
            .map_err(|e| StorageError::corrupt(format!("schema record {key:?}: {e}")))?;
        out.push((key.to_string(), id));
    }
    Ok(out)
}

/// The schema keys of the user types recorded under keyspace `name`.
fn types_of_keyspace(txn: &WriteTransaction, name: &str) -> Result<Vec<String>, StorageError> {
    let schema = txn.open_table(SCHEMA)?;
    let prefix = type_key(name, "");
    let mut out = Vec::new();
    for entry in schema.range(prefix.as_str()..)? {
        let (key, _) = entry?;
        let key = key.value();
        if !key.starts_with(&prefix) {
            break;
        }
        out.push(key.to_string());
    }
    Ok(out)
}

fn write(
    txn: &WriteTransaction,
    live_tables: &mut TableIds,
    plan: Plan,
) -> Result<IndexChanges, StorageError> {
    if !plan.schema.is_empty() {
        let mut schema = txn.open_table(SCHEMA)?;
        for (key, value) in &plan.schema {
            match value {
                Some(v) => {
                    schema.insert(key.as_str(), v.as_slice())?;
                }
                None => {
                    schema.remove(key.as_str())?;
                }
            }
        }
    }
    for id in &plan.delete_tables {
        crate::runs::stored::delete_all(txn, *id)?;
        let rt_name = rt_table_name(*id);
        txn.delete_table(data_table(&rt_name))?;
    }
    for ((table_id, partition), value) in &plan.range_tombstones {
        let name = rt_table_name(*table_id);
        let mut table = txn.open_table(data_table(&name))?;
        table.insert(partition.as_slice(), value.as_slice())?;
    }
    for (id, alive) in plan.table_changes {
        if alive {
            live_tables.insert(id);
        } else {
            live_tables.remove(&id);
        }
    }
    let mut open: Option<(Uuid, Head<'_>)> = None;
    let mut written = Vec::new();
    for ((table_id, key), value) in plan.rows {
        let head = match &mut open {
            Some((id, head)) if *id == table_id => head,
            slot => {
                *slot = None;
                written.push(table_id);
                &mut slot.insert((table_id, Head::open(txn, table_id)?)).1
            }
        };
        head.put(&key, value.as_deref())?;
    }
    drop(open);
    for table_id in written {
        seal_large_head(txn, table_id)?;
    }
    plan.views.write(txn)?;
    plan.index.write(txn)
}
