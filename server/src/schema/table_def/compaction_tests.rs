//! The `compaction` option against Cassandra 5.0's messages and stored forms.

use std::collections::BTreeMap;

use super::compaction_map;

fn map(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
    entries
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn stored(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
    compaction_map(map(entries)).unwrap()
}

fn refused(entries: &[(&str, &str)]) -> String {
    compaction_map(map(entries)).unwrap_err().to_string()
}

const STCS: &str = "org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy";
const LCS: &str = "org.apache.cassandra.db.compaction.LeveledCompactionStrategy";
const UCS: &str = "org.apache.cassandra.db.compaction.UnifiedCompactionStrategy";

#[test]
fn stored_with_qualified_class_and_default_thresholds() {
    assert_eq!(
        stored(&[("class", "SizeTieredCompactionStrategy")]),
        map(&[
            ("class", STCS),
            ("max_threshold", "32"),
            ("min_threshold", "4")
        ])
    );
    assert_eq!(
        stored(&[
            ("class", "LeveledCompactionStrategy"),
            ("sstable_size_in_mb", "160")
        ]),
        map(&[
            ("class", LCS),
            ("max_threshold", "32"),
            ("min_threshold", "4"),
            ("sstable_size_in_mb", "160")
        ])
    );
    assert_eq!(
        stored(&[("class", UCS), ("scaling_parameters", "T4")]),
        map(&[("class", UCS), ("scaling_parameters", "T4")])
    );
    let twcs = stored(&[
        ("class", "TimeWindowCompactionStrategy"),
        ("compaction_window_unit", "HOURS"),
        ("compaction_window_size", "6"),
        ("timestamp_resolution", "SECONDS"),
    ]);
    assert_eq!(twcs["compaction_window_unit"], "HOURS");
    assert_eq!(twcs["min_threshold"], "4");
}

#[test]
fn class_and_common_options_get_cassandras_messages() {
    let cases: [(&[(&str, &str)], &str); 9] = [
        (&[("min_threshold", "4")], "Missing sub-option 'class' for the 'compaction' option"),
        (&[("class", "DateTieredCompactionStrategy")], "Unable to find compaction strategy class 'org.apache.cassandra.db.compaction.DateTieredCompactionStrategy'"),
        (&[("class", "SizeTieredCompactionStrategy"), ("provide_overlapping_tombstones", "some")], "Invalid value SOME for 'provide_overlapping_tombstones' compaction sub-option - must be one of the following [NONE, ROW, CELL]."),
        (&[("class", "SizeTieredCompactionStrategy"), ("tombstone_threshold", "-0.4")], "tombstone_threshold must be greater than 0, but was -0.400000"),
        (&[("class", "LeveledCompactionStrategy"), ("tombstone_compaction_interval", "-7")], "tombstone_compaction_interval must be greater than 0, but was -7"),
        (&[("class", "LeveledCompactionStrategy"), ("unchecked_tombstone_compaction", "maybe")], "'unchecked_tombstone_compaction' should be either 'true' or 'false', not 'maybe'"),
        (&[("class", "LeveledCompactionStrategy"), ("enabled", "certainly")], "enabled should either be 'true' or 'false', not certainly"),
        (&[("class", "SizeTieredCompactionStrategy"), ("abc", "-54.54")], "Properties specified [abc] are not understood by SizeTieredCompactionStrategy"),
        (&[("class", UCS), ("min_threshold", "4")], "Properties specified [min_threshold] are not understood by UnifiedCompactionStrategy"),
    ];
    for (entries, message) in cases {
        assert_eq!(refused(entries), message, "{entries:?}");
    }
}

#[test]
fn thresholds_get_cassandras_messages() {
    let cases: [(&[(&str, &str)], &str); 4] = [
        (&[("class", "SizeTieredCompactionStrategy"), ("min_threshold", "1")], "Min compaction threshold cannot be less than 2 (got 1)"),
        (&[("class", "TimeWindowCompactionStrategy"), ("max_threshold", "1")], "Min compaction threshold (got 4) cannot be greater than max compaction threshold (got 1)"),
        (&[("class", "SizeTieredCompactionStrategy"), ("max_threshold", "0")], "Disabling compaction by setting compaction thresholds to 0 has been removed, set the compaction option 'enabled' to false instead."),
        (&[("class", "SizeTieredCompactionStrategy"), ("min_threshold", "-1")], "Invalid value -1 for 'min_threshold' compaction sub-option - must be an integer"),
    ];
    for (entries, message) in cases {
        assert_eq!(refused(entries), message, "{entries:?}");
    }
}

#[test]
fn strategy_options_get_cassandras_messages() {
    let cases: [(&[(&str, &str)], &str); 9] = [
        (&[("class", "SizeTieredCompactionStrategy"), ("min_sstable_size", "-1")], "min_sstable_size must be non negative: -1"),
        (&[("class", "SizeTieredCompactionStrategy"), ("bucket_high", "0.4")], "Bucket high value (0.4) is less than or equal bucket low value (0.5)"),
        (&[("class", "SizeTieredCompactionStrategy"), ("bucket_low", "x")], "x is not a parsable int (base10) for 0.5"),
        (&[("class", "SizeTieredCompactionStrategy"), ("cold_reads_to_omit", "0.5")], "Properties specified [cold_reads_to_omit] are not understood by SizeTieredCompactionStrategy"),
        (&[("class", "LeveledCompactionStrategy"), ("sstable_size_in_mb", "-5")], "sstable_size_in_mb must be larger than 0, but was -5"),
        (&[("class", "LeveledCompactionStrategy"), ("compaction_window_size", "4")], "Properties specified [compaction_window_size] are not understood by LeveledCompactionStrategy"),
        (&[("class", "TimeWindowCompactionStrategy"), ("compaction_window_unit", "SECONDS")], "SECONDS is not valid for compaction_window_unit"),
        (&[("class", "TimeWindowCompactionStrategy"), ("compaction_window_size", "-8")], "-8 must be greater than 1 for compaction_window_size"),
        (&[("class", "TimeWindowCompactionStrategy"), ("dog", "3")], "Properties specified [dog] are not understood by TimeWindowCompactionStrategy"),
    ];
    for (entries, message) in cases {
        assert_eq!(refused(entries), message, "{entries:?}");
    }
}
