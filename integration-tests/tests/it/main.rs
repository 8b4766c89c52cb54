//! Black-box tests through the scylla driver (and raw frames where the driver cannot reach).
//! One test binary, one module per area.

mod ddl;
mod delete;
mod dml;
mod errors;
mod handshake;
mod json;
mod model;
mod persistence;
mod prepared;
mod python_clients;
mod seeds;
mod select;
mod shaping;
mod system_tables;
