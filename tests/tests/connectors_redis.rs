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

/// The committed state of every `count` task: its namespace hash (`count-<task>`,
/// what `RedisKeyValueState` commits into), key → count, summed over tasks.
fn committed_counts(redis: &RedisServer) -> BTreeMap<String, u64> {
    let mut client = redis.client().expect("client");
    let mut counts = BTreeMap::new();
    for ns in client.keys("count-*").expect("KEYS") {
        // RedisKeyValueState keeps its uncommitted writes in `<ns>$prepare`.
        if ns.contains('$') {
            continue;
        }
        for (k, v) in client.hgetall_bytes(&ns).expect("HGETALL") {
            // Keys are what the key serializer wrote (text); values are
            // Storm's DefaultStateEncoder framing (Kryo's Optional<byte[]>)
            // around what the value serializer wrote (decimal text).
            let key = String::from_utf8(k).expect("utf-8 key");
            let value: u64 = framed_text(&v).parse().expect("a count");
            *counts.entry(key).or_default() += value;
        }
    }
    counts
}

/// The text at the end of a `DefaultStateEncoder` value: Kryo writes the
/// wrapped `byte[]` last, as its length plus one (one byte for short arrays)
/// and its bytes.
fn framed_text(value: &[u8]) -> String {
    let digits = value
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count();
    let start = value.len() - digits;
    assert!(
        digits > 0 && start > 0 && usize::from(value[start - 1]) == digits + 1,
        "not a framed decimal: {value:?}"
    );
    String::from_utf8_lossy(&value[start..]).into_owned()
}

/// `topology.state.provider: RedisKeyValueStateProvider`: a stateful bolt's
/// counts are committed into Redis; one of its JVMs is killed with SIGKILL
/// mid-run; once the spout's failed tuples are replayed, the counts read from
/// Redis miss nothing (a state lost with the JVM would leave the tuples it had
/// counted and committed, acked and never replayed, uncounted).
#[test]
fn redis_key_value_state_survives_kill_9_of_its_jvm() {
    let redis = RedisServer::start().expect("redis");
    let cluster = Cluster::new("redis-state").expect("cluster");
    let name = cluster.topology_name();
    let (total, keys) = (4000u64, 8u64);
    let args = vec![
        "redis.host=127.0.0.1".to_owned(),
        format!("redis.port={}", redis.port()),
        format!("total={total}"),
        format!("keys={keys}"),
        "timeout.secs=10".to_owned(),
    ];
    submit(&cluster, "RedisStateTopology", &name, &args, &[]).expect("submit");
    let committed = wait_until(
        "some state committed into Redis by both count tasks",
        RUN_TIMEOUT,
        || {
            let mut client = redis.client().ok()?;
            let namespaces: Vec<String> = client
                .keys("count-*")
                .ok()?
                .into_iter()
                .filter(|k| !k.contains('$'))
                .collect();
            let sum: u64 = committed_counts(&redis).values().sum();
            (namespaces.len() == 2 && sum >= 400).then_some(sum)
        },
        || cluster.describe_logs(30),
    )
    .expect("first commits");
    assert!(
        committed < total,
        "the run ended before the kill ({committed} of {total} committed)"
    );
    let victim = egret_e2e::instance_processes(cluster.home())
        .into_iter()
        .find(|(_, id)| id.starts_with("count-"))
        .expect("a count JVM");
    eprintln!(
        "kill -9 {} (pid {}) with {committed} of {total} counted in Redis",
        victim.1, victim.0
    );
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(victim.0),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill -9");
    let want: BTreeMap<String, u64> = expected_counts(total, keys)
        .into_iter()
        .enumerate()
        .map(|(k, n)| (format!("k{k}"), n))
        .collect();
    wait_until(
        "every key's count in Redis to reach the spout's",
        Duration::from_secs(180),
        || {
            let seen = committed_counts(&redis);
            want.iter()
                .all(|(k, n)| seen.get(k).is_some_and(|v| v >= n))
                .then_some(())
        },
        || {
            format!(
                "{:?}\n{}",
                committed_counts(&redis),
                cluster.describe_logs(30)
            )
        },
    )
    .expect("all counted");
    let seen = cluster
        .wait_quiescent(&name, Duration::from_secs(60), || committed_counts(&redis))
        .expect("quiescent");
    let duplicates: u64 = seen.values().sum::<u64>() - total;
    eprintln!("state in Redis after kill -9: {seen:?}; {duplicates} counted twice");
    assert_eq!(
        seen.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    for (k, n) in &want {
        assert!(seen[k] >= *n, "key {k}: {} < {n}: {seen:?}", seen[k]);
    }
    // The restarted JVM got its state from Redis again.
    let logs = cluster.logs();
    let restored = logs
        .iter()
        .filter(|(path, _)| {
            path.file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with(&victim.1))
        })
        .map(|(_, text)| {
            text.matches(
                "Got state instance of type org.apache.storm.redis.state.RedisKeyValueState",
            )
            .count()
        })
        .sum::<usize>();
    assert!(
        restored >= 2,
        "{} did not make its Redis state again after the kill ({restored} times)",
        victim.1
    );
    cluster.kill_and_check_clean(&name).expect("kill");
}

/// A wrong Redis password: `RedisStoreBolt` reports the error (`reportError`),
/// and the error names Redis; the password is in no log and no command line.
#[test]
fn a_wrong_redis_password_fails_with_an_error_naming_redis() {
    let redis = RedisServer::start_with(Some("the-right-one-4931")).expect("redis");
    let cluster = Cluster::new("redis-password").expect("cluster");
    let name = cluster.topology_name();
    let wrong = "not-the-password-7720";
    let args = vec![
        "redis.host=127.0.0.1".to_owned(),
        format!("redis.port={}", redis.port()),
        "total=50".to_owned(),
        "keys=5".to_owned(),
    ];
    submit(
        &cluster,
        "RedisWordCountTopology",
        &name,
        &args,
        &[("REDIS_PASSWORD", wrong)],
    )
    .expect("submit");
    // The stream manager logs what the instance reported (reportError).
    let log = cluster
        .wait_for_log("Instance reported an error. instance=store-", RUN_TIMEOUT)
        .expect("the store bolt's reported error");
    let text = std::fs::read_to_string(&log).expect("log");
    let line = text
        .lines()
        .find(|l| l.contains("Instance reported an error. instance=store-"))
        .expect("the line");
    eprintln!("{}: {line}", log.display());
    assert!(
        line.contains("redis.clients.jedis.exceptions.") && line.contains("WRONGPASS"),
        "the error does not name Redis and the refused password: {line}"
    );
    for (path, text) in cluster.logs() {
        assert!(
            !text.contains(wrong),
            "the password is in {}",
            path.display()
        );
    }
    for (pid, cmdline) in cluster.leftovers() {
        assert!(
            !cmdline.contains(wrong),
            "the password is in pid {pid}'s command line"
        );
    }
    assert!(
        redis
            .client()
            .expect("client")
            .hgetall("egret:wordcount")
            .expect("HGETALL")
            .is_empty(),
        "something was stored with a wrong password"
    );
    cluster.kill_and_check_clean(&name).expect("kill");
}
