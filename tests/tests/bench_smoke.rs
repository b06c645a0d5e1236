//! `egret bench` end to end, briefly: storm-perf's ConstSpoutIdBoltNullBoltTopo
//! on real Apache Storm 2.8.3 (local mode) and on Egret, a few seconds each. No
//! timing assertions: the report must hold a row per system, Storm's with a
//! non-zero throughput counted by the task hook. Egret's row must exist (Egret
//! ran and was measured); its throughput is checked once Egret runs
//! `topology.auto.task.hooks` (EGRET_BENCH_EXPECT_EGRET_HOOK=1 until then).

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::time::Duration;

use egret_e2e::jars::storm_perf_jar;
use egret_e2e::{Artifacts, run_with_timeout, workspace_root};

/// Both JVMs' startup (Storm's local cluster takes ~10 s) plus 2 x (2 + 4) s.
const TIMEOUT: Duration = Duration::from_secs(85);

/// The cells of the report's row `| system | median | ... |`.
fn median_row(report: &str, system: &str) -> Option<Vec<String>> {
    report.lines().find_map(|l| {
        let cells: Vec<String> = l
            .trim()
            .trim_matches('|')
            .split('|')
            .map(|c| c.trim().to_owned())
            .collect();
        (cells.len() == 8 && cells[0] == system && cells[1] == "median").then_some(cells)
    })
}

#[test]
fn bench_runs_both_systems_and_reports_them() {
    let artifacts = Artifacts::locate().expect("artifacts");
    let perf = storm_perf_jar().expect("storm-perf jar");
    let storm_side = workspace_root().join("bench/storm-side/target");
    assert!(
        storm_side.join("egret-bench-storm-side.jar").is_file()
            && storm_side.join("storm-classpath.txt").is_file(),
        "bench/storm-side is not built: run ./egret-dev build"
    );
    let tmp = tempfile::tempdir().expect("tempdir");
    let report_dir = tmp.path().join("report");
    let mut cmd = std::process::Command::new(&artifacts.egret);
    cmd.env("EGRET_HOME", tmp.path().join("home"))
        .env("EGRET_STORM_PERF_JAR", &perf)
        .args(["bench", "--workload", "const-id-null"])
        .args([
            "--warmup",
            "2",
            "--duration",
            "4",
            "--startup-timeout",
            "25",
        ])
        .arg("--storm-side")
        .arg(&storm_side)
        .arg("--work-dir")
        .arg(tmp.path().join("work"))
        .arg("--report")
        .arg(&report_dir)
        .args(["--storm-jvm-opts", "-Xmx512m"]);
    let out = run_with_timeout(&mut cmd, TIMEOUT).expect("run egret bench");
    assert!(out.success(), "egret bench failed: {}", out.describe());
    let report = std::fs::read_to_string(report_dir.join("report.md")).expect("report.md");
    let svg = std::fs::read_to_string(report_dir.join("chart.svg")).expect("chart.svg");
    assert!(svg.contains(">storm<") && svg.contains(">egret<"), "{svg}");

    let storm = median_row(&report, "storm").unwrap_or_else(|| panic!("no storm row: {report}"));
    let tput: f64 = storm[2].parse().unwrap_or(0.0);
    assert!(
        tput > 0.0,
        "Storm's throughput is not > 0: {storm:?}\n{report}"
    );
    assert_eq!(storm[3], "acked", "{storm:?}");
    assert!(storm[5] != "-", "Storm's p99 is missing: {storm:?}");
    let rss: f64 = storm[7].parse().unwrap_or(0.0);
    assert!(
        rss > 50.0,
        "Storm's peak RSS {rss} MiB is implausible: {storm:?}"
    );

    let egret = median_row(&report, "egret").unwrap_or_else(|| panic!("no egret row: {report}"));
    let rss: f64 = egret[7].parse().unwrap_or(0.0);
    assert!(
        rss > 10.0,
        "Egret's peak RSS {rss} MiB: it did not run? {egret:?}"
    );
    if std::env::var_os("EGRET_BENCH_EXPECT_EGRET_HOOK").is_some() || !report.contains("no hook") {
        let tput: f64 = egret[2].parse().unwrap_or(0.0);
        assert!(
            tput > 0.0,
            "Egret's throughput is not > 0: {egret:?}\n{report}"
        );
    } else {
        eprintln!("Egret ran but no task reported through topology.auto.task.hooks yet:\n{report}");
    }
    eprintln!("{}", out.stdout);
}
