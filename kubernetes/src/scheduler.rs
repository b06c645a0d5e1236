//! The Kubernetes scheduler: once a topology is in ZooKeeper, its objects
//! (with its credentials as a Secret) are created in the configured
//! namespace; after its master's kill, every object labelled with it is
//! deleted and checked gone.

use std::collections::BTreeMap;
use std::path::Path;

use egret_scheduler::cluster::{BoxFuture, ClusterLaunch, ClusterScheduler, ClusterSchedulerError};
use kube::Client;

use crate::client::{self, ClientError};
use crate::objects::{self, TopologyInput, ZooKeeper};
use crate::settings::KubernetesSettings;

/// The files of a credentials directory, by name (the Secret's keys).
pub fn credential_files(dir: &Path) -> Result<BTreeMap<String, Vec<u8>>, std::io::Error> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if !entry.file_type()?.is_file() {
            continue;
        }
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        files.insert(name, std::fs::read(entry.path())?);
    }
    Ok(files)
}

/// A short digest of a packing plan (the pod-template annotation
/// [`client::PLAN_ANNOTATION`]): changes whenever the plan does.
pub fn plan_digest(plan: &egret_proto::v1::PackingPlan) -> String {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(format!("{plan:?}").as_bytes());
    hex::encode(&digest[..8])
}

/// Runs topologies as Kubernetes objects.
pub struct KubernetesScheduler {
    settings: KubernetesSettings,
    zookeeper: ZooKeeper,
    /// `None` with `egret.kubernetes.create: false`: the API is never called.
    client: Option<Client>,
}

impl KubernetesScheduler {
    /// A scheduler with a client for `settings` (`egret.kubernetes.kubeconfig`, else inferred).
    pub async fn connect(
        settings: KubernetesSettings,
        zookeeper: ZooKeeper,
    ) -> Result<Self, ClientError> {
        let client = if settings.create {
            Some(client::connect(&settings).await?)
        } else {
            None
        };
        Ok(Self {
            settings,
            zookeeper,
            client,
        })
    }

    async fn launch_topology(&self, t: &ClusterLaunch) -> Result<String, ClusterSchedulerError> {
        let files = credential_files(&t.credentials_dir).map_err(|e| {
            format!(
                "cannot read the credentials directory {}: {e}",
                t.credentials_dir.display()
            )
        })?;
        let secret = objects::secret(&t.name, &self.settings, files);
        let built = self.objects(t);
        let ns = &self.settings.namespace;
        let base = objects::object_base(&t.name);
        let Some(client) = &self.client else {
            return Ok(format!(
                "No Kubernetes object was created ({} is false): `egret kubernetes manifests` \
                 prints them; create Secret {} in namespace {ns} from {}.",
                crate::settings::CREATE,
                objects::secret_name(&t.name),
                t.credentials_dir.display()
            ));
        };
        client::apply(client, &t.name, ns, &secret, &built).await?;
        tracing::info!(topology = %t.id, namespace = %ns, objects = %base, "Kubernetes objects created.");
        Ok(format!(
            "Created in Kubernetes namespace {ns}: StatefulSet {base}-master (the topology master), \
             StatefulSet {base} ({} containers), headless Service {base}, ConfigMap {base}-config \
             and Secret {}.",
            t.plan.containers.len(),
            objects::secret_name(&t.name),
        ))
    }

    /// The topology's objects (the Secret apart) for `t`'s plan.
    fn objects(&self, t: &ClusterLaunch) -> objects::TopologyObjects {
        objects::build(
            &TopologyInput {
                name: &t.name,
                plan: &t.plan,
                jvm_overhead_mb: t.settings.jvm_overhead_mb,
                zookeeper: &self.zookeeper,
            },
            &self.settings,
        )
    }

    async fn rebalance_topology(&self, t: &ClusterLaunch) -> Result<String, ClusterSchedulerError> {
        let built = self.objects(t);
        let ns = &self.settings.namespace;
        let base = objects::object_base(&t.name);
        let Some(client) = &self.client else {
            return Ok(format!(
                "No Kubernetes object was changed ({} is false): scale StatefulSet {base} in \
                 namespace {ns} to {} replicas and restart its pods.",
                crate::settings::CREATE,
                t.plan.containers.len()
            ));
        };
        let replicas = client::rebalance(client, ns, &built, &plan_digest(&t.plan)).await?;
        tracing::info!(topology = %t.id, namespace = %ns, replicas, "Containers' StatefulSet rebalanced.");
        Ok(format!(
            "StatefulSet {base} in namespace {ns} now has {replicas} replicas with the new plan's \
             resources; its pods restart on the new plan."
        ))
    }

    async fn remove_topology(&self, name: &str) -> Result<Vec<String>, ClusterSchedulerError> {
        let ns = &self.settings.namespace;
        let Some(client) = &self.client else {
            // Applied another way: removed the same way.
            return Ok(Vec::new());
        };
        let removed = client::delete(client, name, ns).await?;
        let left = client::remaining(client, name, ns).await?;
        if !left.is_empty() {
            return Err(format!(
                "objects of topology '{name}' are still in namespace {ns} after their deletion: {}",
                left.join(", ")
            )
            .into());
        }
        Ok(removed)
    }
}

impl ClusterScheduler for KubernetesScheduler {
    fn launch<'a>(
        &'a self,
        topology: &'a ClusterLaunch,
    ) -> BoxFuture<'a, Result<String, ClusterSchedulerError>> {
        Box::pin(self.launch_topology(topology))
    }

    fn remove<'a>(
        &'a self,
        name: &'a str,
    ) -> BoxFuture<'a, Result<Vec<String>, ClusterSchedulerError>> {
        Box::pin(self.remove_topology(name))
    }

    fn rebalance<'a>(
        &'a self,
        topology: &'a ClusterLaunch,
    ) -> BoxFuture<'a, Result<String, ClusterSchedulerError>> {
        Box::pin(self.rebalance_topology(topology))
    }

    fn owns_processes(&self) -> bool {
        // Deleting the StatefulSets deletes their pods.
        self.client.is_some()
    }
}
