//! Order-preserving, prefix-free, memcomparable row keys.
//!
//! A row key is `token ++ partition-key components ++ clustering components`:
//! - the token is the partition's Murmur3 token as a big-endian i64 with the sign bit flipped,
//!   so partitions come out of a byte-range scan in token order, as Cassandra's do;
//! - each component is a tag byte (`0x00` empty value, `0x01` present) and a body whose byte
//!   order equals the type's CQL order (see [`component`]); bodies are fixed width or escaped
//!   and terminated, so no component is a prefix of another;
//! - a DESC clustering component is the bitwise NOT of its whole encoded component;
//! - partition-key components of `decimal` and of the nested types keep their serialized bytes
//!   (Cassandra identifies partitions by bytes, clusterings by comparator).
//!
//! The key of a partition's static row is the partition prefix alone (token and partition-key
//! components), which sorts before every clustering row of the partition. A prefix of the
//! clustering components is a valid slice bound: every row whose leading clustering values
//! equal it starts with those bytes, and [`prefix_end`] bounds them from above.

pub(crate) mod component;
mod composite;
mod decimal;
mod digits;
mod nested;
mod reader;
#[cfg(test)]
mod tests;

use bytes::Bytes;
use cql::types::ColumnType;

use crate::catalog::ClusteringOrder;
use crate::catalog::TableDef;
use crate::encoding::token::token_of;
use crate::error::StorageError;

/// A key column: its type and clustering order (`None` and `Asc` encode alike).
#[derive(Debug, Clone, Copy)]
pub struct KeyColumn<'a> {
    /// The column type.
    pub ty: &'a ColumnType,
    /// The clustering order; `Desc` inverts the component.
    pub order: ClusteringOrder,
}

/// A row key split back into its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedKey {
    /// The partition token.
    pub token: i64,
    /// The partition-key values, serialized, by position.
    pub partition: Vec<Bytes>,
    /// The clustering values present in the key, serialized, by position (empty for a static
    /// row or a table without clustering columns).
    pub clustering: Vec<Bytes>,
    /// The length in bytes of the partition prefix (token and partition-key components).
    pub partition_len: usize,
}

impl DecodedKey {
    /// `key`, the row key this was decoded from, split into its partition key and its
    /// clustering suffix (what range tombstones and clustering ranges bound).
    pub fn split<'k>(&self, key: &'k [u8]) -> (&'k [u8], &'k [u8]) {
        key.split_at(self.partition_len.min(key.len()))
    }
}

/// The 8 key bytes of a token: big-endian with the sign bit flipped, so byte order is
/// numeric order.
pub fn token_bytes(token: i64) -> [u8; 8] {
    ((token as u64) ^ (1 << 63)).to_be_bytes()
}

/// A stored key's leading token bytes ([`token_bytes`]) as an unsigned number in key order;
/// 0 for a key too short to hold one.
pub(crate) fn token_order(key: &[u8]) -> u64 {
    key.first_chunk::<8>().map_or(0, |t| u64::from_be_bytes(*t))
}

/// Appends the partition prefix: the token bytes, then one ascending component per
/// partition-key value.
///
/// # Errors
/// [`StorageError::UnsupportedKeyType`] for a type that cannot be keyed yet, and
/// [`StorageError::InvalidKeyValue`] for a value of the wrong width.
pub(crate) fn encode_partition_prefix<'a>(
    token: i64,
    pk: impl IntoIterator<Item = (&'a ColumnType, &'a [u8])>,
    out: &mut Vec<u8>,
) -> Result<(), StorageError> {
    out.extend_from_slice(&token_bytes(token));
    for (ty, value) in pk {
        component::encode_partition(ty, value, out)?;
    }
    Ok(())
}

/// Appends clustering components. A prefix of the clustering columns is allowed (slice
/// bounds).
///
/// # Errors
/// As [`encode_partition_prefix`].
#[cfg(test)]
pub(crate) fn encode_clustering(
    ck: &[(&ColumnType, ClusteringOrder, &[u8])],
    out: &mut Vec<u8>,
) -> Result<(), StorageError> {
    for (ty, order, value) in ck {
        component::encode(ty, *order == ClusteringOrder::Desc, value, out)?;
    }
    Ok(())
}

/// Appends one component for a key column.
///
/// # Errors
/// As [`encode_partition_prefix`].
pub(crate) fn encode_component(
    column: KeyColumn<'_>,
    value: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), StorageError> {
    component::encode(column.ty, column.order == ClusteringOrder::Desc, value, out)
}

fn key_error(what: &str) -> StorageError {
    StorageError::InvalidKeyValue {
        ty: "primary key".into(),
        reason: what.into(),
    }
}

/// The partition prefix of `table` for the given partition-key values (token computed here).
///
/// # Errors
/// A wrong number of values, or as [`encode_partition_prefix`].
pub(crate) fn partition_key(
    table: &TableDef,
    pk_values: &[Bytes],
) -> Result<Vec<u8>, StorageError> {
    if pk_values.len() != table.partition_key.len() {
        return Err(key_error("wrong number of partition key values"));
    }
    // A point read or write makes one key: no list of the values for a single one.
    let token = match pk_values {
        [single] => token_of(&[single.as_ref()]),
        values => token_of(&values.iter().map(|v| v.as_ref()).collect::<Vec<_>>()),
    };
    let mut out = Vec::with_capacity(16 + pk_values.iter().map(|v| v.len() + 3).sum::<usize>());
    let pk = table
        .partition_key_columns()
        .map(|column| &column.ty)
        .zip(pk_values.iter().map(|v| v.as_ref()));
    encode_partition_prefix(token, pk, &mut out)?;
    Ok(out)
}

/// The full key of a row of `table`: partition prefix then the clustering values (a prefix of
/// the clustering columns is allowed; none at all is the static row's key).
///
/// # Errors
/// Wrong value counts, or as [`encode_partition_prefix`].
pub fn row_key(
    table: &TableDef,
    pk_values: &[Bytes],
    ck_values: &[Bytes],
) -> Result<Vec<u8>, StorageError> {
    let mut out = partition_key(table, pk_values)?;
    append_clustering(table, 0, ck_values, &mut out)?;
    Ok(out)
}

/// Appends the components of `values`, the values of consecutive clustering columns of
/// `table` from its `first` one, in their columns' order (DESC ones inverted).
///
/// # Errors
/// More values than clustering columns, or a value its column's type cannot encode.
pub(crate) fn append_clustering(
    table: &TableDef,
    first: usize,
    values: &[Bytes],
    out: &mut Vec<u8>,
) -> Result<(), StorageError> {
    if first + values.len() > table.clustering_key.len() {
        return Err(key_error("too many clustering values"));
    }
    for (column, value) in table.clustering_columns().skip(first).zip(values) {
        let desc = column.order == ClusteringOrder::Desc;
        component::encode(&column.ty, desc, value, out)?;
    }
    Ok(())
}

/// Splits a stored row key of `table` back into token, partition and clustering values.
///
/// # Errors
/// [`StorageError::Corrupt`] if the bytes do not decode under the table's key types.
pub fn decode_row_key(table: &TableDef, key: &[u8]) -> Result<DecodedKey, StorageError> {
    let (token, mut rest) = key
        .split_first_chunk::<8>()
        .ok_or_else(|| StorageError::corrupt("row key: shorter than a token"))?;
    let token = (u64::from_be_bytes(*token) ^ (1 << 63)) as i64;
    let mut partition = Vec::with_capacity(table.partition_key.len());
    for column in table.partition_key_columns() {
        let (value, used) = component::decode_partition(&column.ty, rest)?;
        partition.push(Bytes::from(value));
        rest = &rest[used..];
    }
    let partition_len = key.len() - rest.len();
    let mut clustering = Vec::new();
    for column in table.clustering_columns() {
        if rest.is_empty() {
            break;
        }
        let desc = column.order == ClusteringOrder::Desc;
        let (value, used) = component::decode(&column.ty, desc, rest)?;
        clustering.push(Bytes::from(value));
        rest = &rest[used..];
    }
    if !rest.is_empty() {
        return Err(StorageError::corrupt("row key: trailing bytes"));
    }
    Ok(DecodedKey {
        token,
        partition,
        clustering,
        partition_len,
    })
}

/// The length of the ascending component of type `ty` at the start of `input`.
///
/// # Errors
/// A truncated or malformed component.
pub(crate) fn component_len(ty: &ColumnType, input: &[u8]) -> Result<usize, StorageError> {
    component::decode(ty, false, input).map(|(_, len)| len)
}

/// The smallest key greater than every key that starts with `prefix`, or `None` if there is
/// none (the prefix is empty or all `0xFF`). Use it as an exclusive upper bound.
pub(crate) fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let last = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut end = prefix[..=last].to_vec();
    end[last] += 1;
    Some(end)
}
