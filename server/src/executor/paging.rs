//! The opaque paging state: where the previous page stopped (the storage key of its last
//! row) and how much of the LIMIT is left, tagged with the table so a state cannot be replayed
//! against another table.

use bytes::Bytes;
use storage::TableDef;

use crate::error::{CqlError, CqlResult};

const VERSION: u8 = 1;

/// Resume position of a paged query.
#[derive(Debug, Clone, PartialEq)]
pub struct PagingState {
    /// Storage key of the last row returned.
    pub last_key: Vec<u8>,
    /// Rows the LIMIT still allows (`None` without a LIMIT).
    pub remaining: Option<usize>,
}

fn invalid() -> CqlError {
    CqlError::Protocol("Invalid value for the paging state".into())
}

impl PagingState {
    /// Serializes the state for `table`.
    pub fn encode(&self, table: &TableDef) -> Bytes {
        let mut out = Vec::with_capacity(self.last_key.len() + 29);
        out.push(VERSION);
        out.extend_from_slice(table.id.as_bytes());
        let remaining = self
            .remaining
            .map_or(-1i64, |n| i64::try_from(n).unwrap_or(i64::MAX));
        out.extend_from_slice(&remaining.to_be_bytes());
        out.extend_from_slice(&self.last_key);
        Bytes::from(out)
    }

    /// Reads a state produced by `encode` for the same table.
    pub fn decode(bytes: &[u8], table: &TableDef) -> CqlResult<PagingState> {
        if bytes.len() < 25 || bytes[0] != VERSION || &bytes[1..17] != table.id.as_bytes() {
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
        Ok(PagingState {
            last_key: bytes[25..].to_vec(),
            remaining,
        })
    }
}
