//! The stored form of a named snapshot (`snapshots` table, keyed by name):
//!
//! ```text
//! record  := version:u8 (=1) id:16 created_at_micros:i64
//!            schema_count:u32 (key_len:u32 key value_len:u32 value)*
//!            index_target_count:u32 (table_id:16 len:u32 json)*
//!            view_target_count:u32 (table_id:16 len:u32 json)*
//!            table_count:u32 table*
//! table   := table_id:16 manifest_len:u32 manifest (runs::manifest::encode)
//!            range_tombstones:u8 (1: a copy exists) index_count:u32 index_id:16*
//! ```
//!
//! Big-endian. `schema` holds every record of the `schema` table (keyspaces, tables, types,
//! roles) as it was; the copies of the range-tombstone and index tables are the redb tables
//! [`copy_name`] names.

use uuid::Uuid;

use crate::error::StorageError;
use crate::runs::manifest;
use crate::runs::manifest::RunMeta;

/// The version [`SnapshotRecord::encode`] writes.
const VERSION: u8 = 1;

/// One table's stored state in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableState {
    /// The CQL table (or view) id.
    pub(crate) id: Uuid,
    /// Its runs as the manifest listed them, newest first (its head was sealed into the
    /// newest one).
    pub(crate) runs: Vec<RunMeta>,
    /// Whether its range tombstones were copied (it had some).
    pub(crate) range_tombstones: bool,
    /// The indexes whose entry tables were copied.
    pub(crate) indexes: Vec<Uuid>,
}

/// A snapshot as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SnapshotRecord {
    /// Names the snapshot's copies of mutable tables (never reused).
    pub(crate) id: Uuid,
    /// When it was taken (the caller's clock), in microseconds since the epoch.
    pub(crate) created_at_micros: i64,
    /// Every `schema` record: keyspaces, tables, types and roles.
    pub(crate) schema: Vec<(String, Vec<u8>)>,
    /// Every `index_targets` record.
    pub(crate) index_targets: Vec<(Uuid, Vec<u8>)>,
    /// Every `view_targets` record.
    pub(crate) view_targets: Vec<(Uuid, Vec<u8>)>,
    /// Every live table's stored state.
    pub(crate) tables: Vec<TableState>,
}

/// Which copy a snapshot keeps of a mutable table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CopyOf {
    /// The range tombstones of a CQL table.
    RangeTombstones(Uuid),
    /// The entries of an index.
    Index(Uuid),
}

/// The redb table holding snapshot `snapshot`'s copy of `of`.
pub(crate) fn copy_name(snapshot: Uuid, of: CopyOf) -> String {
    match of {
        CopyOf::RangeTombstones(id) => format!("snap_{}_rt_{}", snapshot.simple(), id.simple()),
        CopyOf::Index(id) => format!("snap_{}_index_{}", snapshot.simple(), id.simple()),
    }
}

impl SnapshotRecord {
    /// The stored form.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = vec![VERSION];
        out.extend_from_slice(self.id.as_bytes());
        out.extend_from_slice(&self.created_at_micros.to_be_bytes());
        put_len(&mut out, self.schema.len());
        for (key, value) in &self.schema {
            put_bytes(&mut out, key.as_bytes());
            put_bytes(&mut out, value);
        }
        for records in [&self.index_targets, &self.view_targets] {
            put_len(&mut out, records.len());
            for (id, value) in records {
                out.extend_from_slice(id.as_bytes());
                put_bytes(&mut out, value);
            }
        }
        put_len(&mut out, self.tables.len());
        for table in &self.tables {
            out.extend_from_slice(table.id.as_bytes());
            put_bytes(&mut out, &manifest::encode(&table.runs));
            out.push(u8::from(table.range_tombstones));
            put_len(&mut out, table.indexes.len());
            for index in &table.indexes {
                out.extend_from_slice(index.as_bytes());
            }
        }
        out
    }

    /// Reads [`SnapshotRecord::encode`] back.
    ///
    /// # Errors
    /// [`StorageError::Corrupt`] for anything else.
    pub(crate) fn decode(bytes: &[u8]) -> Result<SnapshotRecord, StorageError> {
        let mut r = Reader(bytes);
        if r.take(1)? != [VERSION] {
            return Err(StorageError::corrupt("snapshot record version"));
        }
        let id = r.uuid()?;
        let created_at_micros = i64::from_be_bytes(r.array()?);
        let mut schema = Vec::new();
        for _ in 0..r.u32()? {
            let key = std::str::from_utf8(r.bytes()?)
                .map_err(|_| StorageError::corrupt("snapshot schema key"))?
                .to_string();
            schema.push((key, r.bytes()?.to_vec()));
        }
        let mut targets = [Vec::new(), Vec::new()];
        for records in &mut targets {
            for _ in 0..r.u32()? {
                records.push((r.uuid()?, r.bytes()?.to_vec()));
            }
        }
        let [index_targets, view_targets] = targets;
        let mut tables = Vec::new();
        for _ in 0..r.u32()? {
            let id = r.uuid()?;
            let runs = manifest::decode(r.bytes()?)?;
            let range_tombstones = r.take(1)? == [1];
            let indexes = (0..r.u32()?)
                .map(|_| r.uuid())
                .collect::<Result<Vec<_>, _>>()?;
            tables.push(TableState {
                id,
                runs,
                range_tombstones,
                indexes,
            });
        }
        if !r.0.is_empty() {
            return Err(StorageError::corrupt(
                "trailing bytes after a snapshot record",
            ));
        }
        Ok(SnapshotRecord {
            id,
            created_at_micros,
            schema,
            index_targets,
            view_targets,
            tables,
        })
    }

    /// The user keyspaces it holds, by name.
    pub(crate) fn keyspaces(&self) -> Vec<String> {
        self.schema
            .iter()
            .filter_map(|(key, _)| key.strip_prefix("keyspace/"))
            .map(str::to_string)
            .collect()
    }

    /// How many tables (views included) it holds.
    pub(crate) fn table_count(&self) -> usize {
        self.schema
            .iter()
            .filter(|(key, _)| key.starts_with("table/"))
            .count()
    }

    /// Every copy of a mutable table it keeps.
    pub(crate) fn copies(&self) -> impl Iterator<Item = CopyOf> + '_ {
        self.tables.iter().flat_map(|t| {
            let rt = t.range_tombstones.then_some(CopyOf::RangeTombstones(t.id));
            rt.into_iter()
                .chain(t.indexes.iter().map(|&i| CopyOf::Index(i)))
        })
    }
}

fn put_len(out: &mut Vec<u8>, len: usize) {
    // Counts and lengths of what a redb value holds fit in u32 (a value is at most 3 GiB).
    out.extend_from_slice(&u32::try_from(len).unwrap_or(u32::MAX).to_be_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_len(out, bytes.len());
    out.extend_from_slice(bytes);
}

/// Reads a record front to back; every shortfall is corruption.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], StorageError> {
        if self.0.len() < n {
            return Err(StorageError::corrupt("snapshot record cut short"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], StorageError> {
        let bytes = self.take(N)?;
        bytes
            .try_into()
            .map_err(|_| StorageError::corrupt("snapshot record cut short"))
    }

    fn u32(&mut self) -> Result<u32, StorageError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    fn uuid(&mut self) -> Result<Uuid, StorageError> {
        Ok(Uuid::from_bytes(self.array()?))
    }

    fn bytes(&mut self) -> Result<&'a [u8], StorageError> {
        let len = self.u32()? as usize;
        self.take(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SnapshotRecord {
        let run = RunMeta {
            rows: 3,
            first_key: vec![1, 2],
            last_key: vec![9],
            ..RunMeta::empty(Uuid::from_u128(5))
        };
        SnapshotRecord {
            id: Uuid::from_u128(1),
            created_at_micros: -42,
            schema: vec![
                ("keyspace/ks".into(), b"{}".to_vec()),
                ("role/cassandra".into(), b"{}".to_vec()),
                ("table/ks/t".into(), b"{\"id\":1}".to_vec()),
                ("table/ks/v".into(), b"{\"id\":2}".to_vec()),
            ],
            index_targets: vec![(Uuid::from_u128(2), b"[]".to_vec())],
            view_targets: Vec::new(),
            tables: vec![
                TableState {
                    id: Uuid::from_u128(2),
                    runs: vec![run],
                    range_tombstones: true,
                    indexes: vec![Uuid::from_u128(7)],
                },
                TableState {
                    id: Uuid::from_u128(3),
                    runs: Vec::new(),
                    range_tombstones: false,
                    indexes: Vec::new(),
                },
            ],
        }
    }

    #[test]
    fn a_record_round_trips_and_lists_what_it_holds() {
        let record = sample();
        let decoded = SnapshotRecord::decode(&record.encode()).unwrap();
        assert_eq!(decoded, record);
        assert_eq!(decoded.keyspaces(), ["ks"]);
        assert_eq!(decoded.table_count(), 2);
        assert_eq!(
            decoded.copies().collect::<Vec<_>>(),
            [
                CopyOf::RangeTombstones(Uuid::from_u128(2)),
                CopyOf::Index(Uuid::from_u128(7))
            ]
        );
    }

    #[test]
    fn damaged_records_are_corruption() {
        let bytes = sample().encode();
        for cut in [0, 1, 20, bytes.len() - 1] {
            assert!(matches!(
                SnapshotRecord::decode(&bytes[..cut]),
                Err(StorageError::Corrupt { .. })
            ));
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(SnapshotRecord::decode(&longer).is_err());
        let mut version = bytes;
        version[0] = 9;
        assert!(SnapshotRecord::decode(&version).is_err());
    }

    #[test]
    fn copies_are_named_by_snapshot_and_table() {
        let s = Uuid::from_u128(0xa);
        assert_eq!(
            copy_name(s, CopyOf::RangeTombstones(Uuid::from_u128(0xb))),
            "snap_0000000000000000000000000000000a_rt_0000000000000000000000000000000b"
        );
        assert!(copy_name(s, CopyOf::Index(Uuid::from_u128(0xb))).contains("_index_"));
    }
}
