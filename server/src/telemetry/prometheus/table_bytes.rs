//! `storage_table_bytes{keyspace, table}`: the bytes each user table stores. Reading them
//! walks each table's B-tree pages (and looks up the memtable's rows), far too slow for every
//! scrape of a large store, so a scrape reuses the figures of the last [`MAX_AGE`] and takes
//! new ones only past it (scrapes run on the blocking pool).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::node::Node;

/// How long one reading of the table sizes serves scrapes.
pub(crate) const MAX_AGE: Duration = Duration::from_secs(30);

/// One table's stored bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableBytes {
    pub(crate) keyspace: String,
    pub(crate) table: String,
    pub(crate) bytes: u64,
}

/// The last reading and when it was taken.
#[derive(Debug, Default)]
pub(crate) struct TableBytesCache {
    last: Mutex<Option<(Instant, Vec<TableBytes>)>>,
}

impl TableBytesCache {
    /// Each user table's stored bytes, read again when the last reading is older than
    /// [`MAX_AGE`]. A table that cannot be read (dropped meanwhile) is left out.
    pub(crate) fn get(&self, node: &Node) -> Vec<TableBytes> {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((at, tables)) = last.as_ref() {
            if at.elapsed() < MAX_AGE {
                return tables.clone();
            }
        }
        let tables = read(node);
        *last = Some((Instant::now(), tables.clone()));
        tables
    }
}

fn read(node: &Node) -> Vec<TableBytes> {
    super::per_user_table(node, |snapshot, id| {
        snapshot.table_stats(id).map(|stats| stats.stored_bytes)
    })
    .into_iter()
    .map(|(keyspace, table, bytes)| TableBytes {
        keyspace,
        table,
        bytes,
    })
    .collect()
}
