//! The open database, shared by readers and the writer, which replaces it when it reopens
//! the file after an I/O error.

use std::sync::{Arc, RwLock};

use redb::Database;

use crate::error::StorageError;

/// The open database, shared by readers and the writer.
pub(crate) type DbSlot = Arc<RwLock<Option<Arc<Database>>>>;

/// The database in `slot`, or [`StorageError::Recovering`] while it is being reopened.
pub(crate) fn current(slot: &DbSlot) -> Result<Arc<Database>, StorageError> {
    slot.read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .clone()
        .ok_or(StorageError::Recovering)
}
