//! Black-box tests through the scylla driver (and raw frames where the driver cannot reach).
//! One test binary, one module per area.

mod auth;
mod batches;
mod collections;
mod counters;
mod ddl;
mod delete;
mod dml;
mod errors;
mod explain;
mod functions;
mod handshake;
mod in_process;
mod indexes;
mod json;
mod key_design;
mod key_types;
mod limits;
mod lwt;
mod materialized_views;
mod metrics;
mod model;
mod persistence;
mod prepared;
mod python_clients;
mod query_tracing;
mod read_warnings;
mod seeds;
mod select;
mod shaping;
mod statics;
mod system_tables;
mod time;
mod user_types;
mod write_guardrails;
