//! Effectively once (`topology.reliability.mode: EFFECTIVELY_ONCE`), end to
//! end, with `EffectivelyOnceWordCountTopology`: a replayable spout over a fixed
//! list of sentences (its acked ids logged, so a restarted spout resumes), a
//! split bolt and a stateful count bolt that writes the state it commits.
//!
//! Under 20 `kill -9` (seeded, the seed printed; `EGRET_FAULT_SEED` replays a
//! run) of spout JVMs, bolt JVMs, stream managers, the topology master and
//! whole containers, every sentence is acked and the committed counts equal
//! the counts of the input exactly: no word lost, none counted twice. With
//! the JNI bridge the executors are threads of each stream manager's embedded
//! JVM, so the faults are the stream managers (with all their executors), the
//! topology master and whole containers. That run also stores the count
//! bolt's state as deltas (`egret.checkpoint.full.every` 3: whole at one
//! checkpoint in three), so its restarts restore from a whole copy and the
//! deltas after it.
//!
//! The join tests check the alignment of markers: a count bolt reading the
//! split bolt and a slow path holds the inputs that are ahead, under
//! `egret.checkpoint.alignment.bytes` (read from its log lines); with a bound
//! a few tuples pass, alignments give up, the topology rolls back and
//! checkpoints still complete with exact counts.
//!
//! Recovery: with a message timeout of 300 s, the JVM of a bolt whose queue
//! holds a checkpoint tuple is killed; everything is still acked within 120 s
//! (the restarted instance makes the checkpoint spout roll back at once, not
//! after the lost tree's timeout).

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use egret_e2e::faults::Rng;
use egret_e2e::{
    Bridge, Cluster, HarnessError, instance_processes, parent_pid, role_processes, wait_until,
};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

const CLASS: &str = "EffectivelyOnceWordCountTopology";
const SENTENCES: usize = 1600;
const SPOUT_TASKS: usize = 2;
/// Default seed of the fault schedule (override with `EGRET_FAULT_SEED`).
const DEFAULT_SEED: u64 = 0x5eed_e0e0;
const FAULTS: usize = 20;
const FAULT_SPACING: Duration = Duration::from_millis(1800);

fn fail_with<T>(cluster: &Cluster, e: &HarnessError) -> T {
    panic!("{e}\n{}", cluster.describe_logs(40))
}

/// The words of sentence `i`, as `EffectivelyOnceWordCountTopology.words`.
fn words(i: usize) -> Vec<String> {
    (0..1 + i % 4)
        .map(|j| format!("w{}", (i * 31 + j * 17) % 53))
        .collect()
}

fn expected_counts() -> BTreeMap<String, i64> {
    let mut counts = BTreeMap::new();
    for i in 0..SENTENCES {
        for w in words(i) {
            *counts.entry(w).or_insert(0) += 1;
        }
    }
    counts
}

/// The ids in the spouts' acked logs (complete lines only).
fn acked(out: &Path) -> BTreeSet<usize> {
    acked_in(out, "eo-acked-", SPOUT_TASKS)
}

fn acked_in(out: &Path, prefix: &str, tasks: usize) -> BTreeSet<usize> {
    let mut ids = BTreeSet::new();
    for task in 0..tasks {
        let Ok(text) = std::fs::read_to_string(out.join(format!("{prefix}{task}.log"))) else {
            continue;
        };
        for line in text.split_inclusive('\n') {
            if let Some(id) = line.strip_suffix('\n').and_then(|l| l.trim().parse().ok()) {
                ids.insert(id);
            }
        }
    }
    ids
}

/// The counts of the count bolt's last commits: (word -> count, txids).
fn committed(out: &Path) -> (BTreeMap<String, i64>, Vec<i64>) {
    let mut counts = BTreeMap::new();
    let mut txids = Vec::new();
    let Ok(entries) = std::fs::read_dir(out) else {
        return (counts, txids);
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if !(name.starts_with("eo-counts-") && name.ends_with(".txt")) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(e.path()) else {
            continue;
        };
        for line in text.lines() {
            let mut parts = line.split(' ');
            match (
                parts.next(),
                parts.next().and_then(|c| c.parse::<i64>().ok()),
            ) {
                (Some("txid"), Some(t)) => txids.push(t),
                (Some(w), Some(c)) => *counts.entry(w.to_owned()).or_insert(0) += c,
                _ => {}
            }
        }
    }
    (counts, txids)
}

fn diff(expected: &BTreeMap<String, i64>, got: &BTreeMap<String, i64>) -> (i64, i64, String) {
    let (mut lost, mut duplicated) = (0, 0);
    let mut words = Vec::new();
    for w in expected.keys().chain(got.keys()).collect::<BTreeSet<_>>() {
        let e = expected.get(w).copied().unwrap_or(0);
        let g = got.get(w).copied().unwrap_or(0);
        if g < e {
            lost += e - g;
        } else {
            duplicated += g - e;
        }
        if g != e {
            words.push(format!("{w}: {g} (expected {e})"));
        }
    }
    (lost, duplicated, words.join(", "))
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    Spout,
    Bolt,
    StreamManager,
    TopologyMaster,
    Container,
}

const KINDS: [Kind; 5] = [
    Kind::Spout,
    Kind::Bolt,
    Kind::StreamManager,
    Kind::TopologyMaster,
    Kind::Container,
];

/// The faults with the JNI bridge: no process per executor to kill.
const JNI_KINDS: [Kind; 3] = [Kind::StreamManager, Kind::TopologyMaster, Kind::Container];

/// Candidates for a fault of `kind` now: (pid, target).
fn candidates(home: &Path, kind: Kind) -> Vec<(i32, String)> {
    let instances = |prefixes: &[&str]| -> Vec<(i32, String)> {
        instance_processes(home)
            .into_iter()
            .filter(|(_, id)| prefixes.iter().any(|p| id.starts_with(p)))
            .collect()
    };
    let roles = |role: &str| -> Vec<(i32, String)> {
        role_processes(home, role)
            .into_iter()
            .map(|p| match p.index {
                Some(i) => (p.pid, format!("{role}-{i}")),
                None => (p.pid, role.to_owned()),
            })
            .collect()
    };
    match kind {
        // The checkpoint spout is a spout JVM too.
        Kind::Spout => instances(&["sentences-", "$checkpointspout-"]),
        Kind::Bolt => instances(&["split-", "count-"]),
        Kind::StreamManager => roles("stmgr"),
        Kind::TopologyMaster => roles("tmaster"),
        Kind::Container => roles("container"),
    }
}

#[test]
fn word_count_is_exact_under_20_kill_9() {
    exact_under_kill_9(&Cluster::new("effectively-once").expect("cluster"), None);
}

#[test]
fn word_count_is_exact_under_20_kill_9_with_the_jni_bridge_and_deltas() {
    exact_under_kill_9(
        &Cluster::with_bridge("effectively-once-jni", Bridge::Jni).expect("cluster"),
        Some(3),
    );
}

/// The fault run: `FAULTS` kills of the bridge's kinds (each kind once first, then
/// seeded), then every sentence acked and the committed counts exact. With
/// `full_every`, the state is stored whole at one checkpoint in that many and
/// as deltas between: the checkpoints kept list deltas.
fn exact_under_kill_9(cluster: &Cluster, full_every: Option<u32>) {
    let kinds: &[Kind] = match cluster.bridge() {
        Bridge::Socket => &KINDS,
        Bridge::Jni => &JNI_KINDS,
    };
    let name = cluster.topology_name();
    let out = cluster.out_dir();
    let sentences = format!("sentences={SENTENCES}");
    // Throttled (30 sentences/s per spout task) so the input spans the faults.
    let full = full_every.map(|n| format!("full={n}"));
    let mut args = vec![sentences.as_str(), "rate=30", "timeout=5", "pending=40"];
    args.extend(full.as_deref());
    eprintln!("submitting {CLASS} {name} {}", args.join(" "));
    cluster
        .submit_example_with(CLASS, &name, &args)
        .unwrap_or_else(|e| fail_with(cluster, &e));
    let started = Instant::now();
    wait_until(
        "a first commit of the count bolt",
        Duration::from_secs(60),
        || (!committed(&out).1.is_empty()).then_some(()),
        || format!("acked so far: {}", acked(&out).len()),
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
    cluster
        .check_bridge(&name)
        .unwrap_or_else(|e| fail_with(cluster, &e));

    let seed = egret_e2e::faults::seed(DEFAULT_SEED);
    eprintln!("effectively once: fault seed {seed} (EGRET_FAULT_SEED)");
    let mut rng = Rng(seed);
    for n in 0..FAULTS {
        thread::sleep(FAULT_SPACING);
        let kind = kinds[if n < kinds.len() {
            n
        } else {
            rng.below(kinds.len())
        }];
        let live = wait_until(
            &format!("a live process to kill for {kind:?}"),
            Duration::from_secs(45),
            || {
                let c = candidates(cluster.home(), kind);
                (!c.is_empty()).then_some(c)
            },
            String::new,
        )
        .unwrap_or_else(|e| fail_with(cluster, &e));
        let (pid, target) = live[rng.below(live.len())].clone();
        let gone = kill(Pid::from_raw(pid), Signal::SIGKILL).is_err();
        eprintln!(
            "fault {}: t+{:.1}s kill -9 {kind:?} {target} (pid {pid}, parent {:?}){}; acked {}",
            n + 1,
            started.elapsed().as_secs_f64(),
            parent_pid(pid),
            if gone { " [already gone]" } else { "" },
            acked(&out).len()
        );
    }

    let all = wait_until(
        "every sentence acked",
        Duration::from_secs(150),
        || {
            let a = acked(&out);
            (a.len() == SENTENCES).then_some(a)
        },
        || format!("acked {} of {SENTENCES}", acked(&out).len()),
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
    assert_eq!(all.len(), SENTENCES);
    eprintln!(
        "all {SENTENCES} sentences acked at t+{:.1}s",
        started.elapsed().as_secs_f64()
    );

    // Every ack was released after a complete checkpoint held its effects, so the
    // committed counts are final now; wait for both count tasks' reports of them.
    let expected = expected_counts();
    let matched = wait_until(
        "the committed counts to equal the input's",
        Duration::from_secs(30),
        || (committed(&out).0 == expected).then_some(()),
        || {
            let (got, txids) = committed(&out);
            let (lost, dup, words) = diff(&expected, &got);
            format!("lost {lost}, duplicated {dup} (txids {txids:?}): {words}")
        },
    );
    if let Err(e) = matched {
        fail_with::<()>(cluster, &e);
    }
    // And they stay so: nothing replayed later counts again.
    thread::sleep(Duration::from_secs(3));
    let (got, txids) = committed(&out);
    let (lost, duplicated, words) = diff(&expected, &got);
    eprintln!(
        "effectively once: {FAULTS} faults, {} words: lost {lost}, duplicated {duplicated} (commits {txids:?})",
        expected.values().sum::<i64>()
    );
    assert!(
        lost == 0 && duplicated == 0,
        "lost {lost}, duplicated {duplicated}: {words}"
    );
    let from_deltas = restores_from_deltas(cluster);
    eprintln!("effectively once: {from_deltas} restore(s) from a whole copy and its deltas");
    let listed = cluster.run(["checkpoints", &name]).expect("run egret");
    assert!(listed.success(), "egret checkpoints: {}", listed.describe());
    let deltas = delta_files(&listed.combined());
    eprintln!("{}", listed.combined());
    match full_every {
        Some(_) => assert!(
            deltas.iter().sum::<usize>() > 0,
            "no checkpoint kept holds a delta"
        ),
        // Unset, the bolts' states are stored whole; only the data spouts' windows of
        // message ids (one added and one dropped per checkpoint) go as deltas.
        None => assert!(
            deltas.iter().all(|&d| d <= SPOUT_TASKS),
            "more deltas than data spout tasks in a checkpoint with egret.checkpoint.full.every unset: {deltas:?}"
        ),
    }
    cluster.kill_and_check_clean(&name).expect("kill");
}

/// The task files stored as deltas in each checkpoint `egret checkpoints` lists
/// (its DELTAS column).
fn delta_files(listing: &str) -> Vec<usize> {
    let mut lines = listing.lines();
    let Some(at) = lines
        .next()
        .and_then(|h| h.split_whitespace().position(|c| c == "DELTAS"))
    else {
        return Vec::new();
    };
    // "COMPLETED (UTC)" is two words in the header and two (date, time) in each row.
    lines
        .filter_map(|l| l.split_whitespace().nth(at)?.parse::<usize>().ok())
        .collect()
}

/// The states restored from a whole copy and deltas (their log lines).
fn restores_from_deltas(cluster: &Cluster) -> usize {
    cluster
        .logs()
        .values()
        .flat_map(|text| text.lines())
        .filter(|l| {
            l.contains("restored from the checkpoint store: committed") && l.contains("delta(s)")
        })
        .count()
}

/// Recovery after a `kill -9` that loses a checkpoint tuple, with a message
/// timeout of 300 s: the join's relay takes 1 s a tuple while its spout emits
/// 4 a second, so the checkpoint tuples wait in the relay's queue behind
/// words, and killing the relay's JVM loses the one in flight. Without help
/// the checkpoint spout would wait for that tree's timeout; the restarted
/// relay's readiness makes every stream manager fail the checkpoint spout's
/// pending trees, the topology rolls back at once, and every sentence and
/// word is acked long before the timeout, with exact counts.
#[test]
fn recovery_after_a_lost_checkpoint_tuple_does_not_wait_for_the_message_timeout() {
    const SENTENCES_HERE: usize = 200;
    const SLOW: usize = 12;
    let cluster = Cluster::new("effectively-once-recovery").expect("cluster");
    let cluster = &cluster;
    let name = cluster.topology_name();
    let out = cluster.out_dir();
    let sentences = format!("sentences={SENTENCES_HERE}");
    let slow = format!("slow={SLOW}");
    let args = [
        sentences.as_str(),
        slow.as_str(),
        "delay=1000",
        "rate=20",
        "workers=2",
        "timeout=300",
    ];
    eprintln!("submitting {CLASS} {name} {}", args.join(" "));
    cluster
        .submit_example_with(CLASS, &name, &args)
        .unwrap_or_else(|e| fail_with(cluster, &e));
    let relay = |home: &Path| -> Vec<(i32, String)> {
        instance_processes(home)
            .into_iter()
            .filter(|(_, id)| id.starts_with("slowrelay-"))
            .collect()
    };
    // The relay busy with a backlog of words (and the checkpoint tuples behind them).
    wait_until(
        "the slow spout to have emitted for 3 s",
        Duration::from_secs(90),
        || (!relay(cluster.home()).is_empty() && !acked(&out).is_empty()).then_some(()),
        || format!("acked so far: {}", acked(&out).len()),
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
    thread::sleep(Duration::from_secs(3));
    let (pid, target) = relay(cluster.home())
        .into_iter()
        .next()
        .expect("the relay's JVM");
    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
    eprintln!("kill -9 {target} (pid {pid}); acked {}", acked(&out).len());
    let killed = Instant::now();
    // Far below the 300 s timeout (a lost tree expires between 1 and 1.5 times it).
    join_acked(
        cluster,
        SENTENCES_HERE,
        SLOW,
        "every sentence and slow word acked, well before the message timeout",
        Duration::from_secs(120),
    );
    eprintln!(
        "recovery: everything acked {:.1} s after the kill",
        killed.elapsed().as_secs_f64()
    );
    join_counts_exact(cluster, SENTENCES_HERE, SLOW);
    let recovers = cluster
        .logs()
        .values()
        .flat_map(|text| text.lines())
        .filter(|l| l.contains("failed the checkpoint spout's pending trees"))
        .count();
    eprintln!("recovery: {recovers} recover_checkpoint line(s) in the stream managers' logs");
    assert!(
        recovers > 0,
        "no stream manager was told an instance restarted"
    );
    cluster.kill_and_check_clean(&name).expect("kill");
}

/// Waits (`what`, up to `limit`) until the join topology's spouts have seen
/// every one of their `sentences` sentences and `slow` words acked.
fn join_acked(cluster: &Cluster, sentences: usize, slow: usize, what: &str, limit: Duration) {
    let out = cluster.out_dir();
    let counts = || {
        (
            acked_in(&out, "eo-acked-", SPOUT_TASKS).len(),
            acked_in(&out, "eo-slow-acked-", 1).len(),
        )
    };
    wait_until(
        what,
        limit,
        || (counts() == (sentences, slow)).then_some(()),
        || {
            let (s, w) = counts();
            format!("acked {s} sentences, {w} slow words")
        },
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
}

/// Waits until the join topology's committed counts equal those of its input
/// (`sentences` sentences and the first words of `slow` of them); the
/// checkpoints of the count tasks' last reports.
fn join_counts_exact(cluster: &Cluster, sentences: usize, slow: usize) -> Vec<i64> {
    let out = cluster.out_dir();
    let mut expected: BTreeMap<String, i64> = BTreeMap::new();
    for i in 0..sentences {
        for w in words(i) {
            *expected.entry(w).or_insert(0) += 1;
        }
    }
    for i in 0..slow {
        *expected.entry(words(i)[0].clone()).or_insert(0) += 1;
    }
    wait_until(
        "the committed counts to equal the input's",
        Duration::from_secs(30),
        || (committed(&out).0 == expected).then(|| committed(&out).1),
        || {
            let (got, txids) = committed(&out);
            let (lost, dup, words) = diff(&expected, &got);
            format!("lost {lost}, duplicated {dup} (txids {txids:?}): {words}")
        },
    )
    .unwrap_or_else(|e| fail_with(cluster, &e))
}

/// The alignment bound of the join test: above anything its inputs can have in
/// flight (`topology.max.spout.pending` 50 per spout task), so no alignment
/// passes it.
const JOIN_ALIGNMENT_BYTES: u64 = 64 * 1024;
/// A bound a few word tuples pass: the fallback's test.
const TINY_ALIGNMENT_BYTES: u64 = 64;

/// A join shape: the count bolt reads the split bolt and a second, slow spout
/// (4 words a second, through a relay bolt taking 150 ms a tuple, so its
/// markers come late); each checkpoint waits for the slow input's marker
/// while the count bolt holds the split bolt's tuples that are ahead of it.
/// Checkpoints keep completing while the slow spout emits, the tuples held
/// stay under `egret.checkpoint.alignment.bytes` (and some were held), and the
/// counts are exact.
#[test]
fn join_with_a_slow_input_completes_checkpoints_and_counts_exactly() {
    join_with_a_slow_input(
        &Cluster::new("effectively-once-join").expect("cluster"),
        JOIN_ALIGNMENT_BYTES,
    );
}

#[test]
fn join_with_a_slow_input_completes_checkpoints_and_counts_exactly_with_the_jni_bridge() {
    join_with_a_slow_input(
        &Cluster::with_bridge("effectively-once-join-jni", Bridge::Jni).expect("cluster"),
        JOIN_ALIGNMENT_BYTES,
    );
}

/// The same join with a bound of 64 bytes: alignments give up (the
/// checkpoint fails, the topology rolls back, the next checkpoint aligns by
/// pausing the spouts), and checkpoints still complete with exact counts.
#[test]
fn join_whose_alignment_passes_its_bound_falls_back_and_counts_exactly() {
    join_with_a_slow_input(
        &Cluster::new("effectively-once-join-bound").expect("cluster"),
        TINY_ALIGNMENT_BYTES,
    );
}

/// The alignment lines of the topology's logs: the most bytes any task held
/// (`held at most N bytes`), and how many alignments gave up.
fn alignment_report(cluster: &Cluster) -> (u64, usize) {
    let mut most = 0u64;
    let mut gave_up = 0usize;
    for text in cluster.logs().values() {
        for line in text.lines() {
            if line.contains("gives up aligning checkpoint") {
                gave_up += 1;
            }
            if let Some(rest) = line.split("held at most ").nth(1)
                && let Some(n) = rest.split(' ').next().and_then(|n| n.parse::<u64>().ok())
            {
                most = most.max(n);
            }
        }
    }
    (most, gave_up)
}

fn join_with_a_slow_input(cluster: &Cluster, align: u64) {
    const SENTENCES_HERE: usize = 200;
    const SLOW: usize = 40;
    let name = cluster.topology_name();
    let out = cluster.out_dir();
    let sentences = format!("sentences={SENTENCES_HERE}");
    let slow = format!("slow={SLOW}");
    let align_arg = format!("align={align}");
    let args = [
        sentences.as_str(),
        slow.as_str(),
        "rate=20",
        "workers=2",
        align_arg.as_str(),
    ];
    eprintln!("submitting {CLASS} {name} {}", args.join(" "));
    cluster
        .submit_example_with(CLASS, &name, &args)
        .unwrap_or_else(|e| fail_with(cluster, &e));
    let halfway = wait_until(
        "half of the slow spout's words acked",
        Duration::from_secs(90),
        || {
            let n = acked_in(&out, "eo-slow-acked-", 1).len();
            let txids = committed(&out).1;
            (n >= SLOW / 2 && !txids.is_empty()).then(|| txids.into_iter().min().unwrap_or(0))
        },
        || format!("slow acked {}", acked_in(&out, "eo-slow-acked-", 1).len()),
    )
    .unwrap_or_else(|e| fail_with(cluster, &e));
    cluster
        .check_bridge(&name)
        .unwrap_or_else(|e| fail_with(cluster, &e));
    join_acked(
        cluster,
        SENTENCES_HERE,
        SLOW,
        "every sentence and every slow word acked",
        Duration::from_secs(90),
    );
    let txids = join_counts_exact(cluster, SENTENCES_HERE, SLOW);
    let last = txids.iter().copied().min().unwrap_or(0);
    let (most_held, gave_up) = alignment_report(cluster);
    eprintln!(
        "join: checkpoints {halfway} (half the slow input) .. {last}, counts exact; \
         alignment bound {align} bytes: at most {most_held} bytes held, {gave_up} alignments gave up"
    );
    assert!(
        last >= halfway + 3,
        "checkpoints did not keep completing with the slow input: {halfway} then {last}"
    );
    assert!(
        most_held <= align,
        "a task held {most_held} bytes aligning, over the bound of {align}"
    );
    if align >= JOIN_ALIGNMENT_BYTES {
        assert!(
            most_held > 0,
            "no task held a tuple while aligning: the slow input's markers never came late"
        );
        assert_eq!(gave_up, 0, "an alignment passed the bound of {align} bytes");
    } else {
        assert!(
            gave_up > 0,
            "no alignment passed the bound of {align} bytes (at most {most_held} held)"
        );
    }
    cluster.kill_and_check_clean(&name).expect("kill");
}
