//! The CLI's side of the Kubernetes scheduler: which [`ClusterScheduler`]
//! the config names, what the topology's config says about the pods' `java`
//! and shim jar, and `egret kubernetes manifests` (the objects as YAML,
//! nothing stored or applied).

use anyhow::Context as _;
use egret_config::state::StateManagerConfig;
use egret_config::{ConfigMap, Layered};
use egret_kubernetes::objects::{self, TopologyInput, ZooKeeper};
use egret_kubernetes::{KubernetesScheduler, KubernetesSettings};
use egret_proto::v1::Topology;
use egret_scheduler::cluster::{ClusterScheduler, HostsScheduler, SchedulerKind};
use serde_json::Value;

/// The scheduler `egret.scheduler` names, for a topology in the shared
/// state manager `state`.
pub async fn cluster_scheduler(
    config: &ConfigMap,
    state: &StateManagerConfig,
) -> anyhow::Result<Box<dyn ClusterScheduler>> {
    match SchedulerKind::resolve(config).map_err(anyhow::Error::msg)? {
        SchedulerKind::Local => Ok(Box::new(HostsScheduler)),
        SchedulerKind::Kubernetes => {
            let settings = KubernetesSettings::resolve(config)?;
            let scheduler = KubernetesScheduler::connect(settings, zookeeper(state)?).await?;
            Ok(Box::new(scheduler))
        }
    }
}

/// Whether `key` is one of the scheduler's own keys.
fn scheduler_key(key: &str) -> bool {
    key == egret_scheduler::cluster::SCHEDULER || key.starts_with("egret.kubernetes.")
}

/// The scheduler keys a kill of `topology` uses: those it was submitted
/// with (its stored config holds the submission's), each overridden by the
/// command's own config when that sets it.
pub fn scheduler_config(
    config: &Layered,
    topology: Option<&Topology>,
) -> anyhow::Result<ConfigMap> {
    let mut keys = ConfigMap::new();
    if let Some(topology) = topology {
        let stored = egret_config::topology::config_map(topology).map_err(anyhow::Error::msg)?;
        keys.extend(stored.into_iter().filter(|(k, _)| scheduler_key(k)));
    }
    keys.extend(
        config
            .merged
            .iter()
            .filter(|(k, v)| scheduler_key(k) && !v.is_null())
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    Ok(keys)
}

/// The ZooKeeper the pods are told about.
fn zookeeper(state: &StateManagerConfig) -> anyhow::Result<ZooKeeper> {
    match state {
        StateManagerConfig::ZooKeeper { servers, root } => Ok(ZooKeeper {
            servers: servers.clone(),
            root: root.clone(),
        }),
        StateManagerConfig::Local { .. } => anyhow::bail!(
            "the Kubernetes scheduler keeps topologies in ZooKeeper: set {}=zookeeper and {}",
            egret_config::state::STATE_MANAGER,
            egret_config::state::ZOOKEEPER_SERVERS
        ),
    }
}

/// Whether the topologies of this submission run in pods.
pub fn runs_in_pods(config: &Layered) -> anyhow::Result<bool> {
    Ok(
        SchedulerKind::resolve(&config.merged).map_err(anyhow::Error::msg)?
            == SchedulerKind::Kubernetes,
    )
}

/// Sets what the pods use for `egret.shim.jar` and `egret.java` in the
/// config the submitter JVM merges under the topology's (the submitting
/// machine's paths mean nothing in the image).
pub fn pod_paths(config: &Layered, cluster_config: &mut ConfigMap) -> anyhow::Result<()> {
    let settings = KubernetesSettings::resolve(&config.merged)?;
    cluster_config.insert(
        egret_config::SHIM_JAR.into(),
        Value::String(settings.shim_jar),
    );
    cluster_config.insert(egret_config::JAVA.into(), Value::String(settings.java));
    Ok(())
}

/// `egret kubernetes manifests`: each submitted topology validated and
/// packed as `egret jar` would, its objects printed; nothing is stored.
pub struct Manifests {
    settings: KubernetesSettings,
    zookeeper: ZooKeeper,
}

impl Manifests {
    pub fn resolve(config: &Layered) -> anyhow::Result<Self> {
        let state = StateManagerConfig::resolve(&config.merged)?;
        Ok(Self {
            settings: KubernetesSettings::resolve(&config.merged)?,
            zookeeper: zookeeper(&state)?,
        })
    }

    /// The YAML of `topology`'s objects.
    pub fn render(&self, mut topology: Topology) -> anyhow::Result<String> {
        let settings = egret_submitter::prepare(&mut topology)?;
        let plan = egret_scheduler::packing::pack_topology(&topology)?;
        let built = objects::build(
            &TopologyInput {
                name: &topology.name,
                plan: &plan,
                jvm_overhead_mb: settings.jvm_overhead_mb,
                zookeeper: &self.zookeeper,
            },
            &self.settings,
        );
        objects::to_yaml(&topology.name, &built, &self.settings.namespace)
            .context("cannot write the objects as YAML")
    }
}
