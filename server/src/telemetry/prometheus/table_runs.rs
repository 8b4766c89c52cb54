//! Per-table gauges of the sorted runs, `{keyspace, table}` labelled like
//! `storage_table_bytes`: the figures `system_views.table_runs` shows, and the merge under way
//! as `system_views.sstable_tasks` shows it. Read from the manifest at every scrape (no row is
//! read, so no cache is needed).

use std::fmt;

use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Unit;
use storage::TableRuns;

use crate::node::Node;

/// One user table's runs.
struct Table {
    keyspace: String,
    table: String,
    runs: TableRuns,
}

/// A gauge family: its name, help, unit and value per table.
struct Family {
    name: &'static str,
    help: &'static str,
    unit: Option<Unit>,
    value: fn(&TableRuns) -> Option<u64>,
}

const FAMILIES: &[Family] = &[
    Family {
        name: "storage_table_runs",
        help: "Sorted runs each user table has (Cassandra's sstable count)",
        unit: None,
        value: |r| Some(r.runs),
    },
    Family {
        name: "storage_table_run",
        help: "Bytes of each user table's run blocks (compressed, as stored)",
        unit: Some(Unit::Bytes),
        value: |r| Some(r.run_bytes),
    },
    Family {
        name: "storage_table_run_rows",
        help: "Entries in each user table's runs, deletions included (a row in several runs \
               counts in each)",
        unit: None,
        value: |r| Some(r.run_rows),
    },
    Family {
        name: "storage_table_run_deletions",
        help: "Entries in each user table's runs that record a deletion",
        unit: None,
        value: |r| Some(r.run_deletions),
    },
    Family {
        name: "storage_table_pending_compaction",
        help: "Bytes of each user table's runs that compaction would merge next",
        unit: Some(Unit::Bytes),
        value: |r| Some(r.pending_compaction_bytes),
    },
    Family {
        name: "storage_table_compaction_done",
        help: "Bytes of the running compaction's inputs merged so far (tables compacting now)",
        unit: Some(Unit::Bytes),
        value: |r| r.compaction.as_ref().map(|c| c.bytes_done),
    },
    Family {
        name: "storage_table_compaction_total",
        help: "Bytes of the running compaction's inputs (tables compacting now)",
        unit: Some(Unit::Bytes),
        value: |r| r.compaction.as_ref().map(|c| c.bytes_total),
    },
];

/// Every user table's runs now; a table that cannot be read (dropped meanwhile) is left out.
fn read(node: &Node) -> Vec<Table> {
    super::per_user_table(node, |snapshot, id| snapshot.table_runs(id))
        .into_iter()
        .map(|(keyspace, table, runs)| Table {
            keyspace,
            table,
            runs,
        })
        .collect()
}

/// Writes the families of [`FAMILIES`] for every user table.
pub(crate) fn encode(encoder: &mut DescriptorEncoder, node: &Node) -> fmt::Result {
    let tables = read(node);
    for family in FAMILIES {
        let mut descriptor = encoder.encode_descriptor(
            family.name,
            family.help,
            family.unit.as_ref(),
            MetricType::Gauge,
        )?;
        for table in &tables {
            let Some(value) = (family.value)(&table.runs) else {
                continue;
            };
            let labels = [
                ("keyspace", table.keyspace.as_str()),
                ("table", table.table.as_str()),
            ];
            let value = i64::try_from(value).unwrap_or(i64::MAX);
            ConstGauge::new(value).encode(descriptor.encode_family(&labels)?)?;
        }
    }
    Ok(())
}
