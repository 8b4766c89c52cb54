//! `system_views.settings`: the settings the server runs with, by their cassandra.yaml names,
//! as Cassandra 5.0's `SettingsTable` lists them (durations in milliseconds, sizes in
//! mebibytes or bytes). Secrets (the key store password) are never listed.

use std::time::Duration;

use super::{text, NamedRow};
use crate::config::{sync_mode_name, Config, TlsPolicy};
use crate::guardrails::Threshold;

/// One row per setting, by name.
pub(crate) fn rows(config: &Config) -> Vec<NamedRow> {
    settings(config)
        .into_iter()
        .map(|(name, value)| vec![("name", text(name)), ("value", value.and_then(text))])
        .collect()
}

/// Every listed setting and its value (`None` for one that is not set).
fn settings(config: &Config) -> Vec<(&'static str, Option<String>)> {
    let set = |value: String| Some(value);
    let mut out = vec![
        ("cluster_name", set(config.cluster_name.clone())),
        ("listen_address", set(config.listen_address.to_string())),
        ("rpc_address", set(config.listen_address.to_string())),
        ("native_transport_port", set(config.port.to_string())),
        (
            "commitlog_sync",
            set(sync_mode_name(config.commitlog_sync).into()),
        ),
        (
            "commitlog_sync_period",
            set(millis(config.commitlog_sync_period)),
        ),
        (
            "commitlog_sync_group_window",
            config.commitlog_sync_group_window.map(millis),
        ),
        (
            "authenticator",
            set(config.authenticator.class_name().into()),
        ),
        ("authorizer", set(config.authorizer.class_name().into())),
        ("file_cache_size", set(size(config.file_cache_size as u64))),
        (
            "memtable_heap_space",
            set(size(config.memtable_heap_space as u64)),
        ),
        (
            "native_transport_max_frame_size",
            set(size(config.max_frame_size as u64)),
        ),
        (
            "native_transport_max_concurrent_connections",
            set(config.max_connections.to_string()),
        ),
        (
            "native_transport_max_request_data_in_flight_per_ip",
            set(size(config.max_request_data_in_flight_per_ip)),
        ),
        (
            "native_transport_max_request_data_in_flight",
            set(size(config.max_request_data_in_flight)),
        ),
        (
            "native_transport_idle_timeout",
            set(millis(config.idle_timeout)),
        ),
        (
            "materialized_views_enabled",
            set(config.materialized_views_enabled.to_string()),
        ),
        (
            "client_encryption_options_enabled",
            set((config.client_encryption.policy != TlsPolicy::Unencrypted).to_string()),
        ),
        (
            "client_encryption_options_optional",
            set((config.client_encryption.policy == TlsPolicy::Optional).to_string()),
        ),
        (
            "tombstone_warn_threshold",
            set(config.read_thresholds.tombstone_warn.to_string()),
        ),
        (
            "tombstone_failure_threshold",
            set(config.read_thresholds.tombstone_failure.to_string()),
        ),
        (
            "batch_size_warn_threshold",
            set(size(config.batch_thresholds.warn as u64)),
        ),
        (
            "batch_size_fail_threshold",
            set(size(config.batch_thresholds.fail as u64)),
        ),
        (
            "prepared_statements_cache_size",
            set(size(config.prepared_cache_size as u64)),
        ),
    ];
    out.extend(guardrails(config));
    out
}

/// The guardrail thresholds, warn then fail.
fn guardrails(config: &Config) -> Vec<(&'static str, Option<String>)> {
    let mut out = Vec::new();
    let guardrails: [(&'static str, &'static str, Threshold); 4] = [
        (
            "partition_keys_in_select_warn_threshold",
            "partition_keys_in_select_fail_threshold",
            config.partition_keys_in_select,
        ),
        (
            "in_select_cartesian_product_warn_threshold",
            "in_select_cartesian_product_fail_threshold",
            config.in_select_cartesian_product,
        ),
        (
            "items_per_collection_warn_threshold",
            "items_per_collection_fail_threshold",
            config.items_per_collection,
        ),
        (
            "column_value_size_warn_threshold",
            "column_value_size_fail_threshold",
            config.column_value_size,
        ),
    ];
    for (warn, fail, threshold) in guardrails {
        out.push((warn, Some(threshold.warn.to_string())));
        out.push((fail, Some(threshold.fail.to_string())));
    }
    out
}

fn millis(duration: Duration) -> String {
    format!("{}ms", duration.as_millis())
}

/// A byte size as cassandra.yaml writes it: `64MiB`, or bytes when not whole mebibytes.
fn size(bytes: u64) -> String {
    if bytes > 0 && bytes.is_multiple_of(1 << 20) {
        format!("{}MiB", bytes >> 20)
    } else if bytes > 0 && bytes.is_multiple_of(1 << 10) {
        format!("{}KiB", bytes >> 10)
    } else {
        format!("{bytes}B")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_use_cassandra_names_and_units() {
        let config = Config::default();
        let all = settings(&config);
        let value = |name: &str| {
            all.iter()
                .find(|(n, _)| *n == name)
                .and_then(|(_, v)| v.clone())
        };
        assert_eq!(value("commitlog_sync").as_deref(), Some("periodic"));
        assert_eq!(value("memtable_heap_space").as_deref(), Some("64MiB"));
        assert_eq!(value("batch_size_warn_threshold").as_deref(), Some("5KiB"));
        assert_eq!(value("batch_size_fail_threshold").as_deref(), Some("50KiB"));
        assert_eq!(
            value("authenticator").as_deref(),
            Some("AllowAllAuthenticator")
        );
        assert_eq!(value("commitlog_sync_group_window"), None);
        assert!(all.iter().all(|(name, _)| !name.contains("password")));
    }
}
