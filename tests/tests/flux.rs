//! Flux: topologies defined in YAML, run with `egret local <jar>
//! org.apache.storm.flux.Flux --local --resource /x.yaml`, flux-core and
//! flux-wrappers 2.8.3 (unchanged, from Maven Central) inside the topology jar
//! as flux-examples ships them (flux-examples itself is not published there:
//! examples-flux/ builds the same shape with our own YAML files). Each test
//! asserts on what flux-wrappers' `LogInfoBolt` logs: `source: ..., [values]`.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

use egret_e2e::jars::{Background, LogWatch, message};
use egret_e2e::{Cluster, workspace_root};
use nix::sys::signal::Signal;

/// The words of storm-client's `TestWordSpout`.
const TEST_WORDS: [&str; 5] = ["nathan", "mike", "jackson", "golda", "bertels"];

fn flux_jar() -> PathBuf {
    std::env::var_os("EGRET_EXAMPLES_FLUX_JAR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("examples-flux/target/egret-examples-flux.jar"))
}

fn start_flux(cluster: &Cluster, resource: &str) -> Background {
    let jar = flux_jar();
    assert!(
        jar.is_file(),
        "{} missing: run ./egret-dev build",
        jar.display()
    );
    cluster
        .spawn_egret([
            OsStr::new("local"),
            jar.as_os_str(),
            OsStr::new("org.apache.storm.flux.Flux"),
            OsStr::new("--local"),
            OsStr::new("--resource"),
            OsStr::new(resource),
            OsStr::new("--local-ttl"),
            OsStr::new("120"),
        ])
        .expect("start egret local")
}

fn stop(cluster: &Cluster, local: Background) {
    local.signal(Signal::SIGTERM);
    let out = local
        .wait(Duration::from_secs(30))
        .expect("wait for egret local");
    assert!(
        out.status.is_some(),
        "egret local did not stop: {}",
        out.describe()
    );
    cluster.assert_no_leftovers().expect("no process left");
}

/// The values list of a `LogInfoBolt` line: `source: c:3, stream: s, id: {}, [a, 1] PROC_...`.
fn logged_values(line: &str) -> Option<Vec<String>> {
    if !line.contains("LogInfoBolt") {
        return None;
    }
    let text = message(line);
    let start = text.find(", [")? + 3;
    let end = start + text[start..].find(']')?;
    Some(text[start..end].split(", ").map(str::to_owned).collect())
}

/// Counts TestWordCounter emitted, per word, in the order the logger saw them.
#[derive(Default)]
struct WordCounts {
    seen: BTreeMap<String, Vec<u64>>,
    malformed: Vec<String>,
}

impl LogWatch for WordCounts {
    fn line(&mut self, _log: &str, line: &str) {
        let Some(values) = logged_values(line) else {
            return;
        };
        match values.as_slice() {
            [word, count] => match count.parse() {
                Ok(n) => self.seen.entry(word.clone()).or_default().push(n),
                Err(_) => self.malformed.push(line.to_owned()),
            },
            _ => self.malformed.push(line.to_owned()),
        }
    }
    fn done(&self) -> bool {
        TEST_WORDS
            .iter()
            .all(|w| self.seen.get(*w).is_some_and(|counts| counts.len() >= 5))
    }
    fn describe(&self) -> String {
        format!("counts {:?}, malformed {:?}", self.seen, self.malformed)
    }
}

#[test]
fn flux_wordcount_yaml_counts_every_word() {
    let cluster = Cluster::new("flux-wordcount").expect("cluster");
    let mut local = start_flux(&cluster, "/flux/wordcount.yaml");
    let mut counts = WordCounts::default();
    let watched = cluster.watch_logs_of(
        "LogInfoBolt logging 5 counts of every word",
        Duration::from_secs(90),
        &mut counts,
        Some(&mut local),
    );
    let stdout = local.combined();
    stop(&cluster, local);
    watched.unwrap_or_else(|e| panic!("{e}\negret local printed:\n{stdout}"));
    assert!(counts.malformed.is_empty(), "{:?}", counts.malformed);
    assert!(
        stdout.contains("Parsing classpath resource: /flux/wordcount.yaml"),
        "Flux's own banner and parse line: {stdout}"
    );
    for word in TEST_WORDS {
        // Each word lands on one counter task (fields grouping), so its counts
        // as logged are 1, 2, 3... in order, each once (the logger is one task
        // fed by shuffle, so lines of one counter arrive in its emit order).
        let seen = &counts.seen[word];
        let mut sorted = seen.clone();
        sorted.sort_unstable();
        let expected: Vec<u64> = (1..=sorted.len() as u64).collect();
        assert_eq!(sorted, expected, "counts of {word}: {seen:?}");
    }
}

/// Windows `[window, first, last, size, sum]` logged after WindowSumBolt.
#[derive(Default)]
struct Windows {
    windows: Vec<(u64, u64, u64, u64)>,
    malformed: Vec<String>,
}

impl LogWatch for Windows {
    fn line(&mut self, _log: &str, line: &str) {
        let Some(values) = logged_values(line) else {
            return;
        };
        let numbers: Vec<u64> = values
            .iter()
            .skip(1)
            .filter_map(|v| v.parse().ok())
            .collect();
        match (values.first().map(String::as_str), numbers.as_slice()) {
            (Some("window"), [first, last, size, sum]) => {
                self.windows.push((*first, *last, *size, *sum));
            }
            _ => self.malformed.push(line.to_owned()),
        }
    }
    fn done(&self) -> bool {
        self.windows.len() >= 6
    }
    fn describe(&self) -> String {
        format!("windows {:?}, malformed {:?}", self.windows, self.malformed)
    }
}

#[test]
fn flux_windowing_yaml_slides_a_count_window() {
    let cluster = Cluster::new("flux-windowing").expect("cluster");
    let mut local = start_flux(&cluster, "/flux/windowing.yaml");
    let mut windows = Windows::default();
    let watched = cluster.watch_logs_of(
        "six windows logged",
        Duration::from_secs(90),
        &mut windows,
        Some(&mut local),
    );
    let stdout = local.combined();
    stop(&cluster, local);
    watched.unwrap_or_else(|e| panic!("{e}\negret local printed:\n{stdout}"));
    assert!(windows.malformed.is_empty(), "{:?}", windows.malformed);
    let mut ordered = windows.windows.clone();
    ordered.sort_unstable();
    for (first, last, size, sum) in &ordered {
        // One spout task to one bolt task: a window holds consecutive numbers.
        assert_eq!(
            *size,
            last - first + 1,
            "window {first}..{last} has {size} tuples"
        );
        assert_eq!(*sum, (first + last) * size / 2, "sum of {first}..{last}");
        // A count window of 10 sliding by 5: 5 tuples at the first slide, then 10.
        assert!(
            *size == 10 || (*first == 1 && *size == 5),
            "size {size} of {first}..{last}"
        );
        assert_eq!(last % 5, 0, "windows end on a slide of 5: {first}..{last}");
    }
    for pair in ordered.windows(2) {
        assert_eq!(
            pair[1].1,
            pair[0].1 + 5,
            "consecutive windows slide by 5: {ordered:?}"
        );
    }
}
