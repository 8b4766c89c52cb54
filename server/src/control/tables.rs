//! The CQL door's virtual keyspace [`super::KEYSPACE`]: its tables, and their rows computed
//! on read (as `system_views` tables are).

use std::sync::OnceLock;

use cql::types::CqlValue;
use storage::KeyspaceDef;

use crate::node::Node;
use crate::system::NamedRow;

/// The keyspace's tables.
const TABLES: &[&str] = &[
    // One row: whether CQL clients are accepted, and where.
    "CREATE TABLE status (key text, ready boolean, cql_address text, http_address text,
     PRIMARY KEY ((key))) WITH comment = 'whether the node accepts CQL clients'",
    // One row: the node's time and how far it was moved.
    "CREATE TABLE clock (key text, now timestamp, offset_seconds double,
     PRIMARY KEY ((key))) WITH comment = 'the node clock; advance it through commands'",
    // Written, never read: an INSERT runs the command (`reset`, `restore`, `advance_clock`).
    "CREATE TABLE commands (command text, name text, seconds double,
     PRIMARY KEY ((command))) WITH comment = 'INSERT runs reset, restore or advance_clock'",
    // The simulated cluster's nodes (none on a single node).
    "CREATE TABLE nodes (address inet, port int, host_id uuid, datacenter text, rack text,
     state text, tokens int, requests bigint, PRIMARY KEY ((address)))
     WITH comment = 'simulated cluster nodes; change them through commands'",
    "CREATE TABLE snapshots (name text, created_at timestamp, keyspaces frozen<list<text>>,
     tables int, PRIMARY KEY ((name))) WITH comment = 'named snapshots of data and schema'",
    "CREATE TABLE faults (id text, keyspace_name text, table_name text, kind text, query text,
     consistency text, client text, error text, error_details frozen<map<text, text>>,
     delay_ms int, no_answer boolean, close_connection boolean, times int, probability double, fired int,
     PRIMARY KEY ((id))) WITH comment = 'injected faults'",
    // The query log (`super::query_log`), one row per request, newest first.
    "CREATE TABLE queries (coordinator inet, id bigint, at timestamp, connection text,
     client_address inet, driver_name text, driver_version text, keyspace_name text,
     opcode text, query text, bound_values frozen<list<text>>, consistency text,
     serial_consistency text, page_size int, paging_state_sent boolean,
     default_timestamp bigint, result text, rows_returned int, applied boolean,
     error_code int, error_message text, warnings frozen<list<text>>, rows_examined bigint,
     tombstones_examined bigint, latency_us bigint,
     PRIMARY KEY ((coordinator), id)) WITH CLUSTERING ORDER BY (id DESC)
     AND comment = 'the requests received, newest first'",
];

/// The keyspace, built once.
pub(crate) fn keyspace_def() -> &'static KeyspaceDef {
    static DEF: OnceLock<KeyspaceDef> = OnceLock::new();
    DEF.get_or_init(|| {
        let tables: Vec<String> = TABLES.iter().map(|t| t.to_string()).collect();
        crate::schema::system_keyspaces::virtual_keyspace(super::KEYSPACE, &tables)
    })
}

/// The rows of the table `table` of the keyspace.
pub(crate) fn rows(node: &Node, table: &str) -> Vec<NamedRow> {
    let controls = node.controls();
    match table {
        "status" => vec![vec![
            ("key", Some(CqlValue::Text("local".into()))),
            ("ready", Some(CqlValue::Boolean(controls.is_ready()))),
            (
                "cql_address",
                controls
                    .cql_address()
                    .map(|a| CqlValue::Text(a.to_string())),
            ),
            (
                "http_address",
                controls
                    .http_address()
                    .map(|a| CqlValue::Text(a.to_string())),
            ),
        ]],
        "clock" => {
            let clock = node.clock();
            vec![vec![
                ("key", Some(CqlValue::Text("local".into()))),
                (
                    "now",
                    Some(CqlValue::Timestamp(clock.now_micros().div_euclid(1000))),
                ),
                (
                    "offset_seconds",
                    Some(CqlValue::Double(clock.offset_micros() as f64 / 1e6)),
                ),
            ]]
        }
        "nodes" => node_rows(node),
        "snapshots" => super::snapshots::list(node)
            .into_iter()
            .map(|info| {
                vec![
                    ("name", Some(CqlValue::Text(info.name))),
                    (
                        "created_at",
                        Some(CqlValue::Timestamp(info.created_at_micros.div_euclid(1000))),
                    ),
                    (
                        "keyspaces",
                        Some(CqlValue::List(
                            info.keyspaces.into_iter().map(CqlValue::Text).collect(),
                        )),
                    ),
                    (
                        "tables",
                        Some(CqlValue::Int(
                            i32::try_from(info.tables).unwrap_or(i32::MAX),
                        )),
                    ),
                ]
            })
            .collect(),
        "faults" => controls.faults().rows(),
        "queries" => controls.queries().rows(&node.schema()),
        _ => Vec::new(),
    }
}

/// The simulated cluster's nodes, as `test_control.nodes` lists them.
fn node_rows(node: &Node) -> Vec<NamedRow> {
    let Some(cluster) = node.cluster() else {
        return Vec::new();
    };
    let ring = cluster.ring();
    ring.nodes()
        .iter()
        .map(|sim| {
            vec![
                ("address", Some(CqlValue::Inet(sim.address))),
                ("port", Some(CqlValue::Int(i32::from(cluster.port())))),
                ("host_id", Some(CqlValue::Uuid(sim.host_id))),
                ("datacenter", Some(CqlValue::Text(sim.datacenter.clone()))),
                ("rack", Some(CqlValue::Text(sim.rack.clone()))),
                (
                    "state",
                    Some(CqlValue::Text(cluster.state(sim.index).name().to_string())),
                ),
                (
                    "tokens",
                    Some(CqlValue::Int(i32::try_from(sim.tokens.len()).unwrap_or(0))),
                ),
                (
                    "requests",
                    Some(CqlValue::Bigint(
                        i64::try_from(cluster.requests(sim.index)).unwrap_or(i64::MAX),
                    )),
                ),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_table_builds() {
        let names: Vec<&str> = keyspace_def().tables.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "clock",
                "commands",
                "faults",
                "nodes",
                "queries",
                "snapshots",
                "status"
            ]
        );
    }
}
