//! The `caching` table option as Cassandra 5.0's `CachingParams.fromMap` reads it: `keys`
//! (`ALL`/`NONE`, and `NONE` when left out) and `rows_per_partition` (`ALL`, `NONE` or a
//! count), stored as its `asMap` lists them.

use std::collections::BTreeMap;

use crate::error::TableOptionError;
use crate::schema::table_def::java_hash_order::java_key_set;
use crate::schema::table_def::java_number::{is_numeric, parse_int};

const KEYS: &str = "keys";
const ROWS_PER_PARTITION: &str = "rows_per_partition";

/// The stored form of `WITH caching = {raw}`, or Cassandra's refusal.
pub(crate) fn caching_map(
    raw: BTreeMap<String, String>,
) -> Result<BTreeMap<String, String>, TableOptionError> {
    let mut options = raw;
    let entries = options.len();
    let keys = match options.remove(KEYS) {
        Some(value) => keys_from(&value)?,
        None => "NONE",
    };
    let rows = match options.remove(ROWS_PER_PARTITION) {
        Some(value) => rows_from(&value)?,
        None => "NONE".to_string(),
    };
    if !options.is_empty() {
        let unknown: Vec<String> = options.into_keys().collect();
        return Err(TableOptionError::UnknownCachingSubOptions {
            options: java_key_set(&unknown, entries),
        });
    }
    Ok(BTreeMap::from([
        (KEYS.to_string(), keys.to_string()),
        (ROWS_PER_PARTITION.to_string(), rows),
    ]))
}

fn keys_from(value: &str) -> Result<&'static str, TableOptionError> {
    if value.eq_ignore_ascii_case("ALL") {
        Ok("ALL")
    } else if value.eq_ignore_ascii_case("NONE") {
        Ok("NONE")
    } else {
        Err(TableOptionError::InvalidCachingKeys {
            value: value.to_string(),
        })
    }
}

/// `ALL`, `NONE`, or a count (0 meaning `NONE`), printed back as Cassandra prints it.
fn rows_from(value: &str) -> Result<String, TableOptionError> {
    let refused = || TableOptionError::InvalidCachingRows {
        value: value.to_string(),
    };
    if value.eq_ignore_ascii_case("ALL") {
        return Ok("ALL".into());
    }
    if value.eq_ignore_ascii_case("NONE") {
        return Ok("NONE".into());
    }
    if !is_numeric(value) {
        return Err(refused());
    }
    match parse_int(value).ok_or_else(refused)? {
        0 => Ok("NONE".into()),
        i32::MAX => Ok("ALL".into()),
        count => Ok(count.to_string()),
    }
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

    #[test]
    fn caching_is_stored_as_cassandra_lists_it() {
        let stored = |entries| caching_map(map(entries)).unwrap();
        assert_eq!(
            stored(&[("keys", "all"), ("rows_per_partition", "0100")]),
            map(&[("keys", "ALL"), ("rows_per_partition", "100")])
        );
        assert_eq!(
            stored(&[("rows_per_partition", "ALL")]),
            map(&[("keys", "NONE"), ("rows_per_partition", "ALL")])
        );
        assert_eq!(
            stored(&[("keys", "NONE"), ("rows_per_partition", "0")]),
            map(&[("keys", "NONE"), ("rows_per_partition", "NONE")])
        );
    }

    #[test]
    fn bad_caching_gets_cassandras_messages() {
        let refused = |entries| caching_map(map(entries)).unwrap_err().to_string();
        assert_eq!(
            refused(&[("keys", "SOME")]),
            "Invalid value 'SOME' for caching sub-option 'keys': only 'ALL' and 'NONE' are allowed"
        );
        assert_eq!(
            refused(&[("rows_per_partition", "-1")]),
            "Invalid value '-1' for caching sub-option 'rows_per_partition': only 'ALL', 'NONE', and integer values are allowed"
        );
        assert_eq!(
            refused(&[("keys", "ALL"), ("enabled", "true")]),
            "Invalid caching sub-options [enabled]: only 'keys' and 'rows_per_partition' are allowed"
        );
    }
}
