//! The acceptance run: storm-starter 1.2.2's ExclamationTopology, unchanged, on
//! `egret local`.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::thread;
use std::time::{Duration, Instant};

use egret_e2e::{Cluster, instance_processes, process_args, role_processes};

/// The words of storm's TestWordSpout.
const WORDS: [&str; 5] = ["nathan", "mike", "jackson", "golda", "bertels"];

/// `--local-ttl` for this run. Why every word shows up: ExclamationTopology
/// runs 10 TestWordSpout tasks, each emitting one of the five words at random
/// every 100 ms, about 100 words/s in all, and sets `topology.debug`, so each
/// `word!!!!!!` emitted by the second bolt is in the streamed logs. Once tuples
/// flow, the chance that a given word is missing from n emits is (4/5)^n:
/// after one second (n ≈ 100) it is 2e-10 for any of the five, after five
/// seconds 1e-48. The TTL counts from main()'s return, so it must cover the
/// start of 15 instance JVMs on two cores plus those seconds of flow. On a
/// quiet machine the start takes 5-10 s and the README's 20 s is enough; in CI,
/// beside another test binary, a 20 s TTL ended just as the first spout
/// emitted (instances took up to 6 s only to unpack the jar's resources), so
/// this run allows 45 s.
const TTL_SECS: &str = "45";
/// The submission (one JVM), the TTL, and the kill of every process, with
/// room for a loaded machine; only a hang comes near it.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// Processes of the topology seen while it ran, by pid: what they were and their argv.
type Seen = BTreeMap<i32, (String, Vec<String>)>;

fn sample(cluster: &Cluster, seen: &mut Seen) {
    let mut note = |pid: i32, what: String| {
        // The latest sighting wins: a child the container has forked but not
        // yet exec'd still shows the container's argv, and is seen as the
        // instance JVM it becomes at the next sample.
        if let Some(args) = process_args(pid) {
            seen.insert(pid, (what, args));
        }
    };
    for role in ["scheduler", "tmaster", "container", "stmgr"] {
        for p in role_processes(cluster.home(), role) {
            note(p.pid, role.to_owned());
        }
    }
    for (pid, id) in instance_processes(cluster.home()) {
        note(pid, format!("instance {id}"));
    }
}

#[test]
fn storm_starter_exclamation_prints_exclaimed_words() {
    let cluster = Cluster::new("exclamation").expect("cluster");
    let mut local = cluster
        .spawn_egret([
            OsStr::new("local"),
            cluster.artifacts.storm_starter_jar.as_os_str(),
            OsStr::new("org.apache.storm.starter.ExclamationTopology"),
            OsStr::new("exclamation"),
            OsStr::new("--local-ttl"),
            OsStr::new(TTL_SECS),
        ])
        .expect("start egret local");
    // Which processes the topology had, so that their absence afterwards is
    // checked by pid and not only by the harness's search.
    let mut seen = Seen::new();
    let deadline = Instant::now() + RUN_TIMEOUT;
    while local.running() && Instant::now() < deadline {
        sample(&cluster, &mut seen);
        thread::sleep(Duration::from_millis(250));
    }
    let out = local.wait(Duration::ZERO).expect("wait for egret local");
    let text = out.combined();
    let missing: Vec<&str> = WORDS
        .iter()
        .copied()
        .filter(|w| !text.contains(&format!("{w}!!!!!!")))
        .collect();
    assert!(
        missing.is_empty(),
        "never printed with !!!!!!: {missing:?}: {}",
        out.describe()
    );
    assert!(
        out.success(),
        "egret local did not end cleanly after its TTL: {}",
        out.describe()
    );

    // ExclamationTopology: 3 workers; 10 spout, 3 + 2 bolt executors.
    let count = |what: &str| seen.values().filter(|v| v.0.starts_with(what)).count();
    let roles: Vec<(&str, usize)> = ["scheduler", "tmaster", "container", "stmgr", "instance"]
        .into_iter()
        .map(|r| (r, count(r)))
        .collect();
    assert_eq!(
        roles,
        [
            ("scheduler", 1),
            ("tmaster", 1),
            ("container", 3),
            ("stmgr", 3),
            ("instance", 15)
        ],
        "processes seen while the topology ran: {:?}",
        seen.iter().map(|(pid, v)| (pid, &v.0)).collect::<Vec<_>>()
    );
    cluster
        .assert_no_leftovers()
        .expect("no process left after the TTL");
    // Still there with the same argv (a pid reused since is another process).
    let alive: Vec<(&i32, &String)> = seen
        .iter()
        .filter(|(pid, (_, args))| process_args(**pid).as_ref() == Some(args))
        .map(|(pid, (what, _))| (pid, what))
        .collect();
    assert!(
        alive.is_empty(),
        "processes of the topology still running after egret local ended: {alive:?}"
    );
}
