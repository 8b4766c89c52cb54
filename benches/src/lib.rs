//! Shared benchmark workloads.
