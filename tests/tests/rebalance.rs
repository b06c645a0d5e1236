//! `egret rebalance` on the local scheduler, under a running
//! `SequenceTopology` with acking (its sink: 2 executors over 4 tasks):
//! the sink goes from 2 to 4 executors and the workers from 2 to 3, then back.
//! Each time the new packing plan is stored (task ids unchanged, the tasks
//! regrouped into executors and containers), the processes run it (the sink's
//! four instance JVMs, three containers) and the topology runs again.
//! Afterwards every message was acked, the sink saw every (key, seq), and each
//! key reached only the sink task Storm's fields grouping names
//! (`floorMod(Arrays.deepHashCode([key]), 4)` into the sink's sorted task ids),
//! before, between and after the rebalances. Bad requests (`-e` without a
//! count, an unknown component, more executors than tasks) are refused with
//! their reason and change nothing.

#![allow(
    clippy::expect_used,
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::time::Duration;

use egret_e2e::sequence::{Observed, Workload, gaps_by_key, sample, wait_all_logged};
use egret_e2e::{Cluster, HarnessError, instance_processes, role_processes, wait_until};
use egret_proto::v1::PackingPlan;
use egret_state_manager::TopologyDir;

fn fail_with<T>(cluster: &Cluster, e: &HarnessError) -> T {
    panic!("{e}\n{}", cluster.describe_logs(40))
}

/// The task ids of `component`'s executors, by executor index, and the
/// number of containers.
fn executors(plan: &PackingPlan, component: &str) -> Vec<Vec<i32>> {
    let mut found: Vec<(i32, Vec<i32>)> = plan
        .containers
        .iter()
        .flat_map(|c| &c.instances)
        .filter(|i| i.component == component)
        .map(|i| (i.executor_index, i.task_ids.clone()))
        .collect();
    found.sort();
    found.into_iter().map(|(_, tasks)| tasks).collect()
}

fn all_tasks(plan: &PackingPlan) -> Vec<i32> {
    let mut tasks: Vec<i32> = plan
        .containers
        .iter()
        .flat_map(|c| &c.instances)
        .flat_map(|i| i.task_ids.clone())
        .collect();
    tasks.sort_unstable();
    tasks
}

/// Storm's fields grouping for one Integer field: `Arrays.deepHashCode` of a
/// one-element array is `31 + value`, then `floorMod` by the task count,
/// indexing the target component's task ids in ascending order.
fn storm_task_for_key(key: u32, sink_tasks: &[i32]) -> i32 {
    let hash = 31i64 + i64::from(key);
    let n = i64::try_from(sink_tasks.len()).unwrap();
    sink_tasks[usize::try_from(hash.rem_euclid(n)).unwrap()]
}

/// The keys each sink task recorded (`sink-<task id>.txt`).
fn keys_by_task(cluster: &Cluster) -> BTreeMap<i32, std::collections::BTreeSet<u32>> {
    egret_e2e::task_files(&cluster.out_dir(), "sink")
        .into_iter()
        .map(|(task, lines)| {
            let keys = lines
                .iter()
                .filter_map(|l| egret_e2e::sequence::parse_pair(l, ' '))
                .map(|(k, _)| k)
                .collect();
            (task, keys)
        })
        .collect()
}

fn acked(cluster: &Cluster) -> usize {
    Observed::read(&cluster.out_dir()).acked.len()
}

/// Waits until at least `n` distinct messages are acked.
fn wait_acked_at_least(cluster: &Cluster, n: usize, w: Workload) {
    wait_until(
        "more messages to be acked",
        Duration::from_secs(60),
        || (acked(cluster) >= n).then_some(()),
        || Observed::read(&cluster.out_dir()).summary(w),
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
}

fn rebalance(cluster: &Cluster, name: &str, args: &[&str]) -> egret_e2e::Output {
    let mut all = vec!["rebalance", name];
    all.extend_from_slice(args);
    cluster.run(&all).expect("egret rebalance runs")
}

/// The running instance JVMs by instance id (one process each).
fn running_instances(cluster: &Cluster) -> Vec<String> {
    let mut ids: Vec<String> = instance_processes(cluster.home())
        .into_iter()
        .map(|(_, id)| id)
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

fn wait_instances(cluster: &Cluster, wanted: &[&str]) {
    let mut wanted: Vec<String> = wanted.iter().map(|s| (*s).to_owned()).collect();
    wanted.sort();
    wait_until(
        "the new plan's instance JVMs",
        Duration::from_secs(60),
        || (running_instances(cluster) == wanted).then_some(()),
        || format!("running: {:?}", running_instances(cluster)),
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
}

#[test]
fn rebalancing_a_running_topology_loses_nothing_and_keys_stay_on_storms_tasks() {
    let cluster = Cluster::new("rebalance").expect("cluster");
    let name = cluster.topology_name();
    let started = std::time::Instant::now();
    let at = |what: &str| eprintln!("{:6.1} s  {what}", started.elapsed().as_secs_f64());
    // 40 messages a second per spout task: about 10 s of emitting, so both
    // rebalances happen while messages flow.
    let w = Workload { keys: 20, seqs: 40 };
    let keys = format!("keys={}", w.keys);
    let seqs = format!("seqs={}", w.seqs);
    cluster
        .submit_example_with(
            "SequenceTopology",
            &name,
            &[
                "at-least-once",
                &keys,
                &seqs,
                "rate=40",
                "timeout=30",
                "pending=50",
                "workers=2",
                "sinktasks=4",
            ],
        )
        .unwrap_or_else(|e| fail_with(&cluster, &e));
    let dir = TopologyDir::new(cluster.topology_dir(&name));
    let submitted = dir.read_packing_plan().expect("packing.pb");
    assert_eq!(submitted.containers.len(), 2);
    assert_eq!(executors(&submitted, "sink"), vec![vec![3, 4], vec![5, 6]]);
    let sink_tasks: Vec<i32> = (3..=6).collect();
    at("submitted");
    wait_acked_at_least(&cluster, 100, w);
    at("100 acked");

    // Refused, with the reason, before anything changes.
    for (args, needle) in [
        (vec!["-w", "0", "-e", "sink"], "COMPONENT=PARALLELISM"),
        (vec!["-w", "0", "-e", "sinks=3"], "no component 'sinks'"),
        (vec!["-w", "0", "-e", "sink=5"], "4 tasks"),
        (vec!["-w", "0", "-e", "relay=3"], "2 tasks"),
        (vec!["-w", "0", "-n", "0"], "at least 1"),
    ] {
        let out = rebalance(&cluster, &name, &args);
        assert!(!out.success(), "{args:?} was accepted: {}", out.describe());
        assert!(out.stderr.contains(needle), "{args:?}: {}", out.describe());
    }
    assert_eq!(dir.read_packing_plan().unwrap(), submitted);
    at("bad requests refused");

    // Up: the sink's 4 tasks in 4 executors, 3 workers.
    let before_up = acked(&cluster);
    let out = rebalance(&cluster, &name, &["-w", "2", "-n", "3", "-e", "sink=4"]);
    assert!(out.success(), "{}", out.describe());
    assert!(out.stdout.contains("3 containers"), "{}", out.describe());
    at("rebalanced up");
    let up = dir.read_packing_plan().unwrap();
    assert_eq!(up.containers.len(), 3);
    assert_eq!(
        executors(&up, "sink"),
        vec![vec![3], vec![4], vec![5], vec![6]]
    );
    assert_eq!(
        all_tasks(&up),
        all_tasks(&submitted),
        "task ids never change"
    );
    wait_instances(
        &cluster,
        &[
            "relay-0", "relay-1", "sink-0", "sink-1", "sink-2", "sink-3", "spout-0", "spout-1",
        ],
    );
    let containers = role_processes(cluster.home(), "container").len();
    assert_eq!(containers, 3, "three container processes run the new plan");
    assert!(
        acked(&cluster) < w.total(),
        "messages are still flowing after the first rebalance"
    );
    wait_acked_at_least(&cluster, before_up.max(acked(&cluster)) + 100, w);

    // Down again: the submission's plan.
    at("100 more acked");
    let out = rebalance(&cluster, &name, &["-w", "2", "-n", "2", "-e", "sink=2"]);
    assert!(out.success(), "{}", out.describe());
    at("rebalanced down");
    let down = dir.read_packing_plan().unwrap();
    assert_eq!(down, submitted, "back to the submission's packing plan");
    wait_instances(
        &cluster,
        &[
            "relay-0", "relay-1", "sink-0", "sink-1", "spout-0", "spout-1",
        ],
    );
    assert!(
        acked(&cluster) < w.total(),
        "messages are still flowing after the second rebalance"
    );

    let o = wait_all_logged(&cluster.out_dir(), w, false, Duration::from_secs(120))
        .unwrap_or_else(|e| fail_with(&cluster, &e));
    at("all acked");
    eprintln!("rebalanced twice: {}", o.summary(w));
    assert!(o.malformed.is_empty(), "malformed lines: {:?}", o.malformed);
    assert!(
        o.unexpected.is_empty(),
        "acks/fails for ids that were not pending: {:?}",
        o.unexpected
    );
    let missing = w.missing(&o.sink);
    assert!(
        missing.is_empty(),
        "the sink never saw {} messages: {} (gaps by key: {:?})",
        missing.len(),
        sample(&missing),
        gaps_by_key(&missing)
    );
    for (task, keys) in keys_by_task(&cluster) {
        for key in keys {
            assert_eq!(
                storm_task_for_key(key, &sink_tasks),
                task,
                "key {key} reached sink task {task}, not the one Storm's fields grouping names"
            );
        }
    }
    cluster
        .kill_and_check_clean(&name)
        .unwrap_or_else(|e| fail_with(&cluster, &e));
}
