//! Oracle NoSQL Database (seed 000): primary keys of one or more fields, partial (left-prefix)
//! keys for multi-row reads and multiDelete, shard keys as a left prefix of the primary key, and
//! rows of one shard changing atomically. The CLI's STRING fields are `text`, INTEGER is `int`,
//! and ENUM fields are `text` (CQL has no enums). Unquoted names fold to lower case, so
//! Cassandra's messages name `productclass`, not `productClass`.
//!
//! Without a CQL meaning, so not tested: ENUM value checking (`text` accepts any value), Oracle's
//! short list of key field types (CQL allows more), and `shard-key -field productClass` (a CQL
//! partition key is a left prefix of the primary key by construction).

use integration_tests::db_error;
use integration_tests::{session_in, TestServer};
use scylla::client::session::Session;
use scylla::errors::DbError;
use scylla::statement::batch::{Batch, BatchType};

use super::{assert_invalid, in_token_order, prepare, rows, run_all, write, ALLOW_FILTERING};

/// (productName, productType, productClass, inventoryCount) for the tables keyed by name first.
type Product = (String, String, String, i32);

fn product(name: &str, kind: &str, class: &str, count: i32) -> Product {
    (name.into(), kind.into(), class.into(), count)
}

/// Oracle NoSQL, the first `myProducts`: five fields with `primary-key -field productName`; a row
/// is retrieved, examined and modified by its product name alone, and the key cannot be changed
/// after the table is created.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oracle_products_single_field_key() {
    let server = TestServer::start().await;
    let session = session_in(&server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE myProducts (productName text PRIMARY KEY, productType text, color text, size text, inventoryCount int)"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO myProducts (productName, productType, color, size, inventoryCount) VALUES (?, ?, ?, ?, ?)",
    )
    .await;
    // The document's size enum really is `small,medium,blue`.
    for values in [
        ("hat", "apparel", "red", "small", 10),
        ("mug", "kitchen", "blue", "medium", 4),
        ("scarf", "apparel", "green", "blue", 7),
    ] {
        write(&session, &insert, values).await;
    }
    let by_name = prepare(
        &session,
        "SELECT productName, productType, color, size, inventoryCount FROM myProducts WHERE productName = ?",
    )
    .await;
    type Row = (String, String, String, String, i32);
    let row = |n: &str, t: &str, c: &str, s: &str, i: i32| -> Row {
        (n.into(), t.into(), c.into(), s.into(), i)
    };
    assert_eq!(
        rows::<Row>(&session, &by_name, ("mug",)).await,
        vec![row("mug", "kitchen", "blue", "medium", 4)]
    );
    assert_eq!(
        rows::<Row>(&session, &by_name, ("scarf",)).await,
        vec![row("scarf", "apparel", "green", "blue", 7)]
    );
    assert!(rows::<Row>(&session, &by_name, ("lamp",)).await.is_empty());
    // Manipulate the row found by its name.
    let update = prepare(
        &session,
        "UPDATE myProducts SET inventoryCount = ? WHERE productName = ?",
    )
    .await;
    write(&session, &update, (3, "mug")).await;
    assert_eq!(
        rows::<Row>(&session, &by_name, ("mug",)).await,
        vec![row("mug", "kitchen", "blue", "medium", 3)]
    );
    let count = prepare(&session, "SELECT count(*) FROM myProducts").await;
    assert_eq!(rows::<(i64,)>(&session, &count, ()).await, vec![(3,)]);
    // "cannot be changed after the fact".
    assert_invalid(
        &session,
        "ALTER TABLE myProducts DROP productName",
        "Cannot drop PRIMARY KEY column productname",
    )
    .await;
}

/// The second `myProducts` (`primary-key -field productName -field productType -field
/// productClass`, no shard key), as `PRIMARY KEY (productName, productType, productClass)` so
/// that the document's valid partial keys `productName` and `productName, productType` are the
/// partition key and a clustering prefix. Five products, two of them under one name per type.
async fn products_by_name(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE myProducts (productName text, productType text, productClass text, color text, size text, inventoryCount int, PRIMARY KEY (productName, productType, productClass))"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO myProducts (productName, productType, productClass, color, size, inventoryCount) VALUES (?, ?, ?, ?, ?, ?)",
    )
    .await;
    // Inserted out of key order: reads must come back in clustering order regardless.
    for values in [
        ("widget", "software", "pro", "red", "large", 1),
        ("widget", "hardware", "deluxe", "blue", "large", 2),
        ("gadget", "hardware", "basic", "blue", "small", 3),
        ("widget", "software", "basic", "green", "medium", 9),
        ("widget", "hardware", "basic", "red", "small", 5),
    ] {
        write(&session, &insert, values).await;
    }
    session
}

const PRODUCT_COLUMNS: &str = "SELECT productName, productType, productClass, inventoryCount";

/// Oracle NoSQL, partial primary keys: a full key (all three fields) reads one row; the partial
/// keys `productName` and `productName, productType` read every row under them, in key order.
/// A partial key that skips a field (`productType, productClass`, or `productName,
/// productClass`) "is not" valid: Cassandra refuses it unless the query asks for filtering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oracle_products_partial_key_reads() {
    let server = TestServer::start().await;
    let session = products_by_name(&server).await;
    let full = prepare(
        &session,
        &format!("{PRODUCT_COLUMNS} FROM myProducts WHERE productName = ? AND productType = ? AND productClass = ?"),
    )
    .await;
    assert_eq!(
        rows::<Product>(&session, &full, ("widget", "hardware", "deluxe")).await,
        vec![product("widget", "hardware", "deluxe", 2)]
    );
    assert!(
        rows::<Product>(&session, &full, ("widget", "hardware", "mini"))
            .await
            .is_empty()
    );
    let by_name = prepare(
        &session,
        &format!("{PRODUCT_COLUMNS} FROM myProducts WHERE productName = ?"),
    )
    .await;
    assert_eq!(
        rows::<Product>(&session, &by_name, ("widget",)).await,
        vec![
            product("widget", "hardware", "basic", 5),
            product("widget", "hardware", "deluxe", 2),
            product("widget", "software", "basic", 9),
            product("widget", "software", "pro", 1),
        ]
    );
    assert_eq!(
        rows::<Product>(&session, &by_name, ("gadget",)).await,
        vec![product("gadget", "hardware", "basic", 3)]
    );
    let by_name_and_type = prepare(
        &session,
        &format!("{PRODUCT_COLUMNS} FROM myProducts WHERE productName = ? AND productType = ?"),
    )
    .await;
    assert_eq!(
        rows::<Product>(&session, &by_name_and_type, ("widget", "software")).await,
        vec![
            product("widget", "software", "basic", 9),
            product("widget", "software", "pro", 1),
        ]
    );
    // A partial key with a range on the next field.
    let after_class = prepare(
        &session,
        &format!("{PRODUCT_COLUMNS} FROM myProducts WHERE productName = ? AND productType = ? AND productClass > ?"),
    )
    .await;
    assert_eq!(
        rows::<Product>(&session, &after_class, ("widget", "hardware", "basic")).await,
        vec![product("widget", "hardware", "deluxe", 2)]
    );
    // The document's invalid partial key: productType and productClass without productName.
    assert_invalid(
        &session,
        "SELECT * FROM myProducts WHERE productType = 'hardware' AND productClass = 'basic'",
        ALLOW_FILTERING,
    )
    .await;
    // A key that skips the middle field.
    assert_invalid(
        &session,
        "SELECT * FROM myProducts WHERE productName = 'widget' AND productClass = 'basic'",
        "PRIMARY KEY column \"productclass\" cannot be restricted as preceding column \"producttype\" is not restricted",
    )
    .await;
    // Both run when the query accepts filtering.
    let filtered = prepare(
        &session,
        &format!("{PRODUCT_COLUMNS} FROM myProducts WHERE productName = ? AND productClass = ? ALLOW FILTERING"),
    )
    .await;
    assert_eq!(
        rows::<Product>(&session, &filtered, ("widget", "basic")).await,
        vec![
            product("widget", "hardware", "basic", 5),
            product("widget", "software", "basic", 9),
        ]
    );
    let scan = prepare(
        &session,
        &format!("{PRODUCT_COLUMNS} FROM myProducts WHERE productType = ? AND productClass = ? ALLOW FILTERING"),
    )
    .await;
    assert_eq!(
        rows::<Product>(&session, &scan, ("hardware", "basic")).await,
        in_token_order(
            vec![
                product("gadget", "hardware", "basic", 3),
                product("widget", "hardware", "basic", 5),
            ],
            |p| vec![p.0.as_str()]
        )
    );
}

/// Oracle NoSQL, "Using multiDelete()": deleting every row under a partial key in one atomic
/// operation is a DELETE by a clustering prefix (a range tombstone), or by the partition key
/// alone (a partition tombstone); a multiDelete may also bound the next field by a range. A key
/// that skips a field, or lacks the partition key, is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oracle_products_partial_key_delete() {
    let server = TestServer::start().await;
    let session = products_by_name(&server).await;
    let by_name = prepare(
        &session,
        &format!("{PRODUCT_COLUMNS} FROM myProducts WHERE productName = ?"),
    )
    .await;
    let delete_prefix = prepare(
        &session,
        "DELETE FROM myProducts WHERE productName = ? AND productType = ?",
    )
    .await;
    write(&session, &delete_prefix, ("widget", "hardware")).await;
    assert_eq!(
        rows::<Product>(&session, &by_name, ("widget",)).await,
        vec![
            product("widget", "software", "basic", 9),
            product("widget", "software", "pro", 1),
        ]
    );
    // Another partition under the same productType is untouched.
    assert_eq!(
        rows::<Product>(&session, &by_name, ("gadget",)).await,
        vec![product("gadget", "hardware", "basic", 3)]
    );
    // A write after the deletion shows again.
    let insert = prepare(
        &session,
        "INSERT INTO myProducts (productName, productType, productClass, inventoryCount) VALUES (?, ?, ?, ?)",
    )
    .await;
    write(&session, &insert, ("widget", "hardware", "basic", 6)).await;
    assert_eq!(
        rows::<Product>(&session, &by_name, ("widget",)).await,
        vec![
            product("widget", "hardware", "basic", 6),
            product("widget", "software", "basic", 9),
            product("widget", "software", "pro", 1),
        ]
    );
    // A partial key plus a range on the next field.
    let delete_range = prepare(
        &session,
        "DELETE FROM myProducts WHERE productName = ? AND productType = ? AND productClass >= ?",
    )
    .await;
    write(&session, &delete_range, ("widget", "software", "basic")).await;
    assert_eq!(
        rows::<Product>(&session, &by_name, ("widget",)).await,
        vec![product("widget", "hardware", "basic", 6)]
    );
    // Keys the document calls invalid.
    assert_invalid(
        &session,
        "DELETE FROM myProducts WHERE productName = 'widget' AND productClass = 'basic'",
        "PRIMARY KEY column \"productclass\" cannot be restricted as preceding column \"producttype\" is not restricted",
    )
    .await;
    assert_invalid(
        &session,
        "DELETE FROM myProducts WHERE productType = 'hardware' AND productClass = 'basic'",
        "Some partition key parts are missing: productname",
    )
    .await;
    // The shortest partial key: everything under one name.
    let delete_name = prepare(&session, "DELETE FROM myProducts WHERE productName = ?").await;
    write(&session, &delete_name, ("widget",)).await;
    assert!(rows::<Product>(&session, &by_name, ("widget",))
        .await
        .is_empty());
    let all = prepare(&session, &format!("{PRODUCT_COLUMNS} FROM myProducts")).await;
    assert_eq!(
        rows::<Product>(&session, &all, ()).await,
        vec![product("gadget", "hardware", "basic", 3)]
    );
}

/// (productType, productName, productClass, inventoryCount) for the shard-keyed table.
type Sharded = (String, String, String, i32);

/// The shard key (productType, productName) of a `Sharded` row.
fn shard_key(row: &Sharded) -> Vec<&str> {
    vec![row.0.as_str(), row.1.as_str()]
}

/// The shard-keyed `myProducts` of the shard-key example: fields in primary-key order
/// productType, productName, productClass, and rows of two shards plus a neighbour.
async fn products_by_shard(server: &TestServer) -> Session {
    let session = session_in(server, "ks").await;
    run_all(
        &session,
        &["CREATE TABLE myProducts (productType text, productName text, productClass text, color text, size text, inventoryCount int, PRIMARY KEY ((productType, productName), productClass))"],
    )
    .await;
    let insert = prepare(
        &session,
        "INSERT INTO myProducts (productType, productName, productClass, inventoryCount) VALUES (?, ?, ?, ?)",
    )
    .await;
    for values in [
        ("hardware", "widget", "deluxe", 2),
        ("hardware", "gadget", "basic", 3),
        ("hardware", "widget", "basic", 5),
        ("software", "widget", "basic", 9),
    ] {
        write(&session, &insert, values).await;
    }
    session
}

/// Oracle NoSQL, shard keys: `primary-key -field productType -field productName -field
/// productClass` with `shard-key -field productType -field productName` is `PRIMARY KEY
/// ((productType, productName), productClass)`. Rows with the same shard-key values share a token
/// (the same shard); the shard key reads and deletes all of them; a shard key missing a field is
/// refused. (`shard-key -field productClass`, a shard key that is not a left prefix, has no CQL
/// spelling: the partition key is always the first part of PRIMARY KEY.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oracle_products_shard_key_left_prefix() {
    let server = TestServer::start().await;
    let session = products_by_shard(&server).await;
    let columns = "SELECT productType, productName, productClass, inventoryCount FROM myProducts";
    let full = prepare(
        &session,
        &format!("{columns} WHERE productType = ? AND productName = ? AND productClass = ?"),
    )
    .await;
    assert_eq!(
        rows::<Sharded>(&session, &full, ("hardware", "widget", "basic")).await,
        vec![product("hardware", "widget", "basic", 5)]
    );
    let shard = prepare(
        &session,
        &format!("{columns} WHERE productType = ? AND productName = ?"),
    )
    .await;
    assert_eq!(
        rows::<Sharded>(&session, &shard, ("hardware", "widget")).await,
        vec![
            product("hardware", "widget", "basic", 5),
            product("hardware", "widget", "deluxe", 2),
        ]
    );
    // Same shard-key values, same token; another shard, another token.
    let tokens = prepare(
        &session,
        "SELECT token(productType, productName) FROM myProducts WHERE productType = ? AND productName = ?",
    )
    .await;
    let widget: Vec<(i64,)> = rows(&session, &tokens, ("hardware", "widget")).await;
    assert_eq!(widget.len(), 2);
    assert_eq!(widget[0], widget[1]);
    let gadget: Vec<(i64,)> = rows(&session, &tokens, ("hardware", "gadget")).await;
    assert_eq!(gadget.len(), 1);
    assert_ne!(gadget[0], widget[0]);
    // Part of the shard key is not enough to find the shard.
    assert_invalid(
        &session,
        "SELECT * FROM myProducts WHERE productType = 'hardware'",
        ALLOW_FILTERING,
    )
    .await;
    assert_invalid(
        &session,
        "SELECT * FROM myProducts WHERE productType = 'hardware' AND productClass = 'basic'",
        ALLOW_FILTERING,
    )
    .await;
    let filtered = prepare(
        &session,
        &format!("{columns} WHERE productType = ? ALLOW FILTERING"),
    )
    .await;
    assert_eq!(
        rows::<Sharded>(&session, &filtered, ("hardware",)).await,
        in_token_order(
            vec![
                product("hardware", "gadget", "basic", 3),
                product("hardware", "widget", "basic", 5),
                product("hardware", "widget", "deluxe", 2),
            ],
            shard_key
        )
    );
    assert_invalid(
        &session,
        "DELETE FROM myProducts WHERE productType = 'hardware'",
        "Some partition key parts are missing: productname",
    )
    .await;
    // The shard key deletes the whole shard and nothing else.
    let delete_shard = prepare(
        &session,
        "DELETE FROM myProducts WHERE productType = ? AND productName = ?",
    )
    .await;
    write(&session, &delete_shard, ("hardware", "widget")).await;
    assert!(rows::<Sharded>(&session, &shard, ("hardware", "widget"))
        .await
        .is_empty());
    let all = prepare(&session, columns).await;
    assert_eq!(
        rows::<Sharded>(&session, &all, ()).await,
        in_token_order(
            vec![
                product("hardware", "gadget", "basic", 3),
                product("software", "widget", "basic", 9),
            ],
            shard_key
        )
    );
}

/// Oracle NoSQL, "rows which contain the same values for all the shard key fields" can change in
/// one atomic operation ("Executing a Sequence of Operations"): a BATCH of writes to one shard
/// applies all of them, and a BATCH with one bad statement applies none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oracle_products_shard_batch_is_atomic() {
    let server = TestServer::start().await;
    let session = products_by_shard(&server).await;
    let insert = prepare(
        &session,
        "INSERT INTO myProducts (productType, productName, productClass, inventoryCount) VALUES (?, ?, ?, ?)",
    )
    .await;
    let update = prepare(
        &session,
        "UPDATE myProducts SET inventoryCount = ? WHERE productType = ? AND productName = ? AND productClass = ?",
    )
    .await;
    let delete = prepare(
        &session,
        "DELETE FROM myProducts WHERE productType = ? AND productName = ? AND productClass = ?",
    )
    .await;
    let mut batch = Batch::new(BatchType::Logged);
    batch.append_statement(insert.clone());
    batch.append_statement(update);
    batch.append_statement(delete);
    session
        .batch(
            &batch,
            (
                ("hardware", "widget", "mini", 8),
                (4, "hardware", "widget", "basic"),
                ("hardware", "widget", "deluxe"),
            ),
        )
        .await
        .unwrap();
    let shard = prepare(
        &session,
        "SELECT productType, productName, productClass, inventoryCount FROM myProducts WHERE productType = ? AND productName = ?",
    )
    .await;
    let after_batch = vec![
        product("hardware", "widget", "basic", 4),
        product("hardware", "widget", "mini", 8),
    ];
    assert_eq!(
        rows::<Sharded>(&session, &shard, ("hardware", "widget")).await,
        after_batch
    );
    // The second statement is invalid, so the first must not apply either.
    let mut bad = Batch::new(BatchType::Logged);
    bad.append_statement(
        "INSERT INTO myProducts (productType, productName, productClass, inventoryCount) VALUES ('hardware', 'widget', 'pro', 1)",
    );
    bad.append_statement(
        "INSERT INTO myProducts (productType, productName, productClass, inventoryCount) VALUES ('hardware', 'widget', 'max', 'lots')",
    );
    let err = session.batch(&bad, ((), ())).await.unwrap_err();
    assert_eq!(
        db_error(&err),
        Some((
            DbError::Invalid,
            "Invalid STRING constant (lots) for \"inventorycount\" of type int".to_string()
        ))
    );
    assert_eq!(
        rows::<Sharded>(&session, &shard, ("hardware", "widget")).await,
        after_batch
    );
}
