//! Windowed bolts (`BaseWindowedBolt` run by the shim's `WindowedBoltExecutor`) with
//! storm-starter 1.2.2's own topologies, unchanged, asserting on their output: the
//! `topology.debug` lines (`Emitting: slidingsum default [4123]`) of the spout, the
//! sliding-sum bolt and the tumbling-average bolt, recomputed from the spout's values.

#![allow(
    clippy::expect_used,
    reason = "test code: a failed expectation is the test failing, with its message"
)]

use std::ffi::OsStr;
use std::time::Duration;

use egret_e2e::jars::{LogWatch, message};
use egret_e2e::{Bridge, Cluster};

/// JVM start on two shared cores plus a few windows.
const OUTPUT_TIMEOUT: Duration = Duration::from_secs(75);

/// `Emitting: <component> <stream> [<values>]` → (component, values).
fn emitted(line: &str) -> Option<(&str, &str)> {
    let rest = message(line).strip_prefix("Emitting: ")?;
    let (component, rest) = rest.split_once(' ')?;
    let (_stream, values) = rest.split_once(' ')?;
    Some((component, values.strip_prefix('[')?.strip_suffix(']')?))
}

fn submit(cluster: &Cluster, class: &str, name: &str) {
    let main = format!("org.apache.storm.starter.{class}");
    let out = cluster
        .run([
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

/// What the spout `integer` (RandomIntegerSpout: value, ts, msgid) and the windowed
/// bolts emitted, in order.
#[derive(Default)]
struct Windows {
    /// (value, ts) per spout emit.
    ints: Vec<(i64, i64)>,
    sums: Vec<i64>,
    avgs: Vec<i64>,
    want_sums: usize,
    want_avgs: usize,
    /// Event time: every value up to the end of this many windows must have been
    /// logged before the sums are checked.
    event_time_windows: Option<usize>,
}

impl LogWatch for Windows {
    fn line(&mut self, _log: &str, line: &str) {
        let Some((component, values)) = emitted(line) else {
            return;
        };
        let nums: Vec<i64> = values
            .split(", ")
            .filter_map(|v| v.trim().parse().ok())
            .collect();
        match (component, nums.as_slice()) {
            ("integer", [v, ts, _id]) => self.ints.push((*v, *ts)),
            ("slidingsum", [s]) => self.sums.push(*s),
            ("tumblingavg", [a]) => self.avgs.push(*a),
            _ => {}
        }
    }

    fn done(&self) -> bool {
        self.sums.len() >= self.want_sums
            && self.avgs.len() >= self.want_avgs
            && self.event_time_windows.is_none_or(|n| {
                let needed = first_end(self) + TS_SLIDE_MS * (n as i64 - 1) + TS_LAG_MS;
                self.ints.last().is_some_and(|(_, ts)| *ts > needed)
            })
    }

    fn describe(&self) -> String {
        format!(
            "{} spout emits, sums {:?}, averages {:?}",
            self.ints.len(),
            self.sums,
            self.avgs
        )
    }
}

#[test]
fn sliding_window_topology_sums_count_windows_and_averages_tumbling_ones() {
    sliding_window_topology("window-sliding", Bridge::from_env().expect("bridge"));
}

#[test]
fn sliding_window_topology_sums_count_windows_with_the_jni_bridge() {
    sliding_window_topology("window-sliding-jni", Bridge::Jni);
}

fn sliding_window_topology(test: &str, bridge: Bridge) {
    let cluster = Cluster::with_bridge(test, bridge).expect("cluster");
    let name = cluster.topology_name();
    submit(&cluster, "SlidingWindowTopology", &name);
    let mut w = Windows {
        want_sums: 6,
        want_avgs: 2,
        ..Windows::default()
    };
    let took = cluster
        .watch_logs("sliding sums and tumbling averages", OUTPUT_TIMEOUT, &mut w)
        .unwrap_or_else(|e| panic!("{e}"));
    cluster.check_bridge(&name).expect("the bridge asked for");
    cluster.kill_and_check_clean(&name).expect("kill");

    // slidingsum: a window of the last 30 values, activated every 10 values.
    assert!(w.ints.len() >= 10 * w.want_sums, "{}", w.describe());
    for (k, sum) in w.sums.iter().enumerate().take(w.want_sums) {
        let end = 10 * (k + 1);
        let expected: i64 = w.ints[end.saturating_sub(30)..end]
            .iter()
            .map(|(v, _)| v)
            .sum();
        assert_eq!(
            *sum,
            expected,
            "sum #{k} (values {}..{end}): {}",
            end.saturating_sub(30),
            w.describe()
        );
    }
    // tumblingavg: tumbling windows of 3 sums, integer average.
    for (j, avg) in w.avgs.iter().enumerate().take(w.want_avgs) {
        let three = &w.sums[3 * j..3 * j + 3];
        assert_eq!(
            *avg,
            three.iter().sum::<i64>() / 3,
            "average #{j} of {three:?}"
        );
    }
    eprintln!(
        "SlidingWindowTopology, {} bridge (after {took:.0?}): sums {:?}, averages {:?}",
        bridge.name(),
        &w.sums[..w.want_sums],
        &w.avgs[..w.want_avgs]
    );
}

/// Window ends of SlidingTupleTsTopology: 5 s windows sliding every 3 s on the
/// tuples' `ts` field, aligned to multiples of the interval, from the first value's ts.
const TS_WINDOW_MS: i64 = 5000;
const TS_SLIDE_MS: i64 = 3000;
const TS_LAG_MS: i64 = 5000;

fn first_end(w: &Windows) -> i64 {
    let first = w.ints.iter().map(|(_, ts)| *ts).min().unwrap_or(0);
    (first + TS_SLIDE_MS - 1).div_euclid(TS_SLIDE_MS) * TS_SLIDE_MS
}

#[test]
fn sliding_tuple_ts_topology_sums_event_time_windows() {
    let cluster = Cluster::new("window-ts").expect("cluster");
    let name = cluster.topology_name();
    submit(&cluster, "SlidingTupleTsTopology", &name);
    let want = 3;
    let mut w = Windows {
        want_sums: want,
        want_avgs: 0,
        event_time_windows: Some(want),
        ..Windows::default()
    };
    let took = cluster
        .watch_logs("event-time window sums", OUTPUT_TIMEOUT, &mut w)
        .unwrap_or_else(|e| panic!("{e}"));
    cluster.kill_and_check_clean(&name).expect("kill");

    let first = first_end(&w);
    for (k, sum) in w.sums.iter().enumerate().take(want) {
        let end = first + TS_SLIDE_MS * k as i64;
        let expected: i64 = w
            .ints
            .iter()
            .filter(|(_, ts)| *ts > end - TS_WINDOW_MS && *ts <= end)
            .map(|(v, _)| v)
            .sum();
        assert_eq!(
            *sum,
            expected,
            "sum #{k} of the window ending at {end}: {}",
            w.describe()
        );
    }
    eprintln!(
        "SlidingTupleTsTopology (after {took:.0?}): sums {:?} of windows ending at {first} + k * {TS_SLIDE_MS} ms",
        &w.sums[..want]
    );
}
