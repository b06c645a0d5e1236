//! Storm's event logging (EventLogTopology, examples-storm): with
//! `topology.eventlogger.executors: 1` the topology runs an `__eventlogger`
//! bolt whose `FileBasedEventLogger` writes `events.log` in its instance's
//! working directory. Nothing is logged until debugging is turned on; turned
//! on for `upper` at 100% (by the topology's main through
//! `NimbusClient.debug`, as a Storm user's script would), every tuple `upper`
//! emits is logged once, with its component and task; turned off (`egret
//! debug --disable`), nothing more of it is, while the spout, turned on by
//! `egret debug NAME words --enable`, logs its emits with their message ids.
//! The spout emits one batch per gate file, so each phase sees known tuples.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use egret_e2e::{Cluster, complete_lines, task_files, wait_until};

const BATCH: usize = 5;
const WAIT: Duration = Duration::from_secs(90);
/// Longer than FileBasedEventLogger's flush interval (1 s): what was logged is in the file.
const FLUSHED: Duration = Duration::from_millis(2500);

/// Every `events.log` under the topology's instance working directories.
fn event_logs(topology_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(topology_dir.join("work")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .map(|e| e.path().join("events.log"))
        .filter(|p| p.exists())
        .collect()
}

/// (component, task, message id, values) of every logged event.
fn events(topology_dir: &Path) -> Vec<(String, String, String, String)> {
    let mut out = Vec::new();
    for path in event_logs(topology_dir) {
        for line in complete_lines(&path) {
            let mut parts = line.splitn(5, ',');
            let _date = parts.next();
            let field = |p: Option<&str>| p.unwrap_or("?").to_owned();
            out.push((
                field(parts.next()),
                field(parts.next()),
                field(parts.next()),
                field(parts.next()),
            ));
        }
    }
    out
}

/// Lines of `<out>/<prefix>-<task>.txt`, over every task.
fn recorded(out: &Path, prefix: &str) -> Vec<String> {
    task_files(out, prefix).into_values().flatten().collect()
}

/// How many of the cluster's logs contain `needle`.
fn logs_with(cluster: &Cluster, needle: &str) -> usize {
    cluster
        .logs()
        .values()
        .filter(|text| text.contains(needle))
        .count()
}

fn wait_logs(cluster: &Cluster, needle: &str, files: usize) {
    wait_until(
        &format!("{files} instance log(s) saying {needle:?}"),
        WAIT,
        || (logs_with(cluster, needle) >= files).then_some(()),
        || cluster.describe_logs(10),
    )
    .expect("instances told");
}

/// Opens gate `batch` and waits until `upper` has handled every tuple so far.
fn run_batch(cluster: &Cluster, batch: usize) {
    let out = cluster.out_dir();
    fs::write(out.join(format!("go-{batch}")), b"").expect("gate");
    wait_until(
        &format!("upper handled batches 1..={batch}"),
        WAIT,
        || (recorded(&out, "upper").len() >= batch * BATCH).then_some(()),
        || format!("{:?}", recorded(&out, "upper")),
    )
    .expect("batch handled");
}

/// The events `upper` should have logged for batch `batch`: one per recorded
/// `"<task> <WORD> <length>"` of that batch.
fn upper_events(out: &Path, batch: usize) -> BTreeSet<(String, String, String, String)> {
    recorded(out, "upper")
        .iter()
        .filter_map(|l| {
            let mut p = l.split(' ');
            let (task, word, len) = (p.next()?, p.next()?, p.next()?);
            word.starts_with(&format!("EVL-{batch}-")).then(|| {
                (
                    "upper".to_owned(),
                    task.to_owned(),
                    String::new(),
                    format!("[{word}, {len}]"),
                )
            })
        })
        .collect()
}

/// The events `words` should have logged for batch `batch`, from its
/// `"<task> <msgId> <word>"` records.
fn words_events(out: &Path, batch: usize) -> BTreeSet<(String, String, String, String)> {
    recorded(out, "words")
        .iter()
        .filter_map(|l| {
            let mut p = l.split(' ');
            let (task, id, word) = (p.next()?, p.next()?, p.next()?);
            id.starts_with(&format!("{batch}:")).then(|| {
                (
                    "words".to_owned(),
                    task.to_owned(),
                    id.to_owned(),
                    format!("[{word}]"),
                )
            })
        })
        .collect()
}

#[test]
fn debug_turns_event_logging_on_and_off_per_component() {
    let cluster = Cluster::new("event_logging").expect("cluster");
    let name = cluster.topology_name();
    let out = cluster.out_dir();
    // The main submits, then waits for `enable-debug` to call NimbusClient.debug.
    let mut jar = cluster.egret([
        std::ffi::OsStr::new("jar"),
        cluster.artifacts.examples_jar.as_os_str(),
        std::ffi::OsStr::new("dev.egret.examples.EventLogTopology"),
        std::ffi::OsStr::new(&name),
        out.as_os_str(),
    ]);
    let main = std::thread::spawn(move || {
        egret_e2e::run_with_timeout(&mut jar, Duration::from_secs(400)).expect("egret jar")
    });
    let dir = cluster.topology_dir(&name);
    wait_until(
        "the event logger's events.log",
        WAIT,
        || (!event_logs(&dir).is_empty()).then_some(()),
        || cluster.describe_logs(10),
    )
    .expect("event logger prepared");
    assert_eq!(event_logs(&dir).len(), 1, "one event logger task");

    // Debug off: batch 1 goes through, nothing is logged.
    run_batch(&cluster, 1);
    std::thread::sleep(FLUSHED);
    assert_eq!(events(&dir), Vec::new(), "nothing logged with debug off");

    // Refused requests name the problem and change nothing.
    let unknown = cluster
        .run(["debug", &name, "uper", "--enable"])
        .expect("egret debug");
    assert!(!unknown.success(), "{}", unknown.describe());
    assert!(
        unknown.combined().contains("'uper'"),
        "{}",
        unknown.describe()
    );
    let too_much = cluster
        .run(["debug", &name, "upper", "--enable", "-s", "150"])
        .expect("egret debug");
    assert!(!too_much.success(), "{}", too_much.describe());
    assert!(
        too_much.combined().contains("from 0 to 100"),
        "{}",
        too_much.describe()
    );

    // On for `upper` at 100%, through NimbusClient.debug (the topology's main).
    fs::write(out.join("enable-debug"), b"").expect("gate");
    let jar_out = main.join().expect("main thread");
    assert!(jar_out.success(), "{}", jar_out.describe());
    assert!(
        jar_out.stdout.contains("DEBUG upper on"),
        "{}",
        jar_out.describe()
    );
    wait_logs(&cluster, "Event logging of upper is on", 2);
    run_batch(&cluster, 2);
    let expected = upper_events(&out, 2);
    assert_eq!(expected.len(), BATCH);
    wait_until(
        "upper's batch 2 in events.log",
        WAIT,
        || (events(&dir).len() >= BATCH).then_some(()),
        || format!("{:?}", events(&dir)),
    )
    .expect("events logged");
    std::thread::sleep(FLUSHED);
    let logged = events(&dir);
    assert_eq!(logged.len(), BATCH, "each emit logged once: {logged:?}");
    assert_eq!(
        logged.into_iter().collect::<BTreeSet<_>>(),
        expected,
        "the events are upper's emitted tuples, with their task ids"
    );

    // Off for `upper`, on for `words`: batch 3 logs the spout's emits only.
    let off = cluster
        .run(["debug", &name, "upper", "--disable"])
        .expect("egret debug");
    assert!(off.success(), "{}", off.describe());
    let on = cluster
        .run(["debug", &name, "words", "--enable", "-s", "100"])
        .expect("egret debug");
    assert!(on.success(), "{}", on.describe());
    wait_logs(&cluster, "Event logging of upper is off", 2);
    wait_logs(&cluster, "Event logging of words is on", 1);
    run_batch(&cluster, 3);
    let mut expected_all = expected;
    let spout = words_events(&out, 3);
    assert_eq!(spout.len(), BATCH);
    expected_all.extend(spout);
    wait_until(
        "words' batch 3 in events.log",
        WAIT,
        || (events(&dir).len() >= 2 * BATCH).then_some(()),
        || format!("{:?}", events(&dir)),
    )
    .expect("events logged");
    std::thread::sleep(FLUSHED);
    let logged = events(&dir);
    assert_eq!(logged.len(), 2 * BATCH, "{logged:?}");
    assert_eq!(logged.into_iter().collect::<BTreeSet<_>>(), expected_all);

    cluster.kill_and_check_clean(&name).expect("kill");
}
