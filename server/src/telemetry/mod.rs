//! What the server tells about itself: metrics and their Prometheus exposition, tracing, client warnings, hot partitions, and the redaction that keeps secrets out of all of them.

pub(crate) mod hot_partitions;
pub(crate) mod metrics;
pub(crate) mod prometheus;
pub(crate) mod redact;
pub(crate) mod trace;
pub(crate) mod warnings;
