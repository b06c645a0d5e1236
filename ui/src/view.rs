//! What the UI knows of one topology at one moment: its logical plan, packing
//! and physical plans (from the state manager), and what its master
//! answers (summary, per-executor statistics, errors, process metrics).
//! Built per request; nothing here is cached.

use std::collections::BTreeMap;

use egret_proto::v1::{
    ClientResponse, ComponentKind, Empty, ExecutorStatsSummary, PackingPlan, PhysicalPlan,
    ProcessMetrics, TaskStatsDelta, Topology, TopologyState, client_request,
};
use serde::Deserialize;

use crate::UiError;
pub use crate::source::MASTER_TIMEOUT;
use crate::source::{Found, Source};

/// A component's capacity (Storm's: executed × execute latency ÷ window) at
/// or above which it is the topology's bottleneck (Storm UI colours such a
/// bolt red).
pub const BOTTLENECK_CAPACITY: f64 = 0.7;

pub struct TopologyView {
    pub name: String,
    pub found: Found,
    pub topology: Topology,
    pub packing: Option<PackingPlan>,
    pub physical: Option<PhysicalPlan>,
    /// The master's `topology_info` answer; `None` when it did not answer.
    pub info: Option<ClientResponse>,
    /// Why the master did not answer.
    pub unreachable: Option<String>,
}

impl TopologyView {
    pub async fn load(source: &Source, key: &str) -> Result<Self, UiError> {
        let found = source.find(key).await?;
        Self::of(source, found).await
    }

    async fn of(source: &Source, found: Found) -> Result<Self, UiError> {
        let (packing, physical) = source.plans(&found).await;
        let (info, unreachable) = match source
            .ask(
                &found,
                client_request::Request::TopologyInfo(Empty {}),
                MASTER_TIMEOUT,
            )
            .await
        {
            Ok(info) => (Some(info), None),
            Err(e) => (None, Some(e.to_string())),
        };
        Ok(Self {
            name: found.name.clone(),
            topology: found.topology.clone(),
            found,
            packing,
            physical,
            info,
            unreachable,
        })
    }

    /// Every topology of the cluster, sorted by name; one that cannot be read
    /// (being submitted or retired) is left out.
    pub async fn load_all(source: &Source) -> Result<Vec<Self>, UiError> {
        let mut all = Vec::new();
        for name in source.names().await? {
            if let Ok(view) = Self::load(source, &name).await {
                all.push(view);
            }
        }
        Ok(all)
    }

    pub fn id(&self) -> &str {
        &self.topology.id
    }

    pub fn executors(&self) -> &[ExecutorStatsSummary] {
        self.info.as_ref().map_or(&[], |i| i.executors.as_slice())
    }

    pub fn uptime_secs(&self) -> i64 {
        self.info
            .as_ref()
            .and_then(|i| i.summary.as_ref())
            .map_or(0, |s| s.uptime_secs)
    }

    /// Storm's status names: ACTIVE, INACTIVE, KILLED; UNREACHABLE when the
    /// master does not answer.
    pub fn status(&self) -> &'static str {
        let Some(summary) = self.info.as_ref().and_then(|i| i.summary.as_ref()) else {
            return "UNREACHABLE";
        };
        if summary.killing {
            return "KILLED";
        }
        match TopologyState::try_from(summary.state) {
            Ok(TopologyState::Running) => "ACTIVE",
            Ok(TopologyState::Deactivated) => "INACTIVE",
            Ok(TopologyState::Killed) => "KILLED",
            _ => "UNKNOWN",
        }
    }

    pub fn is_spout(&self, component: &str) -> bool {
        self.topology
            .components
            .iter()
            .any(|c| c.id == component && c.kind == ComponentKind::Spout as i32)
    }

    pub fn containers(&self) -> usize {
        self.packing.as_ref().map_or(0, |p| p.containers.len())
    }

    pub fn num_executors(&self) -> usize {
        self.packing
            .as_ref()
            .map_or(0, |p| p.containers.iter().map(|c| c.instances.len()).sum())
    }

    pub fn num_tasks(&self) -> usize {
        self.packing.as_ref().map_or(0, |p| {
            p.containers
                .iter()
                .flat_map(|c| &c.instances)
                .map(|i| i.task_ids.len())
                .sum()
        })
    }

    /// Heap (MB) and CPU (percent of a core) the packing plan assigned.
    pub fn assigned(&self) -> (f64, f64) {
        self.packing.as_ref().map_or((0.0, 0.0), |p| {
            p.containers
                .iter()
                .flat_map(|c| &c.instances)
                .fold((0.0, 0.0), |(m, c), i| {
                    (m + i.heap_mb as f64, c + i.cpu_percent)
                })
        })
    }

    /// The event-logging options of `component` ("" for the whole topology).
    pub fn debug(&self, component: &str) -> (bool, f64) {
        self.physical
            .as_ref()
            .and_then(|p| p.debug.iter().find(|d| d.component == component))
            .map_or((false, 0.0), |d| (d.enable, d.sampling_pct))
    }

    pub fn message_timeout_secs(&self) -> u64 {
        serde_json::from_str::<serde_json::Value>(&self.topology.config_json)
            .ok()
            .and_then(|c| {
                c.get("topology.message.timeout.secs")
                    .and_then(|v| v.as_u64())
            })
            .unwrap_or(30)
    }

    /// Per component, in the topology's order, the sums of `window`.
    pub fn component_stats(&self, window: &str) -> Vec<ComponentStats> {
        let mut by: BTreeMap<&str, ComponentStats> = BTreeMap::new();
        for c in &self.topology.components {
            by.insert(
                &c.id,
                ComponentStats {
                    id: c.id.clone(),
                    spout: c.kind == ComponentKind::Spout as i32,
                    executors: 0,
                    tasks: 0,
                    ..Default::default()
                },
            );
        }
        for e in self.executors() {
            let Some(row) = by.get_mut(e.component.as_str()) else {
                continue;
            };
            row.executors += 1;
            row.tasks += usize::try_from(e.task_end - e.task_start + 1).unwrap_or(0);
            let Some(sums) = window_sums(e, window) else {
                continue;
            };
            let executor = Sums::of(sums);
            let secs = capacity_secs(window, e.uptime_secs);
            if secs > 0.0 {
                row.capacity = row.capacity.max(executor.execute_ms / (secs * 1000.0));
            }
            row.sums.add(&executor);
        }
        let errors = self.info.as_ref().map_or(&[][..], |i| i.errors.as_slice());
        for error in errors {
            if let Some(row) = by.get_mut(error.component.as_str()) {
                row.errors += 1;
                row.last_error = Some(error.clone());
            }
        }
        let mut out: Vec<ComponentStats> = self
            .topology
            .components
            .iter()
            .filter_map(|c| by.remove(c.id.as_str()))
            .collect();
        // The bottleneck: the busiest bolt, if busy enough.
        if let Some(top) = out
            .iter_mut()
            .filter(|c| !c.spout && c.capacity >= BOTTLENECK_CAPACITY)
            .max_by(|a, b| a.capacity.total_cmp(&b.capacity))
        {
            top.bottleneck = true;
        }
        out
    }
}

/// Storm's capacity divides by the window or, if shorter, the executor's uptime.
fn capacity_secs(window: &str, uptime: i64) -> f64 {
    let uptime = uptime.max(0) as f64;
    match window.parse::<f64>() {
        Ok(w) => w.min(uptime),
        Err(_) => uptime,
    }
}

pub fn window_sums<'a>(e: &'a ExecutorStatsSummary, window: &str) -> Option<&'a TaskStatsDelta> {
    e.windows
        .iter()
        .find(|w| w.window == window)
        .and_then(|w| w.sums.as_ref())
}

/// Whether a stats key (a stream id, or `component:stream` for a bolt's
/// inputs) is a user stream: Storm UI hides the `__` system streams unless
/// asked (`sys=1`).
pub fn user_stream(key: &str) -> bool {
    let stream = key.rsplit_once(':').map_or(key, |(_, s)| s);
    !stream.starts_with("__")
}

fn total(map: &std::collections::HashMap<String, u64>) -> u64 {
    map.iter()
        .filter(|(k, _)| user_stream(k))
        .fold(0u64, |a, (_, v)| a.saturating_add(*v))
}

fn total_f(map: &std::collections::HashMap<String, f64>) -> f64 {
    map.iter()
        .filter(|(k, _)| user_stream(k))
        .map(|(_, v)| *v)
        .sum()
}

/// The user-stream sums of one executor's (or a component's) window.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sums {
    pub emitted: u64,
    pub transferred: u64,
    pub acked: u64,
    pub failed: u64,
    pub executed: u64,
    pub execute_ms: f64,
    pub process_ms: f64,
    pub complete_ms: f64,
}

impl Sums {
    pub fn of(d: &TaskStatsDelta) -> Self {
        Self {
            emitted: total(&d.emitted),
            transferred: total(&d.transferred),
            acked: total(&d.acked),
            failed: total(&d.failed),
            executed: total(&d.executed),
            execute_ms: total_f(&d.execute_ms_sum),
            process_ms: total_f(&d.process_ms_sum),
            complete_ms: total_f(&d.complete_ms_sum),
        }
    }

    pub fn add(&mut self, o: &Sums) {
        self.emitted = self.emitted.saturating_add(o.emitted);
        self.transferred = self.transferred.saturating_add(o.transferred);
        self.acked = self.acked.saturating_add(o.acked);
        self.failed = self.failed.saturating_add(o.failed);
        self.executed = self.executed.saturating_add(o.executed);
        self.execute_ms += o.execute_ms;
        self.process_ms += o.process_ms;
        self.complete_ms += o.complete_ms;
    }

    pub fn execute_latency(&self) -> f64 {
        avg(self.execute_ms, self.executed)
    }

    pub fn process_latency(&self) -> f64 {
        avg(self.process_ms, self.acked)
    }

    pub fn complete_latency(&self) -> f64 {
        avg(self.complete_ms, self.acked)
    }
}

pub fn avg(sum: f64, count: u64) -> f64 {
    if count == 0 { 0.0 } else { sum / count as f64 }
}

#[derive(Debug, Clone, Default)]
pub struct ComponentStats {
    pub id: String,
    pub spout: bool,
    pub executors: usize,
    pub tasks: usize,
    pub sums: Sums,
    /// Storm's capacity: the largest over the component's executors.
    pub capacity: f64,
    pub bottleneck: bool,
    pub errors: usize,
    pub last_error: Option<egret_proto::v1::ComponentError>,
}

/// A process's metrics snapshot file (`DIR/metrics/<process>.json`).
#[derive(Debug, Deserialize)]
pub struct SnapshotFile {
    pub process: String,
    #[serde(default)]
    pub updated_ms: u64,
    #[serde(default)]
    pub metrics: Vec<SnapshotMetric>,
}

#[derive(Debug, Deserialize)]
pub struct SnapshotMetric {
    pub name: String,
    #[serde(default)]
    pub component: String,
    #[serde(default)]
    pub task: i32,
    pub value: f64,
}

/// The latest metrics of every process of the topology: the master's answer
/// (its own and its stream managers' reports), and, on the local cluster, the
/// scheduler's snapshot file (restarts of the master and the containers),
/// which only the local scheduler writes.
pub async fn process_metrics(
    source: &Source,
    found: &Found,
) -> Result<Vec<ProcessMetrics>, UiError> {
    let mut all = source
        .ask(
            found,
            client_request::Request::Metrics(Empty {}),
            MASTER_TIMEOUT,
        )
        .await?
        .metrics;
    let Some(dir) = &found.dir else {
        return Ok(all);
    };
    let scheduler = dir.path().join("metrics").join("scheduler.json");
    if let Ok(text) = std::fs::read_to_string(&scheduler)
        && let Ok(file) = serde_json::from_str::<SnapshotFile>(&text)
    {
        all.push(ProcessMetrics {
            process: file.process,
            updated_ms: file.updated_ms,
            metrics: file
                .metrics
                .into_iter()
                .map(|m| egret_proto::v1::MetricValue {
                    name: m.name,
                    component: m.component,
                    task: m.task,
                    value: m.value,
                })
                .collect(),
        });
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_streams_are_not_user_streams() {
        assert!(user_stream("default"));
        assert!(user_stream("spout:default"));
        assert!(!user_stream("__ack_init"));
        assert!(!user_stream("spout:__tick"));
    }

    #[test]
    fn capacity_divides_by_the_shorter_of_window_and_uptime() {
        assert_eq!(capacity_secs("600", 30), 30.0);
        assert_eq!(capacity_secs("600", 9000), 600.0);
        assert_eq!(capacity_secs(":all-time", 42), 42.0);
    }
}
