//! Stateful bolts (`BaseStatefulBolt`, `BaseStatefulWindowedBolt`) with the checkpoint
//! spout Storm's `TopologyBuilder` adds: storm-starter 1.2.2's StatefulTopology and
//! StatefulWindowingTopology, unchanged, run with `-c topology.debug=true` so that
//! every emit is logged (`Emitting: partialsum default [1234]`, and the checkpoint
//! spout's `Emitting: $checkpointspout $checkpoint [3, COMMIT]`).

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::time::Duration;

use egret_e2e::jars::{LogWatch, message};
use egret_e2e::{Bridge, Cluster, role_processes};

const OUTPUT_TIMEOUT: Duration = Duration::from_secs(75);

/// `Emitting: <component> <stream> [<values>]` → (component, stream, values).
fn emitted(line: &str) -> Option<(&str, &str, &str)> {
    let rest = message(line).strip_prefix("Emitting: ")?;
    let (component, rest) = rest.split_once(' ')?;
    let (stream, values) = rest.split_once(' ')?;
    Some((
        component,
        stream,
        values.strip_prefix('[')?.strip_suffix(']')?,
    ))
}

fn submit_debug(cluster: &Cluster, class: &str, name: &str) {
    submit_debug_with(cluster, class, name, &[]);
}

/// As [`submit_debug`], with more `-c key=value` options (they override main's Config).
fn submit_debug_with(cluster: &Cluster, class: &str, name: &str, options: &[&str]) {
    let main = format!("storm.starter.{class}");
    let mut args = vec![OsStr::new("-c"), OsStr::new("topology.debug=true")];
    for option in options {
        args.extend([OsStr::new("-c"), OsStr::new(*option)]);
    }
    args.extend([
        OsStr::new("jar"),
        cluster.artifacts.storm_starter_jar.as_os_str(),
        OsStr::new(&main),
        OsStr::new(name),
    ]);
    let out = cluster.run(args).expect("run egret jar");
    assert!(
        out.success(),
        "egret jar {class} did not submit: {}",
        out.describe()
    );
}

/// The emits of the spout, the stateful bolts and the checkpoint spout.
#[derive(Default)]
struct Seen {
    sum_bolt: &'static str,
    /// The spout's values, in order.
    values: Vec<i64>,
    /// The stateful bolt's sums on the default stream, in order.
    sums: Vec<i64>,
    /// `total`'s sums (StatefulTopology only).
    totals: Vec<i64>,
    /// Committed transactions (the checkpoint spout's COMMIT emits).
    commits: BTreeSet<i64>,
    prepares: BTreeSet<i64>,
    initstate: bool,
    /// Sums emitted after the second commit was seen.
    sums_after_commits: usize,
    want_sums: usize,
}

impl LogWatch for Seen {
    fn line(&mut self, _log: &str, line: &str) {
        let Some((component, stream, values)) = emitted(line) else {
            return;
        };
        let first = values
            .split(", ")
            .next()
            .and_then(|v| v.trim().parse::<i64>().ok());
        match (component, stream) {
            ("spout", "default") => self.values.extend(first),
            ("$checkpointspout", "$checkpoint") => {
                let txid = first.unwrap_or(-1);
                if values.ends_with("COMMIT") {
                    self.commits.insert(txid);
                } else if values.ends_with("PREPARE") {
                    self.prepares.insert(txid);
                } else if values.ends_with("INITSTATE") {
                    self.initstate = true;
                }
            }
            (c, "default") if c == self.sum_bolt => {
                if let Some(s) = first {
                    self.sums.push(s);
                    if self.commits.len() >= 2 {
                        self.sums_after_commits += 1;
                    }
                }
            }
            ("total", "default") => self.totals.extend(first),
            _ => {}
        }
    }

    fn done(&self) -> bool {
        self.initstate
            && self.commits.len() >= 3
            && self.sums.len() >= self.want_sums
            && self.sums_after_commits > 0
    }

    fn describe(&self) -> String {
        format!(
            "INITSTATE {}, prepared {:?}, committed {:?}, {} spout values, {} sums ({} after 2 commits): {:?}, totals {:?}",
            self.initstate,
            self.prepares,
            self.commits,
            self.values.len(),
            self.sums.len(),
            self.sums_after_commits,
            self.sums.iter().take(20).collect::<Vec<_>>(),
            self.totals.iter().take(10).collect::<Vec<_>>()
        )
    }
}

#[test]
fn stateful_topology_sums_across_checkpoints() {
    stateful_topology("stateful-sum", 1, Bridge::from_env().expect("bridge"));
}

/// Two workers (two containers): the checkpoint tuples `[txid, action]` cross JVMs of
/// different containers, so `CheckPointState.Action` must be serializable with Kryo's
/// registration required (Egret registers it by default; Storm 2.8.3 does not).
#[test]
fn stateful_topology_sums_across_checkpoints_on_two_workers() {
    stateful_topology("stateful-sum-2w", 2, Bridge::from_env().expect("bridge"));
}

/// As above, each container's executors in its stream manager's embedded JVM.
#[test]
fn stateful_topology_sums_across_checkpoints_on_two_workers_with_the_jni_bridge() {
    stateful_topology("stateful-sum-2w-jni", 2, Bridge::Jni);
}

/// StatefulTopology (whose main sets `topology.workers` 1) run with `-c
/// topology.workers=<workers>`.
fn stateful_topology(test: &str, workers: usize, bridge: Bridge) {
    let cluster = Cluster::with_bridge(test, bridge).expect("cluster");
    let name = cluster.topology_name();
    let option = format!("topology.workers={workers}");
    submit_debug_with(&cluster, "StatefulTopology", &name, &[&option]);
    let mut seen = Seen {
        sum_bolt: "partialsum",
        want_sums: 30,
        ..Seen::default()
    };
    let took = cluster
        .watch_logs("sums across checkpoints", OUTPUT_TIMEOUT, &mut seen)
        .unwrap_or_else(|e| panic!("{e}"));
    cluster.check_bridge(&name).expect("the bridge asked for");
    let containers = role_processes(cluster.home(), "container").len();
    cluster.kill_and_check_clean(&name).expect("kill");
    assert_eq!(
        containers, workers,
        "one container per worker (topology.workers={workers})"
    );

    // Checkpoints: transactions 0, 1, 2.. each prepared then committed, in order (Storm's
    // numbering: the first INITSTATE carries txid -1, the first PREPARE 0).
    let commits: Vec<i64> = seen.commits.iter().copied().collect();
    assert_eq!(commits[..3], [0, 1, 2], "{}", seen.describe());
    assert!(
        seen.commits.iter().all(|t| seen.prepares.contains(t)),
        "a commit without its prepare: {}",
        seen.describe()
    );
    // partialsum: the running sum of the spout's values, kept in its KeyValueState
    // and going on across the checkpoints (no value lost or counted twice).
    let mut running = 0;
    for (k, sum) in seen.sums.iter().enumerate() {
        running += seen
            .values
            .get(k)
            .copied()
            .unwrap_or_else(|| panic!("sum #{k} before its value"));
        assert_eq!(*sum, running, "partial sum #{k}: {}", seen.describe());
    }
    // total: the sum of the partial sums it got (through two printer tasks, in any order).
    assert!(
        seen.totals.windows(2).all(|w| w[1] > w[0]),
        "totals not increasing: {}",
        seen.describe()
    );
    eprintln!(
        "StatefulTopology on {workers} worker(s), {} bridge (after {took:.0?}): committed {:?}, partial sums {:?}.., totals {:?}..",
        bridge.name(),
        seen.commits,
        &seen.sums[..8],
        seen.totals.iter().take(5).collect::<Vec<_>>()
    );
}

#[test]
fn stateful_windowing_topology_sums_windows_into_its_state() {
    stateful_windowing_topology("stateful-window", Bridge::from_env().expect("bridge"));
}

#[test]
fn stateful_windowing_topology_sums_windows_with_the_jni_bridge() {
    stateful_windowing_topology("stateful-window-jni", Bridge::Jni);
}

fn stateful_windowing_topology(test: &str, bridge: Bridge) {
    let cluster = Cluster::with_bridge(test, bridge).expect("cluster");
    let name = cluster.topology_name();
    submit_debug(&cluster, "StatefulWindowingTopology", &name);
    let mut seen = Seen {
        sum_bolt: "sumbolt",
        want_sums: 8,
        ..Seen::default()
    };
    let took = cluster
        .watch_logs("window sums across checkpoints", OUTPUT_TIMEOUT, &mut seen)
        .unwrap_or_else(|e| panic!("{e}"));
    cluster.check_bridge(&name).expect("the bridge asked for");
    cluster.kill_and_check_clean(&name).expect("kill");

    // sumbolt: windows of the last 5 values activated every 3 values; each activation
    // adds the window's values to the sum in its state and emits the new sum.
    let mut state = 0;
    for (k, sum) in seen.sums.iter().enumerate() {
        let end = 3 * (k + 1);
        assert!(
            end <= seen.values.len(),
            "sum #{k} before its values: {}",
            seen.describe()
        );
        state += seen.values[end.saturating_sub(5)..end].iter().sum::<i64>();
        assert_eq!(*sum, state, "window sum #{k}: {}", seen.describe());
    }
    eprintln!(
        "StatefulWindowingTopology, {} bridge (after {took:.0?}): committed {:?}, sums {:?}",
        bridge.name(),
        seen.commits,
        &seen.sums[..seen.want_sums]
    );
}
