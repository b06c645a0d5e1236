//! Delivery guarantees end to end, with `SequenceTopology`: per-key sequence
//! numbers from a spout with durable progress, through a multi-anchoring relay,
//! to a sink recording what it saw (see the topology's Javadoc for its files).
//!
//! - without faults, at-least-once: every message id acked exactly once, the
//!   sink saw every (key, seq) once, no fail;
//! - `topology.max.spout.pending`: the spout's own pending count never exceeds it
//!   (and reaches it, so the cap is what held the spout back);
//! - with faults (`kill -9`, in seeded random order, of a bolt instance JVM, a
//!   spout instance JVM, a stream manager, the topology master and a whole
//!   container, in several rounds), at-least-once: every message id acked, no
//!   gap at the sink, duplicates counted; the restart counters show the restarts;
//! - the same faults, at-most-once: nothing duplicated, the loss counted.
//! - both fault tests again with the JNI bridge, where the executors are
//!   threads of their stream manager: the faults kill stream managers (with
//!   their embedded JVMs), the master and whole containers, in three rounds.
//!
//! The fault schedule is drawn from `EGRET_FAULT_SEED` (default below), and
//! every fault is printed with its time, so a failing run can be replayed.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeSet;
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use egret_e2e::faults::Rng;
use egret_e2e::sequence::{
    Msg, Observed, Workload, duplicates, gaps_by_key, sample, wait_all_logged,
};
use egret_e2e::{
    Bridge, Cluster, HarnessError, instance_processes, parent_pid, read_metrics, role_processes,
    wait_until,
};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

const CLASS: &str = "SequenceTopology";
const AT_LEAST_ONCE: &str = "at-least-once";
const AT_MOST_ONCE: &str = "at-most-once";

/// Default seed of the fault schedule (override with `EGRET_FAULT_SEED`).
const DEFAULT_SEED: u64 = 0x5eed_0004;
/// Rounds of the five fault kinds.
const FAULT_ROUNDS: usize = 2;
/// Rounds with the JNI bridge, whose rounds have three kinds of process.
const JNI_FAULT_ROUNDS: usize = 3;
/// Pause before each fault.
const FAULT_SPACING: Duration = Duration::from_secs(4);

fn fail_with<T>(cluster: &Cluster, e: &HarnessError) -> T {
    panic!("{e}\n{}", cluster.describe_logs(30))
}

fn submit(cluster: &Cluster, name: &str, mode: &str, w: Workload, extra: &[&str]) {
    let keys = format!("keys={}", w.keys);
    let seqs = format!("seqs={}", w.seqs);
    let mut args = vec![mode, keys.as_str(), seqs.as_str()];
    args.extend_from_slice(extra);
    eprintln!("submitting {CLASS} {name} {}", args.join(" "));
    cluster
        .submit_example_with(CLASS, name, &args)
        .unwrap_or_else(|e| fail_with(cluster, &e));
}

/// Waits until every message is in the spouts' acked logs.
fn wait_all_acked(cluster: &Cluster, w: Workload, timeout: Duration) -> Observed {
    try_wait_all_acked(cluster, w, timeout).unwrap_or_else(|e| fail_with(cluster, &e))
}

fn try_wait_all_acked(
    cluster: &Cluster,
    w: Workload,
    timeout: Duration,
) -> Result<Observed, HarnessError> {
    wait_all_logged(&cluster.out_dir(), w, false, timeout)
}

/// Waits until the sink's line count has not changed for `quiet` (late copies
/// and in-flight tuples have landed), then reads everything.
fn settle(cluster: &Cluster, quiet: Duration, timeout: Duration) -> Observed {
    let out = cluster.out_dir();
    let last = std::cell::Cell::new((usize::MAX, Instant::now()));
    wait_until(
        "the sink to go quiet",
        timeout,
        || {
            let lines = Observed::read(&out).sink_lines;
            if lines != last.get().0 {
                last.set((lines, Instant::now()));
            }
            (last.get().1.elapsed() >= quiet).then_some(())
        },
        || format!("sink lines still changing: {}", last.get().0),
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
    Observed::read(&out)
}

fn assert_clean_files(o: &Observed) {
    assert!(o.malformed.is_empty(), "malformed lines: {:?}", o.malformed);
    assert!(
        o.unexpected.is_empty(),
        "the spout got acks/fails for ids that were not pending: {:?}",
        o.unexpected
    );
}

fn assert_pending_within(o: &Observed, cap: u32) {
    for (task, max) in &o.max_pending {
        assert!(
            *max <= cap,
            "spout task index {task} had {max} trees pending, above topology.max.spout.pending {cap}"
        );
    }
}

#[test]
fn no_faults_every_message_is_acked_exactly_once() {
    acked_exactly_once_on(Bridge::from_env().expect("bridge"));
}

#[test]
fn no_faults_every_message_is_acked_exactly_once_with_the_jni_bridge() {
    acked_exactly_once_on(Bridge::Jni);
}

fn acked_exactly_once_on(bridge: Bridge) {
    let cluster = Cluster::with_bridge("reliable", bridge).expect("cluster");
    let name = cluster.topology_name();
    let w = Workload {
        keys: 20,
        seqs: 100,
    };
    // A long timeout: on a loaded 2-core machine a 5 s one could fire without a fault.
    submit(
        &cluster,
        &name,
        AT_LEAST_ONCE,
        w,
        &["timeout=30", "pending=50"],
    );
    let started = Instant::now();
    wait_all_acked(&cluster, w, Duration::from_secs(120));
    cluster
        .check_bridge(&name)
        .unwrap_or_else(|e| fail_with(&cluster, &e));
    let o = settle(&cluster, Duration::from_secs(2), Duration::from_secs(30));
    eprintln!(
        "no faults: {} in {:.1} s",
        o.summary(w),
        started.elapsed().as_secs_f64()
    );

    assert_clean_files(&o);
    assert_eq!(o.fails, 0, "fails without any fault: {}", o.summary(w));
    let (dup_msgs, dup_acks) = duplicates(&o.acked);
    assert_eq!(
        (dup_msgs, dup_acks),
        (0, 0),
        "message ids acked more than once (messages, extra acks)"
    );
    let missing = w.missing(&o.sink);
    assert!(
        missing.is_empty(),
        "the sink never saw {}: gaps {:?}",
        missing.len(),
        gaps_by_key(&missing)
    );
    assert_eq!(
        duplicates(&o.sink),
        (0, 0),
        "the sink saw (key, seq) twice although nothing failed or was replayed"
    );
    assert!(o.sink.keys().all(|(k, s)| *k < w.keys && *s < w.seqs));
    assert_pending_within(&o, 50);

    cluster.kill_and_check_clean(&name).expect("clean kill");
}

#[test]
fn max_spout_pending_is_never_exceeded() {
    const CAP: u32 = 10;
    let cluster = Cluster::new("pending").expect("cluster");
    let name = cluster.topology_name();
    let w = Workload { keys: 10, seqs: 40 };
    let cap = format!("pending={CAP}");
    // An unthrottled spout and a slow sink: pending trees pile up to the cap.
    submit(
        &cluster,
        &name,
        AT_LEAST_ONCE,
        w,
        &[&cap, "timeout=30", "sinkdelay=5"],
    );
    wait_all_acked(&cluster, w, Duration::from_secs(90));
    let o = Observed::read(&cluster.out_dir());
    eprintln!("max.spout.pending {CAP}: {}", o.summary(w));

    assert_clean_files(&o);
    assert_eq!(
        o.max_pending.len(),
        2,
        "both spout tasks measure their pending count: {:?}",
        o.max_pending
    );
    assert_pending_within(&o, CAP);
    let highest = o.max_pending.values().copied().max().unwrap_or(0);
    assert_eq!(
        highest, CAP,
        "no spout task ever reached the cap: pending is not what held it back \
         (acks not tracked, or nextTuple stopped early)"
    );

    cluster.kill_and_check_clean(&name).expect("clean kill");
}

/// What a fault killed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bolt,
    Spout,
    StreamManager,
    TopologyMaster,
    Container,
}

const KINDS: [Kind; 5] = [
    Kind::Bolt,
    Kind::Spout,
    Kind::StreamManager,
    Kind::TopologyMaster,
    Kind::Container,
];

/// With the JNI bridge the executors are threads of their stream manager's
/// process: killing one of them is killing the stream manager.
const JNI_KINDS: [Kind; 3] = [Kind::StreamManager, Kind::TopologyMaster, Kind::Container];

/// The kinds of process a fault can kill on `bridge`, and the rounds of them
/// (about ten faults on either).
fn fault_plan(bridge: Bridge) -> (&'static [Kind], usize) {
    match bridge {
        Bridge::Socket => (&KINDS, FAULT_ROUNDS),
        Bridge::Jni => (&JNI_KINDS, JNI_FAULT_ROUNDS),
    }
}

/// One `kill -9`.
#[derive(Debug, Clone)]
struct Fault {
    at: Duration,
    kind: Kind,
    /// The instance id, `stmgr-N`, `tmaster` or `container-N`.
    target: String,
    pid: i32,
    /// The container index the process belonged to (none for the TM).
    container: Option<u32>,
}

fn seed() -> u64 {
    egret_e2e::faults::seed(DEFAULT_SEED)
}

/// The index of the container supervising `pid` (its parent), if any.
fn container_of(home: &Path, pid: i32) -> Option<u32> {
    let parent = parent_pid(pid)?;
    role_processes(home, "container")
        .into_iter()
        .find(|c| c.pid == parent)
        .and_then(|c| c.index)
}

/// Candidates for a fault of `kind` now: (pid, target, container).
fn candidates(home: &Path, kind: Kind) -> Vec<(i32, String, Option<u32>)> {
    let instances = |prefixes: &[&str]| {
        instance_processes(home)
            .into_iter()
            .filter(|(_, id)| prefixes.iter().any(|p| id.starts_with(p)))
            .map(|(pid, id)| (pid, id, container_of(home, pid)))
            .collect()
    };
    let roles = |role: &str| {
        role_processes(home, role)
            .into_iter()
            .map(|p| match p.index {
                Some(i) => (p.pid, format!("{role}-{i}"), Some(i)),
                None => (p.pid, role.to_owned(), None),
            })
            .collect()
    };
    match kind {
        Kind::Bolt => instances(&["relay-", "sink-"]),
        Kind::Spout => instances(&["spout-"]),
        Kind::StreamManager => roles("stmgr"),
        Kind::TopologyMaster => roles("tmaster"),
        Kind::Container => roles("container"),
    }
}

/// Kills, in seeded random order, one process of each kind per round, spaced by
/// [`FAULT_SPACING`], preferring targets not hit yet. A kind with no live
/// process (still restarting) is waited for.
fn inject_faults(cluster: &Cluster, rng: &mut Rng, started: Instant) -> Vec<Fault> {
    let mut faults = Vec::new();
    let (kinds, rounds) = fault_plan(cluster.bridge());
    for round in 0..rounds {
        let mut order = kinds.to_vec();
        rng.shuffle(&mut order);
        for kind in order {
            thread::sleep(FAULT_SPACING);
            let live = wait_until(
                &format!("a live process to kill for {kind:?} (round {round})"),
                Duration::from_secs(45),
                || {
                    let c = candidates(cluster.home(), kind);
                    (!c.is_empty()).then_some(c)
                },
                String::new,
            )
            .unwrap_or_else(|e| fail_with(cluster, &e));
            // Spread the faults: prefer a target not hit yet in this run.
            let fresh: Vec<_> = live
                .iter()
                .filter(|(_, t, _)| !faults.iter().any(|f: &Fault| &f.target == t))
                .cloned()
                .collect();
            let pool = if fresh.is_empty() { live } else { fresh };
            let (pid, target, container) = pool[rng.below(pool.len())].clone();
            // It may have died on its own since the scan: then it is restarting anyway.
            let result = kill(Pid::from_raw(pid), Signal::SIGKILL);
            let fault = Fault {
                at: started.elapsed(),
                kind,
                target,
                pid,
                container,
            };
            eprintln!(
                "fault {}: t+{:.1}s kill -9 {:?} {} (pid {}, container {:?}){}",
                faults.len() + 1,
                fault.at.as_secs_f64(),
                fault.kind,
                fault.target,
                fault.pid,
                fault.container,
                if result.is_err() {
                    " [already gone]"
                } else {
                    ""
                }
            );
            faults.push(fault);
        }
    }
    faults
}

/// (metrics process, component) whose `egret.restarts` must be > 0 after `faults`.
///
/// A container keeps its children's counters in memory: when a whole container
/// was killed after a child of it, that child's count starts again at 0.
fn expected_restarts(faults: &[Fault]) -> BTreeSet<(String, String)> {
    let mut expected = BTreeSet::new();
    for (i, f) in faults.iter().enumerate() {
        let container_killed_later = |c: u32| {
            faults[i + 1..]
                .iter()
                .any(|g| g.kind == Kind::Container && g.container == Some(c))
        };
        match (f.kind, f.container) {
            (Kind::TopologyMaster | Kind::Container, _) => {
                expected.insert(("scheduler".to_owned(), f.target.clone()));
            }
            (_, Some(c)) if !container_killed_later(c) => {
                expected.insert((format!("container-{c}"), f.target.clone()));
            }
            _ => {}
        }
    }
    expected
}

/// Waits until every expected restart counter is > 0 (snapshots are written at
/// most every 5 s).
fn check_restart_metrics(cluster: &Cluster, name: &str, faults: &[Fault]) -> Result<(), String> {
    let dir = cluster.topology_dir(name);
    let expected = expected_restarts(faults);
    let unmet = || {
        let (snapshots, errors) = read_metrics(&dir);
        let unmet: Vec<String> = expected
            .iter()
            .filter(|(process, component)| {
                snapshots
                    .get(process)
                    .and_then(|s| s.value("egret.restarts", component))
                    .is_none_or(|v| v <= 0.0)
            })
            .map(|(p, c)| format!("{p}/{c}"))
            .collect();
        (unmet, snapshots, errors)
    };
    let result = wait_until(
        "egret.restarts > 0 in DIR/metrics/*.json for every killed process",
        Duration::from_secs(20),
        || unmet().0.is_empty().then_some(()),
        || {
            let (unmet, snapshots, errors) = unmet();
            let restarts: Vec<String> = snapshots
                .values()
                .flat_map(|s| {
                    s.metrics
                        .iter()
                        .filter(|m| m.name == "egret.restarts")
                        .map(move |m| format!("{}/{}={}", s.process, m.component, m.value))
                })
                .collect();
            format!(
                "no restart counted for {unmet:?}; counters: {restarts:?}; snapshots: {:?}; \
                 unreadable: {errors:?}",
                snapshots.keys().collect::<Vec<_>>()
            )
        },
    );
    result.map_err(|e| e.to_string())?;
    eprintln!("restart counters > 0 for {expected:?}");
    Ok(())
}

/// Fails the test with every problem found, so one run shows them all.
fn assert_no_problems(cluster: &Cluster, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{} problem(s):\n- {}\n{}",
        problems.len(),
        problems.join("\n- "),
        cluster.describe_logs(30)
    );
}

/// Runs `mode` with the fault schedule; returns the faults and the topology name.
fn run_with_faults(cluster: &Cluster, mode: &str, w: Workload) -> (String, Vec<Fault>, Instant) {
    let name = cluster.topology_name();
    // Throttled (30 msgs/s per spout task) so emission spans the fault rounds.
    submit(
        cluster,
        &name,
        mode,
        w,
        &["rate=30", "timeout=5", "pending=50"],
    );
    let started = Instant::now();
    let out = cluster.out_dir();
    wait_until(
        "the sink to record 50 tuples before the first fault",
        Duration::from_secs(60),
        || (Observed::read(&out).sink_lines >= 50).then_some(()),
        || Observed::read(&out).summary(w),
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
    cluster
        .check_bridge(&name)
        .unwrap_or_else(|e| fail_with(cluster, &e));
    let seed = seed();
    eprintln!("{mode}: fault seed {seed} (EGRET_FAULT_SEED)");
    let mut rng = Rng(seed);
    let faults = inject_faults(cluster, &mut rng, started);
    let o = Observed::read(&out);
    eprintln!(
        "{mode}: {} faults injected in {:.1} s; at the last: {}",
        faults.len(),
        started.elapsed().as_secs_f64(),
        o.summary(w)
    );
    (name, faults, started)
}

#[test]
fn at_least_once_under_faults_acks_everything_without_gaps() {
    at_least_once_under_faults(&Cluster::new("faults-alo").expect("cluster"));
}

#[test]
fn at_least_once_under_faults_acks_everything_without_gaps_with_the_jni_bridge() {
    at_least_once_under_faults(
        &Cluster::with_bridge("faults-alo-jni", Bridge::Jni).expect("cluster"),
    );
}

fn at_least_once_under_faults(cluster: &Cluster) {
    let w = Workload {
        keys: 20,
        seqs: 150,
    };
    let (name, faults, started) = run_with_faults(cluster, AT_LEAST_ONCE, w);
    let mut problems = Vec::new();
    if let Err(e) = try_wait_all_acked(cluster, w, Duration::from_secs(180)) {
        problems.push(e.to_string());
    }
    let o = settle(cluster, Duration::from_secs(3), Duration::from_secs(30));

    let (dup_acked_msgs, extra_acks) = duplicates(&o.acked);
    let (dup_sink_msgs, extra_sink) = duplicates(&o.sink);
    eprintln!(
        "at-least-once under faults: {} messages, {} faults ({:?}), done in {:.1} s; \
         duplicates at the sink: {dup_sink_msgs} messages ({extra_sink} extra copies); \
         acked more than once: {dup_acked_msgs} ({extra_acks} extra acks); {} fails/timeouts \
         replayed; {}",
        w.total(),
        faults.len(),
        faults.iter().map(|f| f.target.as_str()).collect::<Vec<_>>(),
        started.elapsed().as_secs_f64(),
        o.fails,
        o.summary(w)
    );

    if !o.malformed.is_empty() {
        problems.push(format!("malformed lines: {:?}", o.malformed));
    }
    if !o.unexpected.is_empty() {
        problems.push(format!(
            "the spout got acks/fails for ids that were not pending: {:?}",
            o.unexpected
        ));
    }
    let not_acked = w.missing(&o.acked);
    if !not_acked.is_empty() {
        problems.push(format!(
            "{} message ids never acked: {}",
            not_acked.len(),
            sample(&not_acked)
        ));
    }
    let missing = w.missing(&o.sink);
    if !missing.is_empty() {
        problems.push(format!(
            "gaps at the sink ({} messages, acked or not): {:?}",
            missing.len(),
            gaps_by_key(&missing)
        ));
    }
    if !o.sink.keys().all(|(k, s)| *k < w.keys && *s < w.seqs) {
        problems.push("the sink saw (key, seq) outside the workload".to_owned());
    }
    for (task, max) in &o.max_pending {
        if *max > 50 {
            problems.push(format!(
                "spout task index {task} had {max} pending, above max.spout.pending 50"
            ));
        }
    }
    if let Err(e) = check_restart_metrics(cluster, &name, &faults) {
        problems.push(e);
    }
    assert_no_problems(cluster, &problems);

    cluster.kill_and_check_clean(&name).expect("clean kill");
}

#[test]
fn at_most_once_under_faults_never_duplicates() {
    at_most_once_under_faults(&Cluster::new("faults-amo").expect("cluster"));
}

#[test]
fn at_most_once_under_faults_never_duplicates_with_the_jni_bridge() {
    at_most_once_under_faults(
        &Cluster::with_bridge("faults-amo-jni", Bridge::Jni).expect("cluster"),
    );
}

fn at_most_once_under_faults(cluster: &Cluster) {
    let w = Workload {
        keys: 20,
        seqs: 150,
    };
    let (name, faults, started) = run_with_faults(cluster, AT_MOST_ONCE, w);
    let out = cluster.out_dir();
    let mut problems = Vec::new();
    let emitted_all = wait_all_logged(&out, w, true, Duration::from_secs(180));
    if let Err(e) = emitted_all {
        problems.push(e.to_string());
    }
    let o = settle(cluster, Duration::from_secs(3), Duration::from_secs(30));

    let lost = w.missing(&o.sink);
    eprintln!(
        "at-most-once under faults: {} messages, {} faults ({:?}), done in {:.1} s; \
         lost (never at the sink): {} ({:.1}%); {}",
        w.total(),
        faults.len(),
        faults.iter().map(|f| f.target.as_str()).collect::<Vec<_>>(),
        started.elapsed().as_secs_f64(),
        lost.len(),
        100.0 * lost.len() as f64 / w.total() as f64,
        o.summary(w)
    );

    if !o.malformed.is_empty() {
        problems.push(format!("malformed lines: {:?}", o.malformed));
    }
    if !o.unexpected.is_empty() {
        problems.push(format!(
            "the spout got acks/fails for ids that were not pending: {:?}",
            o.unexpected
        ));
    }
    if duplicates(&o.emitted).0 > 0 {
        problems.push("the spout emitted a message id twice".to_owned());
    }
    let dups: Vec<Msg> = o
        .sink
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(m, _)| *m)
        .collect();
    if !dups.is_empty() {
        problems.push(format!(
            "at-most-once delivered {} messages more than once: {}",
            dups.len(),
            sample(&dups)
        ));
    }
    if !o.sink.keys().all(|m| o.emitted.contains_key(m)) {
        problems.push("the sink saw messages the spout never emitted".to_owned());
    }
    if o.fails != 0 {
        problems.push(format!("fail() called {} times with acking off", o.fails));
    }
    if lost.len() == w.total() {
        problems.push(format!("nothing reached the sink: {}", o.summary(w)));
    }
    if let Err(e) = check_restart_metrics(cluster, &name, &faults) {
        problems.push(e);
    }
    assert_no_problems(cluster, &problems);

    cluster.kill_and_check_clean(&name).expect("clean kill");
}

#[test]
fn expected_restarts_forget_children_of_containers_killed_later() {
    let f = |kind, target: &str, container| Fault {
        at: Duration::ZERO,
        kind,
        target: target.to_owned(),
        pid: 1,
        container,
    };
    let faults = [
        f(Kind::Bolt, "sink-0", Some(1)),
        f(Kind::StreamManager, "stmgr-2", Some(2)),
        f(Kind::Container, "container-1", Some(1)),
        f(Kind::Spout, "spout-1", Some(1)),
        f(Kind::TopologyMaster, "tmaster", None),
    ];
    let got: Vec<(String, String)> = expected_restarts(&faults).into_iter().collect();
    let want: Vec<(String, String)> = [
        ("container-1", "spout-1"),
        ("container-2", "stmgr-2"),
        ("scheduler", "container-1"),
        ("scheduler", "tmaster"),
    ]
    .iter()
    .map(|(p, c)| ((*p).to_owned(), (*c).to_owned()))
    .collect();
    assert_eq!(got, want);
}

#[test]
fn rng_shuffle_is_deterministic_and_a_permutation() {
    let mut a = Rng(7);
    let mut b = Rng(7);
    let mut x = KINDS;
    let mut y = KINDS;
    a.shuffle(&mut x);
    b.shuffle(&mut y);
    assert_eq!(x, y);
    for k in KINDS {
        assert!(x.contains(&k));
    }
    assert!((0..100).all(|_| a.below(3) < 3));
}
