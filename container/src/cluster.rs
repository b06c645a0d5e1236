//! A container on a host of a multi-host cluster (`egret container --topology
//! NAME --index N`): everything it needs is in the state manager (topology,
//! packing plan, package) except the topology's credentials, which the host
//! is given. [`materialize`] writes them into a local topology directory of
//! the usual layout (contracts.md, "State directory"), from which the
//! container then runs as on one machine; [`until_removed`] ends it when the
//! topology leaves the state manager.

use std::path::Path;
use std::time::Duration;

use egret_state_manager::{Backend, LocalCluster, StateManager, StateManagerError, TopologyDir};
use egret_transport::{CredentialsError, TopologyCredentials};

#[derive(Debug, thiserror::Error)]
pub enum ClusterContainerError {
    #[error(transparent)]
    StateManager(#[from] StateManagerError),
    #[error(transparent)]
    State(#[from] egret_state_manager::StateError),
    #[error("the topology's credentials are not usable: {0}")]
    Credentials(#[from] CredentialsError),
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("topology '{name}' has no {what} in the state manager")]
    Missing { name: String, what: &'static str },
}

/// How often a container waiting for its topology, or watching it, asks.
const POLL: Duration = Duration::from_secs(2);

/// Waits until topology `name` is in the state manager, then writes its
/// topology, packing plan, package and `credentials` (loaded, so a bad
/// directory is refused here) into `<work_root>/topologies/<name>/`, which
/// is emptied first when it holds another topology (an earlier one of the
/// same name). Returns the directory.
pub async fn materialize(
    state: &Backend,
    name: &str,
    credentials: &Path,
    work_root: &Path,
) -> Result<TopologyDir, ClusterContainerError> {
    let credentials = TopologyCredentials::load(credentials)?;
    let mut told = false;
    let topology = loop {
        if let Some(topology) = state.get_topology(name).await? {
            break topology;
        }
        if !told {
            tracing::info!(topology = name, "Waiting for the topology to be submitted.");
            told = true;
        }
        tokio::time::sleep(POLL).await;
    };
    let missing = |what| ClusterContainerError::Missing {
        name: name.to_owned(),
        what,
    };
    let packing = state
        .get_packing_plan(name)
        .await?
        .ok_or_else(|| missing("packing plan"))?;
    let package = state
        .get_package(name)
        .await?
        .ok_or_else(|| missing("package"))?;
    let cluster = LocalCluster::new(work_root);
    let dir = cluster.topology_dir(name);
    let same = dir
        .read_topology()
        .map(|t| t.id == topology.id)
        .unwrap_or(false);
    if !same && dir.path().exists() {
        std::fs::remove_dir_all(dir.path()).map_err(|source| ClusterContainerError::Io {
            action: "remove",
            path: dir.path().to_owned(),
            source,
        })?;
    }
    let dir = if dir.path().exists() {
        dir
    } else {
        cluster.create_topology(name)?
    };
    if dir.credentials_dir().exists() {
        std::fs::remove_dir_all(dir.credentials_dir()).map_err(|source| {
            ClusterContainerError::Io {
                action: "remove",
                path: dir.credentials_dir(),
                source,
            }
        })?;
    }
    dir.save_credentials(&credentials)?;
    dir.write_jar(&package)?;
    dir.write_packing_plan(&packing)?;
    dir.write_topology(&topology)?;
    tracing::info!(topology = %topology.id, dir = %dir.path().display(), "Topology fetched from the state manager.");
    Ok(dir)
}

/// Resolves once topology `id` is no longer in the state manager (killed,
/// or replaced by another topology of the same name), saying so.
pub async fn until_removed(state: &Backend, name: &str, id: &str) -> String {
    loop {
        tokio::time::sleep(POLL).await;
        match state.get_topology(name).await {
            Ok(None) => return format!("topology {id} left the state manager"),
            Ok(Some(t)) if t.id != id => {
                return format!("topology {id} was replaced by {}", t.id);
            }
            Ok(Some(_)) => {}
            Err(err) => {
                tracing::warn!(error = %err, "Cannot read the topology from the state manager; asking again.");
            }
        }
    }
}
