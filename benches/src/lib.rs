//! Shared benchmark workloads: the inputs every `benches/benches/*.rs` target measures, built
//! once here so the targets stay small and measure the same things (the layout of
//! cberner/redb's `redb-bench`).
//!
//! - [`frames`]: a QUERY request frame and a 100-row × 5-column Rows result.
//! - [`schema`]: the benchmark table (`(text, int)` partition key, `(bigint DESC, uuid)`
//!   clustering key) and its keyspace, as storage catalog values.
//! - [`statements`]: CQL texts (a prepared INSERT, a SELECT, cassandra-stress's CREATE TABLE).
//! - [`server_path`]: an in-process node answering request frames (no socket), and EXECUTE
//!   frames of the prepared INSERT and point SELECT.
//! - [`rows`]: row keys and stored rows for that table, and write batches of them.
//!
//! Results go into `docs/benchmarks.md`, never into timed tests.

pub mod frames;
pub mod rows;
pub mod schema;
pub mod server_path;
pub mod statements;
