//! Durable state with the default `topology.state.provider`: storm-starter 1.2.2's
//! StatefulTopology and StatefulWindowingTopology, unchanged (run with `-c
//! topology.debug=true`, as in `stateful.rs`), keep their sums across a `kill -9` of
//! the stateful bolt's JVM: the restarted bolt starts from the state it prepared for
//! the last complete checkpoint, not from zero. In StatefulTopology's run the newest
//! complete checkpoint's file of the bolt is corrupted on disk first (the topology
//! deactivated, so that no newer checkpoint completes): the stream manager refuses it
//! by its checksum, says so naming the file, and the previous checkpoint is used.
//! The same run checks `egret checkpoints NAME`. Both run on each bridge: with jni the
//! `kill -9` is of the stream manager whose embedded JVM runs the bolt (with whatever
//! else that container runs).

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use egret_e2e::jars::{LogWatch, message};
use egret_e2e::{Bridge, Cluster, instance_processes, role_processes};
use egret_state_manager::TopologyDir;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

const TIMEOUT: Duration = Duration::from_secs(75);

/// What the stateful bolt's log says, in order (both of its JVMs: the log is appended).
#[derive(Debug, Clone, PartialEq)]
enum Event {
    /// A sum it emitted on `default`.
    Sum(i64),
    /// A checkpoint action it forwarded on `$checkpoint`.
    Checkpoint(i64, String),
    /// Its state was restored: (committed txid, prepared txid).
    Restored(Option<i64>, Option<i64>),
}

struct Watch {
    bolt: &'static str,
    events: Vec<Event>,
    values: Vec<i64>,
    /// The stream managers' lines about refused checkpoint files.
    refused: Vec<String>,
    until: fn(&Watch) -> bool,
}

impl Watch {
    fn new(bolt: &'static str, until: fn(&Watch) -> bool) -> Self {
        Self {
            bolt,
            events: Vec::new(),
            values: Vec::new(),
            refused: Vec::new(),
            until,
        }
    }

    fn restores(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::Restored(..)))
            .count()
    }

    /// The events of the first JVM (before the second restore) and of the second.
    fn split(&self) -> (&[Event], &[Event]) {
        let second = self
            .events
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, Event::Restored(..)))
            .nth(1)
            .map_or(self.events.len(), |(i, _)| i);
        self.events.split_at(second)
    }

    /// The sum the bolt held when it prepared each txid (its last sum before the PREPARE).
    fn prepared_sums(events: &[Event]) -> BTreeMap<i64, i64> {
        let mut sum = 0;
        let mut out = BTreeMap::new();
        for e in events {
            match e {
                Event::Sum(s) => sum = *s,
                Event::Checkpoint(t, a) if a == "PREPARE" => {
                    out.insert(*t, sum);
                }
                _ => {}
            }
        }
        out
    }

    fn commits(events: &[Event]) -> Vec<i64> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::Checkpoint(t, a) if a == "COMMIT" => Some(*t),
                _ => None,
            })
            .collect()
    }
}

/// `State <ns> restored from the checkpoint store: committed txid 4 (1 keys), prepared txid 5`,
/// of the bolt's own state (a windowed bolt's executor also has `<ns>-window`).
fn restored(msg: &str) -> Option<Event> {
    let (namespace, rest) = msg
        .strip_prefix("State ")?
        .split_once(" restored from the checkpoint store: committed ")?;
    if namespace.ends_with("-window") {
        return None;
    }
    let (committed, prepared) = rest.split_once(", prepared ")?;
    let txid = |s: &str| {
        s.strip_prefix("txid ")
            .and_then(|t| t.split(' ').next()?.parse::<i64>().ok())
    };
    Some(Event::Restored(txid(committed), txid(prepared)))
}

impl LogWatch for Watch {
    fn line(&mut self, log: &str, line: &str) {
        if log.starts_with("stmgr") {
            if line.contains("Checkpoint file refused") {
                self.refused.push(line.to_owned());
            }
            return;
        }
        let msg = message(line);
        if log.starts_with(self.bolt)
            && let Some(e) = restored(msg)
        {
            self.events.push(e);
            return;
        }
        let Some(rest) = msg.strip_prefix("Emitting: ") else {
            return;
        };
        let mut parts = rest.splitn(3, ' ');
        let (Some(component), Some(stream), Some(values)) =
            (parts.next(), parts.next(), parts.next())
        else {
            return;
        };
        let values = values.trim_start_matches('[').trim_end_matches(']');
        let first = values
            .split(", ")
            .next()
            .and_then(|v| v.trim().parse::<i64>().ok());
        match (component, stream, first) {
            ("spout", "default", Some(v)) => self.values.push(v),
            (c, "default", Some(s)) if c == self.bolt && log.starts_with(self.bolt) => {
                self.events.push(Event::Sum(s));
            }
            (c, "$checkpoint", Some(t)) if c == self.bolt && log.starts_with(self.bolt) => {
                let action = values.rsplit(", ").next().unwrap_or_default().to_owned();
                self.events.push(Event::Checkpoint(t, action));
            }
            _ => {}
        }
    }

    fn done(&self) -> bool {
        (self.until)(self)
    }

    fn describe(&self) -> String {
        format!(
            "{} spout values; bolt events {:?}; refused {:?}",
            self.values.len(),
            self.events.iter().rev().take(40).collect::<Vec<_>>(),
            self.refused
        )
    }
}

fn submit(cluster: &Cluster, class: &str, name: &str) {
    let main = format!("storm.starter.{class}");
    let out = cluster
        .run([
            OsStr::new("-c"),
            OsStr::new("topology.debug=true"),
            OsStr::new("jar"),
            cluster.artifacts.storm_starter_jar.as_os_str(),
            OsStr::new(&main),
            OsStr::new(name),
        ])
        .expect("run egret jar");
    assert!(
        out.success(),
        "egret jar {class} did not submit: {}",
        out.describe()
    );
}

fn egret_ok(cluster: &Cluster, args: &[&str]) -> String {
    let out = cluster.run(args).expect("run egret");
    assert!(out.success(), "egret {args:?}: {}", out.describe());
    out.combined()
}

/// Kills -9 every JVM of the bolt's instances: their instance JVMs with the socket
/// bridge; with jni, the stream managers whose embedded JVMs run them.
fn kill_bolt(cluster: &Cluster, name: &str, bolt: &str) {
    let prefix = format!("{bolt}-");
    let victims: Vec<(i32, String)> = match cluster.bridge() {
        Bridge::Socket => instance_processes(cluster.home())
            .into_iter()
            .filter(|(_, id)| id.starts_with(&prefix))
            .collect(),
        Bridge::Jni => {
            let plan = TopologyDir::new(cluster.topology_dir(name))
                .read_packing_plan()
                .expect("packing plan");
            let hosts: Vec<u32> = plan
                .containers
                .iter()
                .filter(|c| {
                    c.instances
                        .iter()
                        .any(|i| i.instance_id.starts_with(&prefix))
                })
                .filter_map(|c| u32::try_from(c.index).ok())
                .collect();
            role_processes(cluster.home(), "stmgr")
                .into_iter()
                .filter(|p| p.index.is_some_and(|i| hosts.contains(&i)))
                .map(|p| {
                    (
                        p.pid,
                        format!("stmgr-{} (embedding {bolt})", p.index.unwrap_or(0)),
                    )
                })
                .collect()
        }
    };
    assert!(!victims.is_empty(), "no JVM of {bolt} to kill");
    for (pid, id) in &victims {
        kill(Pid::from_raw(*pid), Signal::SIGKILL).expect("kill -9");
        eprintln!("kill -9 {id} (pid {pid})");
    }
}

/// The complete checkpoints' directories in the store, ascending by txid.
fn complete_checkpoints(store: &Path) -> Vec<(i64, PathBuf)> {
    let mut out: Vec<(i64, PathBuf)> = fs::read_dir(store)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.path().join("COMPLETE").is_file())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            Some((name.strip_prefix("ckpt-")?.parse().ok()?, e.path()))
        })
        .collect();
    out.sort();
    out
}

/// Phase 1: the bolt restored once (nothing there), committed 3 times, and prepared a
/// sum clearly above what a restart from zero could reach with its first tuples.
fn running(w: &Watch) -> bool {
    let sums = Watch::prepared_sums(&w.events);
    w.restores() >= 1 && Watch::commits(&w.events).len() >= 3 && sums.values().any(|s| *s > 5000)
}

/// Phase 2: the second JVM restored and emitted a sum.
fn restarted(w: &Watch) -> bool {
    let (_, after) = w.split();
    after.iter().any(|e| matches!(e, Event::Sum(_)))
}

/// Checks that the second JVM's first sum continues from the state of the checkpoint it
/// restored; returns (restored txid, the state's sum, the first sum after).
fn check_continues(w: &Watch, max_step: i64, step_is_a_value: bool) -> (i64, i64, i64) {
    let (before, after) = w.split();
    let Some(Event::Restored(committed, prepared)) = after.first().cloned() else {
        panic!("no second restore: {}", w.describe());
    };
    let committed = committed.unwrap_or_else(|| panic!("restored nothing: {}", w.describe()));
    // The txid whose state it runs from: the committed one, or the prepared one if the
    // checkpoint spout's COMMIT of it reached the new JVM before its first sum.
    let first_sum_at = after
        .iter()
        .position(|e| matches!(e, Event::Sum(_)))
        .expect("a sum after the restart");
    let from = match prepared {
        Some(p) if after[..first_sum_at].contains(&Event::Checkpoint(p, "COMMIT".into())) => p,
        _ => committed,
    };
    let prepared_sums = Watch::prepared_sums(before);
    let state = *prepared_sums
        .get(&from)
        .unwrap_or_else(|| panic!("txid {from} was never prepared: {}", w.describe()));
    let Event::Sum(first) = after[first_sum_at] else {
        unreachable!()
    };
    let step = first - state;
    assert!(
        state > 0 && (0..max_step).contains(&step),
        "the first sum after the restart ({first}) does not continue from txid {from}'s state ({state}): {}",
        w.describe()
    );
    if step_is_a_value {
        assert!(
            w.values.contains(&step),
            "{first} - {state} = {step} is no value of the spout: {}",
            w.describe()
        );
    }
    (from, state, first)
}

#[test]
fn stateful_topology_state_survives_kill_and_a_corrupt_checkpoint() {
    stateful_topology(&Cluster::new("stateful-durable").expect("cluster"));
}

#[test]
fn stateful_topology_state_survives_kill_and_a_corrupt_checkpoint_with_the_jni_bridge() {
    stateful_topology(&Cluster::with_bridge("stateful-durable-jni", Bridge::Jni).expect("cluster"));
}

fn stateful_topology(cluster: &Cluster) {
    let name = cluster.topology_name();
    submit(cluster, "StatefulTopology", &name);
    let mut w = Watch::new("partialsum", running);
    cluster
        .watch_logs("three commits of partialsum", TIMEOUT, &mut w)
        .unwrap_or_else(|e| panic!("{e}"));
    cluster.check_bridge(&name).expect("the cluster's bridge");

    // No checkpoint completes while the topology is deactivated (the checkpoint spout's
    // nextTuple is not called); an action in flight finishes within the pause.
    egret_ok(cluster, &["deactivate", &name]);
    std::thread::sleep(Duration::from_secs(2));
    let store = cluster.topology_dir(&name).join("checkpoints").join(&name);
    let complete = complete_checkpoints(&store);
    assert!(
        complete.len() >= 2,
        "two complete checkpoints in {}: {complete:?}",
        store.display()
    );
    let listed = egret_ok(cluster, &["checkpoints", &name]);
    for (txid, _) in &complete {
        assert!(
            listed
                .lines()
                .any(|l| l.split_whitespace().next() == Some(&txid.to_string())),
            "egret checkpoints does not list {txid}:\n{listed}"
        );
    }
    let (newest, newest_dir) = complete.last().cloned().expect("newest");
    let previous = complete[complete.len() - 2].0;
    let file = fs::read_dir(newest_dir.join("committed"))
        .expect("committed dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .and_then(OsStr::to_str)
                .is_some_and(|n| n.contains("partialsum"))
        })
        .expect("partialsum's committed file");
    let mut bytes = fs::read(&file).expect("read");
    let at = bytes.len() / 2;
    bytes[at] ^= 0x40;
    fs::write(&file, &bytes).expect("corrupt");
    eprintln!("corrupted byte {at} of {}", file.display());

    kill_bolt(cluster, &name, "partialsum");
    egret_ok(cluster, &["activate", &name]);
    let mut w = Watch::new("partialsum", restarted);
    cluster
        .watch_logs("partialsum restarted", TIMEOUT, &mut w)
        .unwrap_or_else(|e| panic!("{e}"));
    cluster.kill_and_check_clean(&name).expect("kill");

    let file_name = file.display().to_string();
    assert!(
        w.refused.iter().any(|l| l.contains(&file_name)),
        "no stream manager line refusing {file_name}: {:?}",
        w.refused
    );
    let (_, after) = w.split();
    assert!(
        matches!(after.first(), Some(Event::Restored(Some(t), _)) if *t == previous),
        "restored from {:?}, expected the previous complete checkpoint {previous} (newest {newest} corrupt): {}",
        after.first(),
        w.describe()
    );
    let (from, state, first) = check_continues(&w, 1000, true);
    eprintln!(
        "StatefulTopology: checkpoint {newest}'s file refused, restored {previous}; \
         running from txid {from}'s sum {state}, first sum after the restart {first}"
    );
}

#[test]
fn stateful_windowing_topology_state_survives_kill() {
    stateful_windowing_topology(&Cluster::new("stateful-window-durable").expect("cluster"));
}

#[test]
fn stateful_windowing_topology_state_survives_kill_with_the_jni_bridge() {
    stateful_windowing_topology(
        &Cluster::with_bridge("stateful-window-durable-jni", Bridge::Jni).expect("cluster"),
    );
}

fn stateful_windowing_topology(cluster: &Cluster) {
    let name = cluster.topology_name();
    submit(cluster, "StatefulWindowingTopology", &name);
    let mut w = Watch::new("sumbolt", running);
    cluster
        .watch_logs("three commits of sumbolt", TIMEOUT, &mut w)
        .unwrap_or_else(|e| panic!("{e}"));
    cluster.check_bridge(&name).expect("the cluster's bridge");
    kill_bolt(cluster, &name, "sumbolt");
    let mut w = Watch::new("sumbolt", restarted);
    cluster
        .watch_logs("sumbolt restarted", TIMEOUT, &mut w)
        .unwrap_or_else(|e| panic!("{e}"));
    cluster.kill_and_check_clean(&name).expect("kill");
    // A window of at most 5 values below 1000 each is added to the restored sum.
    let (from, state, first) = check_continues(&w, 5000, false);
    eprintln!(
        "StatefulWindowingTopology: running from txid {from}'s sum {state}, first sum after the restart {first}"
    );
}
