//! TickTopology: tick tuples from `topology.tick.tuple.freq.secs` in a component config.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::time::Duration;

use egret_e2e::{Cluster, task_files, wait_until};

/// Ticks to observe; the first interval is not checked (the first tick may come
/// at any time after the bolt is ready).
const TICKS: usize = 5;

#[test]
fn ticks_arrive_about_once_a_second() {
    let cluster = Cluster::new("ticks").expect("cluster");
    let name = cluster.topology_name();
    cluster
        .submit_example("TickTopology", &name)
        .expect("submit");
    let out = cluster.out_dir();

    let ticks = wait_until(
        "5 tick tuples",
        Duration::from_secs(45),
        || {
            let files = task_files(&out, "ticks");
            let lines = files.values().next()?;
            (lines.len() >= TICKS).then(|| lines.clone())
        },
        || format!("{:?}", task_files(&out, "ticks")),
    )
    .unwrap_or_else(|e| panic!("{e}\n{}", cluster.describe_logs(20)));

    let times: Vec<i64> = ticks
        .iter()
        .map(|l| l.parse().unwrap_or_else(|_| panic!("bad tick time {l:?}")))
        .collect();
    let intervals: Vec<i64> = times.windows(2).skip(1).map(|w| w[1] - w[0]).collect();
    // A loose bound: this is a 2-core machine running a dozen JVMs, not a timing
    // benchmark. Individual intervals may stretch; the mean must stay near 1 s.
    for ms in &intervals {
        assert!(
            (300..=3000).contains(ms),
            "tick interval {ms} ms in {intervals:?}"
        );
    }
    let sum: i64 = intervals.iter().sum();
    let mean = sum / i64::try_from(intervals.len()).expect("few");
    assert!(
        (500..=2000).contains(&mean),
        "mean tick interval {mean} ms in {intervals:?}"
    );

    assert!(
        task_files(&out, "ticks").len() == 1,
        "ticks recorded by more than the one ticker task"
    );
    assert!(
        task_files(&out, "other").is_empty(),
        "the bolt received non-tick tuples from a silent spout (or isTick failed)"
    );
    cluster.kill_and_check_clean(&name).expect("clean kill");
}
