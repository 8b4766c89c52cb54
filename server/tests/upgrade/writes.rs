//! The writes the test makes once a fixture is open, and what reading them back must give.
//!
//! They go to new partitions (keys from 100 up, the city `Lima-<n>`) of tables every fixture
//! has, so the manifest's queries, which name their partitions, index values and view
//! partitions, are not changed by them.

use crate::render::Entry;
use crate::session::SUPERUSER;

/// The statements of the write set `n`, as the superuser.
pub(crate) fn statements(n: i32) -> Vec<String> {
    vec![
        format!(
            "INSERT INTO ks.scalars (k, n, t, vi, dec, u, vec) VALUES ({n}, {n}, 'new', \
             -170141183460469231731687303715884105728, 0.5, \
             00000000-0000-0000-0000-{n:012}, [1.0, 2.0, 3.0])"
        ),
        format!(
            "INSERT INTO ks.colls (k, l, m, ua) VALUES ({n}, [1, 2], {{'k': 1}}, \
             {{street: 'New', zip: 1, tags: {{'n'}}}})"
        ),
        format!("UPDATE ks.colls SET l = l + [3] WHERE k = {n}"),
        format!("INSERT INTO ks.clust (k, c1, c2, v) VALUES ({n}, 1, 'a', 1)"),
        format!("INSERT INTO ks.clust (k, c1, c2, v) VALUES ({n}, 2, 'b', 2)"),
        format!("INSERT INTO ks.clust (k, c1, c2, v) VALUES ({n}, 3, 'c', 3)"),
        format!("DELETE FROM ks.clust WHERE k = {n} AND c1 > 2"),
        format!("UPDATE ks.counters SET hits = hits + 2 WHERE k = 'new-{n}'"),
        format!("UPDATE ks.counters SET hits = hits + 2 WHERE k = 'new-{n}'"),
        format!(
            "INSERT INTO ks.people (id, name, city, age, tags) \
             VALUES ({n}, 'New', 'Lima-{n}', 5, {{'new'}})"
        ),
        format!("INSERT INTO ks.statics (k, c, s, v) VALUES ({n}, 1, 's', 'v')"),
    ]
}

/// The queries that read the write set `n` back, with their results.
pub(crate) fn expected(n: i32) -> Vec<Entry> {
    let entry = |query: String, lines: &[String]| Entry {
        login: SUPERUSER.to_owned(),
        query,
        lines: lines.to_vec(),
    };
    vec![
        entry(
            format!("SELECT k, n, t, vi, dec, u, vec FROM ks.scalars WHERE k = {n}"),
            &[format!(
                "k={n} | n={n} | t='new' | vi=-170141183460469231731687303715884105728 | \
                 dec=5e-1 | u=00000000-0000-0000-0000-{n:012} | vec=[1.0, 2.0, 3.0]"
            )],
        ),
        entry(
            format!("SELECT l, m, ua FROM ks.colls WHERE k = {n}"),
            &["l=[1, 2, 3] | m={'k': 1} | ua={street: 'New', zip: 1, tags: {'n'}}".to_owned()],
        ),
        entry(
            format!("SELECT c1, c2, v FROM ks.clust WHERE k = {n}"),
            &[
                "c1=2 | c2='b' | v=2".to_owned(),
                "c1=1 | c2='a' | v=1".to_owned(),
            ],
        ),
        entry(
            format!("SELECT hits, misses FROM ks.counters WHERE k = 'new-{n}'"),
            &["hits=4 | misses=null".to_owned()],
        ),
        entry(
            format!("SELECT id, name, age FROM ks.people WHERE city = 'Lima-{n}'"),
            &[format!("id={n} | name='New' | age=5")],
        ),
        entry(
            format!("SELECT city, id, name FROM ks.people_by_city WHERE city = 'Lima-{n}'"),
            &[format!("city='Lima-{n}' | id={n} | name='New'")],
        ),
        entry(
            format!("SELECT * FROM ks.statics WHERE k = {n}"),
            &[format!("k={n} | c=1 | s='s' | v='v'")],
        ),
    ]
}
