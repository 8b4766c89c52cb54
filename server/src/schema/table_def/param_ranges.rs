//! The range checks of Cassandra 5.0's `TableParams.validate`, run on a table's parameters
//! after a CREATE or ALTER has applied its options (so an ALTER is checked whole, as
//! Cassandra checks it).

use storage::TableParams;

use crate::error::TableOptionError;
use crate::eval::java_text::java_double;

/// `BloomCalculations.minSupportedBloomFilterFpChance()`: the smallest false-positive chance
/// a bloom filter of 20 buckets per key reaches.
const MIN_BLOOM_FILTER_FP_CHANCE: f64 = 6.71e-05;

/// `Attributes.MAX_TTL`: twenty years in seconds.
const MAX_TTL: i32 = 630_720_000;

/// Refuses `params` whose values are out of Cassandra's ranges, in `TableParams.validate`'s
/// order (compaction and compression are checked when they are read).
pub(crate) fn check_param_ranges(params: &TableParams) -> Result<(), TableOptionError> {
    let bloom = params.bloom_filter_fp_chance;
    if bloom <= MIN_BLOOM_FILTER_FP_CHANCE || bloom > 1.0 {
        return Err(TableOptionError::BloomFilterFpChance {
            got: java_double(bloom),
        });
    }
    let crc = params.crc_check_chance;
    #[allow(
        clippy::manual_range_contains,
        reason = "NaN passes these comparisons, as it passes Cassandra's"
    )]
    if crc < 0.0 || crc > 1.0 {
        return Err(TableOptionError::CrcCheckChance {
            got: java_double(crc),
        });
    }
    let ttl = params.default_time_to_live;
    if ttl < 0 {
        return Err(TableOptionError::NegativeDefaultTtl { ttl });
    }
    if ttl > MAX_TTL {
        return Err(TableOptionError::DefaultTtlTooLarge { ttl });
    }
    check_intervals(params)
}

fn check_intervals(params: &TableParams) -> Result<(), TableOptionError> {
    if params.gc_grace_seconds < 0 {
        let got = params.gc_grace_seconds;
        return Err(TableOptionError::NegativeGcGrace { got });
    }
    let (min, max) = (params.min_index_interval, params.max_index_interval);
    if min < 1 {
        return Err(TableOptionError::MinIndexIntervalBelowOne { got: min });
    }
    if max < min {
        return Err(TableOptionError::MaxIndexIntervalBelowMin { min, max });
    }
    if params.memtable_flush_period_in_ms < 0 {
        let got = params.memtable_flush_period_in_ms;
        return Err(TableOptionError::NegativeFlushPeriod { got });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(change: impl FnOnce(&mut TableParams)) -> String {
        let mut params = TableParams::default();
        change(&mut params);
        check_param_ranges(&params).unwrap_err().to_string()
    }

    #[test]
    fn defaults_are_in_range() {
        assert!(check_param_ranges(&TableParams::default()).is_ok());
    }

    #[test]
    fn out_of_range_values_get_cassandras_messages() {
        assert_eq!(
            refused(|p| p.bloom_filter_fp_chance = 0.0),
            "bloom_filter_fp_chance must be larger than 6.71E-5 and less than or equal to 1.0 (got 0.0)"
        );
        assert_eq!(
            refused(|p| p.bloom_filter_fp_chance = 1.1),
            "bloom_filter_fp_chance must be larger than 6.71E-5 and less than or equal to 1.0 (got 1.1)"
        );
        assert_eq!(
            refused(|p| p.crc_check_chance = -0.5),
            "crc_check_chance must be larger than or equal to 0 and smaller than or equal to 1.0 (got -0.5)"
        );
        assert_eq!(
            refused(|p| p.default_time_to_live = -1),
            "default_time_to_live must be greater than or equal to 0 (got -1)"
        );
        assert_eq!(
            refused(|p| p.default_time_to_live = MAX_TTL + 1),
            "default_time_to_live must be less than or equal to 630720000 (got 630720001)"
        );
        assert_eq!(
            refused(|p| p.gc_grace_seconds = -1),
            "gc_grace_seconds must be greater than or equal to 0 (got -1)"
        );
        assert_eq!(
            refused(|p| p.min_index_interval = 0),
            "min_index_interval must be greater than or equal to 1 (got 0)"
        );
        assert_eq!(
            refused(|p| p.max_index_interval = 64),
            "max_index_interval must be greater than or equal to min_index_interval (128) (got 64)"
        );
        assert_eq!(
            refused(|p| p.memtable_flush_period_in_ms = -5),
            "memtable_flush_period_in_ms must be greater than or equal to 0 (got -5)"
        );
    }
}
