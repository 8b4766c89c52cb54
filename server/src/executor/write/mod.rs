//! Writes: INSERT, UPDATE and DELETE, batches, lightweight transactions, counters and the guardrails on written values.

pub(crate) mod batch;
pub(crate) mod batch_rules;
pub(crate) mod batch_size;
pub(crate) mod cas;
pub(crate) mod conditions;
pub(crate) mod counters;
pub(crate) mod guards;
pub(crate) mod index_limits;
pub(crate) mod modify;
pub(crate) mod multicell;
pub(crate) mod operations;
pub(crate) mod submit;
#[cfg(test)]
pub(crate) mod test_node;
