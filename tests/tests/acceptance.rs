//! The acceptance run: storm-starter 1.2.2's ExclamationTopology, unchanged, on
//! `egret local`.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::ffi::OsStr;
use std::time::Duration;

use egret_e2e::{Cluster, run_with_timeout};

/// The words of storm's TestWordSpout.
const WORDS: [&str; 5] = ["nathan", "mike", "jackson", "golda", "bertels"];

#[test]
fn storm_starter_exclamation_prints_exclaimed_words() {
    let cluster = Cluster::new("exclamation").expect("cluster");
    let mut cmd = cluster.egret([
        OsStr::new("local"),
        cluster.artifacts.storm_starter_jar.as_os_str(),
        OsStr::new("org.apache.storm.starter.ExclamationTopology"),
        OsStr::new("exclamation"),
        OsStr::new("--local-ttl"),
        OsStr::new("15"),
    ]);
    let out = run_with_timeout(&mut cmd, Duration::from_secs(58)).expect("run egret local");
    let text = out.combined();
    let exclaimed: Vec<&str> = WORDS
        .iter()
        .copied()
        .filter(|w| text.contains(&format!("{w}!!!!!!")))
        .collect();
    assert!(
        !exclaimed.is_empty(),
        "no word ending in !!!!!! in the output: {}",
        out.describe()
    );
    assert!(
        out.success(),
        "egret local did not end cleanly after its TTL: {}",
        out.describe()
    );
    cluster
        .assert_no_leftovers()
        .expect("no process left after the TTL");
}
