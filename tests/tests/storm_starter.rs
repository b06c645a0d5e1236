//! storm-starter 1.2.2 from Maven Central, unchanged (storm-starter 2.x is not
//! published there), on a local Egret cluster: one test per topology, each
//! asserting on the jar's own output (its printed lines, its loggers, or the
//! `topology.debug` lines Storm's executors write: `Emitting: count default [the, 12]`).
//!
//! Topologies whose `main()` submits through `StormSubmitter` run with `egret jar`
//! and are killed as soon as their output shows what is asserted; the ones that
//! use 1.x's `LocalCluster` run in `egret local`, stopped with SIGTERM (which
//! kills their topologies) once the output is seen, because their `main()` may
//! sleep for minutes. Each test is bounded (under ~90 s on two busy cores).

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::time::Duration;

use egret_e2e::jars::{Background, LogWatch, first_lines, message};
use egret_e2e::{Bridge, Cluster, Output};
use nix::sys::signal::Signal;

const STARTER: &str = "org.apache.storm.starter";

/// The words of storm's `TestWordSpout`.
const TEST_WORDS: [&str; 5] = ["nathan", "mike", "jackson", "golda", "bertels"];

/// The words of the sentences storm-starter's `RandomSentenceSpout`s emit.
const SENTENCE_WORDS: [&str; 28] = [
    "the", "cow", "jumped", "over", "moon", "an", "apple", "a", "day", "keeps", "doctor", "away",
    "four", "score", "and", "seven", "years", "ago", "snow", "white", "dwarfs", "i", "am", "at",
    "two", "with", "nature", "ago",
];

/// How long a topology may take to show its output: 25 JVMs starting on two
/// cores shared with other work take 20-30 s before the first tuple.
const OUTPUT_TIMEOUT: Duration = Duration::from_secs(75);

fn main_class(class: &str) -> String {
    format!("{STARTER}.{class}")
}

/// `egret jar <storm-starter> <class> <args..>`, which must return promptly
/// (the topology is submitted through `StormSubmitter` and keeps running).
fn submit(cluster: &Cluster, class: &str, args: &[&str]) -> Output {
    let main = main_class(class);
    let mut all = vec![
        OsStr::new("jar"),
        cluster.artifacts.storm_starter_jar.as_os_str(),
        OsStr::new(&main),
    ];
    all.extend(args.iter().map(OsStr::new));
    let out = cluster.run(all).expect("run egret jar");
    assert!(
        out.success(),
        "egret jar {class} did not submit: {}",
        out.describe()
    );
    out
}

/// `egret local <storm-starter> <class> <args..>` in the background.
fn start_local(cluster: &Cluster, class: &str, args: &[&str]) -> Background {
    let main = main_class(class);
    let mut all = vec![
        OsStr::new("local"),
        cluster.artifacts.storm_starter_jar.as_os_str(),
        OsStr::new(&main),
    ];
    all.extend(args.iter().map(OsStr::new));
    cluster.spawn_egret(all).expect("start egret local")
}

/// Stops a running `egret local` the way a user does (Ctrl-C: it kills its
/// topologies), then checks that nothing of the cluster is left.
fn stop_local(cluster: &Cluster, local: Background) -> Output {
    local.signal(Signal::SIGTERM);
    let out = local
        .wait(Duration::from_secs(30))
        .expect("wait for egret local");
    assert!(
        out.status.is_some(),
        "egret local did not stop within 30 s of SIGTERM: {}",
        out.describe()
    );
    cluster
        .assert_no_leftovers()
        .expect("no process left after egret local stopped");
    out
}

fn watch_or_fail(cluster: &Cluster, what: &str, watch: &mut dyn LogWatch) -> Duration {
    match cluster.watch_logs(what, OUTPUT_TIMEOUT, watch) {
        Ok(elapsed) => elapsed,
        Err(e) => panic!("{e}"),
    }
}

/// `Emitting: <component> <stream> [<values>]` → (component, values).
fn emitted(line: &str) -> Option<(&str, &str)> {
    let rest = message(line).strip_prefix("Emitting: ")?;
    let (component, rest) = rest.split_once(' ')?;
    let (_stream, values) = rest.split_once(' ')?;
    Some((component, values.strip_prefix('[')?.strip_suffix(']')?))
}

/// `word, 12` → (`word`, 12).
fn word_count(values: &str) -> Option<(&str, u64)> {
    let (word, count) = values.rsplit_once(", ")?;
    Some((word, count.trim().parse().ok()?))
}

fn report(jar: &str, lines: &[String]) {
    eprintln!("--- {jar} printed ---");
    for l in lines.iter().take(3) {
        eprintln!("  {l}");
    }
}

/// Word counts emitted by a `count` bolt fed by a `split` bolt.
#[derive(Default)]
struct Counts {
    bolt: &'static str,
    splitter: &'static str,
    /// Highest count emitted per word.
    counts: BTreeMap<String, u64>,
    split_emits: u64,
    extra: Vec<String>,
    samples: Vec<String>,
    /// Lines that must appear (substring), seen or not.
    required: BTreeMap<String, bool>,
}

impl Counts {
    fn new(bolt: &'static str, splitter: &'static str, required: &[&str]) -> Self {
        Self {
            bolt,
            splitter,
            required: required.iter().map(|r| ((*r).to_owned(), false)).collect(),
            ..Self::default()
        }
    }

    /// Words of the spout's sentences counted at least twice.
    fn counted_twice(&self) -> usize {
        self.counts
            .iter()
            .filter(|(w, c)| **c >= 2 && SENTENCE_WORDS.contains(&w.as_str()))
            .count()
    }
}

impl LogWatch for Counts {
    fn line(&mut self, _log: &str, line: &str) {
        for (needle, seen) in &mut self.required {
            if !*seen && line.contains(needle.as_str()) {
                *seen = true;
                self.extra.push(message(line).to_owned());
            }
        }
        let Some((component, values)) = emitted(line) else {
            return;
        };
        if component == self.splitter {
            self.split_emits += 1;
        } else if component == self.bolt
            && let Some((word, count)) = word_count(values)
        {
            let best = self.counts.entry(word.to_owned()).or_default();
            *best = (*best).max(count);
            if count >= 2 && self.samples.len() < 3 {
                self.samples.push(message(line).to_owned());
            }
        }
    }

    fn done(&self) -> bool {
        self.counted_twice() >= 5 && self.split_emits > 0 && self.required.values().all(|s| *s)
    }

    fn describe(&self) -> String {
        format!(
            "{} words counted twice, {} emits by {}, required lines {:?}, counts {:?}",
            self.counted_twice(),
            self.split_emits,
            self.splitter,
            self.required,
            self.counts
        )
    }
}

#[test]
fn word_count_counts_words_split_by_the_python_shell_bolt() {
    let cluster = Cluster::new("starter-wordcount").expect("cluster");
    let name = cluster.topology_name();
    submit(&cluster, "WordCountTopology", &[&name]);
    // The split bolt is splitsentence.py from the jar's resources/, run by
    // `python` (or python3): its emits come back through the multilang protocol.
    let mut counts = Counts::new("count", "split", &["started subprocess [python"]);
    let took = watch_or_fail(
        &cluster,
        "words split by the Python bolt and counted",
        &mut counts,
    );
    cluster.kill_and_check_clean(&name).expect("kill");
    let mut lines = counts.extra.clone();
    lines.extend(counts.samples.iter().cloned());
    report(&format!("WordCountTopology (after {took:.0?})"), &lines);
}

/// storm-starter's `WordCountTopology` in its own local mode (no arguments:
/// its main submits to a `LocalCluster`, sleeps 10 s and shuts it down) with
/// the JNI bridge: its executors start in time to count words before main's
/// 10 s are over, and `egret local` ends by itself when main returns.
#[test]
fn word_count_in_its_own_local_mode_counts_words_with_the_jni_bridge() {
    let cluster = Cluster::with_bridge("starter-wordcount-local", Bridge::Jni).expect("cluster");
    let mut local = start_local(&cluster, "WordCountTopology", &[]);
    let mut counts = Counts::new("count", "split", &["started subprocess [python"]);
    let seen = cluster.watch_logs_of(
        "words counted within main's 10 s",
        Duration::from_secs(40),
        &mut counts,
        Some(&mut local),
    );
    let out = local
        .wait(Duration::from_secs(40))
        .expect("wait for egret local");
    if let Err(e) = seen {
        panic!("{e}\negret local: {}", out.describe());
    }
    assert!(
        out.status.is_some(),
        "egret local did not end after main returned: {}",
        out.describe()
    );
    cluster
        .assert_no_leftovers()
        .expect("no process left after egret local ended");
    let mut lines = counts.extra.clone();
    lines.extend(counts.samples.iter().cloned());
    report("WordCountTopology in local mode, jni bridge", &lines);
}

#[test]
fn anchored_word_count_counts_with_anchored_acked_tuples() {
    let cluster = Cluster::new("starter-anchored").expect("cluster");
    // LocalCluster path (no arguments); its main() sleeps 10 minutes, so the
    // test stops it. topology.debug is set from the command line (Storm's `-c`)
    // so Storm's executors print what they emit and which spout tuples are acked.
    let mut local = start_local(
        &cluster,
        "AnchoredWordCount",
        &["-c", "topology.debug=true", "--local-ttl", "60"],
    );
    let mut counts = Counts::new("count", "split", &["SPOUT Acking message"]);
    let seen = cluster.watch_logs_of(
        "words counted and spout tuples acked",
        OUTPUT_TIMEOUT,
        &mut counts,
        Some(&mut local),
    );
    let out = stop_local(&cluster, local);
    if let Err(e) = seen {
        panic!("{e}\negret local: {}", out.describe());
    }
    let mut lines = counts.extra.clone();
    lines.extend(counts.samples.iter().cloned());
    report("AnchoredWordCount", &lines);
}

/// Rankings emitted by the final ranker: `[[nathan|12|...], [mike|9|...]]`.
#[derive(Default)]
struct Rankings {
    counter_emits: u64,
    ranked: BTreeSet<String>,
    samples: Vec<String>,
}

impl LogWatch for Rankings {
    fn line(&mut self, _log: &str, line: &str) {
        let Some((component, values)) = emitted(line) else {
            return;
        };
        match component {
            "counter" => self.counter_emits += 1,
            "finalRanker" => {
                let before = self.ranked.len();
                for w in TEST_WORDS {
                    if values.contains(&format!("[{w}|")) {
                        self.ranked.insert(w.to_owned());
                    }
                }
                if self.ranked.len() > before && self.samples.len() < 3 {
                    self.samples.push(message(line).to_owned());
                }
            }
            _ => {}
        }
    }

    fn done(&self) -> bool {
        self.counter_emits > 0 && self.ranked.len() >= 3
    }

    fn describe(&self) -> String {
        format!(
            "{} emits by counter; words in the final rankings: {:?}",
            self.counter_emits, self.ranked
        )
    }
}

fn rolling_top_words(test: &str, class: &str) {
    let cluster = Cluster::new(test).expect("cluster");
    let name = cluster.topology_name();
    // With a name and "remote", main() submits through StormSubmitter.
    let out = submit(&cluster, class, &[&name, "remote"]);
    let mut rankings = Rankings::default();
    let took = watch_or_fail(
        &cluster,
        "the final rankings to rank TestWordSpout's words",
        &mut rankings,
    );
    cluster.kill_and_check_clean(&name).expect("kill");
    let mut lines: Vec<String> = first_lines(&out.combined(), 1, |l| l.contains("remote"))
        .lines()
        .map(|l| message(l).to_owned())
        .collect();
    lines.extend(rankings.samples);
    report(&format!("{class} (after {took:.0?})"), &lines);
}

#[test]
fn rolling_top_words_ranks_test_word_spout_words() {
    rolling_top_words("starter-rolling", "RollingTopWords");
}

#[test]
fn skewed_rolling_top_words_ranks_with_partial_key_grouping() {
    rolling_top_words("starter-skewed", "SkewedRollingTopWords");
}

/// Joined `[gender, age]` tuples emitted by `join`.
#[derive(Default)]
struct Joined {
    tuples: BTreeSet<String>,
    samples: Vec<String>,
}

impl LogWatch for Joined {
    fn line(&mut self, _log: &str, line: &str) {
        let Some(("join", values)) = emitted(line) else {
            return;
        };
        let Some((gender, age)) = values.split_once(", ") else {
            return;
        };
        if matches!(gender, "male" | "female") && age.parse::<u32>().is_ok() {
            if self.samples.len() < 3 {
                self.samples.push(message(line).to_owned());
            }
            self.tuples.insert(values.to_owned());
        }
    }

    fn done(&self) -> bool {
        // main() feeds ids 0..9 with a gender (male for even ids) and the same
        // ids with an age (20 + id): ten distinct joined tuples.
        self.tuples.len() >= 10
    }

    fn describe(&self) -> String {
        format!("joined tuples: {:?}", self.tuples)
    }
}

#[test]
fn single_join_joins_gender_and_age_by_id() {
    let cluster = Cluster::new("starter-join").expect("cluster");
    // LocalCluster path: main() feeds both FeederSpouts, sleeps 2 s and shuts
    // the LocalCluster down; the TTL then counts from main()'s return.
    let mut local = start_local(&cluster, "SingleJoinExample", &["--local-ttl", "60"]);
    let mut joined = Joined::default();
    let seen = cluster.watch_logs_of(
        "joined [gender, age] tuples",
        OUTPUT_TIMEOUT,
        &mut joined,
        Some(&mut local),
    );
    let out = stop_local(&cluster, local);
    if let Err(e) = seen {
        panic!("{e}\negret local: {}", out.describe());
    }
    report("SingleJoinExample", &joined.samples);
}

/// The three loggers of `ExclamationLoggingBolt` in both bolts.
#[derive(Default)]
struct Loggers {
    /// (bolt, message) seen.
    seen: BTreeSet<(String, String)>,
    /// A few of those lines as logged (logger and level included).
    samples: Vec<String>,
    debug: Vec<String>,
    exclaimed: Vec<String>,
}

const LOGGER_MESSAGES: [&str; 9] = [
    "root: This is an INFO message",
    "root: This is a WARN message",
    "root: This is an ERROR message",
    "myapp: This is an INFO message",
    "myapp: This is a WARN message",
    "myapp: This is an ERROR message",
    "myapp.sub: This is an INFO message",
    "myapp.sub: This is a WARN message",
    "myapp.sub: This is an ERROR message",
];

impl LogWatch for Loggers {
    fn line(&mut self, log: &str, line: &str) {
        let bolt = log.rsplit_once('-').map_or(log, |(c, _)| c);
        let msg = message(line);
        if LOGGER_MESSAGES.contains(&msg) {
            if self.seen.insert((bolt.to_owned(), msg.to_owned()))
                && self.samples.len() < 2
                && (msg.starts_with("root: This is an INFO")
                    || msg.starts_with("myapp.sub: This is an ERROR"))
            {
                self.samples
                    .push(line.split_once("] ").map_or(line, |(_, l)| l).to_owned());
            }
        } else if msg.ends_with("This is a DEBUG message") && self.debug.len() < 3 {
            self.debug.push(line.to_owned());
        }
        if let Some(("exclaim2", values)) = emitted(line)
            && values.ends_with("!!!!!!")
            && self.exclaimed.len() < 3
        {
            self.exclaimed.push(msg.to_owned());
        }
    }

    fn done(&self) -> bool {
        ["exclaim1", "exclaim2"].iter().all(|b| {
            LOGGER_MESSAGES
                .iter()
                .all(|m| self.seen.contains(&((*b).to_owned(), (*m).to_owned())))
        }) && !self.exclaimed.is_empty()
    }

    fn describe(&self) -> String {
        format!(
            "logger lines {:?}, exclaim2 emits {:?}",
            self.seen, self.exclaimed
        )
    }
}

#[test]
fn multiple_logger_topology_logs_through_its_three_loggers() {
    let cluster = Cluster::new("starter-loggers").expect("cluster");
    let name = cluster.topology_name();
    submit(&cluster, "MultipleLoggerTopology", &[&name]);
    let mut loggers = Loggers::default();
    let took = watch_or_fail(
        &cluster,
        "the INFO, WARN and ERROR lines of the root, com.myapp and com.myapp.sub loggers",
        &mut loggers,
    );
    cluster.kill_and_check_clean(&name).expect("kill");
    // Storm's workers log at INFO: the bolts' DEBUG lines stay out.
    assert!(
        loggers.debug.is_empty(),
        "DEBUG lines logged at Storm's default INFO level: {:?}",
        loggers.debug
    );
    let mut lines = loggers.samples.clone();
    lines.extend(loggers.exclaimed.iter().take(1).cloned());
    report(
        &format!("MultipleLoggerTopology (after {took:.0?})"),
        &lines,
    );
}

/// A stats row of FastWordCountTopology:
/// `uptime: 30 acked: 5320 avgLatency: 12.5 acked/sec: 177.3 failed: 0`.
#[derive(Debug, Clone, PartialEq)]
struct StatsRow {
    uptime: u64,
    acked: u64,
    failed: u64,
}

fn stats_rows(stdout: &str) -> Vec<(StatsRow, String)> {
    stdout
        .lines()
        .filter_map(|line| {
            let field = |name: &str| -> Option<f64> {
                let mut words = line.split_whitespace();
                words.find(|w| *w == name)?;
                words.next()?.parse().ok()
            };
            let row = StatsRow {
                uptime: field("uptime:")? as u64,
                acked: field("acked:")? as u64,
                failed: field("failed:")? as u64,
            };
            Some((row, line.to_owned()))
        })
        .collect()
}

fn start_fast_word_count(cluster: &Cluster, name: &str) -> Background {
    let main = main_class("FastWordCountTopology");
    cluster
        .spawn_egret([
            OsStr::new("jar"),
            cluster.artifacts.storm_starter_jar.as_os_str(),
            OsStr::new(&main),
            OsStr::new(name),
        ])
        .expect("start egret jar")
}

/// FastWordCountTopology's main() sleeps 30 s ten times, printing a stats row
/// from the Nimbus client after each, then kills its topology: 5 minutes that
/// no option shortens. This bounded test takes its first row (at 30 s) and
/// stops there; `fast_word_count_full_run` is the whole run.
#[test]
fn fast_word_count_prints_stats_rows_with_acked_counts() {
    let cluster = Cluster::new("starter-fastwc").expect("cluster");
    let name = cluster.topology_name();
    let mut jar = start_fast_word_count(&cluster, &name);
    let row = egret_e2e::wait_until(
        "a stats row with a non-zero acked count",
        Duration::from_secs(85),
        || {
            stats_rows(&jar.stdout())
                .into_iter()
                .find(|(r, _)| r.acked > 0)
        },
        || jar.combined(),
    );
    let still_running = jar.running();
    jar.signal(Signal::SIGTERM);
    let out = jar.wait(Duration::from_secs(20)).expect("stop egret jar");
    // Its topology keeps running once main() is interrupted, as with storm jar.
    let killed = cluster.kill(&name);
    let (row, line) = match row {
        Ok(r) => r,
        Err(e) => panic!("{e}\negret jar: {}", out.describe()),
    };
    assert!(still_running, "main() ended early: {}", out.describe());
    assert!(row.uptime > 0, "{line}");
    killed.expect("kill");
    cluster.assert_no_leftovers().expect("clean");
    report("FastWordCountTopology", &[line]);
}

#[test]
#[ignore = "runs FastWordCountTopology's full 5 minutes: cargo test -- --ignored fast_word_count_full_run"]
fn fast_word_count_full_run() {
    let cluster = Cluster::new("starter-fastwc-full").expect("cluster");
    let name = cluster.topology_name();
    let jar = start_fast_word_count(&cluster, &name);
    let out = jar.wait(Duration::from_secs(420)).expect("egret jar");
    assert!(
        out.success(),
        "main() did not end cleanly: {}",
        out.describe()
    );
    let rows = stats_rows(&out.stdout);
    assert_eq!(rows.len(), 10, "ten stats rows: {}", out.describe());
    assert!(rows.iter().all(|(r, _)| r.acked > 0), "{rows:?}");
    assert!(
        rows.windows(2).all(|w| w[1].0.acked >= w[0].0.acked),
        "acked counts are cumulative: {rows:?}"
    );
    assert!(
        rows.iter()
            .all(|(r, _)| r.failed == 0 || r.failed < r.acked),
        "{rows:?}"
    );
    // main() killed its own topology through the Nimbus client.
    cluster
        .assert_no_leftovers()
        .expect("the topology killed by main()");
    let lines: Vec<String> = rows.iter().map(|(_, l)| l.clone()).collect();
    report(
        "FastWordCountTopology (full run)",
        &lines[lines.len().saturating_sub(3)..],
    );
}
