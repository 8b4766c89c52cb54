//! One read transaction shared by every read that begins between two commits, with the
//! tables it opened: a point read then costs a lookup, not a `begin_read` and two table opens
//! by name. The writer invalidates the view after each commit and before acknowledging it,
//! so a read that begins after an acknowledgement always sees that write.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use redb::ReadTransaction;
use redb::TableError;
use uuid::Uuid;

use crate::encoding::row;
use crate::encoding::row::StoredRow;
use crate::error::StorageError;
use crate::hash::bloom::stored_key_hash;
use crate::runs::cache::BlockCache;
use crate::runs::filter;
use crate::runs::filter::RunFilter;
use crate::runs::manifest;
use crate::runs::manifest::RunMeta;
use crate::runs::read::lookup;
use crate::runs::run_table_name;
use crate::runs::HEAD_DELETED;
use crate::store::locking::lock;
use crate::store::tables::data_table;
use crate::store::tables::data_table_name;
use crate::store::tables::rt_table_name;
use crate::store::tables::ReadOnlyDataTable;

/// Which of a CQL table's redb tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum TableKind {
    /// `data_<id>`: the rows.
    Data,
    /// `rt_<id>`: the range tombstones.
    RangeTombstones,
}

/// Tables opened in a view, by kind and CQL table id (`None`: the table does not exist).
type OpenTables = HashMap<(TableKind, Uuid), Option<Arc<ReadOnlyDataTable>>>;

/// A run opened in a view: its manifest entry, its table and its filter.
pub(crate) struct OpenRun {
    pub(crate) meta: RunMeta,
    pub(crate) table: ReadOnlyDataTable,
    pub(crate) filter: RunFilter,
}

/// A table's runs opened in a view, newest first.
pub(crate) type OpenRuns = Arc<Vec<OpenRun>>;

/// A read transaction and the tables opened in it.
pub(crate) struct View {
    pub(crate) txn: ReadTransaction,
    /// The store's decoded blocks, shared by every view.
    blocks: Arc<BlockCache>,
    tables: Mutex<OpenTables>,
    runs: Mutex<HashMap<Uuid, OpenRuns>>,
}

impl View {
    fn new(txn: ReadTransaction, blocks: Arc<BlockCache>) -> View {
        View {
            txn,
            blocks,
            tables: Mutex::new(HashMap::new()),
            runs: Mutex::new(HashMap::new()),
        }
    }

    /// The runs of CQL table `id`, opened once per view.
    ///
    /// # Errors
    /// redb errors; a corrupt manifest or filter.
    pub(crate) fn runs(&self, id: Uuid) -> Result<OpenRuns, StorageError> {
        if let Some(runs) = lock(&self.runs).get(&id) {
            return Ok(runs.clone());
        }
        let mut opened = Vec::new();
        for meta in manifest::read(&self.txn, id)? {
            let table = self.txn.open_table(data_table(&run_table_name(meta.id)))?;
            let filter = filter::in_read(&self.txn, meta.id)?;
            opened.push(OpenRun {
                meta,
                table,
                filter,
            });
        }
        let opened = Arc::new(opened);
        lock(&self.runs).insert(id, opened.clone());
        Ok(opened)
    }

    /// The table `kind` of CQL table `id`, opened once per view.
    ///
    /// # Errors
    /// redb errors opening it.
    pub(crate) fn table(
        &self,
        kind: TableKind,
        id: Uuid,
    ) -> Result<Option<Arc<ReadOnlyDataTable>>, StorageError> {
        if let Some(table) = lock(&self.tables).get(&(kind, id)) {
            return Ok(table.clone());
        }
        let name = match kind {
            TableKind::Data => data_table_name(id),
            TableKind::RangeTombstones => rt_table_name(id),
        };
        let table = match self.txn.open_table(data_table(&name)) {
            Ok(table) => Some(Arc::new(table)),
            Err(TableError::TableDoesNotExist(_)) => None,
            Err(e) => return Err(e.into()),
        };
        lock(&self.tables).insert((kind, id), table.clone());
        Ok(table)
    }
}

/// A stored value: the head's, or a run's.
pub(crate) enum Stored {
    Head(redb::AccessGuard<'static, &'static [u8]>),
    Run(bytes::Bytes),
}

impl Stored {
    /// The value's length in bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            Stored::Head(value) => value.value().len(),
            Stored::Run(value) => value.len(),
        }
    }

    /// The row it holds.
    ///
    /// # Errors
    /// [`StorageError::Corrupt`] if it does not decode.
    pub(crate) fn decode(&self) -> Result<StoredRow, StorageError> {
        match self {
            Stored::Head(value) => decode_head(value.value()),
            Stored::Run(value) => row::decode_shared(value),
        }
    }
}

/// Rows up to this size are copied out of redb once and their cells share the copy; larger
/// ones cell by cell, so a kept cell never holds a large unread one in memory.
const SHARED_ROW_MAX: usize = 4096;

/// A row read from a head.
fn decode_head(value: &[u8]) -> Result<StoredRow, StorageError> {
    if value.len() <= SHARED_ROW_MAX {
        row::decode_shared(&bytes::Bytes::copy_from_slice(value))
    } else {
        row::decode(value)
    }
}

impl View {
    /// The stored value of CQL table `table_id` under `key`: the head's, else the newest
    /// run's (skipping runs whose span or filter rule the key out); `None` when absent or
    /// deleted. Every read of one stored row goes through here.
    ///
    /// # Errors
    /// redb errors; a corrupt block, manifest or filter.
    pub(crate) fn stored(
        &self,
        table_id: Uuid,
        key: &[u8],
    ) -> Result<Option<Stored>, StorageError> {
        if let Some(table) = self.table(TableKind::Data, table_id)? {
            if let Some(value) = table.get(key)? {
                if value.value() == HEAD_DELETED {
                    return Ok(None);
                }
                return Ok(Some(Stored::Head(value)));
            }
        }
        let runs = self.runs(table_id)?;
        if runs.is_empty() {
            return Ok(None);
        }
        let hash = stored_key_hash(key);
        for run in runs.iter() {
            if !run.meta.spans(key) || !run.filter.may_hold(hash) {
                continue;
            }
            if let Some(entry) = lookup(&run.table, key, Some((&self.blocks, run.meta.id)))? {
                return Ok(entry.map(Stored::Run));
            }
        }
        Ok(None)
    }
}

/// The current shared view, replaced after every commit.
pub(crate) struct ViewCache {
    /// Bumped by every commit.
    generation: AtomicU64,
    current: Mutex<Option<(u64, Arc<View>)>>,
    /// Decoded blocks, shared by every view.
    blocks: Arc<BlockCache>,
}

impl ViewCache {
    /// No view yet; views share a block cache of `block_cache_size` bytes.
    pub(crate) fn new(block_cache_size: usize) -> ViewCache {
        ViewCache {
            generation: AtomicU64::new(0),
            current: Mutex::new(None),
            blocks: Arc::new(BlockCache::new(block_cache_size)),
        }
    }

    /// The view for a read beginning now: the shared one unless a commit came since.
    ///
    /// # Errors
    /// redb errors beginning a read transaction.
    pub(crate) fn view(
        &self,
        begin: impl FnOnce() -> Result<ReadTransaction, StorageError>,
    ) -> Result<Arc<View>, StorageError> {
        let generation = self.generation.load(Ordering::Acquire);
        let mut current = lock(&self.current);
        if let Some((made, view)) = current.as_ref() {
            if *made == generation {
                return Ok(view.clone());
            }
        }
        let view = Arc::new(View::new(begin()?, self.blocks.clone()));
        *current = Some((generation, view.clone()));
        Ok(view)
    }

    /// A commit happened: later reads need a new transaction. Also lets the old one go, so
    /// it does not keep pages from being reused while no read comes.
    pub(crate) fn invalidate(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
        drop(lock(&self.current).take());
    }
}
