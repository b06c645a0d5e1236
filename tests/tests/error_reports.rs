//! Errors a bolt reports (`OutputCollector.reportError`) reach Nimbus's
//! `TopologyInfo.errors`, throttled as Storm's executors throttle them: at most
//! `topology.max.error.report.per.interval` (5) per task every
//! `topology.error.throttle.interval.secs` (10 s). The example's main asks
//! Nimbus (`NimbusClient`) itself and prints what it got.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use egret_e2e::Cluster;

#[test]
fn reported_errors_reach_topology_info_throttled_per_task() {
    let cluster = Cluster::new("errors").expect("cluster");
    let name = cluster.topology_name();
    let out = cluster
        .submit_example("ErrorReportTopology", &name)
        .expect("submit");
    let printed: Vec<&str> = out.stdout.lines().collect();
    let count = printed
        .iter()
        .find_map(|l| l.strip_prefix("ERRORS complainer "))
        .unwrap_or_else(|| panic!("no ERRORS line: {}", out.describe()));
    // 8 errors in a burst of well under 10 s: Storm reports the first 5.
    assert_eq!(count, "5", "{}", out.describe());
    let errors: Vec<&str> = printed
        .iter()
        .filter_map(|l| l.strip_prefix("ERROR "))
        .collect();
    assert_eq!(errors.len(), 5, "{errors:?}");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    for error in &errors {
        let mut parts = error.splitn(3, ' ');
        let time: u64 = parts.next().and_then(|t| t.parse().ok()).expect("time");
        let worker = parts.next().expect("host:port");
        let message = parts.next().expect("message");
        // Within 5 minutes of now, in seconds: the errors happened during
        // this test (well under that, even on a loaded machine). Fails on a
        // time in milliseconds (1000 × too large), a missing time (0) or one
        // from another clock; how fast errors are reported is not tested here.
        assert!(
            now.abs_diff(time) < 300,
            "error time {time} is not recent ({now})"
        );
        assert_eq!(worker, "localhost:1", "the bolt runs in container 1");
        assert!(
            message.starts_with("java.lang.IllegalStateException: bad tuple "),
            "{message}"
        );
    }
    cluster.kill_and_check_clean(&name).expect("kill");
}
