//! What runs a topology submitted to a shared state manager (ZooKeeper):
//! the [`ClusterScheduler`] trait, seen by the submission and the kill, and
//! its plain implementation [`HostsScheduler`] (the operator starts the
//! hosts' processes; docs/multi-host.md). The Kubernetes one is in
//! `egret-kubernetes`. The config key [`SCHEDULER`] chooses; the CLI builds
//! the one it names and uses it only through this trait.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

use egret_proto::v1::{PackingPlan, TopologySettings};

/// The exit code of a topology master whose topology was rebalanced (the new
/// plan stored): whoever runs it starts it again.
pub const EXIT_REBALANCED: u8 = 4;

/// `egret.scheduler`: `local` (the default: the local cluster, or the hosts
/// an operator runs when the state manager is shared) or `kubernetes`.
pub const SCHEDULER: &str = "egret.scheduler";

/// The scheduler `egret.scheduler` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedulerKind {
    Local,
    Kubernetes,
}

impl SchedulerKind {
    /// Resolves [`SCHEDULER`]; an unknown value is an error naming the key.
    pub fn resolve(config: &egret_config::ConfigMap) -> Result<Self, String> {
        match config.get(SCHEDULER) {
            None | Some(serde_json::Value::Null) => Ok(Self::Local),
            Some(serde_json::Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
                "" | "local" => Ok(Self::Local),
                "kubernetes" => Ok(Self::Kubernetes),
                other => Err(format!(
                    "config key {SCHEDULER} must be local or kubernetes, found {other:?}"
                )),
            },
            Some(other) => Err(format!(
                "config key {SCHEDULER} must be local or kubernetes, found {other}"
            )),
        }
    }
}

/// A topology now in the shared state manager.
#[derive(Debug, Clone)]
pub struct ClusterLaunch {
    pub name: String,
    pub id: String,
    pub plan: PackingPlan,
    pub settings: TopologySettings,
    /// The topology's credentials directory (`egret jar` wrote it).
    pub credentials_dir: PathBuf,
}

/// An error of a cluster scheduler, with its own message.
pub type ClusterSchedulerError = Box<dyn std::error::Error + Send + Sync>;

/// A boxed future, so the trait can be used as `dyn ClusterScheduler`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Starts what runs a topology once it is in the state manager, and removes
/// it once its master completed a kill.
pub trait ClusterScheduler: Send + Sync {
    /// Starts (or tells how to start) the topology's master and containers;
    /// returns what to tell the user.
    fn launch<'a>(
        &'a self,
        topology: &'a ClusterLaunch,
    ) -> BoxFuture<'a, Result<String, ClusterSchedulerError>>;
    /// Removes what [`Self::launch`] made, after the master's kill
    /// completed; returns what was removed, for the user.
    fn remove<'a>(
        &'a self,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Vec<String>, ClusterSchedulerError>>;
    /// After a rebalance stored `topology`'s new packing plan: makes what
    /// runs it follow the new plan (as many containers, their resources,
    /// each restarted on the plan); returns what to tell the user.
    fn rebalance<'a>(
        &'a self,
        topology: &'a ClusterLaunch,
    ) -> BoxFuture<'a, Result<String, ClusterSchedulerError>>;
    /// Whether [`Self::remove`] alone stops every process of a topology
    /// (so a kill may go on without a live master, as the local cluster's
    /// forced stop does); false when an operator runs them.
    fn owns_processes(&self) -> bool;
}

/// Hosts an operator runs: launching is saying what each host runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct HostsScheduler;

impl ClusterScheduler for HostsScheduler {
    fn launch<'a>(
        &'a self,
        t: &'a ClusterLaunch,
    ) -> BoxFuture<'a, Result<String, ClusterSchedulerError>> {
        let containers = t.plan.containers.len();
        let text = format!(
            "Its credentials are in {} (give them to its hosts). Each host runs \
             `egret tmaster --topology {name} --credentials DIR --work-dir DIR --bind IP` \
             (one or more; one serves) or `egret container --topology {name} --index N \
             --credentials DIR --work-dir DIR --bind IP` for N in 1..={containers}.",
            t.credentials_dir.display(),
            name = t.name,
        );
        Box::pin(async move { Ok(text) })
    }

    fn remove<'a>(
        &'a self,
        _name: &'a str,
    ) -> BoxFuture<'a, Result<Vec<String>, ClusterSchedulerError>> {
        // The hosts' processes stop by themselves once the topology left
        // the state manager.
        Box::pin(async { Ok(Vec::new()) })
    }

    fn rebalance<'a>(
        &'a self,
        t: &'a ClusterLaunch,
    ) -> BoxFuture<'a, Result<String, ClusterSchedulerError>> {
        let containers = t.plan.containers.len();
        let text = format!(
            "The hosts' processes do not follow a new plan by themselves: restart the topology              master (it exits with code {EXIT_REBALANCED}) and every `egret container --topology              {name}` process, for N in 1..={containers} (stop those above {containers}).",
            name = t.name,
        );
        Box::pin(async move { Ok(text) })
    }

    fn owns_processes(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, reason = "test code")]
    use super::*;

    #[test]
    fn the_scheduler_key_is_local_or_kubernetes() {
        let conf = |v: serde_json::Value| {
            let mut c = egret_config::ConfigMap::new();
            c.insert(SCHEDULER.into(), v);
            c
        };
        assert_eq!(
            SchedulerKind::resolve(&egret_config::ConfigMap::new()),
            Ok(SchedulerKind::Local)
        );
        assert_eq!(
            SchedulerKind::resolve(&conf("Kubernetes".into())),
            Ok(SchedulerKind::Kubernetes)
        );
        let err = SchedulerKind::resolve(&conf("yarn".into())).unwrap_err();
        assert!(err.contains(SCHEDULER) && err.contains("yarn"), "{err}");
    }
}
