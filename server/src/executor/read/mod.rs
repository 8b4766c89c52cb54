//! Reads: SELECT from storage or a virtual table, with paging, shaping, aggregates, indexes and vector search.

pub(crate) mod aggregate;
pub(crate) mod ann_graph;
pub(crate) mod ann_rank;
pub(crate) mod clustering;
pub(crate) mod collection_filter;
pub(crate) mod elements;
pub(crate) mod index_scan;
pub(crate) mod odometer;
pub(crate) mod paging;
pub(crate) mod point;
pub(crate) mod query_text;
pub(crate) mod ranges;
pub(crate) mod row;
pub(crate) mod sai_filter;
pub(crate) mod scalar;
pub(crate) mod select;
pub(crate) mod shaping;
pub(crate) mod source;
pub(crate) mod statics;
pub(crate) mod stats;
pub(crate) mod thresholds;
pub(crate) mod virtual_tables;
