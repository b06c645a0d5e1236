//! The container's side of resource isolation (contracts.md, "Resource
//! isolation"): one cgroup per instance, `egret-<topology id>-c<index>/<instance
//! id>` below the container's own cgroups, limited to the instance's heap plus
//! `egret.isolation.jvm.overhead.mb` of memory and, when its component
//! declared a CPU load, to that share of a core; its usage is published in
//! the container's metrics.

use std::path::PathBuf;
use std::time::Duration;

use egret_isolation::{Cgroups, Group, Limits, cgroup_name, container_group};
use egret_metrics::{MetricKey, Registry};
use egret_proto::v1::{InstancePlan, Isolation, TopologySettings};
use tokio::task::JoinHandle;

use crate::ContainerError;

/// CPU time used by an instance's cgroup, ms (running total of its JVMs).
pub const CPU_METRIC: &str = "egret.cgroup.cpu-ms";
/// Memory charged to an instance's cgroup now, bytes.
pub const MEMORY_METRIC: &str = "egret.cgroup.memory-bytes";
/// Processes of an instance's cgroup the kernel killed at its memory limit.
pub const OOM_KILLS_METRIC: &str = "egret.cgroup.oom-kills";
/// How often the usage is read.
const USAGE_TICK: Duration = Duration::from_secs(1);

/// The limits of `instance`.
pub fn limits(instance: &InstancePlan, jvm_overhead_mb: u32) -> Limits {
    let heap = u64::try_from(instance.heap_mb.max(0)).unwrap_or(0);
    Limits {
        memory_mb: heap + u64::from(jvm_overhead_mb),
        cpu_cores: (instance.cpu_percent > 0.0).then_some(instance.cpu_percent / 100.0),
    }
}

/// A container whose instances run in their own cgroups.
#[derive(Debug)]
pub struct Isolated {
    cgroups: Cgroups,
    parent: String,
    jvm_overhead_mb: u32,
    groups: std::sync::Mutex<Vec<(String, Group)>>,
}

impl Isolated {
    /// `None` when the topology asks for no isolation, or for `auto` on a
    /// host that does not allow it (said once in the log).
    pub fn open(
        topology_id: &str,
        index: i32,
        settings: &TopologySettings,
    ) -> Result<Option<Self>, ContainerError> {
        let mode = settings.isolation();
        if mode == Isolation::None {
            return Ok(None);
        }
        let parent = container_group(topology_id, index);
        let opened = Cgroups::detect().and_then(|cgroups| {
            cgroups.prepare(&parent)?;
            Ok(cgroups)
        });
        match opened {
            Ok(cgroups) => Ok(Some(Self {
                cgroups,
                parent,
                jvm_overhead_mb: settings.jvm_overhead_mb,
                groups: std::sync::Mutex::new(Vec::new()),
            })),
            Err(err) if mode == Isolation::Cgroups => Err(ContainerError::Isolation(err)),
            Err(err) => {
                tracing::warn!(error = %err, "Instances run without resource limits (egret.isolation: auto).");
                Ok(None)
            }
        }
    }

    /// Creates `instance`'s cgroup with its limits; returns the files its JVM
    /// joins it through.
    pub fn place(&self, instance: &InstancePlan) -> Result<Vec<PathBuf>, ContainerError> {
        let limits = limits(instance, self.jvm_overhead_mb);
        let group = self
            .cgroups
            .create(&self.parent, &cgroup_name(&instance.instance_id), &limits)
            .map_err(ContainerError::Isolation)?;
        tracing::info!(instance = %instance.instance_id, memory_mb = limits.memory_mb, cpu_cores = ?limits.cpu_cores, cgroup = ?group.memory_dir(), "Instance isolated.");
        let files = group.procs_files();
        self.lock().push((instance.instance_id.clone(), group));
        Ok(files)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, Group)>> {
        self.groups.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets every instance's `egret.cgroup.*` in `registry`.
    pub fn publish_usage(&self, registry: &Registry) {
        for (instance, group) in self.lock().iter() {
            match group.usage() {
                Ok(usage) => {
                    let key = |name: &str| MetricKey::new(name, instance.as_str(), 0);
                    registry.set(key(CPU_METRIC), (usage.cpu_ns / 1_000_000) as f64);
                    registry.set(key(MEMORY_METRIC), usage.memory_bytes as f64);
                    registry.set(key(OOM_KILLS_METRIC), usage.oom_kills as f64);
                }
                Err(err) => {
                    tracing::debug!(%instance, error = %err, "Reading the cgroup's usage failed.")
                }
            }
        }
    }

    /// Publishes the usage every second until aborted.
    pub fn spawn_usage_publisher(
        self: &std::sync::Arc<Self>,
        registry: Registry,
    ) -> JoinHandle<()> {
        let this = std::sync::Arc::clone(self);
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(USAGE_TICK);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                this.publish_usage(&registry);
            }
        })
    }

    /// Removes the cgroups (their processes have been reaped), logging what
    /// could not be removed.
    pub fn remove(&self) {
        for (instance, group) in self.lock().drain(..) {
            if let Err(err) = group.remove() {
                tracing::warn!(%instance, error = %err, "Removing the instance's cgroup failed.");
            }
        }
        if let Err(err) = self.cgroups.remove_parent(&self.parent) {
            tracing::warn!(error = %err, "Removing the container's cgroup failed.");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_is_heap_plus_overhead_and_cpu_only_when_declared() {
        let mut instance = InstancePlan {
            instance_id: "split-0".into(),
            heap_mb: 128,
            ..Default::default()
        };
        assert_eq!(
            limits(&instance, 256),
            Limits {
                memory_mb: 384,
                cpu_cores: None
            }
        );
        instance.cpu_percent = 50.0;
        assert_eq!(limits(&instance, 100).cpu_cores, Some(0.5));
        instance.cpu_percent = 250.0;
        assert_eq!(limits(&instance, 100).cpu_cores, Some(2.5));
    }
}
