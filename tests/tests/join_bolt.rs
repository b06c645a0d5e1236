//! Storm's `JoinBolt` (a windowed bolt run by the shim's `WindowedBoltExecutor`) with
//! storm-starter 1.2.2's own `JoinBoltExample`, unchanged, under `egret local`.
//!
//! What the example does (read from its bytecode): two `FeederSpout`s, `genderSpout`
//! `(id, gender)` fed ids 0..9 with `male` for even ids and `female` for odd ones, and
//! `ageSpout` `(id, age)` fed ids 9..0 with age `id + 20`; a `JoinBolt("genderSpout", "id")
//! .join("ageSpout", "id", "genderSpout").select("genderSpout:id,ageSpout:id,gender,age")`
//! on a 10 s tumbling window, both inputs fields-grouped on `id`; a `PrinterBolt` that
//! prints every joined tuple to stdout (`source: joiner:3, stream: default, id: {..},
//! [4, 4, male, 24] PROC_START_TIME(sampled): ..`, in the printer's instance log); main()
//! sleeps 30 s and shuts its `LocalCluster` down.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::time::Duration;

use egret_e2e::Cluster;
use egret_e2e::jars::{Background, LogWatch};
use nix::sys::signal::Signal;

/// JVM starts on two shared cores, the feeds, then at most one 10 s window.
const OUTPUT_TIMEOUT: Duration = Duration::from_secs(75);

/// The values of a tuple printed by PrinterBolt whose source is `joiner`.
fn printed_join(line: &str) -> Option<Vec<&str>> {
    let rest = &line[line.find("source: joiner:")?..];
    let end = rest.find("] PROC_START_TIME")?;
    let start = rest[..end].rfind('[')?;
    Some(rest[start + 1..end].split(", ").collect())
}

/// A joined row `[genderSpout:id, ageSpout:id, gender, age]`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Row {
    gender_id: i64,
    age_id: i64,
    gender: String,
    age: i64,
}

#[derive(Default)]
struct Joined {
    /// By `genderSpout:id`, every row printed (more than one is a bug).
    rows: BTreeMap<i64, Vec<Row>>,
    /// Printed joiner tuples that are not four values of the expected types.
    malformed: Vec<String>,
    samples: Vec<String>,
}

impl LogWatch for Joined {
    fn line(&mut self, _log: &str, line: &str) {
        let Some(values) = printed_join(line) else {
            return;
        };
        let row = match values.as_slice() {
            [gid, aid, gender, age] => match (gid.parse(), aid.parse(), age.parse()) {
                (Ok(gender_id), Ok(age_id), Ok(age)) => Row {
                    gender_id,
                    age_id,
                    gender: (*gender).to_owned(),
                    age,
                },
                _ => {
                    self.malformed.push(line.to_owned());
                    return;
                }
            },
            _ => {
                self.malformed.push(line.to_owned());
                return;
            }
        };
        if self.samples.len() < 3 {
            self.samples.push(line.trim().to_owned());
        }
        self.rows.entry(row.gender_id).or_default().push(row);
    }

    fn done(&self) -> bool {
        self.rows.len() >= 10
    }

    fn describe(&self) -> String {
        format!(
            "joined rows {:?}, malformed {:?}",
            self.rows, self.malformed
        )
    }
}

fn start_local(cluster: &Cluster) -> Background {
    cluster
        .spawn_egret([
            OsStr::new("local"),
            cluster.artifacts.storm_starter_jar.as_os_str(),
            OsStr::new("org.apache.storm.starter.JoinBoltExample"),
            OsStr::new("--local-ttl"),
            OsStr::new("5"),
        ])
        .expect("start egret local")
}

#[test]
fn join_bolt_example_joins_gender_and_age_by_id_in_a_tumbling_window() {
    let cluster = Cluster::new("join-bolt").expect("cluster");
    let mut local = start_local(&cluster);
    let mut joined = Joined::default();
    let seen = cluster.watch_logs_of(
        "the joined [id, id, gender, age] rows printed by PrinterBolt",
        OUTPUT_TIMEOUT,
        &mut joined,
        Some(&mut local),
    );
    local.signal(Signal::SIGTERM);
    let out = local
        .wait(Duration::from_secs(30))
        .expect("wait for egret local");
    cluster
        .assert_no_leftovers()
        .expect("no process left after egret local stopped");
    let took = seen.unwrap_or_else(|e| panic!("{e}\negret local: {}", out.describe()));

    assert!(
        joined.malformed.is_empty(),
        "joiner tuples not of the selected fields: {}",
        joined.describe()
    );
    // Every id of both feeds joined exactly once (each tuple is in one tumbling window),
    // and each row pairs the gender and the age fed for its id.
    assert_eq!(
        joined.rows.keys().copied().collect::<Vec<_>>(),
        (0..10).collect::<Vec<_>>(),
        "{}",
        joined.describe()
    );
    for (id, rows) in &joined.rows {
        let want = Row {
            gender_id: *id,
            age_id: *id,
            gender: if id % 2 == 0 { "male" } else { "female" }.to_owned(),
            age: id + 20,
        };
        assert_eq!(rows, &vec![want], "rows of id {id}: {}", joined.describe());
    }
    eprintln!("--- JoinBoltExample (after {took:.0?}) printed ---");
    for l in &joined.samples {
        eprintln!("  {l}");
    }
}
