//! Packing by resources (contracts.md, "Packing and task ids"): with
//! first-fit-decreasing, containers are sized by
//! `topology.worker.max.heap.size.mb`, and an executor that cannot fit is
//! refused at submission, naming its component and the numbers.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::time::Duration;

use egret_e2e::word_count::expected_counts;
use egret_e2e::{Cluster, task_files, wait_until};

/// Each word's last recorded count (each word is counted by one task).
fn finals(out: &std::path::Path) -> BTreeMap<String, u64> {
    let mut finals = BTreeMap::new();
    for lines in task_files(out, "count").values() {
        for line in lines {
            let (word, count) = line
                .split_once(' ')
                .unwrap_or_else(|| panic!("malformed line {line:?}"));
            let count: u64 = count
                .parse()
                .unwrap_or_else(|_| panic!("bad count {line:?}"));
            let entry = finals.entry(word.to_owned()).or_insert(0);
            *entry = (*entry).max(count);
        }
    }
    finals
}

#[test]
fn first_fit_decreasing_sizes_containers_by_heap_and_refuses_what_cannot_fit() {
    let cluster = Cluster::new("packing").expect("cluster");
    let name = cluster.topology_name();
    // 6 executors of 128 MB into containers of 300 MB: 2 each, 3 containers
    // (topology.workers, 2 in the example, is not used by this algorithm).
    let out = cluster
        .submit_example_with(
            "WordCountTopology",
            &name,
            &[
                "-c",
                "egret.packing.algorithm=first-fit-decreasing",
                "-c",
                "topology.worker.max.heap.size.mb=300",
            ],
        )
        .expect("submit");
    assert!(
        out.combined().contains("3 containers, 6 executors"),
        "{}",
        out.describe()
    );
    let expected = expected_counts();
    let dir = cluster.out_dir();
    wait_until(
        "every word to reach its expected count",
        Duration::from_secs(60),
        || (finals(&dir) == expected).then_some(()),
        || format!("{} words", finals(&dir).len()),
    )
    .expect("exact counts");
    cluster.kill_and_check_clean(&name).expect("kill");

    // 1024 MB per executor cannot fit a 768 MB container (Storm's default).
    let refused = cluster
        .jar_example_with(
            "WordCountTopology",
            "toolarge",
            &[
                "-c",
                "egret.packing.algorithm=first-fit-decreasing",
                "-c",
                "topology.component.resources.onheap.memory.mb=1024",
            ],
        )
        .expect("run");
    assert!(!refused.success(), "{}", refused.describe());
    let text = refused.combined();
    assert!(
        text.contains("component 'count' needs 1024 MB of heap per executor")
            && text.contains("topology.worker.max.heap.size.mb = 768 MB"),
        "{}",
        refused.describe()
    );
    assert!(!cluster.topology_dir("toolarge").exists());
    cluster.assert_no_leftovers().expect("nothing left");
}
