//! CQL statement texts shared by the parser and end-to-end benchmarks. They all address the
//! table of [`crate::schema`].

/// Creates the benchmark keyspace.
pub const CREATE_KEYSPACE: &str = "CREATE KEYSPACE IF NOT EXISTS bench WITH replication = \
     {'class': 'SimpleStrategy', 'replication_factor': 1}";

/// Creates the benchmark table: `(text, int)` partition key, `(bigint DESC, uuid)` clustering
/// key, two regular columns.
pub const CREATE_READINGS: &str = "CREATE TABLE IF NOT EXISTS bench.readings (sensor text, \
     bucket int, at bigint, id uuid, value double, note text, \
     PRIMARY KEY ((sensor, bucket), at, id)) WITH CLUSTERING ORDER BY (at DESC, id ASC)";

/// A typical prepared INSERT: every column bound.
pub const INSERT_PREPARED: &str = "INSERT INTO bench.readings (sensor, bucket, at, id, value, \
     note) VALUES (?, ?, ?, ?, ?, ?)";

/// A point SELECT by full primary key.
pub const SELECT_POINT: &str = "SELECT value, note FROM bench.readings WHERE sensor = ? AND \
     bucket = ? AND at = ? AND id = ?";

/// A SELECT of a clustering slice: partition key bound, a range on the first clustering
/// column, ORDER BY and LIMIT.
pub const SELECT_SLICE: &str = "SELECT at, id, value FROM bench.readings WHERE sensor = ? AND \
     bucket = ? AND at > ? ORDER BY at DESC LIMIT 100";

/// cassandra-stress's `standard1` table as its default schema settings write it (five blob
/// columns, `compression = {}`), built the way stress's `SettingsSchema` concatenates it.
pub const CREATE_STANDARD1: &str =
    "CREATE TABLE IF NOT EXISTS standard1 (key blob PRIMARY KEY \n, \
     \"C0\" blob\n, \"C1\" blob\n, \"C2\" blob\n, \"C3\" blob\n, \"C4\" blob) \
     WITH compression = {};\n";
