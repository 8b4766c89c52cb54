//! The `compression` table option as Cassandra 5.0's `CompressionParams.fromMap` reads,
//! validates and stores it: what `system_schema.tables` and DESCRIBE show afterwards.

use std::collections::BTreeMap;

use crate::error::{CqlResult, OptionsError};

/// Where Cassandra's compressors live: a bare class name is qualified with it.
const PACKAGE: &str = "org.apache.cassandra.io.compress.";

/// The chunk length when none is given, in KiB.
const DEFAULT_CHUNK_KIB: i64 = 16;

/// The options each built-in compressor takes besides the generic ones.
fn supported_options(class: &str) -> &'static [&'static str] {
    match class.rsplit('.').next().unwrap_or(class) {
        "LZ4Compressor" => &["lz4_compressor_type", "lz4_high_compressor_level"],
        "ZstdCompressor" => &["compression_level"],
        _ => &[],
    }
}

/// The stored form of `WITH compression = {raw}`, or Cassandra's ConfigurationException.
pub(crate) fn compression_map(
    raw: BTreeMap<String, String>,
) -> CqlResult<BTreeMap<String, String>> {
    let mut options = raw;
    let enabled = options
        .remove("enabled")
        .is_none_or(|e| e.eq_ignore_ascii_case("true"));
    if !options.is_empty()
        && enabled
        && !options.contains_key("class")
        && !options.contains_key("sstable_compression")
    {
        return Err(OptionsError::MissingCompressionClass.into());
    }
    let class = if enabled {
        remove_class(&mut options)?
    } else if !options.is_empty() {
        return Err(OptionsError::OptionsWhileDisabled.into());
    } else {
        None
    };
    let chunk_kib = remove_chunk_length(&mut options)?;
    let min_ratio = remove_min_compress_ratio(&mut options)?;
    // Cassandra checks the largest compressed chunk the ratio allows, `chunk / ratio`: more
    // than a chunk (a ratio in (0, 1)) is refused unless it reaches `Integer.MAX_VALUE`.
    let chunk_bytes = chunk_kib as f64 * 1024.0;
    if min_ratio > 0.0 && chunk_bytes / min_ratio > chunk_bytes {
        let max_compressed = (chunk_bytes / min_ratio).ceil();
        if max_compressed < f64::from(i32::MAX) {
            return Err(OptionsError::MinCompressRatioBelowOne.into());
        }
    }
    let Some(class) = class.filter(|c| !c.is_empty()) else {
        return Ok(BTreeMap::from([("enabled".into(), "false".into())]));
    };
    let class = if class.contains('.') {
        class
    } else {
        format!("{PACKAGE}{class}")
    };
    let supported = supported_options(&class);
    if let Some(unknown) = options.keys().find(|k| !supported.contains(&k.as_str())) {
        return Err(OptionsError::UnknownCompressionOption {
            option: unknown.clone(),
        }
        .into());
    }
    options.insert("class".into(), class);
    options.insert("chunk_length_in_kb".into(), chunk_kib.to_string());
    if min_ratio != 0.0 {
        options.insert("min_compress_ratio".into(), format!("{min_ratio:?}"));
    }
    Ok(options)
}

/// `class`, or the old `sstable_compression`; never both; `class` never empty.
fn remove_class(options: &mut BTreeMap<String, String>) -> Result<Option<String>, OptionsError> {
    match options.remove("class") {
        Some(_) if options.contains_key("sstable_compression") => {
            Err(OptionsError::ClassAndSstableCompression)
        }
        Some(class) if class.is_empty() => Err(OptionsError::EmptyCompressionClass),
        Some(class) => Ok(Some(class)),
        None => Ok(options.remove("sstable_compression")),
    }
}

/// `chunk_length_in_kb` (or the old `chunk_length_kb`, never both): positive, a power of 2.
fn remove_chunk_length(options: &mut BTreeMap<String, String>) -> Result<i64, OptionsError> {
    let text = match options.remove("chunk_length_in_kb") {
        Some(_) if options.contains_key("chunk_length_kb") => {
            return Err(OptionsError::ChunkLengthBothNames)
        }
        Some(text) => text,
        None => match options.remove("chunk_length_kb") {
            Some(text) => text,
            None => return Ok(DEFAULT_CHUNK_KIB),
        },
    };
    let kib: i64 = text.parse().map_err(|_| OptionsError::InvalidChunkLength {
        value: text.clone(),
    })?;
    if kib <= 0 {
        return Err(OptionsError::NonPositiveChunkLength);
    }
    if kib > i64::from(i32::MAX) / 1024 {
        return Err(OptionsError::ChunkLengthTooLarge { kib });
    }
    if kib & (kib - 1) != 0 {
        return Err(OptionsError::ChunkLengthNotPowerOfTwo);
    }
    Ok(kib)
}

/// `min_compress_ratio`: 0 (not stored) unless given; never negative.
fn remove_min_compress_ratio(options: &mut BTreeMap<String, String>) -> Result<f64, OptionsError> {
    let Some(text) = options.remove("min_compress_ratio") else {
        return Ok(0.0);
    };
    let ratio: f64 = text
        .parse()
        .map_err(|_| OptionsError::InvalidMinCompressRatio {
            value: text.clone(),
        })?;
    if ratio < 0.0 {
        return Err(OptionsError::NegativeMinCompressRatio);
    }
    Ok(ratio)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn stored(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
        compression_map(map(entries)).unwrap()
    }

    fn refused(entries: &[(&str, &str)]) -> String {
        match compression_map(map(entries)) {
            Err(err) if err.error_body().code == 0x2300 => err.to_string(),
            other => panic!("{entries:?}: {other:?}"),
        }
    }

    #[test]
    fn options_are_stored_as_cassandra_lists_them() {
        let snappy = "org.apache.cassandra.io.compress.SnappyCompressor";
        assert_eq!(
            stored(&[("class", "SnappyCompressor"), ("chunk_length_in_kb", "32")]),
            map(&[("chunk_length_in_kb", "32"), ("class", snappy)])
        );
        assert_eq!(
            stored(&[
                ("sstable_compression", "SnappyCompressor"),
                ("min_compress_ratio", "2")
            ]),
            map(&[
                ("chunk_length_in_kb", "16"),
                ("class", snappy),
                ("min_compress_ratio", "2.0")
            ])
        );
        assert_eq!(
            stored(&[
                ("sstable_compression", "SnappyCompressor"),
                ("min_compress_ratio", "0")
            ]),
            map(&[("chunk_length_in_kb", "16"), ("class", snappy)])
        );
        let disabled = map(&[("enabled", "false")]);
        assert_eq!(stored(&[]), disabled);
        assert_eq!(stored(&[("enabled", "false")]), disabled);
        assert_eq!(
            stored(&[("sstable_compression", ""), ("chunk_length_kb", "32")]),
            disabled
        );
    }

    #[test]
    fn bad_options_get_cassandras_configuration_messages() {
        let cases: [(&[(&str, &str)], &str); 10] = [
            (&[("chunk_length_in_kb", "32")], "Missing sub-option 'class' for the 'compression' option."),
            (&[("class", "")], "The 'class' option must not be empty. To disable compression use 'enabled' : false"),
            (&[("enabled", "false"), ("class", "SnappyCompressor")], "If the 'enabled' option is set to false no other options must be specified"),
            (&[("sstable_compression", "SnappyCompressor"), ("class", "SnappyCompressor")], "The 'sstable_compression' option must not be used if the compression algorithm is already specified by the 'class' option"),
            (&[("class", "SnappyCompressor"), ("chunk_length_kb", "32"), ("chunk_length_in_kb", "32")], "The 'chunk_length_kb' option must not be used if the chunk length is already specified by the 'chunk_length_in_kb' option"),
            (&[("class", "SnappyCompressor"), ("chunk_length_in_kb", "31")], "chunk_length_in_kb must be a power of 2"),
            (&[("class", "SnappyCompressor"), ("chunk_length_in_kb", "-1")], "Invalid negative or null chunk_length_in_kb"),
            (&[("class", "SnappyCompressor"), ("min_compress_ratio", "-1")], "Invalid negative min_compress_ratio"),
            (&[("class", "SnappyCompressor"), ("min_compress_ratio", "0.5")], "min_compress_ratio can either be 0 or greater than or equal to 1"),
            (&[("class", "SnappyCompressor"), ("unknownOption", "32")], "Unknown compression options unknownOption"),
        ];
        for (entries, message) in cases {
            assert_eq!(refused(entries), message, "{entries:?}");
        }
    }
}
