//! Consistency levels on one node: every level is accepted and honoured trivially (one
//! replica holds everything), except the combinations Cassandra refuses whatever the
//! cluster (`ConsistencyLevel.validateForRead`, `validateCounterForWrite`). With
//! `strict_consistency` (or on a simulated cluster) the levels the replicas cannot meet are
//! refused as `Unavailable` before the statement runs (`executor::cluster_check`).

use crate::error::{CqlResult, ValueError};

/// `ANY` (protocol code 0x0000).
pub(crate) const ANY: u16 = 0x0000;
/// `SERIAL` (protocol code 0x0008).
pub(crate) const SERIAL: u16 = 0x0008;
/// `LOCAL_SERIAL` (protocol code 0x0009).
pub(crate) const LOCAL_SERIAL: u16 = 0x0009;

/// Whether `consistency` is `SERIAL` or `LOCAL_SERIAL`: a read at it is linearizable with
/// lightweight transactions (see `executor::select::execute`).
pub(crate) fn is_serial(consistency: u16) -> bool {
    consistency == SERIAL || consistency == LOCAL_SERIAL
}

/// A read (SELECT) at `consistency`.
pub(crate) fn check_read(consistency: u16) -> CqlResult<()> {
    if consistency == ANY {
        return Err(ValueError::AnyForRead.into());
    }
    Ok(())
}

/// A write to the counter table `table` at `consistency`.
pub(crate) fn check_counter_write(consistency: u16, table: &str) -> CqlResult<()> {
    if consistency == ANY {
        return Err(ValueError::AnyForCounterWrite {
            table: table.to_string(),
        }
        .into());
    }
    if consistency == SERIAL || consistency == LOCAL_SERIAL {
        return Err(ValueError::SerialCounterWrite.into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: u16 = 0x0001;
    const QUORUM: u16 = 0x0004;

    #[test]
    fn reads_refuse_only_any() {
        assert_eq!(
            check_read(ANY).unwrap_err().to_string(),
            "ANY ConsistencyLevel is only supported for writes"
        );
        for cl in [ONE, QUORUM, SERIAL, LOCAL_SERIAL] {
            assert!(check_read(cl).is_ok(), "{cl}");
        }
    }

    #[test]
    fn counter_writes_refuse_any_and_serial_levels() {
        assert_eq!(
            check_counter_write(ANY, "hits").unwrap_err().to_string(),
            "Consistency level ANY is not yet supported for counter table hits"
        );
        for cl in [SERIAL, LOCAL_SERIAL] {
            assert_eq!(
                check_counter_write(cl, "hits").unwrap_err().to_string(),
                "Counter operations are inherently non-serializable"
            );
        }
        assert!(check_counter_write(QUORUM, "hits").is_ok());
    }
}
