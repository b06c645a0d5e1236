//! storm-redis 2.8.3, shaded into our topology jar (`examples-connectors/`),
//! against a real Redis (Debian's `redis-server`, started per test on a free
//! loopback port: `egret_e2e::servers::redis`).

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::time::Duration;

use egret_e2e::connectors::{expected_counts, submit};
use egret_e2e::servers::redis::RedisServer;
use egret_e2e::{Cluster, wait_until};

const RUN_TIMEOUT: Duration = Duration::from_secs(120);

fn words(total: u64, keys: u64) -> BTreeMap<String, String> {
    expected_counts(total, keys)
        .into_iter()
        .enumerate()
        .map(|(k, n)| (format!("w{k}"), n.to_string()))
        .collect()
}

/// Our spout's words are counted, every new count stored with `RedisStoreBolt`
/// (hash `egret:wordcount`); once all are stored each word is looked up with
/// `RedisLookupBolt` and what it read stored in `egret:lookups`. Both hashes
/// hold the exact counts.
#[test]
fn word_counts_stored_and_looked_up_in_redis() {
    let redis = RedisServer::start().expect("redis");
    let cluster = Cluster::new("redis-wordcount").expect("cluster");
    let name = cluster.topology_name();
    let (total, keys) = (3000, 17);
    let args = vec![
        "redis.host=127.0.0.1".to_owned(),
        format!("redis.port={}", redis.port()),
        format!("total={total}"),
        format!("keys={keys}"),
    ];
    submit(&cluster, "RedisWordCountTopology", &name, &args, &[]).expect("submit");
    let want = words(total, keys);
    let mut client = redis.client().expect("client");
    let seen = wait_until(
        "the looked-up counts of every word in Redis",
        RUN_TIMEOUT,
        || {
            let counts = client.hgetall("egret:wordcount").ok()?;
            let lookups = client.hgetall("egret:lookups").ok()?;
            (lookups.len() == want.len()).then_some((counts, lookups))
        },
        || {
            let mut c = redis.client().expect("client");
            format!(
                "wordcount {:?}\nlookups {:?}\n{}",
                c.hgetall("egret:wordcount"),
                c.hgetall("egret:lookups"),
                cluster.describe_logs(30)
            )
        },
    )
    .expect("lookups");
    // Quiet: nothing changes any more (a late duplicate would).
    let settled = cluster
        .wait_quiescent(&name, Duration::from_secs(60), || {
            (
                client.hgetall("egret:wordcount").unwrap_or_default(),
                client.hgetall("egret:lookups").unwrap_or_default(),
            )
        })
        .expect("quiescent");
    assert_eq!(settled, seen, "Redis changed after every lookup was stored");
    assert_eq!(seen.0, want, "egret:wordcount");
    assert_eq!(seen.1, want, "egret:lookups (what RedisLookupBolt read)");
    cluster.kill_and_check_clean(&name).expect("kill");
}
