//! storm-jdbc 2.8.3 with HikariCP and PostgreSQL's driver, shaded into our
//! topology jar (`examples-connectors/`), against a real PostgreSQL: a cluster
//! made with `initdb` in a temporary directory (`egret_e2e::servers::postgres`).

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::time::Duration;

use egret_e2e::connectors::{expected_counts, submit};
use egret_e2e::servers::postgres::{PostgresServer, USER};
use egret_e2e::{Cluster, wait_until};

/// Rows per key, and the number of distinct (key, seq) pairs.
fn rows(pg: &PostgresServer) -> (BTreeMap<String, u64>, u64) {
    let per_key = pg
        .psql("SELECT rkey, count(*) FROM records GROUP BY rkey ORDER BY rkey")
        .expect("count rows")
        .into_iter()
        .map(|r| (r[0].clone(), r[1].parse().expect("a count")))
        .collect();
    let distinct = pg
        .psql("SELECT count(*) FROM (SELECT DISTINCT rkey, seq FROM records) d")
        .expect("distinct")[0][0]
        .parse()
        .expect("a count");
    (per_key, distinct)
}

/// `JdbcInsertBolt` with `HikariCPConnectionProvider` inserts one row per record:
/// counted per key with SQL, exactly the spout's.
#[test]
fn jdbc_insert_bolt_inserts_every_record_into_postgresql() {
    let pg = PostgresServer::start().expect("postgres");
    pg.psql("CREATE TABLE records (rkey text NOT NULL, seq bigint NOT NULL)")
        .expect("create table");
    let cluster = Cluster::new("jdbc-insert").expect("cluster");
    let name = cluster.topology_name();
    let (total, keys) = (5000u64, 13u64);
    let args = vec![
        format!("jdbc.url={}", pg.jdbc_url()),
        format!("jdbc.user={USER}"),
        format!("total={total}"),
        format!("keys={keys}"),
    ];
    submit(&cluster, "JdbcInsertTopology", &name, &args, &[]).expect("submit");
    wait_until(
        "every record's row in PostgreSQL",
        Duration::from_secs(180),
        || (rows(&pg).0.values().sum::<u64>() >= total).then_some(()),
        || format!("{:?}\n{}", rows(&pg), cluster.describe_logs(30)),
    )
    .expect("rows");
    let (per_key, distinct) = cluster
        .wait_quiescent(&name, Duration::from_secs(60), || rows(&pg))
        .expect("quiescent");
    let want: BTreeMap<String, u64> = expected_counts(total, keys)
        .into_iter()
        .enumerate()
        .map(|(k, n)| (format!("k{k}"), n))
        .collect();
    eprintln!("rows per key: {per_key:?}; {distinct} distinct (key, seq)");
    assert_eq!(per_key, want);
    assert_eq!(distinct, total);
    cluster.kill_and_check_clean(&name).expect("kill");
}
