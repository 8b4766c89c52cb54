//! `system.local`: the one row describing this node, with Cassandra 5.0's columns.

use cql::types::CqlValue;

use crate::node::Node;
use crate::schema::Schema;
use crate::system::{text, NamedRow};
use crate::transport::session::Session;

/// The version reported to clients: `5.0.0` keeps cqlsh 6.2 free of its version warning and
/// selects the drivers' Cassandra 4+ code paths (server-side DESCRIBE, virtual schema).
pub(crate) const RELEASE_VERSION: &str = "5.0.0";
/// The CQL language version, as Cassandra 5.0 reports it.
pub(crate) const CQL_VERSION: &str = "3.4.7";
/// The native protocol version `system.local` reports: Cassandra 5.0's
/// `ProtocolVersion.CURRENT` (v5), whatever version the reading client negotiated.
pub(crate) const NATIVE_PROTOCOL_VERSION: &str = "5";
/// A single node's rack (Cassandra's default); its datacenter is
/// [`crate::schema::table_def::options::DATACENTER`].
pub(crate) const RACK: &str = "rack1";
/// The only partitioner.
pub(crate) const PARTITIONER: &str = "org.apache.cassandra.dht.Murmur3Partitioner";

/// The `system.local` row as seen by `session` (its `rpc_address` is the address the client
/// connected to, which is what drivers must dial back).
pub(crate) fn local_row(node: &Node, schema: &Schema, session: &Session) -> NamedRow {
    let address = CqlValue::Inet(session.local.ip());
    let simulated = node
        .cluster()
        .and_then(|cluster| cluster.node_at(session.local.ip()));
    let (host_id, datacenter, rack, tokens) = match simulated {
        Some(sim) => (
            sim.host_id,
            sim.datacenter,
            sim.rack,
            sim.tokens
                .iter()
                .map(|t| CqlValue::Text(t.to_string()))
                .collect(),
        ),
        None => (
            node.host_id(),
            crate::schema::table_def::options::DATACENTER.to_string(),
            RACK.to_string(),
            vec![CqlValue::Text(node.token().to_string())],
        ),
    };
    vec![
        ("key", text("local")),
        ("bootstrapped", text("COMPLETED")),
        ("broadcast_address", Some(address.clone())),
        ("broadcast_port", Some(CqlValue::Int(7000))),
        ("cluster_name", text(node.config().cluster_name.clone())),
        ("cql_version", text(CQL_VERSION)),
        ("data_center", text(datacenter)),
        (
            "gossip_generation",
            Some(CqlValue::Int(node.started_at_secs())),
        ),
        ("host_id", Some(CqlValue::Uuid(host_id))),
        ("listen_address", Some(address.clone())),
        ("listen_port", Some(CqlValue::Int(7000))),
        ("native_protocol_version", text(NATIVE_PROTOCOL_VERSION)),
        ("partitioner", text(PARTITIONER)),
        ("rack", text(rack)),
        ("release_version", text(RELEASE_VERSION)),
        ("rpc_address", Some(address)),
        (
            "rpc_port",
            Some(CqlValue::Int(i32::from(session.local.port()))),
        ),
        ("schema_version", Some(CqlValue::Uuid(schema.version))),
        ("tokens", Some(CqlValue::Set(tokens))),
    ]
}
