//! The system keyspaces and their tables, written as the CQL Cassandra 5.0 would show for them
//! and turned into definitions by the same code path as user DDL.

use std::collections::BTreeMap;
use std::sync::Arc;

use cql::statement::{ast::Statement, parse_statement};
use md5::{Digest, Md5};
use storage::KeyspaceDef;
use uuid::Uuid;

use crate::schema::table_def::create_table_def;

/// Keyspaces that live only in `system_virtual_schema` (not in `system_schema.keyspaces`).
/// `test_control` (ours) is one too, present only when the node's test controls are on; its
/// name is reserved either way.
pub(crate) const VIRTUAL_KEYSPACES: &[&str] = &[
    "system_virtual_schema",
    "system_views",
    crate::control::KEYSPACE,
];

const LOCAL_STRATEGY: &str = "org.apache.cassandra.locator.LocalStrategy";
const SIMPLE_STRATEGY: &str = "org.apache.cassandra.locator.SimpleStrategy";

const SYSTEM: &[&str] = &[
    "CREATE TABLE local (key text, bootstrapped text, broadcast_address inet, broadcast_port int,
     cluster_name text, cql_version text, data_center text, gossip_generation int, host_id uuid,
     listen_address inet, listen_port int, native_protocol_version text, partitioner text,
     rack text, release_version text, rpc_address inet, rpc_port int, schema_version uuid,
     tokens set<text>, truncated_at map<uuid, blob>, PRIMARY KEY ((key)))",
    "CREATE TABLE peers (peer inet, data_center text, host_id uuid, preferred_ip inet, rack text,
     release_version text, rpc_address inet, schema_version uuid, tokens set<text>,
     PRIMARY KEY ((peer)))",
    "CREATE TABLE peers_v2 (peer inet, peer_port int, data_center text, host_id uuid,
     preferred_ip inet, preferred_port int, rack text, release_version text,
     native_address inet, native_port int, schema_version uuid, tokens set<text>,
     PRIMARY KEY ((peer), peer_port))",
    "CREATE TABLE \"IndexInfo\" (table_name text, index_name text, value blob,
     PRIMARY KEY ((table_name), index_name))",
    "CREATE TABLE built_views (keyspace_name text, view_name text, status_replicated boolean,
     PRIMARY KEY ((keyspace_name), view_name))",
    "CREATE TABLE size_estimates (keyspace_name text, table_name text, range_start text,
     range_end text, mean_partition_size bigint, partitions_count bigint,
     PRIMARY KEY ((keyspace_name), table_name, range_start, range_end))
     WITH comment = 'per-table primary range size estimates, table is deprecated in favor of table_estimates'",
    "CREATE TABLE table_estimates (keyspace_name text, table_name text, range_type text,
     range_start text, range_end text, mean_partition_size bigint, partitions_count bigint,
     PRIMARY KEY ((keyspace_name), table_name, range_type, range_start, range_end))
     WITH comment = 'per-table range size estimates'",
];

const OPTION_COLUMNS: &str = "additional_write_policy text, allow_auto_snapshot boolean,
     bloom_filter_fp_chance double, caching frozen<map<text, text>>, cdc boolean, comment text,
     compaction frozen<map<text, text>>, compression frozen<map<text, text>>,
     crc_check_chance double, dclocal_read_repair_chance double, default_time_to_live int,
     extensions frozen<map<text, blob>>, gc_grace_seconds int, id uuid,
     incremental_backups boolean, max_index_interval int, memtable text,
     memtable_flush_period_in_ms int, min_index_interval int, read_repair text,
     read_repair_chance double, speculative_retry text";

fn system_schema_tables() -> Vec<String> {
    vec![
        "CREATE TABLE keyspaces (keyspace_name text, durable_writes boolean,
         replication frozen<map<text, text>>, PRIMARY KEY ((keyspace_name)))"
            .to_string(),
        format!(
            "CREATE TABLE tables (keyspace_name text, table_name text, {OPTION_COLUMNS},
             flags frozen<set<text>>, PRIMARY KEY ((keyspace_name), table_name))"
        ),
        "CREATE TABLE columns (keyspace_name text, table_name text, column_name text,
         clustering_order text, column_name_bytes blob, kind text, position int, type text,
         PRIMARY KEY ((keyspace_name), table_name, column_name))"
            .to_string(),
        "CREATE TABLE column_masks (keyspace_name text, table_name text, column_name text,
         function_argument_nulls frozen<list<boolean>>, function_argument_types frozen<list<text>>,
         function_argument_values frozen<list<text>>, function_keyspace text, function_name text,
         PRIMARY KEY ((keyspace_name), table_name, column_name))"
            .to_string(),
        "CREATE TABLE dropped_columns (keyspace_name text, table_name text, column_name text,
         dropped_time timestamp, kind text, type text,
         PRIMARY KEY ((keyspace_name), table_name, column_name))"
            .to_string(),
        "CREATE TABLE triggers (keyspace_name text, table_name text, trigger_name text,
         options frozen<map<text, text>>, PRIMARY KEY ((keyspace_name), table_name, trigger_name))"
            .to_string(),
        format!(
            "CREATE TABLE views (keyspace_name text, view_name text, base_table_id uuid,
             base_table_name text, include_all_columns boolean, where_clause text, {OPTION_COLUMNS},
             PRIMARY KEY ((keyspace_name), view_name))"
        ),
        "CREATE TABLE types (keyspace_name text, type_name text, field_names frozen<list<text>>,
         field_types frozen<list<text>>, PRIMARY KEY ((keyspace_name), type_name))"
            .to_string(),
        "CREATE TABLE functions (keyspace_name text, function_name text,
         argument_types frozen<list<text>>, argument_names frozen<list<text>>, body text,
         called_on_null_input boolean, language text, return_type text,
         PRIMARY KEY ((keyspace_name), function_name, argument_types))"
            .to_string(),
        "CREATE TABLE aggregates (keyspace_name text, aggregate_name text,
         argument_types frozen<list<text>>, final_func text, initcond text, return_type text,
         state_func text, state_type text,
         PRIMARY KEY ((keyspace_name), aggregate_name, argument_types))"
            .to_string(),
        "CREATE TABLE indexes (keyspace_name text, table_name text, index_name text, kind text,
         options frozen<map<text, text>>, PRIMARY KEY ((keyspace_name), table_name, index_name))"
            .to_string(),
    ]
}

const SYSTEM_VIRTUAL_SCHEMA: &[&str] = &[
    "CREATE TABLE keyspaces (keyspace_name text, PRIMARY KEY ((keyspace_name)))",
    "CREATE TABLE tables (keyspace_name text, table_name text, comment text,
     PRIMARY KEY ((keyspace_name), table_name))",
    "CREATE TABLE columns (keyspace_name text, table_name text, column_name text,
     clustering_order text, column_name_bytes blob, kind text, position int, type text,
     PRIMARY KEY ((keyspace_name), table_name, column_name))",
];

/// Cassandra 5.0's `system_views` tables the server serves, and virtual tables of ours.
const SYSTEM_VIEWS: &[&str] = &[
    "CREATE TABLE settings (name text, value text, PRIMARY KEY ((name)))
     WITH comment = 'current settings'",
    "CREATE TABLE clients (address inet, port int, authentication_metadata frozen<map<text, text>>,
     authentication_mode text, client_options frozen<map<text, text>>, connection_stage text,
     driver_name text, driver_version text, hostname text, keyspace_name text,
     protocol_version int, request_count bigint, ssl_cipher_suite text, ssl_enabled boolean,
     ssl_protocol text, username text, PRIMARY KEY ((address), port))
     WITH comment = 'currently connected clients'",
    "CREATE TABLE local_read_latency (keyspace_name text, table_name text, count bigint,
     max_ms double, p50th_ms double, p99th_ms double, per_second double,
     PRIMARY KEY ((keyspace_name), table_name)) WITH comment = 'local read latency'",
    "CREATE TABLE local_scan_latency (keyspace_name text, table_name text, count bigint,
     max_ms double, p50th_ms double, p99th_ms double, per_second double,
     PRIMARY KEY ((keyspace_name), table_name)) WITH comment = 'local scan latency'",
    "CREATE TABLE local_write_latency (keyspace_name text, table_name text, count bigint,
     max_ms double, p50th_ms double, p99th_ms double, per_second double,
     PRIMARY KEY ((keyspace_name), table_name)) WITH comment = 'local write latency'",
    "CREATE TABLE key_distribution (keyspace_name text, table_name text, partitions bigint,
     rows bigint, bytes bigint, largest_partitions_by_rows frozen<list<text>>,
     largest_partitions_by_bytes frozen<list<text>>,
     rows_per_partition frozen<map<bigint, bigint>>, recent_writes bigint,
     hottest_partitions frozen<list<text>>, PRIMARY KEY ((keyspace_name), table_name))",
    // Cassandra 5.0's `TableMetricTables` "disk_usage": both names in the partition key, no
    // comment.
    "CREATE TABLE disk_usage (keyspace_name text, table_name text, mebibytes bigint,
     PRIMARY KEY ((keyspace_name, table_name)))",
    // Cassandra 5.0's `SSTableTasksTable`.
    "CREATE TABLE sstable_tasks (keyspace_name text, table_name text, task_id timeuuid,
     completion_ratio double, kind text, progress bigint, sstables int, total bigint,
     unit text, target_directory text, PRIMARY KEY ((keyspace_name), table_name, task_id))
     WITH comment = 'current sstable tasks'",
    "CREATE TABLE table_runs (keyspace_name text, table_name text, runs int, run_bytes bigint,
     rows bigint, deletions bigint, partitions bigint, head_rows bigint, memtable_rows bigint,
     pending_compaction_bytes bigint, compacting boolean,
     PRIMARY KEY ((keyspace_name), table_name)) WITH comment = 'sorted runs per table'",
];

const SYSTEM_AUTH: &[&str] = &[
    "CREATE TABLE roles (role text, can_login boolean, is_superuser boolean,
     member_of set<text>, salted_hash text, PRIMARY KEY ((role)))",
    "CREATE TABLE role_members (role text, member text, PRIMARY KEY ((role), member))",
    "CREATE TABLE role_permissions (role text, resource text, permissions set<text>,
     PRIMARY KEY ((role), resource))",
];

const SYSTEM_DISTRIBUTED: &[&str] = &[
    "CREATE TABLE view_build_status (keyspace_name text, view_name text, host_id uuid,
     status text, PRIMARY KEY ((keyspace_name, view_name), host_id))",
];

const SYSTEM_TRACES: &[&str] = &[
    "CREATE TABLE sessions (session_id uuid, client inet, command text, coordinator inet,
     coordinator_port int, duration int, parameters map<text, text>, request text,
     started_at timestamp, PRIMARY KEY ((session_id)))
     WITH comment = 'tracing sessions' AND gc_grace_seconds = 0",
    "CREATE TABLE events (session_id uuid, event_id timeuuid, activity text, source inet,
     source_elapsed int, source_port int, thread text, PRIMARY KEY ((session_id), event_id))
     WITH comment = 'tracing events' AND gc_grace_seconds = 0",
];

/// Cassandra's id for a system table: `UUID.nameUUIDFromBytes(keyspace ++ table)`.
pub(crate) fn system_table_id(keyspace: &str, table: &str) -> Uuid {
    let mut hasher = Md5::new();
    hasher.update(keyspace.as_bytes());
    hasher.update(table.as_bytes());
    let mut bytes: [u8; 16] = hasher.finalize().into();
    bytes[6] = (bytes[6] & 0x0f) | 0x30;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    Uuid::from_bytes(bytes)
}

fn keyspace(name: &str, replication: &[(&str, &str)], tables: &[String]) -> KeyspaceDef {
    let mut defs = BTreeMap::new();
    for text in tables {
        // These statements are constants of this file; a failure is a bug caught by the tests.
        let Ok(Statement::CreateTable(stmt)) = parse_statement(text) else {
            panic!("invalid system table definition: {text}");
        };
        let table = stmt.name.name.name.clone();
        let scope = crate::schema::table_def::types::TypeScope {
            keyspace: name,
            types: &BTreeMap::new(),
        };
        match create_table_def(&stmt, scope, system_table_id(name, &table)) {
            Ok(def) => {
                defs.insert(table, Arc::new(def));
            }
            Err(err) => panic!("invalid system table definition {table}: {err}"),
        }
    }
    KeyspaceDef {
        name: name.to_string(),
        replication: replication
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        durable_writes: true,
        tables: defs,
        types: BTreeMap::new(),
    }
}

/// A virtual keyspace of `tables` (local to the node, as `system_views`).
pub(crate) fn virtual_keyspace(name: &str, tables: &[String]) -> KeyspaceDef {
    keyspace(name, &[("class", LOCAL_STRATEGY)], tables)
}

fn owned(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|s| s.to_string()).collect()
}

/// Builds every system keyspace.
pub(crate) fn system_keyspaces() -> BTreeMap<String, KeyspaceDef> {
    let local = [("class", LOCAL_STRATEGY)];
    let list = [
        keyspace("system", &local, &owned(SYSTEM)),
        keyspace("system_schema", &local, &system_schema_tables()),
        keyspace(
            "system_virtual_schema",
            &local,
            &owned(SYSTEM_VIRTUAL_SCHEMA),
        ),
        keyspace("system_views", &local, &owned(SYSTEM_VIEWS)),
        keyspace(
            "system_auth",
            &[("class", SIMPLE_STRATEGY), ("replication_factor", "1")],
            &owned(SYSTEM_AUTH),
        ),
        keyspace(
            "system_distributed",
            &[("class", SIMPLE_STRATEGY), ("replication_factor", "3")],
            &owned(SYSTEM_DISTRIBUTED),
        ),
        keyspace(
            "system_traces",
            &[("class", SIMPLE_STRATEGY), ("replication_factor", "2")],
            &owned(SYSTEM_TRACES),
        ),
    ];
    list.into_iter().map(|ks| (ks.name.clone(), ks)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_system_table_builds() {
        let keyspaces = system_keyspaces();
        assert_eq!(keyspaces["system_schema"].tables.len(), 11);
        let local = &keyspaces["system"].tables["local"];
        assert_eq!(local.columns[0].name, "key");
        assert_eq!(local.columns[1].name, "bootstrapped");
        assert_eq!(
            local.columns.last().map(|c| c.name.as_str()),
            Some("truncated_at")
        );
        assert!(keyspaces["system"].tables.contains_key("IndexInfo"));
    }

    #[test]
    fn system_table_ids_match_cassandra() {
        // Cassandra 4+/5: system.local has id 7ad54392-bcdd-35a6-8417-4e047860b377.
        assert_eq!(
            system_table_id("system", "local").to_string(),
            "7ad54392-bcdd-35a6-8417-4e047860b377"
        );
    }
}
