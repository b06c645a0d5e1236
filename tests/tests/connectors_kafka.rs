//! storm-kafka-client 2.8.3 (`KafkaSpout`, `KafkaBolt`) with kafka-clients
//! 4.1.0, shaded into our topology jar (`examples-connectors/`), against a
//! real Kafka 4.1.0 broker in KRaft mode started by the test
//! (`egret_e2e::servers::kafka`). 100 000 records with sequence numbers go
//! into a 4-partition topic; the topology relays them to an output topic; the
//! test reads the output back and checks every sequence number is there,
//! counting duplicates, and that the spout's committed offsets reach the end
//! of every input partition.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use egret_e2e::connectors::submit;
use egret_e2e::servers::kafka::KafkaBroker;
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

fn submit_relay(cluster: &Cluster, broker: &KafkaBroker, name: &str) {
    let args = vec![
        format!("kafka.bootstrap={}", broker.bootstrap()),
        "kafka.topic=in".to_owned(),
        "kafka.out=out".to_owned(),
        format!("kafka.group={GROUP}"),
    ];
    submit(cluster, "KafkaRelayTopology", name, &args, &[]).expect("submit");
}

fn end_total(broker: &KafkaBroker, topic: &str) -> i64 {
    broker
        .offsets("nobody", topic)
        .map(|o| o.iter().map(|(_, _, end)| end).sum())
        .unwrap_or(-1)
}

/// Waits until the output has every record, the spout's commits reach the
/// input's ends and the topology is quiescent; returns (count per sequence
/// number, committed offsets).
fn drain(
    cluster: &Cluster,
    broker: &KafkaBroker,
    name: &str,
    timeout: Duration,
) -> (BTreeMap<u64, u64>, Vec<(u32, i64, i64)>) {
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
    submit_relay(&cluster, &broker, &name);
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
    submit_relay(&cluster, &broker, &name);
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
