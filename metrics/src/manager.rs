//! The metrics manager of one container: an isolated task of the container's
//! stream manager (docs/architecture.md, "Metrics and statistics") that
//! collects every instance's exact statistics deltas (`StatsReport`) and the
//! container's own metrics (the stream manager's [`Registry`] and the
//! container supervisor's snapshot), and exports them:
//! - to the topology master, with every heartbeat (done by the stream manager);
//! - to Prometheus: an exposition endpoint ([`crate::http`]), rendered with
//!   the `prometheus-client` crate on each scrape;
//! - to Graphite sinks (plaintext protocol), one task per configured address;
//! - to a rotating file of JSON lines ([`crate::file_sink`]), when enabled.
//!
//! Invariants:
//! - the data path never waits for the manager: reports reach it through a
//!   bounded queue with `try_send` ([`ManagerHandle::offer`]); a full queue
//!   drops the report and counts it (`egret.metrics.dropped.reports`);
//! - labels are bounded: topology, component, task, stream (and `sink` for
//!   the sinks' own counters), never a key or a tuple; components come from
//!   the plan, not from the report; at most [`MAX_STREAMS_PER_TASK`] streams
//!   per task and metric are kept, further ones are refused and counted;
//! - a sink's queue holds at most `egret.metrics.sink.queue.batches` batches;
//!   a batch that does not fit is dropped and counted
//!   (`egret_metrics_sink_dropped_batches_total`), so a slow or dead sink
//!   costs neither the data path's time nor memory;
//! - counters are cumulative since the stream manager started (a restart
//!   starts them at zero, which Prometheus' `rate` handles as a reset).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use egret_proto::v1::StatsReport;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use serde_json::{Map, Value};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use crate::{Metric, Registry};

/// `egret.metrics.prometheus.port`: absent or null: no endpoint; 0: any free
/// port; P: container N listens on P + N.
pub const PROMETHEUS_PORT: &str = "egret.metrics.prometheus.port";
/// `egret.metrics.prometheus.bind`: the IP the endpoint binds (default
/// the stream manager's own bind address).
pub const PROMETHEUS_BIND: &str = "egret.metrics.prometheus.bind";
/// `egret.metrics.graphite.address`: `host:port`, or a list of them (a YAML
/// list or a comma-separated string).
pub const GRAPHITE_ADDRESS: &str = "egret.metrics.graphite.address";
/// `egret.metrics.graphite.prefix`: the first path element (default `egret`).
pub const GRAPHITE_PREFIX: &str = "egret.metrics.graphite.prefix";
/// `egret.metrics.file.enabled`: write every batch to a rotating file of JSON
/// lines (default false; setting `egret.metrics.file.dir` enables it too).
pub const FILE_ENABLED: &str = "egret.metrics.file.enabled";
/// `egret.metrics.file.dir`: the directory of `metrics-<container>.jsonl`
/// (default the container's log directory).
pub const FILE_DIR: &str = "egret.metrics.file.dir";
/// `egret.metrics.file.max.bytes`: a file is rotated before it would grow
/// beyond this (default 10 MiB).
pub const FILE_MAX_BYTES: &str = "egret.metrics.file.max.bytes";
/// `egret.metrics.file.keep`: rotated files kept besides the current one (default 5).
pub const FILE_KEEP: &str = "egret.metrics.file.keep";
pub const DEFAULT_FILE_MAX_BYTES: u64 = 10 * 1024 * 1024;
pub const DEFAULT_FILE_KEEP: usize = 5;
/// At most this many rotated files are kept, whatever `egret.metrics.file.keep` says.
pub const MAX_FILE_KEEP: usize = 100;
/// `egret.metrics.sink.interval.secs`: how often the sinks get a batch (default 10).
pub const SINK_INTERVAL_SECS: &str = "egret.metrics.sink.interval.secs";
/// `egret.metrics.sink.queue.batches`: batches queued per sink at most (default 8).
pub const SINK_QUEUE_BATCHES: &str = "egret.metrics.sink.queue.batches";

pub const DEFAULT_GRAPHITE_PREFIX: &str = "egret";
pub const DEFAULT_SINK_INTERVAL: Duration = Duration::from_secs(10);
pub const DEFAULT_SINK_QUEUE_BATCHES: usize = 8;
/// Reports queued toward the manager at most (one per instance every few seconds).
pub const REPORT_QUEUE: usize = 256;
/// Streams kept per (task, metric); more are refused and counted.
pub const MAX_STREAMS_PER_TASK: usize = 256;
/// A sink write that takes longer fails: the batch is dropped, the connection closed.
pub const SINK_WRITE_TIMEOUT: Duration = Duration::from_secs(5);
pub const SINK_CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// The kernel send buffer asked for a sink's socket: bounded, so a peer that
/// never reads holds at most this much (plus its own receive buffer).
pub const SINK_SEND_BUFFER: u32 = 16 * 1024;

/// The stream manager's counter of reports the manager's queue refused.
pub const DROPPED_REPORTS: &str = "egret.metrics.dropped.reports";
/// The component of the manager's own metrics in the registry.
pub const MANAGER_COMPONENT: &str = "__metrics";

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("{key} must be {expected}, found {found}")]
    Invalid {
        key: &'static str,
        expected: &'static str,
        found: String,
    },
}

fn invalid(key: &'static str, expected: &'static str, found: &Value) -> SettingsError {
    SettingsError::Invalid {
        key,
        expected,
        found: found.to_string(),
    }
}

/// The manager's settings, read once from the topology's merged config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManagerSettings {
    pub prometheus_port: Option<u16>,
    pub prometheus_bind: Option<IpAddr>,
    pub graphite: Vec<String>,
    pub graphite_prefix: String,
    pub sink_interval: Duration,
    pub sink_queue_batches: usize,
    /// The rotating-file sink, when enabled.
    pub file: Option<FileSinkSettings>,
}

/// The rotating-file sink's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSinkSettings {
    /// `None`: the container's log directory.
    pub dir: Option<std::path::PathBuf>,
    pub max_bytes: u64,
    pub keep: usize,
}

impl Default for ManagerSettings {
    fn default() -> Self {
        Self {
            prometheus_port: None,
            prometheus_bind: None,
            graphite: Vec::new(),
            graphite_prefix: DEFAULT_GRAPHITE_PREFIX.to_owned(),
            sink_interval: DEFAULT_SINK_INTERVAL,
            sink_queue_batches: DEFAULT_SINK_QUEUE_BATCHES,
            file: None,
        }
    }
}

fn present<'a>(config: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    config.get(key).filter(|v| !v.is_null())
}

fn positive(config: &Map<String, Value>, key: &'static str) -> Result<Option<u64>, SettingsError> {
    match present(config, key) {
        None => Ok(None),
        Some(v) => match v.as_u64().filter(|&n| n > 0) {
            Some(n) => Ok(Some(n)),
            None => Err(invalid(key, "a positive integer", v)),
        },
    }
}

fn graphite_address(value: &Value) -> Result<String, SettingsError> {
    let expected = "host:port or a list of host:port";
    let Value::String(s) = value else {
        return Err(invalid(GRAPHITE_ADDRESS, expected, value));
    };
    match s.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok_and(|p| p > 0) => {
            Ok(s.clone())
        }
        _ => Err(invalid(GRAPHITE_ADDRESS, expected, value)),
    }
}

fn file_settings(config: &Map<String, Value>) -> Result<Option<FileSinkSettings>, SettingsError> {
    let enabled = match present(config, FILE_ENABLED) {
        None => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(v) => return Err(invalid(FILE_ENABLED, "true or false", v)),
    };
    let dir = match present(config, FILE_DIR) {
        None => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(std::path::PathBuf::from(s)),
        Some(v) => return Err(invalid(FILE_DIR, "a directory path", v)),
    };
    let max_bytes = match positive(config, FILE_MAX_BYTES)? {
        Some(n) => n,
        None => DEFAULT_FILE_MAX_BYTES,
    };
    let keep = match present(config, FILE_KEEP) {
        None => DEFAULT_FILE_KEEP,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= MAX_FILE_KEEP)
            .ok_or_else(|| invalid(FILE_KEEP, "a number of files from 0 to 100", v))?,
    };
    // Enabled by `enabled: true`, or by a directory unless `enabled: false`.
    if enabled.unwrap_or(dir.is_some()) {
        Ok(Some(FileSinkSettings {
            dir,
            max_bytes,
            keep,
        }))
    } else {
        Ok(None)
    }
}

impl ManagerSettings {
    pub fn from_config(config: &Map<String, Value>) -> Result<Self, SettingsError> {
        let mut settings = Self::default();
        if let Some(v) = present(config, PROMETHEUS_PORT) {
            let port = v
                .as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .ok_or_else(|| invalid(PROMETHEUS_PORT, "a port number (0 to 65535)", v))?;
            settings.prometheus_port = Some(port);
        }
        if let Some(v) = present(config, PROMETHEUS_BIND) {
            let ip = v
                .as_str()
                .and_then(|s| s.parse::<IpAddr>().ok())
                .ok_or_else(|| invalid(PROMETHEUS_BIND, "an IP address", v))?;
            settings.prometheus_bind = Some(ip);
        }
        match present(config, GRAPHITE_ADDRESS) {
            None => {}
            Some(Value::Array(items)) => {
                settings.graphite = items
                    .iter()
                    .map(graphite_address)
                    .collect::<Result<_, _>>()?;
            }
            Some(Value::String(s)) => {
                settings.graphite = s
                    .split(',')
                    .map(|a| graphite_address(&Value::String(a.trim().to_owned())))
                    .collect::<Result<_, _>>()?;
            }
            Some(v) => settings.graphite = vec![graphite_address(v)?],
        }
        if let Some(v) = present(config, GRAPHITE_PREFIX) {
            match v.as_str() {
                Some(s) if !s.is_empty() && !s.contains(char::is_whitespace) => {
                    settings.graphite_prefix = s.to_owned();
                }
                _ => {
                    return Err(invalid(
                        GRAPHITE_PREFIX,
                        "a non-empty string without spaces",
                        v,
                    ));
                }
            }
        }
        if let Some(secs) = positive(config, SINK_INTERVAL_SECS)? {
            settings.sink_interval = Duration::from_secs(secs);
        }
        if let Some(n) = positive(config, SINK_QUEUE_BATCHES)? {
            settings.sink_queue_batches = usize::try_from(n).unwrap_or(usize::MAX).min(1024);
        }
        settings.file = file_settings(config)?;
        Ok(settings)
    }

    /// The port container `index` listens on, if any.
    pub fn prometheus_port_of(&self, index: i32) -> Option<u16> {
        let base = self.prometheus_port?;
        if base == 0 {
            return Some(0);
        }
        u16::try_from(i32::from(base) + index).ok()
    }
}

type Labels = Vec<(String, String)>;
type CounterFamily = Family<Labels, Counter<f64, AtomicU64>>;
type GaugeFamily = Family<Labels, Gauge<f64, AtomicU64>>;

/// The statistics of Storm's built-in metrics the manager exports, with their
/// Prometheus names (counters: the exposition adds `_total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stat {
    Emitted,
    Transferred,
    Acked,
    Failed,
    Executed,
    ExecuteMsSum,
    ProcessMsSum,
    CompleteMsSum,
}

impl Stat {
    pub const ALL: [Stat; 8] = [
        Stat::Emitted,
        Stat::Transferred,
        Stat::Acked,
        Stat::Failed,
        Stat::Executed,
        Stat::ExecuteMsSum,
        Stat::ProcessMsSum,
        Stat::CompleteMsSum,
    ];

    /// The metric's name in the exposition (without the counter's `_total`).
    pub fn prometheus_name(self) -> &'static str {
        match self {
            Stat::Emitted => "storm_emitted",
            Stat::Transferred => "storm_transferred",
            Stat::Acked => "storm_acked",
            Stat::Failed => "storm_failed",
            Stat::Executed => "storm_executed",
            Stat::ExecuteMsSum => "storm_execute_latency_ms_sum",
            Stat::ProcessMsSum => "storm_process_latency_ms_sum",
            Stat::CompleteMsSum => "storm_complete_latency_ms_sum",
        }
    }

    /// The last element of its Graphite path.
    pub fn graphite_name(self) -> &'static str {
        match self {
            Stat::Emitted => "emitted",
            Stat::Transferred => "transferred",
            Stat::Acked => "acked",
            Stat::Failed => "failed",
            Stat::Executed => "executed",
            Stat::ExecuteMsSum => "execute_ms_sum",
            Stat::ProcessMsSum => "process_ms_sum",
            Stat::CompleteMsSum => "complete_ms_sum",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Stat::Emitted => "Tuples emitted, by output stream (exact).",
            Stat::Transferred => "Tuples transferred to tasks, by output stream (exact).",
            Stat::Acked => {
                "Tuples acked: spouts by output stream, bolts by input component:stream."
            }
            Stat::Failed => {
                "Tuples failed: spouts by output stream, bolts by input component:stream."
            }
            Stat::Executed => "Tuples executed by a bolt, by input component:stream.",
            Stat::ExecuteMsSum => "Sum of a bolt's execute latencies in ms (divide by executed).",
            Stat::ProcessMsSum => "Sum of a bolt's process latencies in ms (divide by acked).",
            Stat::CompleteMsSum => "Sum of a spout's complete latencies in ms (divide by acked).",
        }
    }
}

/// One stat of one task on one stream.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SeriesKey {
    pub stat: Stat,
    pub component: String,
    pub task: i32,
    pub stream: String,
}

/// Cumulative counters, bounded per task.
#[derive(Debug, Default)]
struct Totals {
    values: BTreeMap<SeriesKey, f64>,
    /// Streams kept per (stat, task).
    streams: HashMap<(Stat, i32), usize>,
    refused: u64,
    unknown_tasks: u64,
}

impl Totals {
    /// Creates the series at 0 if it is not there (bounded as [`Totals::add`]).
    fn declare(&mut self, stat: Stat, component: &str, task: i32, stream: &str) {
        let key = SeriesKey {
            stat,
            component: component.to_owned(),
            task,
            stream: stream.to_owned(),
        };
        if !self.values.contains_key(&key) {
            self.add(key, 0.0);
        }
    }

    fn add(&mut self, key: SeriesKey, delta: f64) {
        if let Some(v) = self.values.get_mut(&key) {
            *v += delta;
            return;
        }
        let kept = self.streams.entry((key.stat, key.task)).or_insert(0);
        if *kept >= MAX_STREAMS_PER_TASK {
            self.refused += 1;
            return;
        }
        *kept += 1;
        self.values.insert(key, delta);
    }
}

/// Counters of one sink.
#[derive(Debug, Default)]
pub struct SinkCounters {
    pub sent_batches: AtomicU64,
    pub dropped_batches: AtomicU64,
    pub dropped_points: AtomicU64,
    pub write_failures: AtomicU64,
}

/// What a sink's batches are made of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Graphite,
    JsonLines,
}

struct Sink {
    name: String,
    format: Format,
    tx: mpsc::Sender<Arc<Batch>>,
    capacity: usize,
    counters: Arc<SinkCounters>,
}

/// One export of every metric, as Graphite lines.
#[derive(Debug)]
pub struct Batch {
    pub text: String,
    pub points: u64,
}

struct Inner {
    topology: String,
    index: i32,
    /// Task id to component, from the plan.
    tasks: HashMap<i32, String>,
    /// The spout components (their acks are trees, by output stream).
    spouts: std::collections::HashSet<String>,
    totals: Mutex<Totals>,
    /// The stream manager's registry.
    registry: Registry,
    /// Reads the container supervisor's metrics (its snapshot), if any.
    extra: Box<dyn Fn() -> Vec<Metric> + Send + Sync>,
    sinks: Mutex<Vec<Sink>>,
    dropped_reports: AtomicU64,
}

/// The metrics manager: cheap to clone.
#[derive(Clone)]
pub struct MetricsManager {
    inner: Arc<Inner>,
}

/// What the data path holds: offers reports without waiting.
#[derive(Clone)]
pub struct ManagerHandle {
    tx: mpsc::Sender<StatsReport>,
    inner: Arc<Inner>,
}

impl ManagerHandle {
    /// Queues an instance's report for the manager; drops and counts it when
    /// the queue is full. Never waits.
    pub fn offer(&self, report: StatsReport) {
        if self.tx.try_send(report).is_err() {
            let n = self.inner.dropped_reports.fetch_add(1, Ordering::Relaxed) + 1;
            self.inner.registry.set(
                crate::MetricKey::new(DROPPED_REPORTS, MANAGER_COMPONENT, 0),
                n as f64,
            );
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section is a map operation: a poisoned lock holds consistent data.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

impl MetricsManager {
    /// The manager of container `index` of `topology`, its tasks' components
    /// `tasks`, its stream manager's `registry`, and `extra`, which reads the
    /// container supervisor's metrics on each export.
    pub fn new(
        topology: &str,
        index: i32,
        tasks: HashMap<i32, String>,
        spouts: std::collections::HashSet<String>,
        registry: Registry,
        extra: Box<dyn Fn() -> Vec<Metric> + Send + Sync>,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                topology: topology.to_owned(),
                index,
                tasks,
                spouts,
                totals: Mutex::new(Totals::default()),
                registry,
                extra,
                sinks: Mutex::new(Vec::new()),
                dropped_reports: AtomicU64::new(0),
            }),
        }
    }

    /// Starts the manager's task (applies the queued reports) and returns the
    /// handle the data path offers reports to. Call within a Tokio runtime.
    pub fn start(&self) -> (ManagerHandle, tokio::task::JoinHandle<()>) {
        let (tx, mut rx) = mpsc::channel::<StatsReport>(REPORT_QUEUE);
        let manager = self.clone();
        let task = tokio::spawn(async move {
            while let Some(report) = rx.recv().await {
                manager.record(&report);
            }
        });
        (
            ManagerHandle {
                tx,
                inner: Arc::clone(&self.inner),
            },
            task,
        )
    }

    /// Adds a report's deltas to the totals.
    pub fn record(&self, report: &StatsReport) {
        let mut totals = lock(&self.inner.totals);
        for task in &report.tasks {
            let Some(component) = self.inner.tasks.get(&task.task_id) else {
                totals.unknown_tasks += 1;
                continue;
            };
            let counts = [
                (Stat::Emitted, &task.emitted),
                (Stat::Transferred, &task.transferred),
                (Stat::Acked, &task.acked),
                (Stat::Failed, &task.failed),
                (Stat::Executed, &task.executed),
            ];
            for (stat, map) in counts {
                for (stream, &n) in map {
                    let key = SeriesKey {
                        stat,
                        component: component.clone(),
                        task: task.task_id,
                        stream: stream.clone(),
                    };
                    totals.add(key, n as f64);
                }
            }
            // Every stat that applies to a stream the task reported exists,
            // at 0 until it happens (a `failed` that never did), so that
            // dashboards and alerts find the series.
            let outputs: Vec<&String> =
                task.emitted.keys().chain(task.transferred.keys()).collect();
            if self.inner.spouts.contains(component) {
                for stream in outputs
                    .into_iter()
                    .chain(task.acked.keys())
                    .chain(task.failed.keys())
                {
                    for stat in [
                        Stat::Emitted,
                        Stat::Transferred,
                        Stat::Acked,
                        Stat::Failed,
                        Stat::CompleteMsSum,
                    ] {
                        totals.declare(stat, component, task.task_id, stream);
                    }
                }
            } else {
                for stream in outputs {
                    for stat in [Stat::Emitted, Stat::Transferred] {
                        totals.declare(stat, component, task.task_id, stream);
                    }
                }
                let inputs = task
                    .executed
                    .keys()
                    .chain(task.acked.keys())
                    .chain(task.failed.keys());
                for input in inputs {
                    for stat in [
                        Stat::Acked,
                        Stat::Failed,
                        Stat::Executed,
                        Stat::ExecuteMsSum,
                        Stat::ProcessMsSum,
                    ] {
                        totals.declare(stat, component, task.task_id, input);
                    }
                }
            }
            let sums = [
                (Stat::ExecuteMsSum, &task.execute_ms_sum),
                (Stat::ProcessMsSum, &task.process_ms_sum),
                (Stat::CompleteMsSum, &task.complete_ms_sum),
            ];
            for (stat, map) in sums {
                for (stream, &ms) in map {
                    if !ms.is_finite() || ms < 0.0 {
                        continue;
                    }
                    let key = SeriesKey {
                        stat,
                        component: component.clone(),
                        task: task.task_id,
                        stream: stream.clone(),
                    };
                    totals.add(key, ms);
                }
            }
        }
    }

    /// The cumulative value of one series.
    pub fn total(&self, key: &SeriesKey) -> Option<f64> {
        lock(&self.inner.totals).values.get(key).copied()
    }

    /// The container's own metrics: the stream manager's and the supervisor's.
    fn process_metrics(&self) -> Vec<Metric> {
        let (_, mut metrics) = self.inner.registry.metrics();
        metrics.extend((self.inner.extra)());
        metrics
    }

    /// The Prometheus exposition (OpenMetrics text) of every metric now.
    pub fn render_prometheus(&self) -> String {
        let mut registry = prometheus_client::registry::Registry::default();
        let topology = self.inner.topology.clone();
        let labels = |component: &str, task: i32, stream: Option<&str>| {
            let mut l = vec![
                ("topology".to_owned(), topology.clone()),
                ("component".to_owned(), component.to_owned()),
                ("task".to_owned(), task.to_string()),
            ];
            if let Some(stream) = stream {
                l.push(("stream".to_owned(), stream.to_owned()));
            }
            l
        };
        {
            let totals = lock(&self.inner.totals);
            for stat in Stat::ALL {
                let family = CounterFamily::default();
                for (key, value) in totals.values.iter().filter(|(k, _)| k.stat == stat) {
                    family
                        .get_or_create(&labels(&key.component, key.task, Some(&key.stream)))
                        .inc_by(*value);
                }
                // Declared even before its first sample (a `failed` that
                // never happened), so dashboards find every family.
                registry.register(stat.prometheus_name(), stat.help(), family);
            }
            let refused = CounterFamily::default();
            refused
                .get_or_create(&vec![("topology".to_owned(), topology.clone())])
                .inc_by(totals.refused as f64);
            registry.register(
                "egret_metrics_series_refused",
                "Series refused because a task reported too many streams.",
                refused,
            );
        }
        // The container's own metrics: gauges (each is the value last set).
        let mut own: BTreeMap<String, GaugeFamily> = BTreeMap::new();
        for metric in self.process_metrics() {
            let name = prometheus_name(&metric.name);
            own.entry(name)
                .or_default()
                .get_or_create(&labels(&metric.component, metric.task, None))
                .set(metric.value);
        }
        for (name, family) in own {
            registry.register(name, "Egret's own metric of this container.", family);
        }
        let sinks = CounterFamily::default();
        let dropped = CounterFamily::default();
        let queued = GaugeFamily::default();
        for sink in lock(&self.inner.sinks).iter() {
            let l = vec![
                ("topology".to_owned(), topology.clone()),
                ("sink".to_owned(), sink.name.clone()),
            ];
            sinks
                .get_or_create(&l)
                .inc_by(sink.counters.sent_batches.load(Ordering::Relaxed) as f64);
            dropped
                .get_or_create(&l)
                .inc_by(sink.counters.dropped_batches.load(Ordering::Relaxed) as f64);
            queued
                .get_or_create(&l)
                .set((sink.capacity - sink.tx.capacity()) as f64);
        }
        registry.register(
            "egret_metrics_sink_sent_batches",
            "Batches a sink wrote.",
            sinks,
        );
        registry.register(
            "egret_metrics_sink_dropped_batches",
            "Batches dropped for a sink: its queue was full, or it failed to take them.",
            dropped,
        );
        registry.register(
            "egret_metrics_sink_queued_batches",
            "Batches waiting in a sink's bounded queue.",
            queued,
        );
        let mut out = String::new();
        // Writing to a String does not fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
        out
    }

    /// Every metric now as Graphite plaintext lines, `timestamp` in Unix seconds.
    pub fn render_graphite(&self, prefix: &str, timestamp: u64) -> Batch {
        let mut text = String::new();
        let mut points = 0u64;
        let topology = graphite_part(&self.inner.topology);
        {
            let totals = lock(&self.inner.totals);
            for (key, value) in &totals.values {
                let _ = writeln!(
                    text,
                    "{prefix}.{topology}.{}.{}.{}.{} {} {timestamp}",
                    graphite_part(&key.component),
                    key.task,
                    key.stat.graphite_name(),
                    graphite_part(&key.stream),
                    number(*value),
                );
                points += 1;
            }
        }
        for metric in self.process_metrics() {
            let _ = writeln!(
                text,
                "{prefix}.{topology}.{}.{}.{} {} {timestamp}",
                graphite_part(&metric.component),
                metric.task,
                graphite_part(&metric.name),
                number(metric.value),
            );
            points += 1;
        }
        Batch { text, points }
    }

    /// Starts one Graphite sink writing to `address` (`host:port`), with a
    /// queue of `queue` batches.
    pub fn start_graphite(&self, address: &str, queue: usize) {
        let (tx, rx) = mpsc::channel(queue.max(1));
        let counters = Arc::new(SinkCounters::default());
        lock(&self.inner.sinks).push(Sink {
            name: format!("graphite:{address}"),
            format: Format::Graphite,
            tx,
            capacity: queue.max(1),
            counters: Arc::clone(&counters),
        });
        tokio::spawn(graphite_writer(address.to_owned(), rx, counters));
    }

    /// Every metric now as JSON lines, one per sample, `timestamp` in Unix
    /// seconds: `{"ts", "topology", "component", "task", "metric", "stream",
    /// "value"}` for the statistics (`metric` as in Graphite's paths, e.g.
    /// `executed`), without `stream` for the container's own metrics.
    pub fn render_json_lines(&self, timestamp: u64) -> Batch {
        let mut text = String::new();
        let mut points = 0u64;
        let topology = &self.inner.topology;
        {
            let totals = lock(&self.inner.totals);
            for (key, value) in &totals.values {
                let line = serde_json::json!({
                    "ts": timestamp,
                    "topology": topology,
                    "component": key.component,
                    "task": key.task,
                    "metric": key.stat.graphite_name(),
                    "stream": key.stream,
                    "value": json_number(*value),
                });
                let _ = writeln!(text, "{line}");
                points += 1;
            }
        }
        for metric in self.process_metrics() {
            let line = serde_json::json!({
                "ts": timestamp,
                "topology": topology,
                "component": metric.component,
                "task": metric.task,
                "metric": metric.name,
                "value": json_number(metric.value),
            });
            let _ = writeln!(text, "{line}");
            points += 1;
        }
        Batch { text, points }
    }

    /// Starts the rotating-file sink writing `target`, with a queue of `queue` batches.
    pub fn start_file(
        &self,
        target: crate::file_sink::FileTarget,
        queue: usize,
    ) -> std::io::Result<()> {
        let (tx, rx) = mpsc::channel(queue.max(1));
        let counters = Arc::new(SinkCounters::default());
        let name = format!("file:{}", target.path.display());
        crate::file_sink::spawn_writer(target, rx, Arc::clone(&counters))?;
        lock(&self.inner.sinks).push(Sink {
            name,
            format: Format::JsonLines,
            tx,
            capacity: queue.max(1),
            counters,
        });
        Ok(())
    }

    /// Queues one batch for every sink now; a full queue drops and counts it.
    pub fn export_to_sinks(&self, prefix: &str) {
        let sinks = lock(&self.inner.sinks);
        if sinks.is_empty() {
            return;
        }
        let now = unix_secs();
        let mut graphite = None;
        let mut json = None;
        for sink in sinks.iter() {
            let batch = match sink.format {
                Format::Graphite => graphite
                    .get_or_insert_with(|| Arc::new(self.render_graphite(prefix, now)))
                    .clone(),
                Format::JsonLines => json
                    .get_or_insert_with(|| Arc::new(self.render_json_lines(now)))
                    .clone(),
            };
            if sink.tx.try_send(Arc::clone(&batch)).is_err() {
                sink.counters
                    .dropped_batches
                    .fetch_add(1, Ordering::Relaxed);
                sink.counters
                    .dropped_points
                    .fetch_add(batch.points, Ordering::Relaxed);
            }
        }
    }

    /// Runs the sinks: [`Self::start_graphite`] for each configured address
    /// and the file sink when enabled (in `log_dir` unless its settings name
    /// a directory), then a batch every `settings.sink_interval`, until the
    /// task is aborted.
    pub fn spawn_sinks(
        &self,
        settings: &ManagerSettings,
        log_dir: &std::path::Path,
    ) -> std::io::Result<Option<tokio::task::JoinHandle<()>>> {
        if settings.graphite.is_empty() && settings.file.is_none() {
            return Ok(None);
        }
        for address in &settings.graphite {
            self.start_graphite(address, settings.sink_queue_batches);
        }
        if let Some(file) = &settings.file {
            let dir = file.dir.as_deref().unwrap_or(log_dir);
            let target = crate::file_sink::FileTarget {
                path: crate::file_sink::file_of(dir, self.inner.index),
                max_bytes: file.max_bytes,
                keep: file.keep,
            };
            tracing::info!(
                container = self.inner.index,
                path = %target.path.display(),
                max_bytes = target.max_bytes,
                keep = target.keep,
                "Metrics manager: file sink started."
            );
            self.start_file(target, settings.sink_queue_batches)?;
        }
        tracing::info!(
            container = self.inner.index,
            sinks = ?settings.graphite,
            interval_secs = settings.sink_interval.as_secs(),
            queue_batches = settings.sink_queue_batches,
            "Metrics manager: sinks started."
        );
        let manager = self.clone();
        let prefix = settings.graphite_prefix.clone();
        let period = settings.sink_interval;
        Ok(Some(tokio::spawn(async move {
            let mut tick = tokio::time::interval(period);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                manager.export_to_sinks(&prefix);
            }
        })))
    }

    /// The counters of sink `name` (`graphite:host:port`).
    pub fn sink_counters(&self, name: &str) -> Option<Arc<SinkCounters>> {
        lock(&self.inner.sinks)
            .iter()
            .find(|s| s.name == name)
            .map(|s| Arc::clone(&s.counters))
    }
}

/// A Prometheus metric name from an Egret or Storm one: `__ack-count` is
/// `storm_ack_count`, `egret.ledger.pending` is `egret_ledger_pending`.
pub fn prometheus_name(name: &str) -> String {
    let (prefix, rest) = match name.strip_prefix("__") {
        Some(rest) => ("storm_", rest),
        None => ("", name),
    };
    let mut out = String::with_capacity(prefix.len() + rest.len());
    out.push_str(prefix);
    for c in rest.chars() {
        out.push(if c.is_ascii_alphanumeric() || c == '_' {
            c
        } else {
            '_'
        });
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    out
}

/// One element of a Graphite path: dots, spaces and slashes become `_`.
fn graphite_part(s: &str) -> String {
    let part: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if part.is_empty() {
        "_".to_owned()
    } else {
        part
    }
}

/// A JSON number: integers without a fraction, non-finite values as 0.
fn json_number(v: f64) -> Value {
    if !v.is_finite() {
        return Value::from(0);
    }
    if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
        #[allow(clippy::cast_possible_truncation)]
        let i = v as i64;
        Value::from(i)
    } else {
        Value::from(v)
    }
}

fn number(v: f64) -> String {
    if v.is_finite() {
        if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
            #[allow(clippy::cast_possible_truncation)]
            let i = v as i64;
            i.to_string()
        } else {
            v.to_string()
        }
    } else {
        "0".to_owned()
    }
}

async fn connect(address: &str) -> std::io::Result<tokio::net::TcpStream> {
    let addrs: Vec<std::net::SocketAddr> = tokio::net::lookup_host(address).await?.collect();
    let mut last = std::io::Error::new(
        std::io::ErrorKind::NotFound,
        format!("{address} resolves to no address"),
    );
    for addr in addrs {
        let socket = if addr.is_ipv4() {
            tokio::net::TcpSocket::new_v4()?
        } else {
            tokio::net::TcpSocket::new_v6()?
        };
        socket.set_send_buffer_size(SINK_SEND_BUFFER)?;
        match tokio::time::timeout(SINK_CONNECT_TIMEOUT, socket.connect(addr)).await {
            Ok(Ok(stream)) => return Ok(stream),
            Ok(Err(e)) => last = e,
            Err(_) => {
                last = std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("connecting to {addr} timed out"),
                );
            }
        }
    }
    Err(last)
}

/// Writes the batches of one Graphite sink; a batch it cannot write in time
/// (no connection, a write that fails or stalls) is dropped and counted.
async fn graphite_writer(
    address: String,
    mut rx: mpsc::Receiver<Arc<Batch>>,
    counters: Arc<SinkCounters>,
) {
    let mut stream: Option<tokio::net::TcpStream> = None;
    let mut warned = 0u64;
    while let Some(batch) = rx.recv().await {
        if stream.is_none() {
            match connect(&address).await {
                Ok(s) => stream = Some(s),
                Err(e) => {
                    failed(&counters, &batch, &address, &e.to_string(), &mut warned);
                    continue;
                }
            }
        }
        let Some(s) = stream.as_mut() else { continue };
        let result =
            tokio::time::timeout(SINK_WRITE_TIMEOUT, s.write_all(batch.text.as_bytes())).await;
        match result {
            Ok(Ok(())) => {
                counters.sent_batches.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Err(e)) => {
                stream = None;
                failed(&counters, &batch, &address, &e.to_string(), &mut warned);
            }
            Err(_) => {
                // The peer does not read: give up this connection.
                stream = None;
                failed(
                    &counters,
                    &batch,
                    &address,
                    "the write timed out",
                    &mut warned,
                );
            }
        }
    }
}

fn failed(counters: &SinkCounters, batch: &Batch, address: &str, why: &str, warned: &mut u64) {
    counters.write_failures.fetch_add(1, Ordering::Relaxed);
    let n = counters.dropped_batches.fetch_add(1, Ordering::Relaxed) + 1;
    counters
        .dropped_points
        .fetch_add(batch.points, Ordering::Relaxed);
    // Once per power of two: visible without flooding the log.
    if n.is_power_of_two() && n > *warned {
        *warned = n;
        tracing::warn!(sink = %address, dropped_batches = n, error = %why, "Graphite sink: dropping metrics.");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;
    use egret_proto::v1::TaskStatsDelta;
    use serde_json::json;

    fn manager() -> MetricsManager {
        let tasks = HashMap::from([(1, "words".to_owned()), (2, "count".to_owned())]);
        let registry = Registry::new();
        registry.set(crate::MetricKey::new("__ack-count", "words", 1), 7.0);
        registry.set(
            crate::MetricKey::new("egret.ledger.pending", "__ledger", 0),
            0.0,
        );
        MetricsManager::new(
            "wc",
            1,
            tasks,
            std::collections::HashSet::from(["words".to_owned()]),
            registry,
            Box::new(|| {
                vec![Metric {
                    name: "egret.restarts".into(),
                    component: "count-0".into(),
                    task: 0,
                    value: 2.0,
                }]
            }),
        )
    }

    fn report(task: i32, stream: &str, n: u64) -> StatsReport {
        StatsReport {
            timestamp_ms: 0,
            instance_id: "x".into(),
            tasks: vec![TaskStatsDelta {
                task_id: task,
                emitted: HashMap::from([(stream.to_owned(), n)]),
                executed: HashMap::from([(format!("up:{stream}"), n)]),
                execute_ms_sum: HashMap::from([(format!("up:{stream}"), 0.5)]),
                ..Default::default()
            }],
        }
    }

    #[test]
    fn settings_are_read_and_bad_ones_named() {
        assert_eq!(
            ManagerSettings::from_config(&Map::new()).unwrap(),
            ManagerSettings::default()
        );
        let config = json!({
            PROMETHEUS_PORT: 9400,
            GRAPHITE_ADDRESS: ["localhost:2003", "10.0.0.1:2004"],
            SINK_INTERVAL_SECS: 1,
            SINK_QUEUE_BATCHES: 2,
            GRAPHITE_PREFIX: "team.storm",
        });
        let s = ManagerSettings::from_config(config.as_object().unwrap()).unwrap();
        assert_eq!(s.prometheus_port_of(2), Some(9402));
        assert_eq!(s.graphite, vec!["localhost:2003", "10.0.0.1:2004"]);
        assert_eq!(s.sink_interval, Duration::from_secs(1));
        assert_eq!(s.sink_queue_batches, 2);
        assert_eq!(s.graphite_prefix, "team.storm");
        let listed = json!({ GRAPHITE_ADDRESS: "a:1, b:2" });
        let s = ManagerSettings::from_config(listed.as_object().unwrap()).unwrap();
        assert_eq!(s.graphite, vec!["a:1", "b:2"]);
        let zero = json!({ PROMETHEUS_PORT: 0 });
        let s = ManagerSettings::from_config(zero.as_object().unwrap()).unwrap();
        assert_eq!(s.prometheus_port_of(5), Some(0));
        for (key, bad) in [
            (PROMETHEUS_PORT, json!(70000)),
            (PROMETHEUS_PORT, json!("x")),
            (GRAPHITE_ADDRESS, json!("nohostport")),
            (GRAPHITE_ADDRESS, json!(["a:1", "b:0"])),
            (GRAPHITE_ADDRESS, json!("a:1,")),
            (GRAPHITE_ADDRESS, json!(7)),
            (SINK_INTERVAL_SECS, json!(0)),
            (PROMETHEUS_BIND, json!("not-an-ip")),
        ] {
            let mut config = Map::new();
            config.insert(key.to_owned(), bad.clone());
            let err = ManagerSettings::from_config(&config)
                .unwrap_err()
                .to_string();
            assert!(err.contains(key), "{key}={bad}: {err}");
        }
    }

    #[test]
    fn prometheus_exposition_parses_with_exact_totals_and_bounded_labels() {
        let m = manager();
        m.record(&report(1, "default", 3));
        m.record(&report(1, "default", 4));
        m.record(&report(99, "default", 4)); // not a task of the plan: ignored
        let text = m.render_prometheus();
        let scrape =
            prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_owned()))).unwrap();
        let value = |metric: &str, want: &[(&str, &str)]| {
            scrape
                .samples
                .iter()
                .filter(|s| s.metric == metric)
                .find(|s| want.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
                .map(|s| match s.value {
                    prometheus_parse::Value::Counter(v)
                    | prometheus_parse::Value::Gauge(v)
                    | prometheus_parse::Value::Untyped(v) => v,
                    _ => f64::NAN,
                })
        };
        let labels = [
            ("topology", "wc"),
            ("component", "words"),
            ("task", "1"),
            ("stream", "default"),
        ];
        assert_eq!(value("storm_emitted_total", &labels), Some(7.0), "{text}");
        assert_eq!(
            value(
                "storm_executed_total",
                &[("component", "words"), ("stream", "up:default")]
            ),
            Some(7.0)
        );
        assert_eq!(
            value("storm_execute_latency_ms_sum_total", &[("task", "1")]),
            Some(1.0)
        );
        assert_eq!(
            value("storm_ack_count", &[("component", "words")]),
            Some(7.0)
        );
        assert_eq!(
            value("egret_restarts", &[("component", "count-0")]),
            Some(2.0)
        );
        assert_eq!(value("egret_ledger_pending", &[]), Some(0.0));
        for sample in &scrape.samples {
            let names: Vec<&str> = sample.labels.keys().map(String::as_str).collect();
            assert!(
                names
                    .iter()
                    .all(|n| ["topology", "component", "task", "stream", "sink"].contains(n)),
                "{}: {names:?}",
                sample.metric
            );
        }
        assert!(!text.contains("\"99\""), "{text}");
    }

    #[test]
    fn streams_per_task_are_bounded() {
        let m = manager();
        for i in 0..(MAX_STREAMS_PER_TASK + 10) {
            m.record(&report(2, &format!("s{i}"), 1));
        }
        let totals = lock(&m.inner.totals);
        let emitted = totals
            .values
            .keys()
            .filter(|k| k.stat == Stat::Emitted)
            .count();
        assert_eq!(emitted, MAX_STREAMS_PER_TASK);
        // Each of the 10 extra streams: its 3 deltas and 7 zero series.
        assert_eq!(totals.refused, 100);
    }

    #[test]
    fn graphite_lines_follow_the_plaintext_protocol() {
        let m = manager();
        m.record(&report(1, "default", 5));
        let batch = m.render_graphite("egret", 1_700_000_000);
        assert!(
            batch
                .text
                .contains("egret.wc.words.1.emitted.default 5 1700000000\n"),
            "{}",
            batch.text
        );
        assert!(
            batch
                .text
                .contains("egret.wc.words.1.executed.up_default 5 1700000000\n")
        );
        assert!(
            batch
                .text
                .contains("egret.wc.words.1.__ack-count 7 1700000000\n")
        );
        for line in batch.text.lines() {
            let parts: Vec<&str> = line.split(' ').collect();
            assert_eq!(parts.len(), 3, "{line}");
            assert!(parts[1].parse::<f64>().is_ok(), "{line}");
        }
        assert_eq!(batch.points, batch.text.lines().count() as u64);
    }

    #[tokio::test]
    async fn a_dead_sink_drops_and_counts_and_its_queue_stays_bounded() {
        // A port nothing listens on: bind, learn the port, close.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let m = manager();
        let address = format!("127.0.0.1:{port}");
        m.start_graphite(&address, 2);
        let counters = m.sink_counters(&format!("graphite:{address}")).unwrap();
        for _ in 0..50 {
            m.export_to_sinks("egret");
        }
        // Whatever the writer took, every batch is either dropped or pending.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while counters.dropped_batches.load(Ordering::Relaxed) < 50 {
            assert!(
                tokio::time::Instant::now() < deadline,
                "drops: {counters:?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(counters.sent_batches.load(Ordering::Relaxed), 0);
        let text = m.render_prometheus();
        assert!(
            text.contains(&format!(
                "egret_metrics_sink_dropped_batches_total{{topology=\"wc\",sink=\"graphite:{address}\"}} 50"
            )),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_live_sink_gets_the_lines() {
        use tokio::io::AsyncReadExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap().to_string();
        let m = manager();
        m.record(&report(1, "default", 5));
        m.start_graphite(&address, 4);
        m.export_to_sinks("p");
        let (mut conn, _) = listener.accept().await.unwrap();
        let mut got = Vec::new();
        while !String::from_utf8_lossy(&got).contains("p.wc.words.1.emitted.default 5 ") {
            let mut buf = [0u8; 4096];
            let n = tokio::time::timeout(Duration::from_secs(10), conn.read(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&got));
            got.extend_from_slice(&buf[..n]);
        }
    }

    #[test]
    fn file_sink_settings_are_read_and_bad_values_refused_naming_the_key() {
        let cfg = |v: serde_json::Value| v.as_object().unwrap().clone();
        assert_eq!(
            ManagerSettings::from_config(&cfg(json!({}))).unwrap().file,
            None
        );
        let on = ManagerSettings::from_config(&cfg(json!({FILE_ENABLED: true})))
            .unwrap()
            .file
            .unwrap();
        assert_eq!(
            on,
            FileSinkSettings {
                dir: None,
                max_bytes: DEFAULT_FILE_MAX_BYTES,
                keep: DEFAULT_FILE_KEEP
            }
        );
        let dir = ManagerSettings::from_config(&cfg(json!({
            FILE_DIR: "/var/egret", FILE_MAX_BYTES: 4096, FILE_KEEP: 0
        })))
        .unwrap()
        .file
        .unwrap();
        assert_eq!(dir.dir.as_deref(), Some(std::path::Path::new("/var/egret")));
        assert_eq!((dir.max_bytes, dir.keep), (4096, 0));
        let off = ManagerSettings::from_config(&cfg(json!({FILE_DIR: "/x", FILE_ENABLED: false})));
        assert_eq!(off.unwrap().file, None);
        for (key, value) in [
            (FILE_ENABLED, json!("yes")),
            (FILE_DIR, json!("")),
            (FILE_MAX_BYTES, json!(0)),
            (FILE_KEEP, json!(101)),
            (FILE_KEEP, json!(-1)),
        ] {
            let mut config = cfg(json!({FILE_ENABLED: true}));
            config.insert(key.to_owned(), value);
            let err = ManagerSettings::from_config(&config)
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert!(err.contains(key), "{key}: {err}");
        }
    }

    #[test]
    fn json_lines_carry_every_sample_with_its_exact_value() {
        let m = manager();
        m.record(&report(1, "default", 5));
        m.record(&report(1, "default", 3));
        let batch = m.render_json_lines(1_700_000_000);
        let lines: Vec<serde_json::Value> = batch
            .text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(batch.points, lines.len() as u64);
        assert!(
            lines.contains(&json!({
                "ts": 1_700_000_000u64, "topology": "wc", "component": "words", "task": 1,
                "metric": "emitted", "stream": "default", "value": 8
            })),
            "{}",
            batch.text
        );
        // 0.5 + 0.5 ms: a whole number is written without a fraction.
        assert!(
            lines.contains(&json!({
                "ts": 1_700_000_000u64, "topology": "wc", "component": "words", "task": 1,
                "metric": "execute_ms_sum", "stream": "up:default", "value": 1
            })),
            "{}",
            batch.text
        );
        assert!(
            lines.contains(&json!({
                "ts": 1_700_000_000u64, "topology": "wc", "component": "count-0", "task": 0,
                "metric": "egret.restarts", "value": 2
            })),
            "{}",
            batch.text
        );
    }

    #[tokio::test]
    async fn a_file_sink_writes_the_lines_and_a_stuck_one_drops_with_a_bounded_queue() {
        let dir = tempfile::tempdir().unwrap();
        let m = manager();
        m.record(&report(1, "default", 5));
        let path = crate::file_sink::file_of(dir.path(), 1);
        m.start_file(
            crate::file_sink::FileTarget {
                path: path.clone(),
                max_bytes: 1 << 20,
                keep: 1,
            },
            2,
        )
        .unwrap();
        m.export_to_sinks("egret");
        let counters = m
            .sink_counters(&format!("file:{}", path.display()))
            .unwrap();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while counters.sent_batches.load(Ordering::Relaxed) < 1 {
            assert!(tokio::time::Instant::now() < deadline, "{counters:?}");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.lines()
                .any(|l| l.contains("\"metric\":\"emitted\"") && l.contains("\"value\":5")),
            "{text}"
        );

        // A FIFO nobody reads: the writer blocks opening it, as on a stalled disk.
        let stuck_path = crate::file_sink::file_of(dir.path(), 2);
        let status = std::process::Command::new("mkfifo")
            .arg(&stuck_path)
            .status()
            .unwrap();
        assert!(status.success());
        let stuck = manager();
        stuck
            .start_file(
                crate::file_sink::FileTarget {
                    path: stuck_path.clone(),
                    max_bytes: 1 << 20,
                    keep: 1,
                },
                2,
            )
            .unwrap();
        let queued_line = |n: usize| {
            format!(
                "egret_metrics_sink_queued_batches{{topology=\"wc\",sink=\"file:{}\"}} {n}",
                stuck_path.display()
            )
        };
        // The writer takes the first batch and blocks opening the FIFO; wait for
        // that take, so the queue's fill below does not race with it.
        stuck.export_to_sinks("egret");
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while !stuck.render_prometheus().contains(&queued_line(0)) {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the writer never took a batch"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for _ in 0..49 {
            stuck.export_to_sinks("egret");
        }
        let counters = stuck
            .sink_counters(&format!("file:{}", stuck_path.display()))
            .unwrap();
        // The writer holds one batch; 2 wait in the queue; the other 47 were dropped.
        assert_eq!(
            counters.dropped_batches.load(Ordering::Relaxed),
            47,
            "{counters:?}"
        );
        assert_eq!(counters.sent_batches.load(Ordering::Relaxed), 0);
        let exposition = stuck.render_prometheus();
        assert!(exposition.contains(&queued_line(2)), "{exposition}");
        // Unblock the writer so its thread ends with the test.
        let reader = std::fs::File::open(&stuck_path).unwrap();
        drop(stuck);
        drop(reader);
    }

    #[test]
    fn names_map_to_prometheus() {
        assert_eq!(prometheus_name("__ack-count"), "storm_ack_count");
        assert_eq!(
            prometheus_name("egret.ledger.pending"),
            "egret_ledger_pending"
        );
        assert_eq!(prometheus_name("9x"), "_9x");
    }
}

/// The metric names an expression of the Grafana dashboard refers to: every
/// identifier starting with `storm_` or `egret_`.
pub fn dashboard_metric_names(expr: &str) -> Vec<String> {
    let mut names: Vec<String> = expr
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
        .filter(|t| t.starts_with("storm_") || t.starts_with("egret_"))
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Every `expr` of a Grafana dashboard (panels' targets and query variables).
pub fn dashboard_exprs(dashboard: &Value) -> Vec<String> {
    fn walk(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    match (k.as_str(), v) {
                        ("expr" | "definition", Value::String(s)) => out.push(s.clone()),
                        _ => walk(v, out),
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(dashboard, &mut out);
    out
}

#[cfg(test)]
mod dashboard_tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;
    use egret_proto::v1::TaskStatsDelta;

    const DASHBOARD: &str = include_str!("../../deploy/grafana/egret.json");

    /// The registry metrics the dashboard reads, as the stream manager and
    /// the container supervisor name them (the e2e test
    /// `tests/observability.rs` checks them on a live exposition).
    const PROCESS_METRICS: [&str; 4] = [
        "egret.ledger.pending",
        "egret.backpressure.active",
        "egret.backpressure.time-ms",
        "egret.restarts",
    ];

    #[test]
    fn every_dashboard_expr_names_a_metric_the_exporter_emits() {
        let registry = Registry::new();
        for name in PROCESS_METRICS {
            registry.set(crate::MetricKey::new(name, "c", 0), 1.0);
        }
        let m = MetricsManager::new(
            "wc",
            1,
            HashMap::from([(1, "c".to_owned())]),
            std::collections::HashSet::new(),
            registry,
            Box::new(Vec::new),
        );
        let one = |k: &str| HashMap::from([(k.to_owned(), 1u64)]);
        let sum = |k: &str| HashMap::from([(k.to_owned(), 1.0f64)]);
        m.record(&StatsReport {
            timestamp_ms: 0,
            instance_id: "c-0".into(),
            tasks: vec![TaskStatsDelta {
                task_id: 1,
                emitted: one("default"),
                transferred: one("default"),
                acked: one("default"),
                failed: one("default"),
                executed: one("up:default"),
                execute_ms_sum: sum("up:default"),
                process_ms_sum: sum("up:default"),
                complete_ms_sum: sum("default"),
            }],
        });
        // A sink (at a port nothing listens on) so its families have a sample.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _guard = rt.enter();
        m.start_graphite("127.0.0.1:9", 1);
        let text = m.render_prometheus();
        let scrape =
            prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_owned()))).unwrap();
        let emitted: std::collections::BTreeSet<&str> =
            scrape.samples.iter().map(|s| s.metric.as_str()).collect();
        let dashboard: Value = serde_json::from_str(DASHBOARD).unwrap();
        let exprs = dashboard_exprs(&dashboard);
        assert!(exprs.len() >= 12, "{exprs:?}");
        let mut named = 0;
        for expr in &exprs {
            let names = dashboard_metric_names(expr);
            assert!(!names.is_empty(), "an expr names no metric: {expr}");
            for name in names {
                assert!(
                    emitted.contains(name.as_str()),
                    "{name} (in {expr}) is not emitted; emitted: {emitted:?}"
                );
                named += 1;
            }
        }
        assert!(named >= exprs.len());
        // And the extraction itself finds names inside functions and selectors.
        assert_eq!(
            dashboard_metric_names("sum by (c) (rate(storm_x_total{a=\"b\"}[1m])) / egret_y"),
            ["egret_y", "storm_x_total"]
        );
    }
}
