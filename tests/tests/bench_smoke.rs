//! `egret bench` end to end, briefly: storm-perf's ConstSpoutIdBoltNullBoltTopo
//! on real Apache Storm 2.8.3 (local mode), on Egret and as the no-framework
//! ceiling, a few seconds each. No timing assertions: the report must hold a
//! row per system, each with a non-zero throughput of acks counted by the task
//! hook (Egret runs `topology.auto.task.hooks`), a p99 and a plausible RSS.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::time::Duration;

use egret_e2e::jars::storm_perf_jar;
use egret_e2e::{Artifacts, run_with_timeout, workspace_root};

/// Three startups (Storm's local cluster takes ~10 s, the ceiling's JVM ~2 s)
/// plus 3 x (2 + 4) s, with room for a loaded machine (the suite runs another
/// test binary beside this one: tools/test-lanes).
const TIMEOUT: Duration = Duration::from_secs(180);

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
fn bench_runs_every_system_and_reports_them() {
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
        .args(["bench", "--workload", "const-id-null", "--ceiling"])
        .args([
            "--warmup",
            "2",
            "--duration",
            "4",
            "--startup-timeout",
            "60",
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
    for system in ["storm", "egret", "ceiling"] {
        assert!(svg.contains(&format!(">{system}<")), "{svg}");
        let row = median_row(&report, system)
            .unwrap_or_else(|| panic!("no {system} median row: {report}"));
        let tput: f64 = row[2].parse().unwrap_or(0.0);
        assert!(
            tput > 0.0,
            "{system}'s throughput is not > 0: {row:?}\n{report}"
        );
        assert_eq!(row[3], "acked", "{system}: {row:?}");
        assert!(row[5] != "-", "{system}'s p99 is missing: {row:?}");
        let rss: f64 = row[7].parse().unwrap_or(0.0);
        assert!(
            rss > 10.0,
            "{system}'s peak RSS {rss} MiB is implausible: {row:?}"
        );
    }
    eprintln!("{}", out.stdout);
}
