//! MetricsReportersTopology: a v2 counter registered with `TopologyContext.registerCounter`
//! and incremented once per executed tuple reaches the reporters of
//! `topology.metrics.reporters` in every instance JVM (CSV files, Graphite over TCP to a
//! listener of this test), with Storm's names and exactly the number of tuples processed; a
//! reporter whose class does not exist is logged and does not stop the data path. The
//! submitter hook (`storm.topology.submission.notifier.plugin.class`) is notified with the
//! topology's name and id, and a hook that throws fails the submission with Storm's
//! `SubmitterHookException` while the topology, submitted by then, keeps running.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use egret_e2e::{Cluster, QUIET_TIMEOUT, complete_lines, task_files, wait_until};

/// Tuples the spout emits (MetricsReportersTopology.COUNT).
const COUNT: usize = 120;
/// The counter's name (MetricsReportersTopology.COUNTER).
const COUNTER: &str = "tuples-counted";

/// The last value Graphite got for each metric name, from plaintext lines `name value ts`.
type Latest = Arc<Mutex<BTreeMap<String, String>>>;

/// A Graphite stand-in on loopback: accepts every connection and keeps each name's last value.
fn graphite_listener() -> (u16, Latest) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    let port = listener.local_addr().expect("local address").port();
    let latest: Latest = Arc::new(Mutex::new(BTreeMap::new()));
    let shared = Arc::clone(&latest);
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            let shared = Arc::clone(&shared);
            thread::spawn(move || {
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { break };
                    let parts: Vec<&str> = line.split(' ').collect();
                    if parts.len() == 3 {
                        shared
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .insert(parts[0].to_owned(), parts[1].to_owned());
                    }
                }
            });
        }
    });
    (port, latest)
}

/// Tuples the bolt tasks recorded (one line each in `counted-<task>.txt`).
fn processed(out: &Path) -> usize {
    task_files(out, "counted").values().map(Vec::len).sum()
}

/// Each counter's (one per bolt task) last value, by metric name.
fn graphite_counters(latest: &Latest) -> BTreeMap<String, u64> {
    latest
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .filter(|(name, _)| name.ends_with(&format!("-{COUNTER}.count")))
        .map(|(name, v)| (name.clone(), v.parse().unwrap_or(u64::MAX)))
        .collect()
}

/// Each CSV file of the counter and the value on its last line (`t,count` rows).
fn csv_counters(dir: &Path) -> BTreeMap<String, u64> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return BTreeMap::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.ends_with(&format!("-{COUNTER}.csv")) {
                return None;
            }
            let lines = complete_lines(&e.path());
            let value = lines
                .last()
                .filter(|_| lines.len() > 1)
                .and_then(|l| l.rsplit(',').next())
                .and_then(|v| v.parse().ok())?;
            Some((name, value))
        })
        .collect()
}

#[test]
fn v2_counter_reaches_csv_and_graphite_and_the_submitter_hook_is_notified() {
    let cluster = Cluster::new("metrics_reporters").expect("cluster");
    let name = cluster.topology_name();
    let (port, latest) = graphite_listener();
    let port_arg = port.to_string();
    cluster
        .submit_example_with("MetricsReportersTopology", &name, &[&port_arg])
        .expect("submit");
    let out = cluster.out_dir();
    let csv_dir = out.join("csv");

    // The hook ran in the submitting JVM, after the submission, with the topology's name and id.
    let hook = std::fs::read_to_string(out.join("submitter-hook.txt")).expect("the hook's file");
    let fields: Vec<&str> = hook.trim().split(' ').collect();
    assert_eq!(fields.first(), Some(&name.as_str()), "hook line {hook:?}");
    let id = fields.get(1).expect("an id in the hook line").to_string();
    assert!(id.starts_with(&name), "topology id {id:?} of {name}");
    assert_eq!(fields.get(2), Some(&"ACTIVE"), "hook line {hook:?}");
    assert_eq!(fields.get(3), Some(&"[counted]"), "hook line {hook:?}");

    let sum = |m: &BTreeMap<String, u64>| m.values().sum::<u64>();
    wait_until(
        "every tuple processed and the counters reported by CSV and Graphite",
        Duration::from_secs(90),
        || {
            let p = processed(&out) as u64;
            let g = graphite_counters(&latest);
            let c = csv_counters(&csv_dir);
            (p >= COUNT as u64 && g.len() == 2 && c.len() == 2 && sum(&g) == p && sum(&c) == p)
                .then_some(())
        },
        || {
            format!(
                "processed {}, graphite {:?}, csv {:?}",
                processed(&out),
                graphite_counters(&latest),
                csv_counters(&csv_dir)
            )
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(30)));
    let (p, g, c) = cluster
        .wait_quiescent(&name, QUIET_TIMEOUT, || {
            (
                processed(&out) as u64,
                graphite_counters(&latest),
                csv_counters(&csv_dir),
            )
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(30)));
    assert!(p >= COUNT as u64, "processed {p}");
    assert_eq!(sum(&g), p, "Graphite's counters {g:?}");
    assert_eq!(sum(&c), p, "CSV counters {c:?}");
    // Storm's names: storm.topology.<id>.<host>.<component>.<task>.<worker port>-<name>.
    let prefix = format!("storm.topology.{id}.");
    for n in g.keys() {
        assert!(n.starts_with(&prefix), "graphite name {n}");
        assert!(n.contains(".counted."), "graphite name {n}");
        assert!(
            n.ends_with(&format!(".0-{COUNTER}.count")),
            "graphite name {n}"
        );
    }
    for n in c.keys() {
        assert!(n.starts_with(&prefix), "csv file {n}");
    }
    // The filter keeps only the counter on Graphite (CSV has no filter).
    let other: Vec<String> = latest
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .keys()
        .filter(|n| !n.ends_with(&format!("-{COUNTER}.count")))
        .cloned()
        .collect();
    assert!(other.is_empty(), "the regex filter let through {other:?}");
    // The reporter that cannot be created is named in the instances' logs.
    cluster
        .wait_for_log(
            "Metrics reporter topology.metrics.reporters[2]: \"class\" dev.egret.examples.NoSuchReporter cannot be created",
            Duration::from_secs(10),
        )
        .expect("the bad reporter is logged");

    // A hook that throws: the submission fails with SubmitterHookException, as Storm's, and
    // the topology, submitted before the hook ran, keeps running.
    let refused = cluster.topology_name();
    let run = cluster
        .jar_example_with("MetricsReportersTopology", &refused, &[&port_arg, "throw"])
        .expect("run the throwing variant");
    assert!(
        !run.success(),
        "a throwing hook fails the submission: {}",
        run.describe()
    );
    let text = run.combined();
    assert!(
        text.contains("org.apache.storm.hooks.SubmitterHookException")
            && text.contains(&format!("ThrowingHook refuses {refused}")),
        "{}",
        run.describe()
    );
    assert!(
        text.contains(&format!("Topology '{refused}'")) && text.contains("keeps running"),
        "{}",
        run.describe()
    );
    cluster
        .kill(&refused)
        .expect("kill the topology the throwing hook was told of");
    cluster.kill_and_check_clean(&name).expect("clean kill");
}
