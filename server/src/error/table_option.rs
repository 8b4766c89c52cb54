//! `TableOptionError`: table options Cassandra 5.0 refuses while building and validating a
//! table's parameters (code 0x2300, `ConfigurationException`). Each variant prints the message
//! of the Java origin named on it, word for word; its CQL code is chosen in
//! `super::CqlError::error_body`.

/// A table option Cassandra refuses as a configuration error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TableOptionError {
    // Compaction: `CompactionParams.fromMap`/`create`/`validate`.
    /// `CompactionParams.fromMap`.
    /// Origin: schema/CompactionParams.java fromMap
    #[error("Missing sub-option 'class' for the 'compaction' option")]
    MissingCompactionClass,
    /// `FBUtilities.classForName(name, "compaction strategy")`; `class` qualified.
    /// Origin: utils/FBUtilities.java classForName (via schema/CompactionParams.java classFromName)
    #[error("Unable to find compaction strategy class '{class}'")]
    UnknownCompactionClass { class: String },
    /// `CompactionParams.create`; `value` upper-cased, as Cassandra prints it.
    /// Origin: schema/CompactionParams.java create
    #[error("Invalid value {value} for 'provide_overlapping_tombstones' compaction sub-option - must be one of the following [NONE, ROW, CELL].")]
    InvalidOverlappingTombstones { value: String },
    /// `CompactionParams.validate`: what the strategy's `validateOptions` left over, as a
    /// Java key set (`[a, b]`).
    /// Origin: schema/CompactionParams.java validate
    #[error("Properties specified {options} are not understood by {strategy}")]
    UnknownStrategyOptions {
        options: String,
        strategy: &'static str,
    },
    /// `CompactionParams.validate`: a threshold that is not all digits.
    /// Origin: schema/CompactionParams.java validate
    #[error("Invalid value {value} for '{option}' compaction sub-option - must be an integer")]
    ThresholdNotInteger { value: String, option: &'static str },
    /// `CompactionParams.validate`.
    /// Origin: schema/CompactionParams.java validate
    #[error("Disabling compaction by setting compaction thresholds to 0 has been removed, set the compaction option 'enabled' to false instead.")]
    ZeroThreshold,
    /// `CompactionParams.validate`.
    /// Origin: schema/CompactionParams.java validate
    #[error("Min compaction threshold cannot be less than 2 (got {min})")]
    MinThresholdBelowTwo { min: i32 },
    /// `CompactionParams.validate`.
    /// Origin: schema/CompactionParams.java validate
    #[error("Min compaction threshold (got {min}) cannot be greater than max compaction threshold (got {max})")]
    MinAboveMaxThreshold { min: i32, max: i32 },
    /// Every strategy's `validateOptions`: a number that does not parse (Cassandra says
    /// "int" whatever the type; for the STCS buckets `option` is the default value it prints).
    /// Origin: db/compaction/SizeTieredCompactionStrategyOptions.java / LeveledCompactionStrategy.java validateOptions
    #[error("{value} is not a parsable int (base10) for {option}")]
    NotParsable { value: String, option: &'static str },
    /// `AbstractCompactionStrategy.validateOptions`; `value` as Java's `%f` prints it.
    /// Origin: db/compaction/AbstractCompactionStrategy.java validateOptions
    #[error("tombstone_threshold must be greater than 0, but was {value}")]
    NegativeTombstoneThreshold { value: String },
    /// `AbstractCompactionStrategy.validateOptions`.
    /// Origin: db/compaction/AbstractCompactionStrategy.java validateOptions
    #[error("tombstone_compaction_interval must be greater than 0, but was {value}")]
    NegativeTombstoneInterval { value: i64 },
    /// `AbstractCompactionStrategy.validateOptions`.
    /// Origin: db/compaction/AbstractCompactionStrategy.java validateOptions
    #[error("'unchecked_tombstone_compaction' should be either 'true' or 'false', not '{value}'")]
    UncheckedTombstoneNotBoolean { value: String },
    /// `AbstractCompactionStrategy.validateOptions`.
    /// Origin: db/compaction/AbstractCompactionStrategy.java validateOptions
    #[error("'log_all' should either be 'true' or 'false', not {value}")]
    LogAllNotBoolean { value: String },
    /// `AbstractCompactionStrategy.validateOptions`.
    /// Origin: db/compaction/AbstractCompactionStrategy.java validateOptions
    #[error("enabled should either be 'true' or 'false', not {value}")]
    EnabledNotBoolean { value: String },
    /// `AbstractCompactionStrategy.validateOptions`.
    /// Origin: db/compaction/AbstractCompactionStrategy.java validateOptions
    #[error("'only_purge_repaired_tombstones' should be either 'true' or 'false', not {value}")]
    OnlyPurgeRepairedNotBoolean { value: String },
    /// `SizeTieredCompactionStrategyOptions.validateOptions`.
    /// Origin: db/compaction/SizeTieredCompactionStrategyOptions.java validateOptions
    #[error("min_sstable_size must be non negative: {size}")]
    NegativeMinSstableSize { size: i64 },
    /// `SizeTieredCompactionStrategyOptions.validateOptions`; both as Java prints doubles.
    /// Origin: db/compaction/SizeTieredCompactionStrategyOptions.java validateOptions
    #[error("Bucket high value ({high}) is less than or equal bucket low value ({low})")]
    BucketHighNotAboveLow { high: String, low: String },
    /// `LeveledCompactionStrategy.validateOptions`: `sstable_size_in_mb` or `fanout_size`.
    /// Origin: db/compaction/LeveledCompactionStrategy.java validateOptions
    #[error("{option} must be larger than 0, but was {value}")]
    LeveledSizeNotPositive { option: &'static str, value: i32 },
    /// `TimeWindowCompactionStrategyOptions.validateOptions`: a unit it does not take.
    /// Origin: db/compaction/TimeWindowCompactionStrategyOptions.java validateOptions
    #[error("{value} is not valid for {option}")]
    InvalidTimeUnit { value: String, option: &'static str },
    /// `TimeWindowCompactionStrategyOptions.validateOptions`.
    /// Origin: db/compaction/TimeWindowCompactionStrategyOptions.java validateOptions
    #[error("{size} must be greater than 1 for compaction_window_size")]
    WindowSizeBelowOne { size: i32 },
    /// `TimeWindowCompactionStrategyOptions.validateOptions`.
    /// Origin: db/compaction/TimeWindowCompactionStrategyOptions.java validateOptions
    #[error("expired_sstable_check_frequency_seconds must not be negative, but was {value}")]
    NegativeExpiredCheck { value: i64 },
    /// `TimeWindowCompactionStrategyOptions.validateOptions`.
    /// Origin: db/compaction/TimeWindowCompactionStrategyOptions.java validateOptions
    #[error("unsafe_aggressive_sstable_expiration is not 'true' or 'false' ({value})")]
    UnsafeExpirationNotBoolean { value: String },
    /// `TimeWindowCompactionStrategyOptions.validateOptions`: this server never sets the
    /// system property that allows it.
    /// Origin: db/compaction/TimeWindowCompactionStrategyOptions.java validateOptions
    #[error("unsafe_aggressive_sstable_expiration is requested but not allowed, restart cassandra with -Dcassandra.allow_unsafe_aggressive_sstable_expiration=true to allow it")]
    UnsafeExpirationNotAllowed,
    /// UCS `Controller.validateOptions`: `base_shard_count` or
    /// `expired_sstable_check_frequency_seconds` of zero or less.
    /// Origin: db/compaction/unified/Controller.java validateOptions
    #[error("Invalid configuration, {option} should be positive: {value}")]
    NotPositive { option: &'static str, value: i64 },
    /// UCS `Controller.validateOptions`.
    /// Origin: db/compaction/unified/Controller.java validateOptions
    #[error("{value} is not a parsable long (base10) for {option}")]
    NotParsableLong { value: String, option: &'static str },
    /// UCS `Controller.validateOptions`.
    /// Origin: db/compaction/unified/Controller.java validateOptions
    #[error(
        "unsafe_aggressive_sstable_expiration should either be 'true' or 'false', not {value}"
    )]
    UnifiedUnsafeExpirationNotBoolean { value: String },
    /// UCS `Controller.validateOptions`.
    /// Origin: db/compaction/unified/Controller.java validateOptions
    #[error("Invalid overlap inclusion method {value}. The valid options are [NONE, SINGLE, TRANSITIVE].")]
    InvalidOverlapInclusionMethod { value: String },
    /// `UnifiedCompactionStrategy.parseScalingParameter`.
    /// Origin: db/compaction/UnifiedCompactionStrategy.java parseScalingParameter
    #[error("Scaling parameter {parameter} must match N|L[0-9]+|T[0-9]+|[+-]?[0-9]+")]
    ScalingParameterPattern { parameter: String },
    /// `UnifiedCompactionStrategy.parseScalingParameter`.
    /// Origin: db/compaction/UnifiedCompactionStrategy.java parseScalingParameter
    #[error("Fan factor cannot be lower than 2 in {parameter}")]
    FanFactorBelowTwo { parameter: String },
    /// `CompactionParams.validate` wrapping an exception of UCS's `validateOptions` that is no
    /// ConfigurationException (an `int` overflow).
    /// Origin: schema/CompactionParams.java validate (wrapping a non-ConfigurationException)
    #[error("org.apache.cassandra.db.compaction.UnifiedCompactionStrategy.validateOptions() threw an error: {cause}")]
    UnifiedValidationThrew { cause: String },

    // Caching: `CachingParams.fromMap`.
    /// Sub-options other than `keys` and `rows_per_partition`, as a Java key set.
    /// Origin: schema/CachingParams.java fromMap
    #[error(
        "Invalid caching sub-options {options}: only 'keys' and 'rows_per_partition' are allowed"
    )]
    UnknownCachingSubOptions { options: String },
    /// Origin: schema/CachingParams.java fromMap
    #[error(
        "Invalid value '{value}' for caching sub-option 'keys': only 'ALL' and 'NONE' are allowed"
    )]
    InvalidCachingKeys { value: String },
    /// Origin: schema/CachingParams.java fromMap
    #[error("Invalid value '{value}' for caching sub-option 'rows_per_partition': only 'ALL', 'NONE', and integer values are allowed")]
    InvalidCachingRows { value: String },

    // Speculative retry and additional write policy: `SpeculativeRetryPolicy.fromString` and
    // its parsers (which name `speculative_retry` for both options).
    /// Origin: service/reads/SpeculativeRetryPolicy.java fromString
    #[error("Invalid value {value} for option 'speculative_retry'")]
    InvalidRetryPolicy { value: String },
    /// `PercentileSpeculativeRetryPolicy.fromString`.
    /// Origin: service/reads/PercentileSpeculativeRetryPolicy.java fromString
    #[error("Invalid value {value} for PERCENTILE option 'speculative_retry': must be between (0.0 and 100.0)")]
    PercentileOutOfRange { value: String },
    /// `HybridSpeculativeRetryPolicy.fromString`.
    /// Origin: service/reads/HybridSpeculativeRetryPolicy.java fromString
    #[error("Invalid value {value} for option 'speculative_retry': MIN()/MAX() arguments should be of different types, but both are of type {kind}")]
    HybridSameKind { value: String, kind: &'static str },

    // Memtable: `MemtableParams.get`.
    /// Origin: schema/MemtableParams.java get
    #[error("Memtable configuration \"{name}\" not found.")]
    UnknownMemtable { name: String },

    /// `TableAttributes.asAlteredTableParams`: ALTER TABLE or MATERIALIZED VIEW `WITH id`.
    /// Origin: cql3/statements/schema/TableAttributes.java asAlteredTableParams
    #[error("Cannot alter table id.")]
    AlterTableId,

    // Ranges: `TableParams.validate`; doubles as Java prints them.
    /// Origin: schema/TableParams.java validate
    #[error("bloom_filter_fp_chance must be larger than 6.71E-5 and less than or equal to 1.0 (got {got})")]
    BloomFilterFpChance { got: String },
    /// Origin: schema/TableParams.java validate
    #[error("crc_check_chance must be larger than or equal to 0 and smaller than or equal to 1.0 (got {got})")]
    CrcCheckChance { got: String },
    /// Origin: schema/TableParams.java validate
    #[error("default_time_to_live must be greater than or equal to 0 (got {ttl})")]
    NegativeDefaultTtl { ttl: i32 },
    /// Origin: schema/TableParams.java validate
    #[error("default_time_to_live must be less than or equal to 630720000 (got {ttl})")]
    DefaultTtlTooLarge { ttl: i32 },
    /// Origin: schema/TableParams.java validate
    #[error("gc_grace_seconds must be greater than or equal to 0 (got {got})")]
    NegativeGcGrace { got: i32 },
    /// Origin: schema/TableParams.java validate
    #[error("min_index_interval must be greater than or equal to 1 (got {got})")]
    MinIndexIntervalBelowOne { got: i32 },
    /// Origin: schema/TableParams.java validate
    #[error("max_index_interval must be greater than or equal to min_index_interval ({min}) (got {max})")]
    MaxIndexIntervalBelowMin { min: i32, max: i32 },
    /// Origin: schema/TableParams.java validate
    #[error("memtable_flush_period_in_ms must be greater than or equal to 0 (got {got})")]
    NegativeFlushPeriod { got: i32 },
}
