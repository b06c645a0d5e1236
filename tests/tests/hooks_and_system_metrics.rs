//! HooksTopology: task hooks (by `topology.auto.task.hooks` and by `addTaskHook`) see
//! exactly the emits, spout acks and bolt executes/acks of their task, and every
//! instance JVM reports Storm's `__system` worker metrics to the metrics consumers.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeSet;
use std::time::Duration;

use egret_e2e::{Cluster, QUIET_TIMEOUT, task_files, wait_until};

/// Tuples the spout emits (HooksTopology.COUNT).
const COUNT: usize = 50;

/// All lines of the files `<prefix>-<task>.txt`, over every task.
fn lines(out: &std::path::Path, prefix: &str) -> Vec<String> {
    task_files(out, prefix).into_values().flatten().collect()
}

fn starting(lines: &[String], word: &str) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l.split(' ').next() == Some(word))
        .cloned()
        .collect()
}

#[test]
fn hooks_count_exactly_and_system_metrics_reach_the_consumer() {
    let cluster = Cluster::new("hooks_and_system_metrics").expect("cluster");
    let name = cluster.topology_name();
    cluster
        .submit_example("HooksTopology", &name)
        .expect("submit");
    let out = cluster.out_dir();

    wait_until(
        "every tuple acked and seen by the hooks, and __system GC metrics",
        Duration::from_secs(90),
        || {
            let acked = lines(&out, "acked").len();
            let hook_acks = starting(&lines(&out, "hook_numbers"), "spoutAck").len();
            let bolt_acks = starting(&lines(&out, "added_echo"), "boltAck").len();
            let system = lines(&out, "system");
            let gc = system.iter().any(|l| l.contains(" GC/"));
            (acked >= COUNT && hook_acks >= COUNT && bolt_acks >= COUNT && gc).then_some(())
        },
        || {
            format!(
                "acked {}, hook spout acks {}, added-hook bolt acks {}, system lines {}",
                lines(&out, "acked").len(),
                starting(&lines(&out, "hook_numbers"), "spoutAck").len(),
                starting(&lines(&out, "added_echo"), "boltAck").len(),
                lines(&out, "system").len()
            )
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(30)));
    // Let late duplicates, if any, show up before counting exactly. The
    // `system` lines and the hooks' lines about `__metrics` tuples grow every
    // metrics bucket: only the lines of the spout's tuples settle.
    cluster
        .wait_quiescent(&name, QUIET_TIMEOUT, || {
            let of_spout = |prefix: &str| {
                lines(&out, prefix)
                    .into_iter()
                    .filter(|l| !l.contains("__metrics") && !l.contains("__system"))
                    .collect::<Vec<_>>()
            };
            (
                lines(&out, "acked").len(),
                of_spout("hook_numbers"),
                of_spout("hook_echo"),
                of_spout("added_echo"),
            )
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(30)));

    // The spout: one spoutAck per acked tuple, same message ids, with a complete latency.
    let acked: BTreeSet<String> = lines(&out, "acked").into_iter().collect();
    let spout_hook = lines(&out, "hook_numbers");
    let hook_acks = starting(&spout_hook, "spoutAck");
    assert_eq!(lines(&out, "acked").len(), COUNT, "spout acks");
    assert_eq!(hook_acks.len(), COUNT, "hook spoutAck calls");
    let hook_ids: BTreeSet<String> = hook_acks
        .iter()
        .map(|l| {
            let parts: Vec<&str> = l.split(' ').collect();
            assert_eq!(parts.len(), 3, "bad line {l:?}");
            let latency: i64 = parts[2]
                .parse()
                .unwrap_or_else(|_| panic!("completeLatencyMs missing in {l:?}"));
            assert!(latency >= 0, "negative latency in {l:?}");
            parts[1].to_owned()
        })
        .collect();
    assert_eq!(hook_ids, acked, "the hook saw the acked message ids");
    // Emits: COUNT on the default stream, one target each (the one echo task).
    let default_emits = starting(&spout_hook, "emit")
        .into_iter()
        .filter(|l| l == "emit default 1")
        .count();
    assert_eq!(default_emits, COUNT, "emits seen by the spout's hook");

    // The bolt: both hooks see every execute and ack of the spout's tuples.
    let auto_bolt = lines(&out, "hook_echo");
    let from_numbers = |v: &[String], word: &str| {
        starting(v, word)
            .into_iter()
            .filter(|l| l.starts_with(&format!("{word} numbers ")))
            .count()
    };
    assert_eq!(
        from_numbers(&auto_bolt, "execute"),
        COUNT,
        "auto hook executes"
    );
    assert_eq!(from_numbers(&auto_bolt, "boltAck"), COUNT, "auto hook acks");
    let added = lines(&out, "added_echo");
    assert_eq!(
        starting(&added, "execute").len(),
        COUNT,
        "added hook executes"
    );
    assert_eq!(starting(&added, "boltAck").len(), COUNT, "added hook acks");

    // __system: Storm's names and shapes, from task -1.
    let system = lines(&out, "system");
    for l in &system {
        assert!(
            l.starts_with("__system -1 "),
            "unexpected system line {l:?}"
        );
    }
    let has = |needle: &str| system.iter().any(|l| l.contains(needle));
    assert!(
        has(
            " memory/heap [committedBytes, initBytes, maxBytes, unusedBytes, usedBytes, virtualFreeBytes]"
        ),
        "memory/heap in {system:?}"
    );
    assert!(has(" memory/nonHeap ["), "memory/nonHeap");
    assert!(has(" CPU [sys-ms, user-ms]"), "CPU in {system:?}");
    assert!(has(" GC/") && has("[count, timeMs]"), "GC in {system:?}");
    assert!(has(" uptimeSecs v") && has(" startTimeSecs v") && has(" newWorkerEvent v"));

    cluster.kill_and_check_clean(&name).expect("clean kill");
}
