//! What a batch may hold (`BatchStatement.validate`), with Cassandra's messages: counter
//! statements only in COUNTER or UNLOGGED batches and never mixed with others, a timestamp
//! on the batch or on its statements but not both, no batch-level TTL.

use cql::statement::ast::{BatchKind, UsingClause};

use crate::error::{CqlResult, ModifyError};

/// What the rules need to know about one statement of a batch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StatementTraits {
    /// The statement writes to a counter table.
    pub(crate) is_counter: bool,
    /// The statement has its own `USING TIMESTAMP`.
    pub(crate) has_timestamp: bool,
}

/// Checks a batch of `kind` with batch-level `using` over `statements`.
pub(crate) fn validate(
    kind: BatchKind,
    using: &UsingClause,
    statements: &[StatementTraits],
) -> CqlResult<()> {
    if using.ttl.is_some() {
        return Err(ModifyError::BatchTtl.into());
    }
    let timestamp_set = using.timestamp.is_some();
    if timestamp_set && kind == BatchKind::Counter {
        return Err(ModifyError::CounterBatchTimestamp.into());
    }
    if timestamp_set && statements.iter().any(|s| s.has_timestamp) {
        return Err(ModifyError::BatchTimestampTwice.into());
    }
    let has_counters = statements.iter().any(|s| s.is_counter);
    let has_non_counters = statements.iter().any(|s| !s.is_counter);
    if timestamp_set && has_counters {
        return Err(ModifyError::BatchWithCountersTimestamp.into());
    }
    if kind == BatchKind::Counter && has_non_counters {
        return Err(ModifyError::NonCounterInCounterBatch.into());
    }
    if has_counters && has_non_counters {
        return Err(ModifyError::MixedCounterBatch.into());
    }
    if kind == BatchKind::Logged && has_counters {
        return Err(ModifyError::CounterInLoggedBatch.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use cql::statement::ast::{Literal, Term};

    const COUNTER: StatementTraits = StatementTraits {
        is_counter: true,
        has_timestamp: false,
    };
    const PLAIN: StatementTraits = StatementTraits {
        is_counter: false,
        has_timestamp: false,
    };
    const PLAIN_WITH_TIMESTAMP: StatementTraits = StatementTraits {
        is_counter: false,
        has_timestamp: true,
    };

    fn error(kind: BatchKind, using: &UsingClause, statements: &[StatementTraits]) -> String {
        validate(kind, using, statements).unwrap_err().to_string()
    }

    fn timestamp() -> UsingClause {
        UsingClause {
            timestamp: Some(Term::Literal(Literal::Integer("5".into()))),
            ..UsingClause::default()
        }
    }

    #[test]
    fn counters_go_in_counter_or_unlogged_batches_alone() {
        let none = UsingClause::default();
        assert!(validate(BatchKind::Counter, &none, &[COUNTER, COUNTER]).is_ok());
        assert!(validate(BatchKind::Unlogged, &none, &[COUNTER]).is_ok());
        assert!(validate(BatchKind::Logged, &none, &[PLAIN]).is_ok());
        assert!(validate(BatchKind::Logged, &none, &[]).is_ok());
        assert_eq!(
            error(BatchKind::Counter, &none, &[COUNTER, PLAIN]),
            "Cannot include non-counter statement in a counter batch"
        );
        assert_eq!(
            error(BatchKind::Unlogged, &none, &[COUNTER, PLAIN]),
            "Counter and non-counter mutations cannot exist in the same batch"
        );
        assert_eq!(
            error(BatchKind::Logged, &none, &[COUNTER]),
            "Cannot include a counter statement in a logged batch"
        );
    }

    #[test]
    fn timestamps_and_ttls() {
        let ts = timestamp();
        assert!(validate(BatchKind::Logged, &ts, &[PLAIN]).is_ok());
        assert_eq!(
            error(BatchKind::Logged, &ts, &[PLAIN, PLAIN_WITH_TIMESTAMP]),
            "Timestamp must be set either on BATCH or individual statements"
        );
        assert_eq!(
            error(BatchKind::Counter, &ts, &[COUNTER]),
            "Cannot provide custom timestamp for counter BATCH"
        );
        assert_eq!(
            error(BatchKind::Unlogged, &ts, &[COUNTER]),
            "Cannot provide custom timestamp for a BATCH containing counters"
        );
        let ttl = UsingClause {
            ttl: ts.timestamp.clone(),
            ..UsingClause::default()
        };
        assert_eq!(
            error(BatchKind::Logged, &ttl, &[PLAIN]),
            "Global TTL on the BATCH statement is not supported."
        );
    }
}
