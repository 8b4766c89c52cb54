//! The store as a whole: opening the data directory and its format record, the open database shared by readers and the writer, options, redb's tables, disk space, counters, purging, and the turns background work takes.

pub(crate) mod db;
pub(crate) mod dir_format;
pub(crate) mod locking;
pub(crate) mod options;
pub(crate) mod purge;
pub(crate) mod slot;
pub(crate) mod space;
pub(crate) mod stats;
pub(crate) mod tables;
#[cfg(test)]
pub(crate) mod tests;
pub(crate) mod turns;
