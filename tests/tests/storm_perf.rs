//! storm-perf 2.6.0 from Maven Central (the newest published), unchanged, with
//! the YAML files of `tests/resources/storm-perf/` (the keys its mains read, as
//! Storm's `conf/*.yaml` for these topologies).
//!
//! Each main (`runDurationSec [optionalConfFile]`) submits through
//! `StormSubmitter`, reads a baseline sample from the Nimbus client, then one
//! sample per 60 s of run time (storm-perf's fixed poll interval), prints a row
//! of metrics per sample and kills its topology itself. A row with real figures
//! therefore needs a run time of 60 s: the shortest run that shows one.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

use egret_e2e::jars::storm_perf_jar;
use egret_e2e::{Cluster, run_with_timeout, workspace_root};

/// The run time given to the mains: one sample after the baseline.
const RUN_SECS: &str = "60";

/// The run time, the submission and the kill, on two busy cores.
const RUN_TIMEOUT: Duration = Duration::from_secs(110);

/// One metrics row, by header column.
type Row = BTreeMap<String, String>;

/// The rows printed under the header `elapsed (sec),workers,...`.
fn metric_rows(text: &str) -> Vec<Row> {
    let mut header: Option<Vec<&str>> = None;
    let mut rows = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("elapsed (sec),") {
            header = Some(line.split(',').collect());
            continue;
        }
        let Some(columns) = &header else { continue };
        let values: Vec<&str> = line.split(',').collect();
        if values.len() == columns.len() && values[0].parse::<u64>().is_ok() {
            rows.push(
                columns
                    .iter()
                    .zip(values)
                    .map(|(c, v)| ((*c).to_owned(), v.to_owned()))
                    .collect(),
            );
        }
    }
    rows
}

fn number(row: &Row, column: &str) -> f64 {
    row.get(column)
        .and_then(|v| v.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("no number in column {column:?} of {row:?}"))
}

/// Runs `class` for 60 s with its YAML file; `using` is the line the main prints
/// with the component counts it read from the file; `executors` is how many
/// executors those counts make.
fn run_perf(test: &str, class: &str, using: &str, executors: f64) {
    let conf: PathBuf = workspace_root()
        .join("tests/resources/storm-perf")
        .join(format!("{class}.yaml"));
    run_perf_with_args(
        test,
        class,
        &[OsStr::new(RUN_SECS), conf.as_os_str()],
        Some(using),
        executors,
    );
}

/// Runs `org.apache.storm.perf.<class> <args>` with `egret jar` and checks the
/// metrics row storm-perf prints after its run time, its exit by itself, and
/// that the topology it killed through the Nimbus client is gone.
fn run_perf_with_args(
    test: &str,
    class: &str,
    args: &[&OsStr],
    using: Option<&str>,
    executors: f64,
) {
    let cluster = Cluster::new(test).expect("cluster");
    let jar = storm_perf_jar().expect("storm-perf jar");
    let main = format!("org.apache.storm.perf.{class}");
    let mut cmd = cluster.egret([OsStr::new("jar"), jar.as_os_str(), OsStr::new(&main)]);
    cmd.args(args);
    let out = run_with_timeout(&mut cmd, RUN_TIMEOUT).expect("run egret jar");
    let text = out.combined();
    assert!(
        out.success(),
        "{class} did not end by itself after {RUN_SECS} s: {}",
        out.describe()
    );
    if let Some(using) = using {
        assert!(
            text.contains(using),
            "{class} did not read its YAML file (no {using:?}): {}",
            out.describe()
        );
    }
    let rows = metric_rows(&text);
    let row = rows
        .iter()
        .find(|r| number(r, "elapsed (sec)") >= 50.0)
        .unwrap_or_else(|| panic!("no metrics row after the run time: {}", out.describe()));
    assert!(
        number(row, "executors") >= executors,
        "executors column: {row:?}"
    );
    for column in [
        "transferred (messages)",
        "transfer rate (messages/s)",
        "spout_transferred (messages)",
        "spout_acks",
        "spout_throughput (acks/s)",
        "spout_avg_complete_latency(ms)",
    ] {
        assert!(number(row, column) > 0.0, "{column} is not > 0 in {row:?}");
    }
    assert!(
        number(row, "spout_acks") <= number(row, "spout_transferred (messages)"),
        "more acks than spout emits: {row:?}"
    );
    // The main killed its own topology through the Nimbus client.
    cluster
        .assert_no_leftovers()
        .expect("the topology killed by the main");
    let listed = cluster.run(["list"]).expect("egret list");
    assert!(
        !listed.stdout.contains(class),
        "{class} still listed: {}",
        listed.describe()
    );

    eprintln!("--- {class} printed (after {:.0?}) ---", out.elapsed);
    for l in text.lines().filter(|l| {
        l.starts_with("====>") || l.starts_with("elapsed (sec),") || l.starts_with(RUN_SECS)
    }) {
        eprintln!("  {l}");
    }
}

#[test]
fn const_spout_null_bolt_prints_metric_rows_and_ends() {
    run_perf(
        "perf-null-bolt",
        "ConstSpoutNullBoltTopo",
        "numSpouts = 1 , numBolts = 2",
        3.0,
    );
}

#[test]
fn const_spout_id_bolt_null_bolt_prints_metric_rows_and_ends() {
    run_perf(
        "perf-id-bolt",
        "ConstSpoutIdBoltNullBoltTopo",
        "numSpouts = 1 , numBolt1 = 1, numBolt2=2",
        4.0,
    );
}

/// The backpressure issue's acceptance jar: a bolt sleeping 5 ms per tuple
/// behind a spout as fast as it can go; the row shows acks flowing (the spout
/// is held back, nothing stalls) and the main ends the run itself.
#[test]
fn back_pressure_topo_runs_and_prints_its_row() {
    run_perf_with_args(
        "perf-backpressure",
        "BackPressureTopo",
        &[OsStr::new("5"), OsStr::new(RUN_SECS)],
        None,
        2.0,
    );
}

#[test]
fn metric_rows_are_read_by_header() {
    let text = "noise\nelapsed (sec),workers,spout_acks\n-----\n0,1,0\n60,1,3828600\nKilling...\n";
    let rows = metric_rows(text);
    assert_eq!(rows.len(), 2);
    assert_eq!(number(&rows[1], "spout_acks"), 3_828_600.0);
    assert_eq!(number(&rows[1], "elapsed (sec)"), 60.0);
    assert!(metric_rows("60,1,2").is_empty(), "no header, no rows");
}
