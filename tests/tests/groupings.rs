//! GroupingsTopology: all, global, direct groupings and executors hosting several tasks.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use egret_e2e::{Bridge, Cluster, QUIET_TIMEOUT, complete_lines, task_files, wait_until};

/// `GroupingsTopology.COUNT`: values 0..COUNT on each stream.
const COUNT: u32 = 12;

/// A sink task's view of its `TopologyContext`, from `context-<component>-<task>.txt`.
#[derive(Debug, Clone, PartialEq)]
struct Context {
    task: i32,
    index: usize,
    component_tasks: Vec<i32>,
}

fn parse_tasks(list: &str) -> Vec<i32> {
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .unwrap_or_else(|_| panic!("bad task id in {list:?}"))
        })
        .collect()
}

fn contexts(out: &Path, component: &str) -> BTreeMap<i32, Context> {
    task_files(out, &format!("context-{component}"))
        .into_iter()
        .filter_map(|(task, lines)| {
            let line = lines.first()?;
            let mut parts = line.split(' ');
            let ctx = Context {
                task: parts.next()?.parse().ok()?,
                index: parts.next()?.parse().ok()?,
                component_tasks: parse_tasks(parts.next().unwrap_or("")),
            };
            Some((task, ctx))
        })
        .collect()
}

fn values(lines: &[String]) -> Vec<u32> {
    let mut v: Vec<u32> = lines
        .iter()
        .map(|l| {
            l.split(' ')
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or_else(|| panic!("bad line {l:?}"))
        })
        .collect();
    v.sort_unstable();
    v
}

fn all_values() -> Vec<u32> {
    (0..COUNT).collect()
}

/// Everything the sinks wrote, as one printable snapshot.
fn snapshot(out: &Path) -> String {
    ["all-sink", "global-sink", "direct-sink", "multi-sink"]
        .iter()
        .map(|c| {
            format!(
                "{c}: contexts {:?} data {:?}",
                contexts(out, c),
                task_files(out, c)
                    .iter()
                    .map(|(t, l)| (*t, values(l)))
                    .collect::<BTreeMap<_, _>>()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every value once in the union of the component's task files.
fn union_complete(out: &Path, component: &str) -> bool {
    let merged: Vec<String> = task_files(out, component).into_values().flatten().collect();
    values(&merged) == all_values()
}

fn done(out: &Path) -> bool {
    let all = task_files(out, "all-sink");
    let global = task_files(out, "global-sink");
    contexts(out, "all-sink").len() == 3
        && contexts(out, "global-sink").len() == 3
        && contexts(out, "direct-sink").len() == 3
        && contexts(out, "multi-sink").len() == 4
        && all.len() == 3
        && all.values().all(|l| values(l) == all_values())
        && global.values().any(|l| values(l) == all_values())
        && union_complete(out, "direct-sink")
        && union_complete(out, "multi-sink")
}

/// Task ids of a component are consecutive, ascending, and each task's index is
/// its position among them, as in Storm.
fn check_contexts(out: &Path, component: &str, n: usize) -> Vec<i32> {
    let ctxs = contexts(out, component);
    let tasks: Vec<i32> = ctxs.keys().copied().collect();
    assert_eq!(
        tasks.len(),
        n,
        "{component}: expected {n} prepared tasks, got {tasks:?}"
    );
    for window in tasks.windows(2) {
        assert_eq!(
            window[1],
            window[0] + 1,
            "{component}: task ids not consecutive: {tasks:?}"
        );
    }
    for (position, (task, ctx)) in ctxs.iter().enumerate() {
        assert_eq!(
            ctx.task, *task,
            "{component}: file name and getThisTaskId differ"
        );
        assert_eq!(
            ctx.index, position,
            "{component}: task {task} has the wrong getThisTaskIndex"
        );
        assert_eq!(
            ctx.component_tasks, tasks,
            "{component}: getComponentTasks is wrong on task {task}"
        );
    }
    tasks
}

#[test]
fn all_global_direct_and_multi_task_executors() {
    groupings_on(Bridge::from_env().expect("bridge"));
}

#[test]
fn all_global_direct_and_multi_task_executors_with_the_jni_bridge() {
    groupings_on(Bridge::Jni);
}

fn groupings_on(bridge: Bridge) {
    let cluster = Cluster::with_bridge("groupings", bridge).expect("cluster");
    let name = cluster.topology_name();
    cluster
        .submit_example("GroupingsTopology", &name)
        .expect("submit");
    let out = cluster.out_dir();
    if let Err(e) = wait_until(
        "every sink to receive its tuples",
        Duration::from_secs(45),
        || done(&out).then_some(()),
        || snapshot(&out),
    ) {
        panic!("{e}\n{}", cluster.describe_logs(20));
    }
    cluster
        .check_bridge(&name)
        .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(20)));
    // Let duplicates, if any, arrive before the exact checks.
    cluster
        .wait_quiescent(&name, QUIET_TIMEOUT, || snapshot(&out))
        .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(20)));

    // all: every task of all-sink saw every value exactly once.
    let all_tasks = check_contexts(&out, "all-sink", 3);
    let all = task_files(&out, "all-sink");
    for task in &all_tasks {
        let got = all.get(task).map(|l| values(l)).unwrap_or_default();
        assert_eq!(
            got,
            all_values(),
            "all grouping: task {task} saw the wrong values"
        );
    }

    // global: only the lowest task id received, every value exactly once.
    let global_tasks = check_contexts(&out, "global-sink", 3);
    let global = task_files(&out, "global-sink");
    for task in &global_tasks {
        let got = global.get(task).map(|l| values(l)).unwrap_or_default();
        let want = if *task == global_tasks[0] {
            all_values()
        } else {
            Vec::new()
        };
        assert_eq!(
            got, want,
            "global grouping: task {task} (lowest {})",
            global_tasks[0]
        );
    }

    // direct: each value reached exactly the task the spout addressed.
    let direct_tasks = check_contexts(&out, "direct-sink", 3);
    let spout_view = complete_lines(&out.join("spout-direct-tasks.txt"));
    assert_eq!(
        spout_view.first().map(|l| parse_tasks(l)),
        Some(direct_tasks.clone()),
        "the spout's getComponentTasks(\"direct-sink\") differs from the sinks' task ids"
    );
    let mut direct_values = Vec::new();
    for (task, lines) in task_files(&out, "direct-sink") {
        for line in lines {
            let (value, target) = line
                .split_once(' ')
                .unwrap_or_else(|| panic!("direct-sink-{task}: malformed {line:?}"));
            let value: u32 = value.parse().expect("value");
            let target: i32 = target.parse().expect("target");
            assert_eq!(
                target, task,
                "direct grouping: value {value} for task {target} reached task {task}"
            );
            let index = usize::try_from(value).expect("small") % direct_tasks.len();
            assert_eq!(
                target, direct_tasks[index],
                "spout chose an unexpected target"
            );
            direct_values.push(value);
        }
    }
    direct_values.sort_unstable();
    assert_eq!(
        direct_values,
        all_values(),
        "direct grouping: values lost or duplicated"
    );

    // several tasks per executor: 4 distinct tasks prepared on 2 executors,
    // each value delivered once to one of them.
    check_contexts(&out, "multi-sink", 4);
    let multi: Vec<String> = task_files(&out, "multi-sink")
        .into_values()
        .flatten()
        .collect();
    assert_eq!(
        values(&multi),
        all_values(),
        "shuffle over multi-task executors lost or duplicated"
    );

    cluster.kill_and_check_clean(&name).expect("clean kill");
}
