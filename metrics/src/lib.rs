//! Egret's local metrics: a small registry of named values and the snapshot
//! writer that publishes them as `DIR/metrics/<process>.json` (contracts.md,
//! "Metrics snapshots (local)"); the container's metrics manager
//! ([`manager`]) and its Prometheus endpoint ([`http`]).
//!
//! Invariants:
//! - a metric is identified by (name, component, task); its value is a number
//!   (counters and gauges alike; integral values are written as JSON integers);
//! - the registry is cheap to clone (shared) and every operation holds its lock
//!   for a map operation only, so it may be updated from any task or thread;
//! - a snapshot file is always complete: it is written to a temporary file in
//!   the same directory and renamed over the previous one;
//! - [`SnapshotWriter::write_if_due`] writes only when something changed since
//!   the last write and at most once per [`SNAPSHOT_INTERVAL`]; time is passed
//!   in, so the throttling is testable without sleeping.

pub mod file_sink;
pub mod http;
pub mod manager;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use egret_proto::v1::{MetricValue, ProcessMetrics};
use serde::{Deserialize, Serialize, Serializer};

/// The shortest time between two snapshot writes of one process.
pub const SNAPSHOT_INTERVAL: Duration = Duration::from_secs(5);
/// The directory of the snapshots, under the topology dir.
pub const METRICS_DIR: &str = "metrics";

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not a metrics snapshot: {source}")]
    Format {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> MetricsError {
    let path = path.to_owned();
    move |source| MetricsError::Io {
        action,
        path,
        source,
    }
}

/// What identifies a metric within a process.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MetricKey {
    pub name: String,
    pub component: String,
    pub task: i32,
}

impl MetricKey {
    pub fn new(name: impl Into<String>, component: impl Into<String>, task: i32) -> Self {
        Self {
            name: name.into(),
            component: component.into(),
            task,
        }
    }
}

#[derive(Debug, Default)]
struct Inner {
    values: BTreeMap<MetricKey, f64>,
    /// Bumped on every change; the writer compares it with what it wrote.
    version: u64,
}

/// Named counters and gauges of one process.
#[derive(Debug, Clone, Default)]
pub struct Registry {
    inner: Arc<Mutex<Inner>>,
}

impl Registry {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Every critical section is one map operation: a poisoned lock still
        // holds consistent data.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets a gauge (or a counter maintained elsewhere).
    pub fn set(&self, key: MetricKey, value: f64) {
        let mut inner = self.lock();
        let old = inner.values.insert(key, value);
        if old != Some(value) {
            inner.version += 1;
        }
    }

    /// Adds `delta` to a counter (created at 0) and returns the new value.
    pub fn add(&self, key: MetricKey, delta: f64) -> f64 {
        let mut inner = self.lock();
        let value = inner.values.entry(key).or_insert(0.0);
        *value += delta;
        let now = *value;
        inner.version += 1;
        now
    }

    pub fn get(&self, key: &MetricKey) -> Option<f64> {
        self.lock().values.get(key).copied()
    }

    /// The change counter: different whenever a value changed.
    pub fn version(&self) -> u64 {
        self.lock().version
    }

    /// Every metric, sorted by (name, component, task), and the version they belong to.
    pub fn metrics(&self) -> (u64, Vec<Metric>) {
        let inner = self.lock();
        let metrics = inner
            .values
            .iter()
            .map(|(key, &value)| Metric {
                name: key.name.clone(),
                component: key.component.clone(),
                task: key.task,
                value,
            })
            .collect();
        (inner.version, metrics)
    }
}

/// One metric of a snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    pub name: String,
    pub component: String,
    pub task: i32,
    #[serde(serialize_with = "serialize_value")]
    pub value: f64,
}

/// Integral values are written as JSON integers (counters read as counters).
fn serialize_value<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
    if value.fract() == 0.0 && value.abs() < EXACT {
        #[allow(clippy::cast_possible_truncation)]
        serializer.serialize_i64(*value as i64)
    } else if value.is_finite() {
        serializer.serialize_f64(*value)
    } else {
        // JSON has no NaN or infinity.
        serializer.serialize_f64(0.0)
    }
}

/// The content of `DIR/metrics/<process>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub process: String,
    /// Wall-clock time of the write, milliseconds since the Unix epoch.
    pub updated_ms: u64,
    pub metrics: Vec<Metric>,
}

impl Snapshot {
    /// `registry`'s metrics now, as `process`'s snapshot, with the
    /// registry's version they are of.
    pub fn take(process: &str, registry: &Registry) -> (u64, Snapshot) {
        let (version, metrics) = registry.metrics();
        let updated_ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        let snapshot = Snapshot {
            process: process.to_owned(),
            updated_ms,
            metrics,
        };
        (version, snapshot)
    }

    /// The snapshot of `process` in the topology dir, if it has written one.
    pub fn read(topology_dir: &Path, process: &str) -> Result<Option<Snapshot>, MetricsError> {
        let path = snapshot_path(topology_dir, process);
        let text = match std::fs::read(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error("read", &path)(e)),
        };
        serde_json::from_slice(&text)
            .map(Some)
            .map_err(|source| MetricsError::Format { path, source })
    }
}

/// On the wire (a stream manager's `MetricsReport`, the master's answer to
/// `egret metrics`), a snapshot is a `ProcessMetrics`.
impl From<Snapshot> for ProcessMetrics {
    fn from(snapshot: Snapshot) -> Self {
        ProcessMetrics {
            process: snapshot.process,
            updated_ms: snapshot.updated_ms,
            metrics: snapshot
                .metrics
                .into_iter()
                .map(|m| MetricValue {
                    name: m.name,
                    component: m.component,
                    task: m.task,
                    value: m.value,
                })
                .collect(),
        }
    }
}

impl From<ProcessMetrics> for Snapshot {
    fn from(process: ProcessMetrics) -> Self {
        Snapshot {
            process: process.process,
            updated_ms: process.updated_ms,
            metrics: process
                .metrics
                .into_iter()
                .map(|m| Metric {
                    name: m.name,
                    component: m.component,
                    task: m.task,
                    value: m.value,
                })
                .collect(),
        }
    }
}

/// The snapshot file of `process` in the topology dir `topology_dir`.
pub fn snapshot_path(topology_dir: &Path, process: &str) -> PathBuf {
    topology_dir
        .join(METRICS_DIR)
        .join(format!("{process}.json"))
}

/// Writes one process's snapshot file, throttled.
#[derive(Debug)]
pub struct SnapshotWriter {
    process: String,
    path: PathBuf,
    interval: Duration,
    last_write: Option<Instant>,
    written_version: Option<u64>,
}

impl SnapshotWriter {
    /// The writer of `DIR/metrics/<process>.json`.
    pub fn new(topology_dir: &Path, process: &str) -> Self {
        Self::with_interval(topology_dir, process, SNAPSHOT_INTERVAL)
    }

    pub fn with_interval(topology_dir: &Path, process: &str, interval: Duration) -> Self {
        Self {
            process: process.to_owned(),
            path: snapshot_path(topology_dir, process),
            interval,
            last_write: None,
            written_version: None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes when the registry changed since the last write and the last
    /// write is at least the interval old. `Ok(true)` when it wrote.
    pub fn write_if_due(
        &mut self,
        registry: &Registry,
        now: Instant,
    ) -> Result<bool, MetricsError> {
        if self.written_version == Some(registry.version()) {
            return Ok(false);
        }
        if self
            .last_write
            .is_some_and(|last| now.saturating_duration_since(last) < self.interval)
        {
            return Ok(false);
        }
        self.write_now(registry, now)?;
        Ok(true)
    }

    /// Writes now, whatever the throttle says (at shutdown).
    pub fn write_now(&mut self, registry: &Registry, now: Instant) -> Result<(), MetricsError> {
        let (version, snapshot) = Snapshot::take(&self.process, registry);
        write_atomically(&self.path, &snapshot)?;
        self.last_write = Some(now);
        self.written_version = Some(version);
        Ok(())
    }
}

fn write_atomically(path: &Path, snapshot: &Snapshot) -> Result<(), MetricsError> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io_error("create", dir))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A dot name is never read as a snapshot by `read_snapshots`.
    let tmp = dir.join(format!(".{name}.tmp"));
    let mut text = serde_json::to_vec(snapshot).map_err(|source| MetricsError::Format {
        path: path.to_owned(),
        source,
    })?;
    text.push(b'\n');
    std::fs::write(&tmp, &text).map_err(io_error("write", &tmp))?;
    std::fs::rename(&tmp, path).map_err(io_error("rename into place", path))
}

/// Every snapshot under `DIR/metrics/`, sorted by process; empty when the
/// directory does not exist.
pub fn read_snapshots(topology_dir: &Path) -> Result<Vec<Snapshot>, MetricsError> {
    let dir = topology_dir.join(METRICS_DIR);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error("read", &dir)(e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io_error("read", &dir))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !name.ends_with(".json") {
            continue;
        }
        let text = std::fs::read(&path).map_err(io_error("read", &path))?;
        let snapshot: Snapshot =
            serde_json::from_slice(&text).map_err(|source| MetricsError::Format {
                path: path.clone(),
                source,
            })?;
        out.push(snapshot);
    }
    out.sort_by(|a, b| a.process.cmp(&b.process));
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_snapshot_has_the_contract_format() {
        let tmp = tempfile::tempdir().unwrap();
        let registry = Registry::new();
        registry.add(MetricKey::new("__ack-count", "spout", 3), 1200.0);
        registry.set(MetricKey::new("__complete-latency-ms", "spout", 3), 1.5);
        let mut writer = SnapshotWriter::new(tmp.path(), "stmgr-1");
        writer.write_now(&registry, Instant::now()).unwrap();
        let path = tmp.path().join("metrics").join("stmgr-1.json");
        assert_eq!(writer.path(), path);
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(value["process"], "stmgr-1");
        assert!(value["updated_ms"].as_u64().unwrap() > 1_700_000_000_000);
        let metrics = value["metrics"].as_array().unwrap();
        assert_eq!(metrics.len(), 2);
        assert_eq!(
            metrics[0],
            serde_json::json!({"name": "__ack-count", "component": "spout", "task": 3, "value": 1200})
        );
        assert!(metrics[0]["value"].is_u64(), "counters are integers");
        assert_eq!(metrics[1]["value"], 1.5);
        let read = read_snapshots(tmp.path()).unwrap();
        assert_eq!(read.len(), 1);
        assert_eq!(read[0].metrics[0].value, 1200.0);
    }

    #[test]
    fn writes_replace_the_file_atomically() {
        let tmp = tempfile::tempdir().unwrap();
        let registry = Registry::new();
        let key = MetricKey::new("egret.restarts", "container-1", 0);
        let mut writer = SnapshotWriter::with_interval(tmp.path(), "scheduler", Duration::ZERO);
        for i in 1..=3 {
            registry.add(key.clone(), 1.0);
            writer.write_now(&registry, Instant::now()).unwrap();
            let snapshot = &read_snapshots(tmp.path()).unwrap()[0];
            assert_eq!(snapshot.metrics[0].value, f64::from(i));
        }
        // Only the snapshot is left: the temporary file was renamed over it.
        let names: Vec<_> = std::fs::read_dir(tmp.path().join("metrics"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, vec!["scheduler.json"]);
        // A temporary file left by a crash is not read as a snapshot.
        std::fs::write(tmp.path().join("metrics/.x.json.tmp"), b"{").unwrap();
        assert_eq!(read_snapshots(tmp.path()).unwrap().len(), 1);
    }

    #[test]
    fn writes_are_throttled_and_only_on_change() {
        let tmp = tempfile::tempdir().unwrap();
        let registry = Registry::new();
        let key = MetricKey::new("egret.restarts", "tmaster", 0);
        registry.set(key.clone(), 0.0);
        let mut writer = SnapshotWriter::new(tmp.path(), "scheduler");
        let t0 = Instant::now();
        assert!(writer.write_if_due(&registry, t0).unwrap(), "first write");
        assert!(
            !writer
                .write_if_due(&registry, t0 + SNAPSHOT_INTERVAL * 2)
                .unwrap(),
            "nothing changed"
        );
        registry.add(key.clone(), 1.0);
        assert!(
            !writer
                .write_if_due(&registry, t0 + Duration::from_secs(1))
                .unwrap(),
            "changed, but too soon"
        );
        assert_eq!(read_snapshots(tmp.path()).unwrap()[0].metrics[0].value, 0.0);
        assert!(
            writer
                .write_if_due(&registry, t0 + SNAPSHOT_INTERVAL)
                .unwrap()
        );
        assert_eq!(read_snapshots(tmp.path()).unwrap()[0].metrics[0].value, 1.0);
        // Setting the same value is not a change.
        registry.set(key, 1.0);
        assert!(
            !writer
                .write_if_due(&registry, t0 + SNAPSHOT_INTERVAL * 3)
                .unwrap()
        );
    }

    #[test]
    fn no_metrics_dir_means_no_snapshots_and_garbage_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        assert!(read_snapshots(tmp.path()).unwrap().is_empty());
        std::fs::create_dir_all(tmp.path().join("metrics")).unwrap();
        std::fs::write(tmp.path().join("metrics/bad.json"), b"nope").unwrap();
        let err = read_snapshots(tmp.path()).unwrap_err();
        assert!(err.to_string().contains("bad.json"), "{err}");
    }

    #[test]
    fn a_snapshot_is_read_back_and_crosses_the_wire_unchanged() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(Snapshot::read(tmp.path(), "stmgr-1").unwrap(), None);
        let registry = Registry::new();
        registry.set(MetricKey::new("__ack-count", "spout", 3), 12.0);
        registry.set(MetricKey::new("egret.ledger.pending", "__ledger", 0), 0.5);
        SnapshotWriter::new(tmp.path(), "stmgr-1")
            .write_now(&registry, Instant::now())
            .unwrap();
        let read = Snapshot::read(tmp.path(), "stmgr-1").unwrap().unwrap();
        let (_, taken) = Snapshot::take("stmgr-1", &registry);
        assert_eq!(read.metrics, taken.metrics);
        let wire = ProcessMetrics::from(read.clone());
        assert_eq!(wire.process, "stmgr-1");
        assert_eq!(wire.metrics.len(), 2);
        assert_eq!(Snapshot::from(wire), read);
        std::fs::write(snapshot_path(tmp.path(), "broken"), b"{").unwrap();
        let err = Snapshot::read(tmp.path(), "broken")
            .unwrap_err()
            .to_string();
        assert!(err.contains("broken.json"), "{err}");
    }
}
