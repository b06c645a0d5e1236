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
//!
//! The same topology checks Storm's dynamic log levels: `upper` logs each tuple
//! at DEBUG, silent at the configured INFO; `egret set_log_level NAME -l
//! dev.egret.examples=DEBUG` (a prefix of its logger) makes batch 4's lines
//! appear in its instances' logs without a restart, `-r` silences batch 5, and
//! a level set for 3 seconds through `Nimbus.setLogConfig` (the main again) is
//! reported by `getLogConfig` and reset by the master once its time is up.
//! Last, `egret stats` shows the spout's complete latency p50 and p99.

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

/// The logger of EventLogTopology's `upper` bolt.
const UPPER_LOGGER: &str = "dev.egret.examples.EventLogTopology$UpperBolt";

/// `upper`'s DEBUG lines for batch `batch` in every log.
fn debug_lines(cluster: &Cluster, batch: usize) -> usize {
    let needle = format!(" DEBUG {UPPER_LOGGER} - upper evl-{batch}-");
    cluster
        .logs()
        .values()
        .map(|text| text.matches(&needle).count())
        .sum()
}

/// `egret set_log_level`: refusals name the problem; a prefix of `upper`'s
/// logger at DEBUG makes batch 4's lines appear; `-r` silences batch 5.
fn log_levels_change_without_a_restart(cluster: &Cluster, name: &str) {
    for batch in 1..=3 {
        assert_eq!(debug_lines(cluster, batch), 0, "DEBUG lines at level INFO");
    }
    for (args, want) in [
        (
            vec!["set_log_level", name, "-l", "dev.egret=LOUD"],
            "unknown log level 'LOUD'",
        ),
        (
            vec!["set_log_level", name, "-l", "dev.egret"],
            "LOGGER=LEVEL[:TIMEOUT]",
        ),
        (
            vec!["set_log_level", name, "-l", "dev.egret=DEBUG:soon"],
            "'soon'",
        ),
        (
            vec!["set_log_level", "no-such-topology", "-l", "ROOT=DEBUG"],
            "no-such-topology",
        ),
    ] {
        let out = cluster.run(&args).expect("egret set_log_level");
        assert!(!out.success(), "{args:?} accepted: {}", out.describe());
        assert!(
            out.combined().contains(want),
            "{args:?}: {}",
            out.describe()
        );
    }
    let set = cluster
        .run(["set_log_level", name, "-l", "dev.egret.examples=DEBUG"])
        .expect("egret set_log_level");
    assert!(set.success(), "{}", set.describe());
    assert!(
        set.stdout.contains("dev.egret.examples\tDEBUG"),
        "{}",
        set.describe()
    );
    wait_logs(cluster, "Log levels now {dev.egret.examples=DEBUG}", 3);
    run_batch(cluster, 4);
    wait_until(
        "upper's DEBUG lines of batch 4",
        WAIT,
        || (debug_lines(cluster, 4) == BATCH).then_some(()),
        || {
            format!(
                "{} lines\n{}",
                debug_lines(cluster, 4),
                cluster.describe_logs(10)
            )
        },
    )
    .expect("DEBUG lines");
    let shown = cluster
        .run(["set_log_level", name])
        .expect("egret set_log_level");
    assert!(
        shown.success() && shown.stdout.contains("dev.egret.examples\tDEBUG"),
        "{}",
        shown.describe()
    );
    let reset = cluster
        .run(["set_log_level", name, "-r", "dev.egret.examples"])
        .expect("egret set_log_level -r");
    assert!(reset.success(), "{}", reset.describe());
    assert!(
        reset.stdout.contains("No logger has a level of its own"),
        "{}",
        reset.describe()
    );
    wait_logs(cluster, "Log levels now as configured", 3);
    run_batch(cluster, 5);
    std::thread::sleep(FLUSHED);
    assert_eq!(debug_lines(cluster, 5), 0, "upper logged at DEBUG after -r");
    assert_eq!(debug_lines(cluster, 4), BATCH);
}

/// `egret stats`: the spout's complete latency p50 and p99 (the ledgers'),
/// p50 at most p99; bolts have none.
fn stats_show_the_spouts_latency_quantiles(cluster: &Cluster, name: &str) {
    let row = |out: &str, component: &str| -> Option<Vec<String>> {
        out.lines()
            .find(|l| l.starts_with(&format!("{component} ")))
            .map(|l| l.split_whitespace().map(str::to_owned).collect())
    };
    let (p50, p99, out) = wait_until(
        "egret stats to show the spout's p50 and p99",
        WAIT,
        || {
            let out = cluster.run(["stats", name]).ok()?;
            let fields = row(&out.stdout, "words")?;
            let p50: f64 = fields.get(10)?.parse().ok()?;
            let p99: f64 = fields.get(11)?.parse().ok()?;
            Some((p50, p99, out.stdout))
        },
        || {
            cluster
                .run(["stats", name])
                .map(|o| o.describe())
                .unwrap_or_default()
        },
    )
    .expect("quantiles shown");
    assert!(out.contains("P50_MS") && out.contains("P99_MS"), "{out}");
    assert!(p50 > 0.0 && p50 <= p99, "p50 {p50} p99 {p99}: {out}");
    let upper = row(&out, "upper").expect("the upper row");
    assert_eq!(upper[10..], ["-", "-"], "{out}");
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

    log_levels_change_without_a_restart(&cluster, &name);

    // Through Nimbus.setLogConfig (the main): DEBUG for 3 seconds, then reset by the master.
    fs::write(out.join("log-timeout"), b"").expect("gate");
    let jar_out = main.join().expect("main thread");
    assert!(jar_out.success(), "{}", jar_out.describe());
    assert!(
        jar_out.stdout.contains("DEBUG upper on"),
        "{}",
        jar_out.describe()
    );
    assert!(
        jar_out
            .stdout
            .contains(&format!("LOGCONFIG {UPPER_LOGGER}=DEBUG:3")),
        "getLogConfig: {}",
        jar_out.describe()
    );
    wait_logs(
        &cluster,
        &format!("Log levels now {{{UPPER_LOGGER}=DEBUG}}"),
        3,
    );
    wait_until(
        "the master to reset the level once its 3 seconds passed",
        WAIT,
        || {
            let out = cluster.run(["set_log_level", &name]).ok()?;
            out.stdout
                .contains("No logger has a level of its own")
                .then_some(())
        },
        || cluster.describe_logs(10),
    )
    .expect("level reset");
    wait_until(
        "the instances to return to the configured levels twice (-r, then the timeout)",
        WAIT,
        || {
            let reset = cluster
                .logs()
                .values()
                .filter(|t| t.matches("Log levels now as configured").count() >= 2)
                .count();
            (reset >= 3).then_some(())
        },
        || cluster.describe_logs(10),
    )
    .expect("instances reset");
    run_batch(&cluster, 6);
    assert_eq!(
        debug_lines(&cluster, 6),
        0,
        "upper logged at DEBUG after the timeout"
    );
    stats_show_the_spouts_latency_quantiles(&cluster, &name);

    cluster.kill_and_check_clean(&name).expect("kill");
}
