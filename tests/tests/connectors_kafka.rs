//! storm-kafka-client 2.8.3 (`KafkaSpout`, `KafkaBolt`) with kafka-clients
//! 4.1.0, shaded into our topology jar (`examples-connectors/`), against a
//! real Kafka 4.1.0 broker in KRaft mode started by the test
//! (`egret_e2e::servers::kafka`). 100 000 records with sequence numbers go
//! into a 4-partition topic; the topology relays them to an output topic; the
//! test reads the output back and checks every sequence number is there,
//! counting duplicates, and that the spout's committed offsets reach the end
//! of every input partition. The last test runs `egret bench --workload
//! kafka` briefly.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use egret_e2e::connectors::{expected_counts, jar, submit};
use egret_e2e::servers::kafka::KafkaBroker;
use egret_e2e::servers::postgres::{PostgresServer, USER};
use egret_e2e::servers::redis::RedisServer;
use egret_e2e::{Cluster, instance_processes, role_processes, wait_until};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

const RECORDS: u64 = 100_000;
const PARTITIONS: &str = "4";
const GROUP: &str = "egret-relay";

/// A broker with topics `in` (4 partitions, `RECORDS` records) and `out`.
fn broker_with_input() -> KafkaBroker {
    let broker = KafkaBroker::start().expect("kafka");
    broker
        .tool("create", &["in", PARTITIONS])
        .expect("create in");
    broker
        .tool("create", &["out", PARTITIONS])
        .expect("create out");
    let out = broker
        .tool("produce", &["in", "0", &RECORDS.to_string()])
        .expect("produce");
    assert!(
        out.stdout.contains(&format!("produced {RECORDS}")),
        "{}",
        out.describe()
    );
    broker
}

fn submit_relay(cluster: &Cluster, broker: &KafkaBroker, name: &str, extra: &[String]) {
    let mut args = vec![
        format!("kafka.bootstrap={}", broker.bootstrap()),
        "kafka.topic=in".to_owned(),
        "kafka.out=out".to_owned(),
        format!("kafka.group={GROUP}"),
    ];
    args.extend_from_slice(extra);
    submit(cluster, "KafkaRelayTopology", name, &args, &[]).expect("submit");
}

/// The errors the topology's tasks reported (`reportError`), as Nimbus's
/// `TopologyInfo.errors` holds them: (component, first line of the error).
/// `TopologyErrors` submits nothing, which `egret jar` then reports as an
/// error: its output must end with its `ERRORS <n>` line.
fn reported_errors(cluster: &Cluster, name: &str) -> Vec<(String, String)> {
    let out = jar(cluster, "TopologyErrors", name, &[], &[]).expect("TopologyErrors");
    assert!(
        out.stdout.lines().any(|l| l.starts_with("ERRORS ")),
        "{}",
        out.describe()
    );
    out.stdout
        .lines()
        .filter_map(|l| l.strip_prefix("ERROR "))
        .filter_map(|l| {
            let mut parts = l.splitn(3, ' ');
            let component = parts.next()?;
            let _time = parts.next()?;
            Some((component.to_owned(), parts.next().unwrap_or("").to_owned()))
        })
        .collect()
}

fn end_total(broker: &KafkaBroker, topic: &str) -> i64 {
    broker
        .offsets("nobody", topic)
        .map(|o| o.iter().map(|(_, _, end)| end).sum())
        .unwrap_or(-1)
}

/// (partition, committed offset, end offset) of the input topic.
type Committed = Vec<(u32, i64, i64)>;

/// Waits until the output has every record, the spout's commits reach the
/// input's ends and the topology is quiescent; returns (count per sequence
/// number, committed offsets).
fn drain(
    cluster: &Cluster,
    broker: &KafkaBroker,
    name: &str,
    timeout: Duration,
) -> (BTreeMap<u64, u64>, Committed) {
    let target = i64::try_from(RECORDS).expect("records");
    wait_until(
        "every record in the output topic",
        timeout,
        || (end_total(broker, "out") >= target).then_some(()),
        || {
            format!(
                "out has {} records\n{}",
                end_total(broker, "out"),
                cluster.describe_logs(20)
            )
        },
    )
    .expect("output");
    let committed = wait_until(
        "the spout's committed offsets at the end of every partition",
        Duration::from_secs(120),
        || {
            let o = broker.offsets(GROUP, "in").ok()?;
            o.iter().all(|(_, c, e)| c == e).then_some(o)
        },
        || {
            format!(
                "{:?}\n{}",
                broker.offsets(GROUP, "in"),
                cluster.describe_logs(20)
            )
        },
    )
    .expect("commits");
    cluster
        .wait_quiescent(name, Duration::from_secs(90), || end_total(broker, "out"))
        .expect("quiescent");
    let file = cluster.out_dir().join("out.txt");
    let file_arg = file.to_string_lossy().into_owned();
    broker
        .tool("consume", &["out", &file_arg])
        .expect("consume");
    let mut seen = BTreeMap::new();
    for line in std::fs::read_to_string(&file).expect("read output").lines() {
        let seq: u64 = line.parse().expect("a sequence number");
        *seen.entry(seq).or_insert(0) += 1;
    }
    (seen, committed)
}

/// Every input sequence number present; returns the duplicate count.
fn check(seen: &BTreeMap<u64, u64>, committed: &[(u32, i64, i64)]) -> u64 {
    let missing: Vec<u64> = (0..RECORDS).filter(|s| !seen.contains_key(s)).collect();
    assert!(
        missing.is_empty(),
        "{} sequence numbers missing from the output, first {:?}",
        missing.len(),
        &missing[..missing.len().min(20)]
    );
    let strangers: Vec<&u64> = seen.keys().filter(|s| **s >= RECORDS).collect();
    assert!(strangers.is_empty(), "unknown records {strangers:?}");
    let total: u64 = seen.values().sum();
    assert_eq!(committed.len(), 4, "{committed:?}");
    let ends: i64 = committed.iter().map(|(_, _, e)| e).sum();
    assert_eq!(
        ends,
        i64::try_from(RECORDS).expect("records"),
        "{committed:?}"
    );
    total - RECORDS
}

#[test]
fn kafka_to_kafka_at_least_once_every_record_relayed() {
    let broker = broker_with_input();
    let cluster = Cluster::new("kafka-relay").expect("cluster");
    let name = cluster.topology_name();
    let started = Instant::now();
    submit_relay(&cluster, &broker, &name, &[]);
    let (seen, committed) = drain(&cluster, &broker, &name, Duration::from_secs(300));
    let duplicates = check(&seen, &committed);
    eprintln!(
        "clean run: {RECORDS} records in, {} out, {duplicates} duplicates; committed {committed:?} (in {:.0} s)",
        seen.values().sum::<u64>(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(duplicates, 0, "a clean run replays nothing");
    cluster.kill_and_check_clean(&name).expect("kill");
}

/// The same with 10 kill -9 while it runs: spout and bolt JVMs in turn, and
/// one stream manager. Nothing may be lost; duplicates are counted and printed.
#[test]
fn kafka_to_kafka_at_least_once_under_10_kill_9() {
    let broker = broker_with_input();
    let cluster = Cluster::new("kafka-faults").expect("cluster");
    let name = cluster.topology_name();
    submit_relay(&cluster, &broker, &name, &[]);
    // Start the faults once records flow.
    wait_until(
        "the first records in the output",
        Duration::from_secs(120),
        || (end_total(&broker, "out") > 0).then_some(()),
        || cluster.describe_logs(20),
    )
    .expect("flowing");
    let prefixes = ["kafka-spout-", "relay-", "kafka-bolt-"];
    let mut faults = Vec::new();
    for i in 0..10 {
        std::thread::sleep(Duration::from_secs(2));
        let target = if i == 5 {
            let sm = wait_until(
                "a stream manager",
                Duration::from_secs(60),
                || role_processes(cluster.home(), "stmgr").into_iter().next(),
                String::new,
            )
            .expect("stmgr");
            (sm.pid, format!("stmgr-{}", sm.index.unwrap_or(0)))
        } else {
            let prefix = prefixes[i % prefixes.len()];
            wait_until(
                &format!("a live {prefix} JVM"),
                Duration::from_secs(60),
                || {
                    let live: Vec<(i32, String)> = instance_processes(cluster.home())
                        .into_iter()
                        .filter(|(_, id)| id.starts_with(prefix))
                        .collect();
                    live.get(i % 2).or(live.first()).cloned()
                },
                String::new,
            )
            .expect("instance")
        };
        let out_so_far = end_total(&broker, "out");
        let _ = kill(Pid::from_raw(target.0), Signal::SIGKILL);
        eprintln!(
            "fault {}: kill -9 {} (pid {}), output at {out_so_far}",
            i + 1,
            target.1,
            target.0
        );
        faults.push(target.1);
    }
    let (seen, committed) = drain(&cluster, &broker, &name, Duration::from_secs(420));
    let duplicates = check(&seen, &committed);
    eprintln!(
        "with 10 kill -9 ({faults:?}): {RECORDS} records in, {} out, {duplicates} duplicates; committed {committed:?}",
        seen.values().sum::<u64>()
    );
    cluster.kill_and_check_clean(&name).expect("kill");
}

/// The broker stopped (SIGKILL of its JVM) while records flow, for longer
/// than the producer's delivery timeout (10 s here), then started again on
/// the same port and data. KafkaBolt's sends fail with Kafka's
/// `TimeoutException`, which it reports (`reportError`, seen through Nimbus's
/// `TopologyInfo.errors`) and fails the tuples for; KafkaSpout does not call
/// `reportError` (storm-kafka-client 2.8.3 only logs and retries the broker),
/// and the failed and timed-out trees are replayed once the broker is back.
/// Nothing may be lost; duplicates are counted and printed.
#[test]
fn kafka_to_kafka_at_least_once_across_a_broker_restart() {
    let mut broker = broker_with_input();
    let cluster = Cluster::new("kafka-restart").expect("cluster");
    let name = cluster.topology_name();
    submit_relay(
        &cluster,
        &broker,
        &name,
        &["kafka.delivery.timeout.ms=10000".to_owned()],
    );
    wait_until(
        "the first records in the output",
        Duration::from_secs(120),
        || (end_total(&broker, "out") > 0).then_some(()),
        || cluster.describe_logs(20),
    )
    .expect("flowing");
    let out_before = end_total(&broker, "out");
    assert!(
        out_before < i64::try_from(RECORDS).expect("records"),
        "every record was relayed before the broker stopped: the test would prove nothing"
    );
    broker.kill();
    eprintln!("broker killed (SIGKILL) with {out_before} records in the output");
    let errors = wait_until(
        "KafkaBolt's reported errors while the broker is down",
        Duration::from_secs(180),
        || {
            let errors = reported_errors(&cluster, &name);
            errors
                .iter()
                .any(|(component, _)| component == "kafka-bolt")
                .then_some(errors)
        },
        || {
            format!(
                "reported: {:?}\n{}",
                reported_errors(&cluster, &name),
                cluster.describe_logs(20)
            )
        },
    )
    .expect("reported errors");
    // What each component reported while the broker was down.
    let mut per_component: BTreeMap<&str, usize> = BTreeMap::new();
    for (component, _) in &errors {
        *per_component.entry(component.as_str()).or_insert(0) += 1;
    }
    eprintln!("reported errors while the broker was down: {per_component:?}");
    for (component, message) in &errors {
        eprintln!("  {component}: {message}");
    }
    let bolt_errors: Vec<&String> = errors
        .iter()
        .filter(|(c, _)| c == "kafka-bolt")
        .map(|(_, m)| m)
        .collect();
    assert!(
        bolt_errors
            .iter()
            .all(|m| m.contains("org.apache.kafka.common.errors.TimeoutException")),
        "KafkaBolt reports the producer's send timeout: {bolt_errors:?}"
    );
    broker.restart().expect("restart the broker");
    eprintln!("broker restarted on {}", broker.bootstrap());
    let (seen, committed) = drain(&cluster, &broker, &name, Duration::from_secs(420));
    let duplicates = check(&seen, &committed);
    eprintln!(
        "across a broker restart: {RECORDS} records in, {} out ({out_before} before the stop), {duplicates} duplicates; committed {committed:?}",
        seen.values().sum::<u64>()
    );
    cluster.kill_and_check_clean(&name).expect("kill");
}

/// A broker with topic `words` (4 partitions) holding `total` records.
fn broker_with_words(total: u64) -> KafkaBroker {
    let broker = KafkaBroker::start().expect("kafka");
    broker
        .tool("create", &["words", PARTITIONS])
        .expect("create");
    broker
        .tool("produce", &["words", "0", &total.to_string()])
        .expect("produce");
    broker
}

/// A PostgreSQL server with the `records` table `JdbcInsertTopology` fills.
fn postgres_with_records_table() -> PostgresServer {
    let pg = PostgresServer::start().expect("postgres");
    pg.psql("CREATE TABLE records (rkey text NOT NULL, seq bigint NOT NULL)")
        .expect("create table");
    pg
}

/// Kafka to Redis and Kafka to PostgreSQL: `KafkaSpout` feeds storm-redis's
/// `RedisStoreBolt` word counts (exact in Redis) and storm-jdbc's
/// `JdbcInsertBolt` (one row per record, exact per key with SQL), one
/// topology after the other on the same topic, each with its own group.
#[test]
fn kafka_to_redis_and_kafka_to_postgresql_exact() {
    let (total, keys) = (10_000u64, 11u64);
    let broker = broker_with_words(total);
    let redis = RedisServer::start().expect("redis");
    let pg = postgres_with_records_table();
    let want: BTreeMap<String, u64> = expected_counts(total, keys)
        .into_iter()
        .enumerate()
        .map(|(k, n)| (format!("{k}"), n))
        .collect();
    let source = |group: &str| {
        vec![
            "source=kafka".to_owned(),
            format!("kafka.bootstrap={}", broker.bootstrap()),
            "kafka.topic=words".to_owned(),
            format!("kafka.group={group}"),
            format!("total={total}"),
            format!("keys={keys}"),
        ]
    };

    let cluster = Cluster::new("kafka-redis-jdbc").expect("cluster");
    let name = cluster.topology_name();
    let mut args = source("to-redis");
    args.extend([
        "redis.host=127.0.0.1".to_owned(),
        format!("redis.port={}", redis.port()),
    ]);
    submit(&cluster, "RedisWordCountTopology", &name, &args, &[]).expect("submit redis");
    let counts = || -> BTreeMap<String, u64> {
        redis
            .client()
            .and_then(|mut c| c.hgetall("egret:wordcount"))
            .unwrap_or_default()
            .into_iter()
            .map(|(w, n)| (w.trim_start_matches('w').to_owned(), n.parse().unwrap_or(0)))
            .collect()
    };
    wait_until(
        "every word counted in Redis",
        Duration::from_secs(180),
        || (counts().values().sum::<u64>() >= total).then_some(()),
        || format!("{:?}\n{}", counts(), cluster.describe_logs(20)),
    )
    .expect("counted");
    let seen = cluster
        .wait_quiescent(&name, Duration::from_secs(60), counts)
        .expect("quiescent");
    eprintln!("Kafka to Redis: {seen:?}");
    assert_eq!(seen, want, "word counts in Redis");
    cluster.kill(&name).expect("kill redis topology");

    let name = cluster.topology_name();
    let mut args = source("to-postgresql");
    args.extend([
        format!("jdbc.url={}", pg.jdbc_url()),
        format!("jdbc.user={USER}"),
    ]);
    submit(&cluster, "JdbcInsertTopology", &name, &args, &[]).expect("submit jdbc");
    let rows = || -> BTreeMap<String, u64> {
        pg.psql("SELECT rkey, count(*) FROM records GROUP BY rkey")
            .unwrap_or_default()
            .into_iter()
            .map(|r| {
                (
                    r[0].trim_start_matches('k').to_owned(),
                    r[1].parse().unwrap_or(0),
                )
            })
            .collect()
    };
    wait_until(
        "every record's row in PostgreSQL",
        Duration::from_secs(180),
        || (rows().values().sum::<u64>() >= total).then_some(()),
        || format!("{:?}\n{}", rows(), cluster.describe_logs(20)),
    )
    .expect("rows");
    let seen = cluster
        .wait_quiescent(&name, Duration::from_secs(60), rows)
        .expect("quiescent");
    eprintln!("Kafka to PostgreSQL: {seen:?}");
    assert_eq!(seen, want, "rows per key in PostgreSQL");
    let distinct = pg
        .psql("SELECT count(DISTINCT seq) FROM records")
        .expect("distinct")[0][0]
        .clone();
    assert_eq!(distinct, total.to_string());
    cluster.kill_and_check_clean(&name).expect("kill");
}

/// `egret bench --workload kafka`, briefly: the bench starts its own broker,
/// fills the input, runs the connector jar's KafkaWordCountTopology on real
/// Storm 2.8.3 (local mode) and on Egret, and reports both throughputs. No
/// timing assertions: each system must have acked sentences (the hook) and
/// written records to its output topic over the window (the end offsets).
#[test]
fn bench_kafka_workload_reports_tuples_and_records_per_second() {
    let artifacts = egret_e2e::Artifacts::locate().expect("artifacts");
    let storm_side = egret_e2e::workspace_root().join("bench/storm-side/target");
    let tmp = tempfile::tempdir().expect("tempdir");
    let mut cmd = std::process::Command::new(&artifacts.egret);
    cmd.env("EGRET_HOME", tmp.path().join("home"))
        .args(["bench", "--workload", "kafka", "--kafka-records", "200000"])
        .args([
            "--warmup",
            "3",
            "--duration",
            "6",
            "--startup-timeout",
            "60",
        ])
        .arg("--storm-side")
        .arg(&storm_side)
        .arg("--work-dir")
        .arg(tmp.path().join("work"))
        .args(["--storm-jvm-opts", "-Xmx512m"]);
    let out = egret_e2e::run_with_timeout(&mut cmd, Duration::from_secs(400)).expect("bench");
    assert!(out.success(), "egret bench failed: {}", out.describe());
    eprintln!("{}", out.stdout);
    let section = out
        .stdout
        .split("Kafka output records/s")
        .nth(1)
        .unwrap_or_else(|| panic!("no records/s section: {}", out.describe()));
    for system in ["storm", "egret"] {
        // The table's median row: tuples/s (spout acks) > 0.
        let row: Vec<&str> = out
            .stdout
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|f| f.len() >= 4 && f[0] == system && f[1] == "median")
            .unwrap_or_else(|| panic!("no {system} median row: {}", out.stdout));
        let tuples: f64 = row[2].parse().unwrap_or(0.0);
        assert!(tuples > 0.0, "{system}: {row:?}");
        assert_eq!(row[3], "acked", "{system}: {row:?}");
        let records: f64 = section
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .find(|f| f.len() == 3 && f[0] == system && f[1] == "median")
            .and_then(|f| f[2].parse().ok())
            .unwrap_or(0.0);
        assert!(
            records > 0.0,
            "{system} wrote no records over the window: {section}"
        );
    }
}

/// storm-jdbc's `JdbcInsertBolt` under faults: 5 kill -9 of the Kafka spout's,
/// the row bolt's and the insert bolt's JVMs while rows are being inserted.
/// At least once: every record has its row (no key is missing a record);
/// the duplicate rows the replays caused are counted and printed.
#[test]
fn kafka_to_postgresql_under_kill_9_no_record_missing() {
    let (total, keys) = (20_000u64, 11u64);
    let broker = broker_with_words(total);
    let pg = postgres_with_records_table();
    let want: BTreeMap<String, u64> = expected_counts(total, keys)
        .into_iter()
        .enumerate()
        .map(|(k, n)| (format!("k{k}"), n))
        .collect();

    let cluster = Cluster::new("kafka-jdbc-faults").expect("cluster");
    let name = cluster.topology_name();
    let args = vec![
        "source=kafka".to_owned(),
        format!("kafka.bootstrap={}", broker.bootstrap()),
        "kafka.topic=words".to_owned(),
        "kafka.group=to-postgresql-faults".to_owned(),
        format!("total={total}"),
        format!("keys={keys}"),
        format!("jdbc.url={}", pg.jdbc_url()),
        format!("jdbc.user={USER}"),
    ];
    submit(&cluster, "JdbcInsertTopology", &name, &args, &[]).expect("submit jdbc");
    let rows = || -> u64 {
        pg.psql("SELECT count(*) FROM records")
            .ok()
            .and_then(|r| r.first().and_then(|row| row.first()).cloned())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    wait_until(
        "the first rows in PostgreSQL",
        Duration::from_secs(120),
        || (rows() > 0).then_some(()),
        || cluster.describe_logs(20),
    )
    .expect("flowing");
    let prefixes = [
        "insert-",
        "kafka-spout-",
        "rows-",
        "insert-",
        "kafka-spout-",
    ];
    let mut faults = Vec::new();
    for (i, prefix) in prefixes.iter().enumerate() {
        std::thread::sleep(Duration::from_secs(2));
        let (pid, id) = wait_until(
            &format!("a live {prefix} JVM"),
            Duration::from_secs(60),
            || {
                let live: Vec<(i32, String)> = instance_processes(cluster.home())
                    .into_iter()
                    .filter(|(_, id)| id.starts_with(prefix))
                    .collect();
                live.get(i % 2).or(live.first()).cloned()
            },
            String::new,
        )
        .expect("instance");
        let so_far = rows();
        let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        eprintln!(
            "fault {}: kill -9 {id} (pid {pid}), {so_far} rows so far",
            i + 1
        );
        faults.push(id);
    }
    // Every record's sequence number has a row; counting distinct sequence
    // numbers per key makes the check independent of the duplicates.
    let per_key = || -> BTreeMap<String, u64> {
        pg.psql("SELECT rkey, count(DISTINCT seq) FROM records GROUP BY rkey")
            .unwrap_or_default()
            .into_iter()
            .map(|r| (r[0].clone(), r[1].parse().unwrap_or(0)))
            .collect()
    };
    wait_until(
        "every record's row in PostgreSQL after the faults",
        Duration::from_secs(300),
        || (per_key().values().sum::<u64>() >= total).then_some(()),
        || format!("{:?}\n{}", per_key(), cluster.describe_logs(20)),
    )
    .expect("rows");
    let seen = cluster
        .wait_quiescent(&name, Duration::from_secs(90), rows)
        .expect("quiescent");
    assert_eq!(per_key(), want, "distinct records per key in PostgreSQL");
    let distinct = pg
        .psql("SELECT count(DISTINCT seq) FROM records")
        .expect("distinct")[0][0]
        .clone();
    assert_eq!(
        distinct,
        total.to_string(),
        "every sequence number has a row"
    );
    eprintln!(
        "Kafka to PostgreSQL with 5 kill -9 ({faults:?}): {total} records, {seen} rows, {} duplicate rows, no record missing",
        seen - total
    );
    cluster.kill_and_check_clean(&name).expect("kill");
}
