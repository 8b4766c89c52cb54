//! `WITH` properties of CREATE/ALTER KEYSPACE and TABLE: validation, Cassandra's class-name
//! expansion and defaults (`TableAttributes`, `KeyspaceParams`, `CompressionParams`).

use std::collections::BTreeMap;

use cql::statement::ast::{Literal, Property, PropertyValue};
use storage::TableParams;

use crate::error::{CqlResult, DdlError, OptionsError, SyntaxError, TableOptionError};
use crate::schema::table_def::caching::caching_map;
use crate::schema::table_def::compaction::{compaction_map, is_leveled};
use crate::schema::table_def::java_number::{parse_double, parse_int};
use crate::schema::table_def::param_ranges::check_param_ranges;
use crate::schema::table_def::speculative_retry::canonical_retry_policy;

/// The only datacenter of this single-node cluster (`system.local.data_center`).
pub(crate) const DATACENTER: &str = "datacenter1";

const STRATEGY_PACKAGE: &str = "org.apache.cassandra.locator.";
/// The memtable configurations Cassandra 5.0's default `cassandra.yaml` defines.
const MEMTABLE_CONFIGURATIONS: [&str; 3] = ["default", "skiplist", "trie"];

fn literal_text(lit: &Literal) -> String {
    match lit {
        Literal::String(s) | Literal::Integer(s) | Literal::Float(s) | Literal::Duration(s) => {
            s.clone()
        }
        Literal::Boolean(b) => b.to_string(),
        Literal::Uuid(u) => u.to_string(),
        Literal::Blob(b) => format!("0x{}", crate::error::hex(b)),
        Literal::Null => "null".to_string(),
    }
}

fn value_text(value: &PropertyValue) -> Option<String> {
    match value {
        PropertyValue::Constant(lit) => Some(literal_text(lit)),
        PropertyValue::Identifier(s) => Some(s.clone()),
        PropertyValue::Map(_) => None,
    }
}

fn value_map(value: &PropertyValue, name: &str) -> CqlResult<BTreeMap<String, String>> {
    match value {
        PropertyValue::Map(entries) => Ok(entries
            .iter()
            .map(|(k, v)| (k.clone(), literal_text(v)))
            .collect()),
        _ => Err(SyntaxError::PropertyNotAMap {
            property: name.to_string(),
        }
        .into()),
    }
}

fn expect_text(value: &PropertyValue, name: &str) -> CqlResult<String> {
    value_text(value).ok_or_else(|| {
        SyntaxError::PropertyNotAString {
            property: name.to_string(),
        }
        .into()
    })
}

/// `TableAttributes.getInt`: `Integer.parseInt` of the value's text.
fn parse_int_property(value: &PropertyValue, name: &str) -> CqlResult<i32> {
    let text = expect_text(value, name)?;
    parse_int(&text).ok_or_else(|| {
        SyntaxError::PropertyNotAnInteger {
            value: text,
            property: name.to_string(),
        }
        .into()
    })
}

/// `TableAttributes.getDouble`: `Double.parseDouble` of the value's text.
fn parse_double_property(value: &PropertyValue, name: &str) -> CqlResult<f64> {
    let text = expect_text(value, name)?;
    parse_double(&text).ok_or_else(|| {
        SyntaxError::PropertyNotADouble {
            value: text,
            property: name.to_string(),
        }
        .into()
    })
}

/// `PropertyDefinitions.parseBoolean`: 1/true/yes or 0/false/no, in any case.
fn parse_bool(value: &PropertyValue, name: &str) -> CqlResult<bool> {
    let text = expect_text(value, name)?;
    match text.to_lowercase().as_str() {
        "1" | "true" | "yes" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        _ => Err(SyntaxError::PropertyNotABoolean {
            value: text,
            property: name.to_string(),
        }
        .into()),
    }
}

/// Expands a short class name with `package` unless it is already qualified.
fn qualify(class: &str, package: &str) -> String {
    if class.contains('.') {
        class.to_string()
    } else {
        format!("{package}{class}")
    }
}

/// Keyspace properties: the replication map (class expanded, validated) and durable_writes.
pub(crate) fn keyspace_params(
    keyspace: &str,
    properties: &[Property],
    mut replication: BTreeMap<String, String>,
    mut durable_writes: bool,
    datacenters: &[&str],
) -> CqlResult<(BTreeMap<String, String>, bool)> {
    let mut saw_replication = !replication.is_empty();
    for prop in properties {
        match prop.name.to_ascii_lowercase().as_str() {
            "replication" => {
                let raw = value_map(&prop.value, "replication")?;
                replication = replication_map(keyspace, raw, &replication, datacenters)?;
                saw_replication = true;
            }
            "durable_writes" => durable_writes = parse_bool(&prop.value, "durable_writes")?,
            other => {
                return Err(SyntaxError::UnknownProperty {
                    property: other.to_string(),
                }
                .into())
            }
        }
    }
    if !saw_replication {
        return Err(OptionsError::MissingReplication.into());
    }
    Ok((replication, durable_writes))
}

/// Cassandra's `default_keyspace_rf` (its default, 1): the replication factor a strategy
/// gets when none is given and the keyspace had none before.
const DEFAULT_KEYSPACE_RF: &str = "1";

/// The replication map of CREATE/ALTER KEYSPACE: `raw` as written, `previous` the keyspace's
/// map before an ALTER (empty for CREATE). Missing factors come from `previous`, else from
/// `default_keyspace_rf`, as Cassandra 5.0's strategies' `prepareOptions` do.
fn replication_map(
    keyspace: &str,
    raw: BTreeMap<String, String>,
    previous: &BTreeMap<String, String>,
    datacenters: &[&str],
) -> CqlResult<BTreeMap<String, String>> {
    let Some(class) = raw.get("class") else {
        return Err(OptionsError::MissingReplicationClass.into());
    };
    let class = qualify(class, STRATEGY_PACKAGE);
    let mut options: BTreeMap<String, String> =
        raw.into_iter().filter(|(key, _)| key != "class").collect();
    let previous_rf = previous.get("replication_factor").map(String::as_str);
    let mut map = match class.rsplit('.').next().unwrap_or_default() {
        "SimpleStrategy" => {
            let rf = previous_rf.unwrap_or(DEFAULT_KEYSPACE_RF);
            options
                .entry("replication_factor".into())
                .or_insert_with(|| rf.into());
            simple_strategy(keyspace, options)?
        }
        "NetworkTopologyStrategy" => {
            if options.is_empty() {
                let rf = previous_rf.unwrap_or(DEFAULT_KEYSPACE_RF);
                options.insert("replication_factor".into(), rf.into());
            }
            network_topology(keyspace, options, previous, datacenters)?
        }
        "LocalStrategy" => return Err(DdlError::LocalStrategy.into()),
        _ => return Err(OptionsError::UnknownStrategy { class }.into()),
    };
    map.insert("class".to_string(), class);
    Ok(map)
}

/// SimpleStrategy's options: exactly a valid `replication_factor`.
fn simple_strategy(
    keyspace: &str,
    options: BTreeMap<String, String>,
) -> CqlResult<BTreeMap<String, String>> {
    let mut map = BTreeMap::new();
    for (key, rf) in options {
        if key != "replication_factor" {
            return Err(OptionsError::UnrecognizedStrategyOption {
                option: key,
                strategy: "SimpleStrategy",
                keyspace: keyspace.to_string(),
            }
            .into());
        }
        validate_rf(&rf)?;
        map.insert(key, rf.trim().to_string());
    }
    Ok(map)
}

/// NetworkTopologyStrategy's options: `replication_factor` expands to every datacenter of
/// `datacenters` (the cluster's); on ALTER, datacenters not named keep their factor; factors
/// of 0 are dropped.
fn network_topology(
    keyspace: &str,
    mut options: BTreeMap<String, String>,
    previous: &BTreeMap<String, String>,
    datacenters: &[&str],
) -> CqlResult<BTreeMap<String, String>> {
    let expand = options.remove("replication_factor");
    if expand.is_some() {
        for (key, value) in previous {
            if key != "class" && key != "replication_factor" {
                options.entry(key.clone()).or_insert_with(|| value.clone());
            }
        }
    }
    let mut map = BTreeMap::new();
    for (dc, value) in options {
        validate_rf(&value)?;
        if !datacenters.contains(&dc.as_str()) {
            return Err(OptionsError::UnrecognizedStrategyOption {
                option: dc,
                strategy: "NetworkTopologyStrategy",
                keyspace: keyspace.to_string(),
            }
            .into());
        }
        map.insert(dc, value.trim().to_string());
    }
    if let Some(rf) = expand {
        validate_rf(&rf)?;
        for dc in datacenters {
            map.entry((*dc).to_string())
                .or_insert_with(|| rf.trim().to_string());
        }
    }
    map.retain(|_, rf| rf != "0");
    Ok(map)
}

fn validate_rf(rf: &str) -> CqlResult<()> {
    let trimmed = rf.trim();
    let ok = trimmed.parse::<i32>().is_ok_and(|n| n >= 0)
        || trimmed
            .split_once('/')
            .is_some_and(|(a, b)| a.parse::<i32>().is_ok() && b.parse::<i32>().is_ok());
    if ok {
        Ok(())
    } else {
        Err(OptionsError::NegativeReplicationFactor {
            factor: rf.to_string(),
        }
        .into())
    }
}

/// The parameters of a new table (CREATE TABLE or MATERIALIZED VIEW): `properties` over the
/// defaults, and a bloom filter chance of 0.1 for a leveled table that names none, as
/// Cassandra's `TableParams` builder defaults it.
pub(crate) fn new_table_params(properties: &[Property]) -> CqlResult<TableParams> {
    let mut params = table_params(properties, TableParams::default())?;
    let names_bloom = properties
        .iter()
        .any(|p| p.name.eq_ignore_ascii_case("bloom_filter_fp_chance"));
    if !names_bloom && is_leveled(&params.compaction) {
        params.bloom_filter_fp_chance = 0.1;
    }
    Ok(params)
}

/// The parameters of an altered table or view (`TableAttributes.asAlteredTableParams`):
/// `properties` over `previous`; a table's id cannot be altered.
pub(crate) fn altered_table_params(
    properties: &[Property],
    previous: TableParams,
) -> CqlResult<TableParams> {
    if properties.iter().any(|p| p.name.eq_ignore_ascii_case("id")) {
        return Err(TableOptionError::AlterTableId.into());
    }
    table_params(properties, previous)
}

/// Applies table properties over `params` (Cassandra's `TableAttributes`), then checks the
/// result whole as `TableParams.validate` does.
pub(crate) fn table_params(
    properties: &[Property],
    mut params: TableParams,
) -> CqlResult<TableParams> {
    for prop in properties {
        apply_property(prop, &mut params)?;
    }
    check_param_ranges(&params)?;
    Ok(params)
}

/// One property of `TableAttributes.build`, read and written into `params`.
fn apply_property(prop: &Property, params: &mut TableParams) -> CqlResult<()> {
    let name = prop.name.to_ascii_lowercase();
    let v = &prop.value;
    match name.as_str() {
        "comment" => params.comment = expect_text(v, &name)?,
        "default_time_to_live" => params.default_time_to_live = parse_int_property(v, &name)?,
        "gc_grace_seconds" => params.gc_grace_seconds = parse_int_property(v, &name)?,
        "bloom_filter_fp_chance" => {
            params.bloom_filter_fp_chance = parse_double_property(v, &name)?
        }
        "crc_check_chance" => params.crc_check_chance = parse_double_property(v, &name)?,
        "max_index_interval" => params.max_index_interval = parse_int_property(v, &name)?,
        "min_index_interval" => params.min_index_interval = parse_int_property(v, &name)?,
        "memtable_flush_period_in_ms" => {
            params.memtable_flush_period_in_ms = parse_int_property(v, &name)?
        }
        "speculative_retry" => {
            params.speculative_retry = canonical_retry_policy(&expect_text(v, &name)?)?
        }
        "additional_write_policy" => {
            params.additional_write_policy = canonical_retry_policy(&expect_text(v, &name)?)?
        }
        "read_repair" => params.read_repair = expect_text(v, &name)?.to_ascii_uppercase(),
        "cdc" => params.cdc = Some(parse_bool(v, &name)?),
        "allow_auto_snapshot" => params.allow_auto_snapshot = Some(parse_bool(v, &name)?),
        "incremental_backups" => params.incremental_backups = Some(parse_bool(v, &name)?),
        "memtable" => params.memtable = Some(memtable_configuration(expect_text(v, &name)?)?),
        "caching" => params.caching = caching_map(value_map(v, &name)?)?,
        "compaction" => params.compaction = compaction_map(value_map(v, &name)?)?,
        "compression" => {
            params.compression = super::compression::compression_map(value_map(v, &name)?)?
        }
        "extensions" => {
            params.extensions = value_map(v, &name)?
                .into_iter()
                .map(|(k, v)| (k, v.into_bytes()))
                .collect()
        }
        // Accepted and ignored, as Cassandra 4+ does for these legacy options.
        "read_repair_chance" | "dclocal_read_repair_chance" | "id" => {}
        other => {
            return Err(SyntaxError::UnknownProperty {
                property: other.to_string(),
            }
            .into())
        }
    }
    Ok(())
}

/// `MemtableParams.get`: a configuration `cassandra.yaml` defines.
fn memtable_configuration(name: String) -> Result<String, TableOptionError> {
    if MEMTABLE_CONFIGURATIONS.contains(&name.as_str()) {
        Ok(name)
    } else {
        Err(TableOptionError::UnknownMemtable { name })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::CqlError;

    fn prop(name: &str, entries: &[(&str, &str)]) -> Property {
        Property {
            name: name.into(),
            value: PropertyValue::Map(
                entries
                    .iter()
                    .map(|(k, v)| (k.to_string(), Literal::String(v.to_string())))
                    .collect(),
            ),
        }
    }

    fn single_dc() -> Vec<&'static str> {
        vec![DATACENTER]
    }

    #[test]
    fn replication_class_is_expanded() {
        let (map, durable) = keyspace_params(
            "ks",
            &[prop(
                "REPLICATION",
                &[("class", "SimpleStrategy"), ("replication_factor", "1")],
            )],
            BTreeMap::new(),
            true,
            &single_dc(),
        )
        .unwrap();
        assert_eq!(map["class"], "org.apache.cassandra.locator.SimpleStrategy");
        assert_eq!(map["replication_factor"], "1");
        assert!(durable);
    }

    #[test]
    fn network_topology_knows_only_this_datacenter() {
        let nts = |key: &str| {
            keyspace_params(
                "ks",
                &[prop(
                    "replication",
                    &[("class", "NetworkTopologyStrategy"), (key, "1")],
                )],
                BTreeMap::new(),
                true,
                &single_dc(),
            )
        };
        assert_eq!(nts("datacenter1").unwrap().0["datacenter1"], "1");
        assert_eq!(nts("replication_factor").unwrap().0["datacenter1"], "1");
        let err = nts("nowhere").unwrap_err();
        assert_eq!(err.error_body().code, 0x2300);
        assert_eq!(
            err.to_string(),
            "Unrecognized strategy option {nowhere} passed to NetworkTopologyStrategy for keyspace ks"
        );
        assert!(nts("Replication_factor").is_err());
    }

    #[test]
    fn missing_factors_come_from_the_previous_map_or_default_keyspace_rf() {
        let replication = |entries: &[(&str, &str)], previous: BTreeMap<String, String>| {
            keyspace_params(
                "ks",
                &[prop("replication", entries)],
                previous,
                true,
                &single_dc(),
            )
            .map(|(map, _)| map)
        };
        let simple = replication(&[("class", "SimpleStrategy")], BTreeMap::new()).unwrap();
        assert_eq!(simple["replication_factor"], "1");
        let nts = replication(&[("class", "NetworkTopologyStrategy")], BTreeMap::new()).unwrap();
        assert_eq!(nts["datacenter1"], "1");
        let from_simple = replication(&[("class", "NetworkTopologyStrategy")], simple).unwrap();
        assert_eq!(from_simple["datacenter1"], "1");
        let previous = BTreeMap::from([
            ("class".to_string(), "SimpleStrategy".to_string()),
            ("replication_factor".to_string(), "3".to_string()),
        ]);
        let altered = replication(&[("class", "NetworkTopologyStrategy")], previous).unwrap();
        assert_eq!(altered["datacenter1"], "3");
        let zero = replication(
            &[("class", "NetworkTopologyStrategy"), ("datacenter1", "0")],
            BTreeMap::new(),
        )
        .unwrap();
        assert!(!zero.contains_key("datacenter1"));
    }

    #[test]
    fn empty_compression_means_disabled() {
        let params = table_params(&[prop("compression", &[])], TableParams::default()).unwrap();
        assert_eq!(
            params.compression.get("enabled").map(String::as_str),
            Some("false")
        );
        let params = table_params(
            &[prop(
                "compression",
                &[("sstable_compression", "LZ4Compressor")],
            )],
            TableParams::default(),
        )
        .unwrap();
        assert_eq!(
            params.compression["class"],
            "org.apache.cassandra.io.compress.LZ4Compressor"
        );
    }

    #[test]
    fn an_altered_table_keeps_its_id_and_is_checked_whole() {
        let id = Property {
            name: "ID".into(),
            value: PropertyValue::Constant(Literal::String(
                "5a1c395e-b41f-11e5-9f22-ba0be0483c18".into(),
            )),
        };
        let err = altered_table_params(&[id], TableParams::default()).unwrap_err();
        assert_eq!(err.error_body().code, 0x2300);
        assert_eq!(err.to_string(), "Cannot alter table id.");
        let previous = TableParams {
            gc_grace_seconds: -1,
            ..TableParams::default()
        };
        let err =
            altered_table_params(&[prop("caching", &[("keys", "ALL")])], previous).unwrap_err();
        assert_eq!(
            err.to_string(),
            "gc_grace_seconds must be greater than or equal to 0 (got -1)"
        );
    }

    #[test]
    fn unknown_property_is_a_syntax_error() {
        let err = table_params(&[prop("nonsense", &[])], TableParams::default()).unwrap_err();
        assert!(matches!(
            err,
            CqlError::Syntax(SyntaxError::UnknownProperty { ref property }) if property == "nonsense"
        ));
        assert_eq!(err.error_body().code, 0x2000);
        assert_eq!(err.to_string(), "Unknown property 'nonsense'");
    }
}
