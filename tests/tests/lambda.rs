//! LambdaTopology (examples-storm): spout and bolts given as lambdas through
//! `TopologyBuilder`'s lambda overloads, each deserialized from its `SerializedLambda`
//! in the instance's class loader. Counts must be exact.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::time::Duration;

use egret_e2e::{Cluster, QUIET_TIMEOUT, complete_lines, wait_until};

const WORDS: [&str; 5] = ["apple", "banana", "cherry", "date", "elder"];
/// The spout's 500 words, cycling through the five.
const EACH: u32 = 100;

fn counts(lines: &[String]) -> BTreeMap<String, Vec<u32>> {
    let mut out: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for l in lines {
        if let Some((w, c)) = l.split_once(' ')
            && let Ok(c) = c.parse()
        {
            out.entry(w.to_owned()).or_default().push(c);
        }
    }
    out
}

#[test]
fn lambda_topology_counts_exactly() {
    let cluster = Cluster::new("lambda").expect("cluster");
    let name = cluster.topology_name();
    cluster
        .submit_example("LambdaTopology", &name)
        .expect("submit");
    let file = cluster.out_dir().join("lambda-counts.txt");
    let total = WORDS.len() * EACH as usize;
    let _enough = wait_until(
        "500 counted words",
        Duration::from_secs(60),
        || {
            let lines = complete_lines(&file);
            (lines.len() >= total).then_some(lines)
        },
        || format!("{} lines", complete_lines(&file).len()),
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(30)));
    // Nothing more arrives: each word is counted exactly once.
    let lines = cluster
        .wait_quiescent(&name, QUIET_TIMEOUT, || complete_lines(&file))
        .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(30)));
    cluster.kill_and_check_clean(&name).expect("kill");
    assert_eq!(lines.len(), total, "counted lines");
    let counts = counts(&lines);
    assert_eq!(counts.keys().map(String::as_str).collect::<Vec<_>>(), WORDS);
    for (word, seen) in &counts {
        let mut sorted = seen.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (1..=EACH).collect::<Vec<_>>(), "counts of {word}");
    }
    eprintln!("LambdaTopology: each of {WORDS:?} counted 1..={EACH}");
}
