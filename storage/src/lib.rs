//! redb-backed wide-row store. Filled in by the storage work.
