//! StreamsWordCountTopology (examples-storm, compiled against the real storm-client): a word
//! count written with Storm's Streams API (`StreamBuilder`, `flatMap`, `mapToPair`, a tumbling
//! window, `countByKey`, `to` a bolt) on 2 workers. The counts of each word over all windows
//! must add up to its exact number of occurrences, every sentence must be acked once and none
//! failed. The Streams API runs on storm-shaded-deps' Guava and jgrapht, and the example's
//! spout reads a shaded Guava list of its own: both link only with storm-shaded-deps on the
//! client's and the instances' classpath.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use egret_e2e::word_count::{TOTAL, expected_counts};
use egret_e2e::{Cluster, QUIET_TIMEOUT, complete_lines, wait_until};

/// Word → the sum of the counts recorded for it (one line per word and window).
fn summed(lines: &[String]) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for line in lines {
        let Some((word, count)) = line.split_once(' ') else {
            panic!("streams-counts.txt: malformed line {line:?}");
        };
        let count: u64 = count
            .parse()
            .unwrap_or_else(|_| panic!("streams-counts.txt: bad count in {line:?}"));
        *out.entry(word.to_owned()).or_insert(0) += count;
    }
    out
}

#[test]
fn streams_word_count_counts_exactly() {
    let cluster = Cluster::new("streams").expect("cluster");
    let name = cluster.topology_name();
    cluster
        .submit_example("StreamsWordCountTopology", &name)
        .expect("submit");
    let counts_file = cluster.out_dir().join("streams-counts.txt");
    let acked_file = cluster.out_dir().join("streams-acked.txt");
    let expected = expected_counts();
    let total_words: u64 = expected.values().sum();
    let _enough = wait_until(
        "every word counted",
        Duration::from_secs(90),
        || {
            let counted: u64 = summed(&complete_lines(&counts_file)).values().sum();
            (counted >= total_words).then_some(counted)
        },
        || {
            format!(
                "{} of {total_words} words counted, {} sentences acked",
                summed(&complete_lines(&counts_file)).values().sum::<u64>(),
                complete_lines(&acked_file).len()
            )
        },
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(40)));
    // Nothing more arrives: no window counts a word twice, no sentence is replayed.
    let lines = cluster
        .wait_quiescent(&name, QUIET_TIMEOUT, || {
            (complete_lines(&counts_file), complete_lines(&acked_file))
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(40)));
    let failed = complete_lines(&cluster.out_dir().join("streams-failed.txt"));
    cluster.kill_and_check_clean(&name).expect("kill");
    let (counts, acked_lines) = lines;
    assert_eq!(
        summed(&counts),
        expected,
        "the words' counts over all windows"
    );
    assert_eq!(acked_lines.len(), TOTAL, "acks (one per sentence)");
    let acked: BTreeSet<u64> = acked_lines
        .iter()
        .map(|l| l.parse().unwrap_or_else(|_| panic!("bad acked id {l:?}")))
        .collect();
    assert_eq!(
        acked,
        (0..TOTAL as u64).collect::<BTreeSet<_>>(),
        "every sentence acked"
    );
    assert!(failed.is_empty(), "failed sentences: {failed:?}");
    eprintln!(
        "StreamsWordCountTopology: {total_words} words of {TOTAL} sentences counted exactly in {} window counts",
        counts.len()
    );
}
