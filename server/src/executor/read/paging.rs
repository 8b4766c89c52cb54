//! The opaque paging state: where the previous page stopped (the storage key of its last
//! row), how much of the LIMIT is left and how many result rows the last partition already
//! gave (for PER PARTITION LIMIT), tagged with the table so a state cannot be replayed
//! against another table.

use bytes::Bytes;
use storage::TableDef;

use crate::error::{CqlError, CqlResult, ProtocolError};

const VERSION: u8 = 2;
const HEADER: usize = 33;

/// Resume position of a paged query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PagingState {
    /// Storage key of the last row returned.
    pub last_key: Vec<u8>,
    /// Rows the LIMIT still allows (`None` without a LIMIT).
    pub remaining: Option<usize>,
    /// Result rows already returned from the partition of `last_key`.
    pub partition_emitted: usize,
}

fn invalid() -> CqlError {
    ProtocolError::InvalidPagingState.into()
}

impl PagingState {
    /// Serializes the state for `table`.
    pub(crate) fn encode(&self, table: &TableDef) -> Bytes {
        let mut out = Vec::with_capacity(self.last_key.len() + HEADER);
        out.push(VERSION);
        out.extend_from_slice(table.id.as_bytes());
        let remaining = self
            .remaining
            .map_or(-1i64, |n| i64::try_from(n).unwrap_or(i64::MAX));
        out.extend_from_slice(&remaining.to_be_bytes());
        let emitted = u64::try_from(self.partition_emitted).unwrap_or(u64::MAX);
        out.extend_from_slice(&emitted.to_be_bytes());
        out.extend_from_slice(&self.last_key);
        Bytes::from(out)
    }

    /// Reads a state produced by `encode` for the same table.
    pub(crate) fn decode(bytes: &[u8], table: &TableDef) -> CqlResult<PagingState> {
        if bytes.len() < HEADER || bytes[0] != VERSION || &bytes[1..17] != table.id.as_bytes() {
            return Err(invalid());
        }
        let mut remaining = [0u8; 8];
        remaining.copy_from_slice(&bytes[17..25]);
        let remaining = i64::from_be_bytes(remaining);
        let remaining = if remaining < 0 {
            None
        } else {
            Some(usize::try_from(remaining).map_err(|_| invalid())?)
        };
        let mut emitted = [0u8; 8];
        emitted.copy_from_slice(&bytes[25..33]);
        let partition_emitted =
            usize::try_from(u64::from_be_bytes(emitted)).map_err(|_| invalid())?;
        Ok(PagingState {
            last_key: bytes[HEADER..].to_vec(),
            remaining,
            partition_emitted,
        })
    }
}
