//! Hot partitions: the share of a table's recent writes each partition takes, and the
//! key-design warning when one partition takes too much of it.
//!
//! The seeds' rule (GeminiDB Cassandra API, "primary key design"): data is placed by the
//! first primary-key column, so a monotonic or low-cardinality first key (a timestamp, an
//! auto-increment, a status) sends every write to one partition — one node in a cluster —
//! while the others idle; hash or bucket it (`pk1 = hash(pk).substring(0,4) + pk`). Cassandra
//! says nothing until that node falls over; here a table's writes are counted in windows of
//! `hot_partition_window` partition writes, and the write that takes one partition past
//! `hot_partition_warn_share` of the window gets a client warning (once per table and window).
//! The last full window's hottest partitions are shown by `system_views.key_distribution`.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use bytes::Bytes;
use storage::TableDef;
use storage::{BuildFastHasher, FastHasher};
use uuid::Uuid;

/// How many of a window's hottest partitions are remembered.
const TOP: usize = 3;

/// The tracker, shared by every connection.
pub(crate) struct HotPartitions {
    /// Partition writes per window; 0 turns tracking off.
    window: u64,
    /// The share of a window past which a partition is hot; off unless in (0, 1].
    share: f64,
    /// Seeds partition-key hashes, so no client can choose keys that collide.
    seed: u64,
    tables: Mutex<HashMap<Uuid, Window, BuildFastHasher>>,
}

/// One table's current window and the last full one.
#[derive(Default)]
struct Window {
    total: u64,
    counts: HashMap<u64, u64, BuildFastHasher>,
    /// The hottest partitions of this window so far: hash, writes, key values.
    top: Vec<(u64, u64, Vec<Bytes>)>,
    warned: bool,
    /// The last full window.
    last: Option<LastWindow>,
}

/// A full window's hottest partitions.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LastWindow {
    /// The hottest partitions' key values and writes, hottest first.
    pub top: Vec<(Vec<Bytes>, u64)>,
    /// The window's partition writes.
    pub writes: u64,
}

/// A hot partition just found: the warning's facts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Hot {
    /// The partition-key values.
    pub key: Vec<Bytes>,
    /// Its writes in the window.
    pub writes: u64,
    /// The table's partition writes in the window so far (this one included).
    pub total: u64,
}

impl HotPartitions {
    /// A tracker counting windows of `window` partition writes, hot past `share` of one.
    pub(crate) fn new(window: u64, share: f64) -> HotPartitions {
        HotPartitions {
            window,
            share,
            seed: std::hash::BuildHasher::hash_one(&std::hash::RandomState::new(), window),
            tables: Mutex::new(HashMap::default()),
        }
    }

    fn enabled(&self) -> bool {
        self.window > 0 && self.share > 0.0 && self.share <= 1.0
    }

    /// Counts one write to the partition `key` of `table`; returns the partition when this
    /// write made it hot (at most once per table and window).
    pub(crate) fn record(&self, table: Uuid, key: &[Bytes]) -> Option<Hot> {
        if !self.enabled() {
            return None;
        }
        let mut hasher = FastHasher::seeded(self.seed);
        key.hash(&mut hasher);
        let hash = hasher.finish();
        let mut tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        let window = tables.entry(table).or_default();
        let count = window.counts.entry(hash).or_insert(0);
        *count += 1;
        let writes = *count;
        window.total += 1;
        window.note_top(hash, writes, key);
        let threshold = (self.share * self.window as f64).ceil() as u64;
        let hot = (!window.warned && writes >= threshold.max(2)).then(|| {
            window.warned = true;
            Hot {
                key: key.to_vec(),
                writes,
                total: window.total,
            }
        });
        if window.total >= self.window {
            window.roll();
        }
        hot
    }

    /// Forgets every table's counts (a reset or restore replaced the tables).
    pub(crate) fn clear(&self) {
        self.tables
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// The last full window of `table`; `None` before a window has filled.
    pub(crate) fn last_window(&self, table: Uuid) -> Option<LastWindow> {
        let tables = self.tables.lock().unwrap_or_else(|p| p.into_inner());
        tables.get(&table).and_then(|w| w.last.clone())
    }
}

/// The warning for a hot partition of `table`: its key, its share of the window, and the
/// key design that spreads the writes.
pub(crate) fn warning(table: &TableDef, hot: &Hot) -> String {
    let percent = hot.writes * 100 / hot.total.max(1);
    format!(
        "Hot partition: {}.{} partition ({}) took {} of the table's last {} partition writes \
         ({percent} %). One partition receiving most writes is a hot spot (in a cluster, one \
         node does the work), as a monotonic or low-cardinality first key column (a time, a \
         counter, a status) makes it; hash or bucket that column to spread the writes \
         (GeminiDB Cassandra API key design: pk1 = hash(pk).substring(0,4) + pk).",
        table.keyspace,
        table.name,
        key_text(table, &hot.key),
        hot.writes,
        hot.total,
    )
}

/// `k1 = v1, k2 = v2`: partition-key values as CQL literals.
pub(crate) fn key_text(table: &TableDef, key: &[Bytes]) -> String {
    key_literals(table, key)
        .map(|(name, literal)| format!("{name} = {literal}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each partition-key column's name with its value in `key` as a CQL literal.
pub(crate) fn key_literals<'a>(
    table: &'a TableDef,
    key: &'a [Bytes],
) -> impl Iterator<Item = (&'a str, String)> + 'a {
    table
        .partition_key_columns()
        .zip(key)
        .map(|(column, value)| {
            let bytes = cql::frame::request::Value::Bytes(value.clone());
            let literal = crate::telemetry::trace::literal::bound_value(&column.ty, Some(&bytes));
            (column.name.as_str(), literal)
        })
}

impl Window {
    /// Keeps `hash` among the window's hottest partitions when it is one.
    fn note_top(&mut self, hash: u64, writes: u64, key: &[Bytes]) {
        if let Some(entry) = self.top.iter_mut().find(|(h, _, _)| *h == hash) {
            entry.1 = writes;
        } else if self.top.len() < TOP {
            self.top.push((hash, writes, key.to_vec()));
        } else if let Some(least) = self.top.iter_mut().min_by_key(|(_, w, _)| *w) {
            if writes > least.1 {
                *least = (hash, writes, key.to_vec());
            }
        }
    }

    /// Ends the window: its hottest partitions are kept, the counts start again.
    fn roll(&mut self) {
        let mut top: Vec<(Vec<Bytes>, u64)> = self
            .top
            .drain(..)
            .map(|(_, writes, key)| (key, writes))
            .collect();
        top.sort_by_key(|(_, writes)| std::cmp::Reverse(*writes));
        self.last = Some(LastWindow {
            top,
            writes: self.total,
        });
        self.total = 0;
        self.counts.clear();
        self.warned = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Uuid {
        Uuid::from_u128(7)
    }

    fn key(n: i32) -> Vec<Bytes> {
        vec![Bytes::copy_from_slice(&n.to_be_bytes())]
    }

    #[test]
    fn a_partition_past_the_share_is_reported_once_per_window() {
        let hot = HotPartitions::new(10, 0.5);
        let table = table();
        let mut found = Vec::new();
        for i in 0..20 {
            // Partition 7 takes every other write (and write 7).
            let k = if i % 2 == 0 { 7 } else { i };
            found.extend(hot.record(table, &key(k)));
        }
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].key, key(7));
        assert_eq!((found[0].writes, found[0].total), (5, 8));
        let last = hot.last_window(table).unwrap();
        assert_eq!(last.writes, 10);
        assert_eq!(last.top[0], (key(7), 5));
    }

    #[test]
    fn evenly_spread_writes_are_never_hot() {
        let hot = HotPartitions::new(100, 0.2);
        let table = table();
        assert!((0..1000).all(|i| hot.record(table, &key(i % 50)).is_none()));
    }

    #[test]
    fn a_share_outside_zero_to_one_turns_it_off() {
        let hot = HotPartitions::new(10, -1.0);
        let table = table();
        assert!((0..100).all(|_| hot.record(table, &key(1)).is_none()));
        assert!(hot.last_window(table).is_none());
    }
}
