//! Where the UI finds its topologies: the local cluster's directories, or a
//! shared state manager (ZooKeeper) of a multi-host or Kubernetes cluster,
//! whose topology masters are asked over TLS with each topology's
//! credentials. Logs are read from the local files, or relayed by a cluster
//! topology's master from the stream manager of the container that runs the
//! process (`ClientRequest.logs`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use egret_proto::v1::{
    ClientRequest, ClientResponse, LogQuery, PackingPlan, PhysicalPlan, Topology, client_request,
};
use egret_state_manager::{Backend, LocalCluster, StateManager, TopologyDir};

use crate::UiError;

/// How long one question to a topology master may take.
pub const MASTER_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Clone)]
pub enum Source {
    /// The local cluster (`egret.local.dir`).
    Local(LocalCluster),
    /// A shared state manager; each topology's credentials are in
    /// `<credentials_root>/<name>/` (`egret.credentials.dir`).
    Shared {
        state: Arc<Backend>,
        credentials_root: PathBuf,
    },
}

/// A topology the source has: its name, what was submitted, and its local
/// directory (local cluster only).
pub struct Found {
    pub name: String,
    pub topology: Topology,
    pub dir: Option<TopologyDir>,
}

/// One process's log, on whatever host it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogEntry {
    pub process: String,
    /// The container it runs in; `None` for the local cluster's files.
    pub container: Option<i32>,
}

impl Source {
    /// The topologies' names, sorted.
    pub async fn names(&self) -> Result<Vec<String>, UiError> {
        let mut names = match self {
            Self::Local(cluster) => cluster.topology_names().map_err(UiError::state)?,
            Self::Shared { state, .. } => state.topology_names().await.map_err(UiError::state)?,
        };
        names.sort();
        Ok(names)
    }

    async fn get(&self, name: &str) -> Result<Option<Found>, UiError> {
        match self {
            Self::Local(cluster) => {
                let Ok(dir) = cluster.topology(name) else {
                    return Ok(None);
                };
                Ok(dir.read_topology().ok().map(|topology| Found {
                    name: name.to_owned(),
                    topology,
                    dir: Some(dir),
                }))
            }
            Self::Shared { state, .. } => Ok(state
                .get_topology(name)
                .await
                .map_err(UiError::state)?
                .map(|topology| Found {
                    name: name.to_owned(),
                    topology,
                    dir: None,
                })),
        }
    }

    /// A topology by name or by id.
    pub async fn find(&self, key: &str) -> Result<Found, UiError> {
        if let Some(found) = self.get(key).await? {
            return Ok(found);
        }
        for name in self.names().await? {
            if let Some(found) = self.get(&name).await?
                && found.topology.id == key
            {
                return Ok(found);
            }
        }
        Err(UiError::NotFound(format!(
            "no topology named or with id '{key}'"
        )))
    }

    /// Its packing and physical plans, when stored.
    pub async fn plans(&self, found: &Found) -> (Option<PackingPlan>, Option<PhysicalPlan>) {
        match (self, &found.dir) {
            (Self::Local(_), Some(dir)) => {
                (dir.read_packing_plan().ok(), dir.read_physical_plan().ok())
            }
            (Self::Shared { state, .. }, _) => (
                state.get_packing_plan(&found.name).await.ok().flatten(),
                state.get_physical_plan(&found.name).await.ok().flatten(),
            ),
            (Self::Local(_), None) => (None, None),
        }
    }

    /// Asks the topology's master; a refusal is [`UiError::Refused`].
    pub async fn ask(
        &self,
        found: &Found,
        request: client_request::Request,
        timeout: Duration,
    ) -> Result<ClientResponse, UiError> {
        let request = ClientRequest {
            request: Some(request),
        };
        let response = match (self, &found.dir) {
            (Self::Local(_), Some(dir)) => {
                egret_topology_master::client::request(dir.path(), request, timeout).await
            }
            (
                Self::Shared {
                    state,
                    credentials_root,
                },
                _,
            ) => {
                egret_topology_master::client::request_cluster(
                    state,
                    &found.name,
                    &credentials_root.join(&found.name),
                    request,
                    timeout,
                )
                .await
            }
            (Self::Local(_), None) => {
                return Err(UiError::State(format!(
                    "topology '{}' has no local directory",
                    found.name
                )));
            }
        }
        .map_err(|e| UiError::Master(e.to_string()))?;
        if response.ok {
            Ok(response)
        } else {
            Err(UiError::Refused(response.error))
        }
    }

    /// The processes of the topology that have a log.
    pub async fn logs(&self, found: &Found) -> Result<Vec<LogEntry>, UiError> {
        if let Some(dir) = &found.dir {
            return Ok(egret_state_manager::logs::list(&dir.logs_dir())
                .into_iter()
                .map(|process| LogEntry {
                    process,
                    container: None,
                })
                .collect());
        }
        let response = self
            .ask(
                found,
                client_request::Request::Logs(LogQuery::default()),
                MASTER_TIMEOUT * 2,
            )
            .await?;
        let mut entries: Vec<LogEntry> = response
            .log_processes
            .into_iter()
            .map(|p| LogEntry {
                process: p.process,
                container: Some(p.container),
            })
            .collect();
        entries.sort_by(|a, b| a.process.cmp(&b.process));
        Ok(entries)
    }

    /// The last `lines` lines of `process`'s log.
    pub async fn log_tail(
        &self,
        found: &Found,
        process: &str,
        lines: usize,
    ) -> Result<Vec<String>, UiError> {
        use egret_state_manager::logs::{LogError, tail, valid_process};
        if !valid_process(process) {
            return Err(UiError::BadRequest(
                LogError::BadName(process.to_owned()).to_string(),
            ));
        }
        if let Some(dir) = &found.dir {
            return tail(&dir.logs_dir(), process, lines).map_err(|e| match e {
                LogError::BadName(_) => UiError::BadRequest(e.to_string()),
                LogError::NotFound(_) => UiError::NotFound(e.to_string()),
                LogError::Io { .. } => UiError::state(e),
            });
        }
        let query = LogQuery {
            process: process.to_owned(),
            lines: u32::try_from(lines).unwrap_or(u32::MAX),
        };
        match self
            .ask(
                found,
                client_request::Request::Logs(query),
                MASTER_TIMEOUT * 2,
            )
            .await
        {
            Ok(response) => Ok(response.log_lines),
            // The master names an unknown process or a missing file.
            Err(UiError::Refused(text))
                if text.contains("no process") || text.contains("no log") =>
            {
                Err(UiError::NotFound(text))
            }
            Err(e) => Err(e),
        }
    }
}
