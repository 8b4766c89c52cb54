//! `OptionsError`: DDL options Cassandra refuses as configuration errors (code 0x2300): replication, compaction, compression, table properties.
//!
//! Each variant carries the facts of the failure and prints Cassandra's message word for word;
//! its CQL code is chosen in `super::CqlError::error_body`.

/// DDL options Cassandra refuses as configuration errors (code 0x2300): replication, compaction, compression, table properties.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OptionsError {
    /// A custom type naming a class Cassandra has not, or parameters its type refuses
    /// (`ConfigurationException`).
    /// Origin: db/marshal/TypeParser.java getAbstractType (the message MarshalError carries)
    #[error("{0}")]
    TypeClass(cql::types::marshal::MarshalError),

    // Keyspace replication.
    /// CREATE KEYSPACE without `replication`.
    /// Origin: cql3/statements/schema/CreateKeyspaceStatement.java apply (KeyspaceAttributes.validate)
    #[error("Missing mandatory option 'replication'")]
    MissingReplication,
    /// Origin: schema/ReplicationParams.java fromMap / KeyspaceAttributes.validate
    #[error("Missing replication strategy class")]
    MissingReplicationClass,
    /// A replication class that is no known strategy; `class` is the qualified class name.
    /// Origin: locator/AbstractReplicationStrategy.java getClass
    #[error("Unable to find replication strategy class '{class}'")]
    UnknownStrategy { class: String },
    /// An option `strategy` (`SimpleStrategy`, `NetworkTopologyStrategy`) does not take, such
    /// as a datacenter this node is not in.
    /// Origin: locator/AbstractReplicationStrategy.java validateExpectedOptions
    #[error(
        "Unrecognized strategy option {{{option}}} passed to {strategy} for keyspace {keyspace}"
    )]
    UnrecognizedStrategyOption {
        option: String,
        strategy: &'static str,
        keyspace: String,
    },
    /// A replication factor that is no count (nor `full/transient`) of zero or more, as written.
    /// Origin: locator/ReplicationFactor.java validate / fromString
    #[error("Replication factor must be non-negative; found {factor}")]
    NegativeReplicationFactor { factor: String },

    // Compression (`CompressionParams.fromMap`).
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("Missing sub-option 'class' for the 'compression' option.")]
    MissingCompressionClass,
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("If the 'enabled' option is set to false no other options must be specified")]
    OptionsWhileDisabled,
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("The 'sstable_compression' option must not be used if the compression algorithm is already specified by the 'class' option")]
    ClassAndSstableCompression,
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("The 'class' option must not be empty. To disable compression use 'enabled' : false")]
    EmptyCompressionClass,
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("The 'chunk_length_kb' option must not be used if the chunk length is already specified by the 'chunk_length_in_kb' option")]
    ChunkLengthBothNames,
    /// A `chunk_length_in_kb` that is no integer, as written.
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("Invalid value for chunk_length_in_kb: {value}")]
    InvalidChunkLength { value: String },
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("Invalid negative or null chunk_length_in_kb")]
    NonPositiveChunkLength,
    /// A chunk length whose bytes would not fit a Java `int`.
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("Value of chunk_length_in_kb is too large ({kib})")]
    ChunkLengthTooLarge { kib: i64 },
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("chunk_length_in_kb must be a power of 2")]
    ChunkLengthNotPowerOfTwo,
    /// A `min_compress_ratio` that is no number, as written.
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("Invalid value for min_compress_ratio: {value}")]
    InvalidMinCompressRatio { value: String },
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("Invalid negative min_compress_ratio")]
    NegativeMinCompressRatio,
    /// A `min_compress_ratio` strictly between 0 and 1.
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("min_compress_ratio can either be 0 or greater than or equal to 1")]
    MinCompressRatioBelowOne,
    /// An option the compressor does not take (the first one, by name).
    /// Origin: schema/CompressionParams.java fromMap / validate
    #[error("Unknown compression options {option}")]
    UnknownCompressionOption { option: String },

    // Index and view options (raised in files other than this enum's first users).
    /// CREATE CUSTOM INDEX ... USING 'StorageAttachedIndex' WITH OPTIONS it does not know.
    /// Origin: schema/IndexMetadata.java validateCustomIndexOptions
    #[error("Properties specified [{}] are not understood by StorageAttachedIndex", .options.join(", "))]
    UnknownSaiOptions { options: Vec<String> },
    /// CREATE CUSTOM INDEX with a class that is not SAI's.
    /// Origin: schema/IndexMetadata.java validate
    #[error("Unable to find custom indexer class '{class}'")]
    UnknownIndexClass { class: String },
    /// A view's `id` property that is no UUID.
    /// Origin: cql3/statements/schema/TableAttributes.java getId
    #[error("Invalid table id")]
    InvalidTableId,
}
