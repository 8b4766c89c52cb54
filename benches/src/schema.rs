//! The benchmark table as storage catalog values: `bench.readings` of
//! [`crate::statements::CREATE_READINGS`], built directly with [`TableDef::new`] so storage
//! benchmarks need no server.

use std::collections::BTreeMap;

use cql::types::ColumnType;
use storage::{
    ClusteringOrder, ColumnDef, ColumnId, ColumnKind, KeyspaceDef, TableDef, TableParams,
};
use uuid::Uuid;

/// The benchmark keyspace's name.
pub const KEYSPACE: &str = "bench";

/// The benchmark table's name.
pub const TABLE: &str = "readings";

/// Column ids of the regular columns, as [`readings_table`] assigns them.
pub const VALUE_COLUMN: ColumnId = ColumnId(4);
/// See [`VALUE_COLUMN`].
pub const NOTE_COLUMN: ColumnId = ColumnId(5);

fn column(
    id: u32,
    name: &str,
    ty: ColumnType,
    kind: ColumnKind,
    position: i32,
    order: ClusteringOrder,
) -> ColumnDef {
    ColumnDef {
        id: ColumnId(id),
        name: name.into(),
        ty,
        kind,
        position,
        order,
    }
}

/// `bench.readings`: partition key `(sensor text, bucket int)`, clustering key
/// `(at bigint DESC, id uuid ASC)`, regular columns `value double` and `note text`.
pub fn readings_table() -> TableDef {
    use ClusteringOrder::{Asc, Desc, None};
    use ColumnKind::{Clustering, PartitionKey, Regular};
    let columns = vec![
        column(0, "sensor", ColumnType::Text, PartitionKey, 0, None),
        column(1, "bucket", ColumnType::Int, PartitionKey, 1, None),
        column(2, "at", ColumnType::Bigint, Clustering, 0, Desc),
        column(3, "id", ColumnType::Uuid, Clustering, 1, Asc),
        column(4, "value", ColumnType::Double, Regular, -1, None),
        column(5, "note", ColumnType::Text, Regular, -1, None),
    ];
    TableDef::new(
        Uuid::from_u128(0x5eed_0000_0000_4000_8000_0000_0000_0001),
        KEYSPACE,
        TABLE,
        columns,
        TableParams::default(),
    )
}

/// The `bench` keyspace record (SimpleStrategy, replication factor 1).
pub fn bench_keyspace() -> KeyspaceDef {
    KeyspaceDef {
        name: KEYSPACE.into(),
        replication: BTreeMap::from([
            ("class".into(), "SimpleStrategy".into()),
            ("replication_factor".into(), "1".into()),
        ]),
        durable_writes: true,
        tables: BTreeMap::new(),
        types: BTreeMap::new(),
    }
}
