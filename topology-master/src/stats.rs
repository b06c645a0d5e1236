//! Storm's built-in statistics, aggregated by the topology master from the
//! instances' exact deltas (`StatsReport`s forwarded by the stream managers),
//! kept per task in time windows so that Nimbus's `getTopologyInfo` can be
//! answered with Storm's window keys.
//!
//! Windows and their resolution (a ring of buckets per window, per task):
//!
//! | key | buckets | a query covers the last |
//! |---|---|---|
//! | `600` | 60 × 10 s | 590–600 s |
//! | `10800` | 36 × 300 s | 10 500–10 800 s |
//! | `86400` | 48 × 1 800 s | 84 600–86 400 s |
//! | `:all-time` | one running total | since the topology master started |
//!
//! A delta lands in the bucket of the time the topology master received it
//! (its own monotonic clock, seconds since it started): the instance's
//! clock is not trusted for ordering. A window answer sums the buckets whose
//! interval started within the window, the current (partial) bucket included;
//! the oldest bucket of the window is dropped as soon as a new bucket starts,
//! hence the ranges above.
//!
//! Invariants:
//! - counts are exact: every delta a report carries is added once to the
//!   all-time total and once to each window ring (Storm samples at
//!   `topology.stats.sample.rate`; Egret does not);
//! - memory is bounded: only tasks of the packing plan are kept, a report is
//!   accepted only from the instance hosting its tasks, every counter map
//!   holds at most [`MAX_KEYS`] keys (streams), and each ring has a fixed
//!   number of buckets;
//! - the statistics live in memory: a restarted topology master starts again
//!   from zero.

use std::collections::{BTreeMap, HashMap};

use egret_proto::v1::{PackingPlan, StatsReport, TaskStatsDelta};

/// Storm's window key of the running total.
pub const ALL_TIME: &str = ":all-time";

/// Most distinct keys (streams, or input "<component>:<stream>") one counter
/// map of a task keeps; a topology declares far fewer, so reaching it means a
/// misbehaving instance.
pub const MAX_KEYS: usize = 1024;

/// One of Storm's time windows and the resolution Egret keeps it at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowSpec {
    /// Storm's key for the window (its length in seconds, as text).
    pub key: &'static str,
    pub secs: u64,
    pub bucket_secs: u64,
}

/// The bucketed windows, shortest first.
pub const WINDOWS: [WindowSpec; 3] = [
    WindowSpec {
        key: "600",
        secs: 600,
        bucket_secs: 10,
    },
    WindowSpec {
        key: "10800",
        secs: 10_800,
        bucket_secs: 300,
    },
    WindowSpec {
        key: "86400",
        secs: 86_400,
        bucket_secs: 1_800,
    },
];

/// Every window key, in the order answers list them: all-time first, as Storm's UI does.
pub fn window_keys() -> impl Iterator<Item = &'static str> {
    std::iter::once(ALL_TIME).chain(WINDOWS.iter().map(|w| w.key))
}

/// Exact sums of the built-in statistics, keyed as in `TaskStatsDelta`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counters {
    pub emitted: BTreeMap<String, u64>,
    pub transferred: BTreeMap<String, u64>,
    pub acked: BTreeMap<String, u64>,
    pub failed: BTreeMap<String, u64>,
    pub executed: BTreeMap<String, u64>,
    pub execute_ms_sum: BTreeMap<String, f64>,
    pub process_ms_sum: BTreeMap<String, f64>,
    pub complete_ms_sum: BTreeMap<String, f64>,
}

/// Adds `from` into `into`, refusing new keys beyond [`MAX_KEYS`]; returns
/// how many entries were refused.
fn add_counts<'a>(
    into: &mut BTreeMap<String, u64>,
    from: impl IntoIterator<Item = (&'a String, &'a u64)>,
) -> u64 {
    let mut refused = 0;
    for (key, value) in from {
        if let Some(total) = into.get_mut(key) {
            *total = total.saturating_add(*value);
        } else if into.len() < MAX_KEYS {
            into.insert(key.clone(), *value);
        } else {
            refused += 1;
        }
    }
    refused
}

fn add_sums<'a>(
    into: &mut BTreeMap<String, f64>,
    from: impl IntoIterator<Item = (&'a String, &'a f64)>,
) -> u64 {
    let mut refused = 0;
    for (key, value) in from {
        // A NaN or negative duration is an instance bug; it must not poison the sums.
        if !value.is_finite() || *value < 0.0 {
            refused += 1;
            continue;
        }
        if let Some(total) = into.get_mut(key) {
            *total += *value;
        } else if into.len() < MAX_KEYS {
            into.insert(key.clone(), *value);
        } else {
            refused += 1;
        }
    }
    refused
}

impl Counters {
    /// Adds one task's delta; returns how many entries were refused.
    pub fn add_delta(&mut self, delta: &TaskStatsDelta) -> u64 {
        add_counts(&mut self.emitted, &delta.emitted)
            + add_counts(&mut self.transferred, &delta.transferred)
            + add_counts(&mut self.acked, &delta.acked)
            + add_counts(&mut self.failed, &delta.failed)
            + add_counts(&mut self.executed, &delta.executed)
            + add_sums(&mut self.execute_ms_sum, &delta.execute_ms_sum)
            + add_sums(&mut self.process_ms_sum, &delta.process_ms_sum)
            + add_sums(&mut self.complete_ms_sum, &delta.complete_ms_sum)
    }

    /// Adds other sums (of another task or bucket) into these. Aggregates of
    /// several tasks may hold up to `MAX_KEYS` keys per task; they are
    /// answers, not stored state, so no cap applies.
    pub fn merge(&mut self, other: &Counters) {
        fn counts(into: &mut BTreeMap<String, u64>, from: &BTreeMap<String, u64>) {
            for (k, v) in from {
                let total = into.entry(k.clone()).or_default();
                *total = total.saturating_add(*v);
            }
        }
        fn sums(into: &mut BTreeMap<String, f64>, from: &BTreeMap<String, f64>) {
            for (k, v) in from {
                *into.entry(k.clone()).or_default() += *v;
            }
        }
        counts(&mut self.emitted, &other.emitted);
        counts(&mut self.transferred, &other.transferred);
        counts(&mut self.acked, &other.acked);
        counts(&mut self.failed, &other.failed);
        counts(&mut self.executed, &other.executed);
        sums(&mut self.execute_ms_sum, &other.execute_ms_sum);
        sums(&mut self.process_ms_sum, &other.process_ms_sum);
        sums(&mut self.complete_ms_sum, &other.complete_ms_sum);
    }

    /// The wire form (`task_id` 0: an aggregate).
    pub fn to_proto(&self) -> TaskStatsDelta {
        let counts = |m: &BTreeMap<String, u64>| m.iter().map(|(k, v)| (k.clone(), *v)).collect();
        let sums = |m: &BTreeMap<String, f64>| m.iter().map(|(k, v)| (k.clone(), *v)).collect();
        TaskStatsDelta {
            task_id: 0,
            emitted: counts(&self.emitted),
            transferred: counts(&self.transferred),
            acked: counts(&self.acked),
            failed: counts(&self.failed),
            executed: counts(&self.executed),
            execute_ms_sum: sums(&self.execute_ms_sum),
            process_ms_sum: sums(&self.process_ms_sum),
            complete_ms_sum: sums(&self.complete_ms_sum),
        }
    }

    /// Total of one map, for summaries (e.g. all acked tuples of a spout).
    pub fn total(map: &BTreeMap<String, u64>) -> u64 {
        map.values().fold(0u64, |a, b| a.saturating_add(*b))
    }
}

/// A fixed ring of buckets covering one window.
#[derive(Debug, Clone)]
struct Ring {
    bucket_secs: u64,
    /// `(bucket number, sums)`; the bucket number is `time / bucket_secs`, and
    /// a slot holding an older number than the one that maps to it is stale.
    slots: Vec<Option<(u64, Counters)>>,
}

impl Ring {
    fn new(spec: WindowSpec) -> Self {
        let n = usize::try_from(spec.secs / spec.bucket_secs)
            .unwrap_or(1)
            .max(1);
        Self {
            bucket_secs: spec.bucket_secs,
            slots: vec![None; n],
        }
    }

    fn len(&self) -> u64 {
        self.slots.len() as u64
    }

    fn add(&mut self, now_secs: u64, delta: &TaskStatsDelta) -> u64 {
        let bucket = now_secs / self.bucket_secs;
        let index = usize::try_from(bucket % self.len()).unwrap_or(0);
        let slot = &mut self.slots[index];
        match slot {
            Some((number, counters)) if *number == bucket => counters.add_delta(delta),
            _ => {
                let mut counters = Counters::default();
                let refused = counters.add_delta(delta);
                *slot = Some((bucket, counters));
                refused
            }
        }
    }

    fn sum_into(&self, now_secs: u64, out: &mut Counters) {
        let current = now_secs / self.bucket_secs;
        let oldest = current.saturating_sub(self.len() - 1);
        for (number, counters) in self.slots.iter().flatten() {
            if (oldest..=current).contains(number) {
                out.merge(counters);
            }
        }
    }
}

#[derive(Debug, Clone)]
struct TaskStats {
    all_time: Counters,
    rings: Vec<Ring>,
}

impl TaskStats {
    fn new() -> Self {
        Self {
            all_time: Counters::default(),
            rings: WINDOWS.iter().map(|w| Ring::new(*w)).collect(),
        }
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StatsError {
    #[error("instance '{0}' is not in the packing plan")]
    UnknownInstance(String),
    #[error("instance '{instance}' reported task {task}, which it does not host")]
    ForeignTask { instance: String, task: i32 },
}

/// Every task's statistics of one topology.
#[derive(Debug)]
pub struct StatsStore {
    tasks: HashMap<i32, TaskStats>,
    /// The instance hosting each task (from the packing plan).
    owner: HashMap<i32, String>,
    instances: HashMap<String, Vec<i32>>,
    /// When the master received each instance's first report (seconds on its clock).
    first_report: HashMap<String, u64>,
    /// Entries refused (over [`MAX_KEYS`], or invalid durations) so far.
    refused: u64,
}

impl StatsStore {
    pub fn new(packing: &PackingPlan) -> Self {
        let mut owner = HashMap::new();
        let mut instances = HashMap::new();
        for instance in packing.containers.iter().flat_map(|c| &c.instances) {
            for task in &instance.task_ids {
                owner.insert(*task, instance.instance_id.clone());
            }
            instances.insert(instance.instance_id.clone(), instance.task_ids.clone());
        }
        Self {
            tasks: HashMap::new(),
            owner,
            instances,
            first_report: HashMap::new(),
            refused: 0,
        }
    }

    /// Adds a report received at `now_secs`. The whole report is refused when
    /// one of its tasks is not the reporting instance's (nothing is added).
    pub fn record(&mut self, report: &StatsReport, now_secs: u64) -> Result<(), StatsError> {
        if !self.instances.contains_key(&report.instance_id) {
            return Err(StatsError::UnknownInstance(report.instance_id.clone()));
        }
        if let Some(delta) = report
            .tasks
            .iter()
            .find(|d| self.owner.get(&d.task_id) != Some(&report.instance_id))
        {
            return Err(StatsError::ForeignTask {
                instance: report.instance_id.clone(),
                task: delta.task_id,
            });
        }
        self.first_report
            .entry(report.instance_id.clone())
            .or_insert(now_secs);
        for delta in &report.tasks {
            let task = self
                .tasks
                .entry(delta.task_id)
                .or_insert_with(TaskStats::new);
            self.refused += task.all_time.add_delta(delta);
            for ring in &mut task.rings {
                // Refusals are the same in every window; count them once.
                ring.add(now_secs, delta);
            }
        }
        Ok(())
    }

    /// Entries refused so far (too many keys, invalid durations).
    pub fn refused(&self) -> u64 {
        self.refused
    }

    /// The sums of `tasks` for every window key, all-time first.
    pub fn windows(&self, tasks: &[i32], now_secs: u64) -> Vec<(&'static str, Counters)> {
        let mut out: Vec<(&'static str, Counters)> =
            window_keys().map(|k| (k, Counters::default())).collect();
        for task in tasks.iter().filter_map(|t| self.tasks.get(t)) {
            out[0].1.merge(&task.all_time);
            for (i, ring) in task.rings.iter().enumerate() {
                ring.sum_into(now_secs, &mut out[i + 1].1);
            }
        }
        out
    }

    /// Every task of the store's packing plan.
    pub fn all_tasks(&self) -> Vec<i32> {
        let mut tasks: Vec<i32> = self.owner.keys().copied().collect();
        tasks.sort_unstable();
        tasks
    }

    /// Whether the instance has reported at least once to this master.
    pub fn has_reported(&self, instance_id: &str) -> bool {
        self.first_report.contains_key(instance_id)
    }

    /// Seconds since the master received the instance's first report (0 before it).
    pub fn uptime_secs(&self, instance_id: &str, now_secs: u64) -> u64 {
        self.first_report
            .get(instance_id)
            .map_or(0, |first| now_secs.saturating_sub(*first))
    }
}

#[cfg(test)]
mod tests {
    use egret_proto::v1::{ContainerPlan, InstancePlan};

    use super::*;

    fn packing() -> PackingPlan {
        let instance = |id: &str, tasks: &[i32]| InstancePlan {
            instance_id: id.into(),
            component: id.split('-').next().unwrap_or_default().into(),
            task_ids: tasks.to_vec(),
            ..Default::default()
        };
        PackingPlan {
            topology_id: "t-1-1".into(),
            containers: vec![ContainerPlan {
                index: 1,
                instances: vec![instance("spout-0", &[3, 4]), instance("count-0", &[1])],
            }],
        }
    }

    fn report(instance: &str, task: i32, acked: u64, latency_ms: f64) -> StatsReport {
        StatsReport {
            timestamp_ms: 0,
            instance_id: instance.into(),
            tasks: vec![TaskStatsDelta {
                task_id: task,
                emitted: [("default".to_owned(), acked * 2)].into(),
                acked: [("default".to_owned(), acked)].into(),
                complete_ms_sum: [("default".to_owned(), latency_ms)].into(),
                ..Default::default()
            }],
        }
    }

    fn acked(store: &StatsStore, tasks: &[i32], now: u64, window: &str) -> u64 {
        let windows = store.windows(tasks, now);
        let (_, counters) = windows.iter().find(|(k, _)| *k == window).unwrap();
        Counters::total(&counters.acked)
    }

    #[test]
    fn counts_are_exact_and_summed_over_tasks() {
        let mut store = StatsStore::new(&packing());
        store.record(&report("spout-0", 3, 10, 50.0), 1).unwrap();
        store.record(&report("spout-0", 4, 5, 25.0), 2).unwrap();
        store.record(&report("spout-0", 3, 7, 14.0), 6).unwrap();
        let windows = store.windows(&[3, 4], 7);
        let keys: Vec<&str> = windows.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, [":all-time", "600", "10800", "86400"]);
        for (_, c) in &windows {
            assert_eq!(c.acked["default"], 22);
            assert_eq!(c.emitted["default"], 44);
            assert!((c.complete_ms_sum["default"] - 89.0).abs() < 1e-9);
        }
        assert_eq!(acked(&store, &[3], 7, ":all-time"), 17);
        assert_eq!(acked(&store, &[1], 7, ":all-time"), 0);
        let proto = windows[0].1.to_proto();
        assert_eq!(proto.acked["default"], 22);
    }

    #[test]
    fn windows_forget_old_buckets_at_their_resolution() {
        let mut store = StatsStore::new(&packing());
        store.record(&report("spout-0", 3, 1, 1.0), 0).unwrap();
        store.record(&report("spout-0", 3, 10, 1.0), 300).unwrap();
        store.record(&report("spout-0", 3, 100, 1.0), 605).unwrap();
        // At 605: bucket 0 (0..10 s) is out of the 600 window (60 buckets: 1..=60).
        assert_eq!(acked(&store, &[3], 605, "600"), 110);
        assert_eq!(acked(&store, &[3], 605, "10800"), 111);
        // The 600 window at 899: buckets 30..=89; 300 s is bucket 30, still in.
        assert_eq!(acked(&store, &[3], 899, "600"), 110);
        assert_eq!(acked(&store, &[3], 900, "600"), 100);
        // 10800 window, 300 s buckets: bucket 0 leaves when bucket 36 starts (10 800 s).
        assert_eq!(acked(&store, &[3], 10_799, "10800"), 111);
        assert_eq!(acked(&store, &[3], 10_800, "10800"), 110);
        // 86400 window, 1800 s buckets: everything until 86 400 s.
        assert_eq!(acked(&store, &[3], 86_399, "86400"), 111);
        assert_eq!(acked(&store, &[3], 86_400, "86400"), 0);
        // All-time never forgets.
        assert_eq!(acked(&store, &[3], 1_000_000, ":all-time"), 111);
        assert_eq!(acked(&store, &[3], 1_000_000, "600"), 0);
    }

    #[test]
    fn a_reused_slot_starts_from_zero() {
        let mut store = StatsStore::new(&packing());
        store.record(&report("spout-0", 3, 5, 1.0), 5).unwrap();
        // 600 s later the same slot (bucket 60 -> slot 0) is reused.
        store.record(&report("spout-0", 3, 7, 1.0), 605).unwrap();
        assert_eq!(acked(&store, &[3], 605, "600"), 7);
        assert_eq!(acked(&store, &[3], 605, "10800"), 12);
    }

    #[test]
    fn reports_of_unknown_or_foreign_tasks_are_refused_whole() {
        let mut store = StatsStore::new(&packing());
        assert_eq!(
            store.record(&report("ghost-0", 3, 1, 1.0), 0),
            Err(StatsError::UnknownInstance("ghost-0".into()))
        );
        let mut mixed = report("spout-0", 3, 1, 1.0);
        mixed
            .tasks
            .push(report("count-0", 1, 1, 1.0).tasks.remove(0));
        assert_eq!(
            store.record(&mixed, 0),
            Err(StatsError::ForeignTask {
                instance: "spout-0".into(),
                task: 1
            })
        );
        assert_eq!(acked(&store, &[1, 3], 0, ":all-time"), 0);
        assert_eq!(store.uptime_secs("spout-0", 10), 0);
    }

    #[test]
    fn keys_are_capped_and_bad_durations_ignored() {
        let mut store = StatsStore::new(&packing());
        let mut delta = TaskStatsDelta {
            task_id: 1,
            ..Default::default()
        };
        for i in 0..MAX_KEYS + 5 {
            delta.executed.insert(format!("s:{i}"), 1);
        }
        delta.execute_ms_sum.insert("s:0".into(), f64::NAN);
        delta.process_ms_sum.insert("s:0".into(), -1.0);
        let report = StatsReport {
            instance_id: "count-0".into(),
            tasks: vec![delta],
            ..Default::default()
        };
        store.record(&report, 0).unwrap();
        assert_eq!(store.refused(), 7);
        let windows = store.windows(&[1], 0);
        assert_eq!(windows[0].1.executed.len(), MAX_KEYS);
        assert!(windows[0].1.execute_ms_sum.is_empty());
    }

    #[test]
    fn uptime_counts_from_the_first_report() {
        let mut store = StatsStore::new(&packing());
        assert_eq!(store.uptime_secs("spout-0", 100), 0);
        assert!(!store.has_reported("spout-0"));
        store.record(&report("spout-0", 3, 1, 1.0), 40).unwrap();
        store.record(&report("spout-0", 3, 1, 1.0), 45).unwrap();
        assert_eq!(store.uptime_secs("spout-0", 100), 60);
        assert!(store.has_reported("spout-0"));
        assert_eq!(store.all_tasks(), vec![1, 3, 4]);
    }
}
