//! CQL's comparison rules per type. Filled in by the frame work.
