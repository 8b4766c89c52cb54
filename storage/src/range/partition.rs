//! A partition's key as stored.

use bytes::Bytes;

use crate::catalog::TableDef;
use crate::error::StorageError;

/// A partition's key as row keys begin with it: the Murmur3 token, then the partition-key
/// components. Encoded once (token included); every range over the partition is built from
/// it. It is also the key of the partition's static row.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PartitionKey(Vec<u8>);

impl PartitionKey {
    /// The partition of `table` whose partition-key columns take `values` (serialized, in key
    /// order); the token is computed here.
    ///
    /// # Errors
    /// A wrong number of values, a value of the wrong width, or a type that cannot be keyed
    /// (as [`crate::encoding::key::partition_key`]).
    pub fn encode(table: &TableDef, values: &[Bytes]) -> Result<PartitionKey, StorageError> {
        crate::encoding::key::partition_key(table, values).map(PartitionKey)
    }

    /// The partition whose static row is stored under `key` (a row key without clustering
    /// components, as an index entry of a static column or `row_key(table, pk, &[])` gives).
    pub fn from_static_row_key(key: Vec<u8>) -> PartitionKey {
        PartitionKey(key)
    }

    /// The encoded key: what range tombstones are stored under, and the static row's key.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The encoded key, owned (a write's static row key or range tombstone partition).
    pub fn into_bytes(self) -> Vec<u8> {
        self.0
    }
}
