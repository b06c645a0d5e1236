//! "Rust resolves, Java obeys": the settings every process shares are resolved
//! once at submission and the topology master, every stream manager and every
//! instance JVM end up with the same values, whether the config file gives them
//! as numbers or as YAML strings. Bad values and names are refused at
//! submission, naming the key or the rule. `egret.sched.policy` is obeyed by
//! the container: its stream managers and instance JVMs run under it.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use egret_e2e::{Cluster, wait_until};

/// Non-default values of every resolved setting (key, value).
const VALUES: [(&str, &str); 12] = [
    ("egret.frame.max.bytes", "8000000"),
    ("egret.batch.size", "64"),
    ("egret.batch.flush.ms", "7"),
    ("egret.batch.flush.idle", "false"),
    ("egret.instance.inbound.bytes", "300000"),
    ("egret.instance.outbound.bytes", "200000"),
    ("egret.backpressure.high.watermark.bytes", "900000"),
    ("egret.backpressure.low.watermark.bytes", "300000"),
    ("topology.acker.executors", "0"),
    ("topology.message.timeout.secs", "17"),
    ("topology.enable.message.timeouts", "false"),
    ("egret.sched.policy", "batch"),
];

/// The line each process logs once at startup.
const EXPECTED: &str = "Resolved settings: egret.frame.max.bytes=8000000 egret.batch.size=64 \
    egret.batch.flush.ms=7 egret.batch.flush.idle=false egret.instance.inbound.bytes=300000 \
    egret.instance.outbound.bytes=200000 egret.backpressure.high.watermark.bytes=900000 \
    egret.backpressure.low.watermark.bytes=300000 acking=false \
    topology.message.timeout.secs=17 topology.enable.message.timeouts=false";

fn write_config(dir: &Path, quoted: bool) -> PathBuf {
    let path = dir.join(if quoted {
        "strings.yaml"
    } else {
        "numbers.yaml"
    });
    let text: String = VALUES
        .iter()
        .map(|(k, v)| {
            if quoted {
                format!("{k}: \"{v}\"\n")
            } else {
                format!("{k}: {v}\n")
            }
        })
        .collect();
    std::fs::write(&path, text).expect("write the config file");
    path
}

/// Submits WordCountTopology (2 workers) with `config` and checks every log.
fn submit_and_check(cluster: &Cluster, config: &Path) {
    let name = cluster.topology_name();
    let out = cluster.out_dir();
    let mut cmd = cluster.egret([
        "--config".as_ref(),
        config.as_os_str(),
        "jar".as_ref(),
        cluster.artifacts.examples_jar.as_os_str(),
        "dev.egret.examples.WordCountTopology".as_ref(),
        name.as_ref(),
        out.as_os_str(),
    ]);
    let submitted = egret_e2e::run_with_timeout(&mut cmd, Duration::from_secs(120)).expect("run");
    assert!(submitted.success(), "{}", submitted.describe());
    assert!(
        submitted.combined().contains("Acking is off"),
        "{}",
        submitted.describe()
    );

    // "Submitted topology 'N' (id): C containers, E executors, T tasks."
    let executors: usize = submitted
        .combined()
        .split(" executors")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no executor count: {}", submitted.describe()));
    let logs_dir = cluster.topology_dir(&name).join("logs");
    // tmaster, stmgr-1, stmgr-2 and every instance (the container and scheduler logs are not
    // processes that obey these settings).
    let obeying = || -> Vec<(String, String)> {
        let Ok(entries) = std::fs::read_dir(&logs_dir) else {
            return Vec::new();
        };
        entries
            .flatten()
            .filter_map(|e| {
                let file = e.file_name().to_string_lossy().into_owned();
                let obeys = !file.starts_with("scheduler") && !file.starts_with("container");
                obeys.then(|| {
                    let text = std::fs::read_to_string(e.path()).unwrap_or_default();
                    (file, text)
                })
            })
            .collect()
    };
    let logs = wait_until(
        "the topology master, 2 stream managers and every instance (one per executor) to log their settings",
        Duration::from_secs(120),
        || {
            let logs = obeying();
            let managers = logs.iter().filter(|(f, _)| f.starts_with("stmgr-")).count();
            let master = logs.iter().any(|(f, _)| f.starts_with("tmaster"));
            let instances = logs
                .iter()
                .filter(|(f, _)| !f.starts_with("stmgr-") && !f.starts_with("tmaster"))
                .count();
            let all_logged = logs.iter().all(|(_, t)| t.contains("Resolved settings:"));
            (master && managers == 2 && instances == executors && all_logged).then_some(logs)
        },
        || cluster.describe_logs(10),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut resolved: Vec<(&str, String)> = Vec::new();
    for (file, text) in &logs {
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| l.contains("Resolved settings:"))
            .collect();
        assert_eq!(lines.len(), 1, "{file}: {lines:?}");
        assert!(
            lines[0].contains(EXPECTED),
            "{file} logged\n  {}\nexpected\n  {EXPECTED}",
            lines[0]
        );
        // The settings themselves, without what the log line adds after them (a
        // stream manager's `container=N` field).
        let settings = lines[0]
            .split_once("Resolved settings: ")
            .map(|(_, rest)| rest.split(" container=").next().unwrap_or(rest).trim())
            .unwrap_or_default();
        resolved.push((file.as_str(), settings.to_owned()));
    }
    // Every process, Rust or Java, logs every key with the same value.
    let (first_file, first) = &resolved[0];
    for (file, settings) in &resolved {
        assert_eq!(
            settings, first,
            "{file} and {first_file} logged different settings"
        );
    }
    assert!(
        first.ends_with("egret.sched.policy=batch"),
        "{first_file}: {first}"
    );
    // egret.sched.policy: batch reaches the data path's processes (the stream
    // managers and the instance JVMs), and only them.
    let processes = egret_e2e::processes_of(cluster.home());
    let mut batch = 0;
    for (pid, what) in &processes {
        let Some(policy) = scheduling_policy(*pid) else {
            continue; // gone meanwhile
        };
        let data_path = what.starts_with("[stmgr]") || what.starts_with("[instance ");
        let control = ["[tmaster]", "[container]", "[scheduler]"]
            .iter()
            .any(|role| what.starts_with(role));
        if data_path {
            assert_eq!(policy, SCHED_BATCH, "{pid} {what}");
            batch += 1;
        } else if control {
            assert_eq!(policy, SCHED_OTHER, "{pid} {what}");
        }
    }
    assert!(
        batch >= executors + 2,
        "2 stream managers and {executors} instance JVMs under SCHED_BATCH, saw {batch}: {processes:?}"
    );
    let pb = cluster.topology_dir(&name).join("topology.pb");
    assert!(pb.is_file());
    cluster.kill_and_check_clean(&name).expect("clean kill");
}

const SCHED_OTHER: u32 = 0;
const SCHED_BATCH: u32 = 3;

/// The scheduling policy of process `pid` (field 41 of `/proc/PID/stat`), or
/// `None` when it is gone.
fn scheduling_policy(pid: i32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields from the third on follow the command name's closing parenthesis.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split(' ').nth(41 - 3)?.parse().ok()
}

#[test]
fn numbers_and_yaml_strings_resolve_to_the_same_values_everywhere() {
    let cluster = Cluster::new("settings").expect("cluster");
    let numbers = write_config(cluster.home(), false);
    let strings = write_config(cluster.home(), true);
    submit_and_check(&cluster, &numbers);
    submit_and_check(&cluster, &strings);
}

#[test]
fn bad_values_and_names_are_refused_at_submission() {
    let cluster = Cluster::new("settings-refused").expect("cluster");
    let name = cluster.topology_name();
    let out = cluster
        .jar_example_with("WordCountTopology", &name, &["-c", "egret.batch.size=lots"])
        .expect("run");
    assert!(!out.success(), "{}", out.describe());
    let text = out.combined();
    assert!(
        text.contains("egret.batch.size") && text.contains("lots"),
        "{}",
        out.describe()
    );

    let out = cluster
        .jar_example("WordCountTopology", "bad.name")
        .expect("run");
    assert!(!out.success(), "{}", out.describe());
    let text = out.combined();
    assert!(
        text.contains("IllegalArgumentException")
            && text.contains("invalid topology name 'bad.name'")
            && text.contains("none of / . : \\"),
        "{}",
        out.describe()
    );
    assert!(!cluster.topology_dir("bad.name").exists());
    cluster.assert_no_leftovers().expect("nothing left");
}
