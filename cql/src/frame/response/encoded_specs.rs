//! Column specs encoded once per shared spec list and protocol version, on each thread.
//!
//! A server answers every execution of a prepared SELECT with the same `Arc<[ColumnSpec]>`
//! (planned once); writing its specs again for every answer (a string per keyspace, table and
//! column, a type option per column, and a comparison of every column's keyspace and table
//! for the global-spec flag) was about 3.5 % of a point read's server CPU. The encoding is kept
//! for the few shared spec lists a thread answered last, found by the list's address (a list
//! held by nothing but its answer is written afresh, by the caller). Each entry
//! holds a `Weak` to its list, so the allocation cannot be freed and reused for another list
//! while the entry exists: an equal address is the same, immutable, list.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Weak};

use bytes::{Bytes, BytesMut};

use super::rows::{global_table, write_specs};
use super::ColumnSpec;
use crate::frame::ProtocolVersion;

/// Spec lists kept per thread: a connection's thread serves a handful of hot statements.
const SLOTS: usize = 8;

/// A spec list's encoding in one protocol version.
pub(crate) struct EncodedSpecs {
    /// Whether every column shares one keyspace and table (Global_tables_spec).
    pub(crate) global: bool,
    /// The specs as written after the flags, counts and paging state.
    pub(crate) bytes: Bytes,
}

struct Entry {
    columns: Weak<[ColumnSpec]>,
    version: ProtocolVersion,
    encoded: Rc<EncodedSpecs>,
}

#[derive(Default)]
struct Cache {
    entries: Vec<Entry>,
    /// The slot the next new entry replaces once all are taken.
    next: usize,
}

thread_local! {
    static CACHE: RefCell<Cache> = RefCell::new(Cache::default());
}

/// The encoding of `columns` in `version`, made on first use on this thread.
pub(crate) fn encoded(columns: &Arc<[ColumnSpec]>, version: ProtocolVersion) -> Rc<EncodedSpecs> {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        let address = Arc::as_ptr(columns);
        let found = cache
            .entries
            .iter()
            .find(|e| e.version == version && std::ptr::eq(e.columns.as_ptr(), address));
        if let Some(entry) = found {
            return entry.encoded.clone();
        }
        let mut bytes = BytesMut::new();
        write_specs(&mut bytes, columns, version);
        let encoded = Rc::new(EncodedSpecs {
            global: global_table(columns).is_some(),
            bytes: bytes.freeze(),
        });
        let entry = Entry {
            columns: Arc::downgrade(columns),
            version,
            encoded: encoded.clone(),
        };
        if cache.entries.len() < SLOTS {
            cache.entries.push(entry);
        } else {
            let slot = cache.next;
            cache.entries[slot] = entry;
            cache.next = (slot + 1) % SLOTS;
        }
        encoded
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ColumnType;

    fn spec(table: &str, name: &str) -> ColumnSpec {
        ColumnSpec {
            keyspace: "ks".into(),
            table: table.into(),
            name: name.into(),
            ty: ColumnType::Int,
        }
    }

    fn fresh(columns: &Arc<[ColumnSpec]>, version: ProtocolVersion) -> Vec<u8> {
        let mut out = BytesMut::new();
        write_specs(&mut out, columns, version);
        out.to_vec()
    }

    /// Each list, version and thread gets its own encoding, equal to writing it afresh, and a
    /// list is encoded once however often it is answered.
    #[test]
    fn encodings_match_fresh_ones_and_are_reused() {
        let one: Arc<[ColumnSpec]> = Arc::from([spec("t", "a"), spec("t", "b")]);
        let two: Arc<[ColumnSpec]> = Arc::from([spec("t", "a"), spec("u", "b")]);
        let first = encoded(&one, ProtocolVersion::V4);
        assert!(first.global);
        assert_eq!(&*first.bytes, fresh(&one, ProtocolVersion::V4).as_slice());
        assert!(Rc::ptr_eq(&first, &encoded(&one, ProtocolVersion::V4)));
        let other = encoded(&two, ProtocolVersion::V4);
        assert!(!other.global);
        assert_eq!(&*other.bytes, fresh(&two, ProtocolVersion::V4).as_slice());
        let v3 = encoded(&one, ProtocolVersion::V3);
        assert!(!Rc::ptr_eq(&first, &v3));
        assert_eq!(&*v3.bytes, fresh(&one, ProtocolVersion::V3).as_slice());
    }

    /// More lists than slots: the oldest entries give way, and every answer stays right.
    #[test]
    fn lists_beyond_the_slots_replace_old_entries() {
        let lists: Vec<Arc<[ColumnSpec]>> = (0..SLOTS * 2 + 1)
            .map(|i| Arc::from([spec("t", &format!("c{i}"))]))
            .collect();
        for _ in 0..2 {
            for list in &lists {
                let got = encoded(list, ProtocolVersion::V4);
                assert_eq!(&*got.bytes, fresh(list, ProtocolVersion::V4).as_slice());
            }
        }
        CACHE.with(|cache| assert_eq!(cache.borrow().entries.len(), SLOTS));
    }
}
