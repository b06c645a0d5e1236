//! Submission to a cluster whose state lives in a shared state manager
//! (ZooKeeper): nothing is started here. The topology, its packing plan and
//! its package (the jar) go to the state manager, where the processes that
//! hosts run (`egret tmaster --topology NAME`, `egret container --topology NAME
//! --index N`) find them; the topology's key material is written to a local
//! credentials directory, which the operator hands to those hosts (it never
//! goes to the state manager).
//!
//! Invariants:
//! - the topology is packed and its credentials made before anything is
//!   stored; `topology` is stored last, so a reader that finds it finds the
//!   packing plan and the package too;
//! - a name with a topology in the state manager is refused;
//! - a failure half way removes what was stored, so the name is not left taken.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use egret_config::tls::CredentialsSource;
use egret_proto::v1::{PackingPlan, Topology, TopologySettings};
use egret_scheduler::packing;
use egret_state_manager::{Backend, StateManager, StateManagerError};
use egret_transport::TopologyCredentials;

use crate::{SubmitError, prepare};

/// A topology stored in the cluster's state manager.
#[derive(Debug, Clone)]
pub struct ClusterSubmission {
    pub name: String,
    pub id: String,
    pub plan: PackingPlan,
    pub settings: TopologySettings,
    /// The topology's credentials directory, for the hosts that run it.
    pub credentials_dir: PathBuf,
}

/// Submits topologies to a state manager shared by several hosts.
#[derive(Debug)]
pub struct ClusterSubmitter {
    state: Backend,
    /// `<credentials_root>/<name>/` receives each topology's credentials.
    credentials_root: PathBuf,
    credentials: CredentialsSource,
}

impl ClusterSubmitter {
    pub fn new(state: Backend, credentials_root: PathBuf, credentials: CredentialsSource) -> Self {
        Self {
            state,
            credentials_root,
            credentials,
        }
    }

    /// Validates, packs and stores `topology`, whose code is in `jar`.
    pub async fn submit(
        &self,
        mut topology: Topology,
        jar: &Path,
    ) -> Result<ClusterSubmission, SubmitError> {
        let settings = prepare(&mut topology)?;
        let name = topology.name.clone();
        if self.state.get_topology(&name).await?.is_some() {
            return Err(SubmitError::NameInUse(name));
        }
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let counter = self.state.topology_names().await?.len() + 1;
        topology.id = format!("{name}-{counter}-{secs}");
        let plan = packing::pack_topology(&topology)?;
        let package = std::fs::read(jar).map_err(|source| SubmitError::ReadJar {
            path: jar.to_owned(),
            source,
        })?;
        let credentials = match &self.credentials {
            CredentialsSource::Generate => TopologyCredentials::generate(
                &name,
                egret_transport::credentials::DEFAULT_VALIDITY,
            )?,
            CredentialsSource::Files { ca, cert, key } => {
                TopologyCredentials::from_files(ca, cert, key)?
            }
        };
        let credentials_dir = self.credentials_root.join(&name);
        if credentials_dir.exists() {
            // Left by an earlier topology of this name, which is gone from
            // the state manager: its key material must not be reused.
            std::fs::remove_dir_all(&credentials_dir).map_err(|source| {
                SubmitError::Credentials(egret_transport::CredentialsError::Io {
                    action: "remove",
                    path: credentials_dir.clone(),
                    source,
                })
            })?;
        }
        std::fs::create_dir_all(&self.credentials_root).map_err(|source| {
            SubmitError::Credentials(egret_transport::CredentialsError::Io {
                action: "create",
                path: self.credentials_root.clone(),
                source,
            })
        })?;
        credentials.save(&credentials_dir)?;
        if let Err(e) = self.store(&topology, &plan, &package).await {
            let _ = self.state.delete_package(&name).await;
            let _ = self.state.delete_packing_plan(&name).await;
            let _ = self.state.delete_topology(&name).await;
            let _ = std::fs::remove_dir_all(&credentials_dir);
            return Err(e.into());
        }
        tracing::info!(topology = %topology.id, credentials = %credentials_dir.display(), "Topology stored in the state manager.");
        Ok(ClusterSubmission {
            name,
            id: topology.id,
            plan,
            settings,
            credentials_dir,
        })
    }

    async fn store(
        &self,
        topology: &Topology,
        plan: &PackingPlan,
        package: &[u8],
    ) -> Result<(), StateManagerError> {
        self.state.put_package(&topology.name, package).await?;
        self.state.put_packing_plan(&topology.name, plan).await?;
        self.state.put_topology(topology).await
    }
}
