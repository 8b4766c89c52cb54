//! Hashing for the request path: a fast non-cryptographic hash for in-process maps, and blocked Bloom filters.

pub(crate) mod bloom;
pub(crate) mod fast;
