//! The cluster-wide state a topology's processes share, behind one trait
//! ([`StateManager`]) with two backends: the local directory
//! ([`LocalStateManager`]) and ZooKeeper ([`ZkStateManager`]).
//! contracts.md, "State manager", describes both layouts.
//!
//! Invariants:
//! - a topology name is checked against Storm's rule before it names a file
//!   or a node, so no name can reach outside its topology's place;
//! - the topology master's location is registered exclusively: while one
//!   registration is live, another for the same topology fails with
//!   [`StateManagerError::MasterAlreadyRegistered`]; it is released by
//!   [`MasterRegistration::release`] or when the registering process's session
//!   ends (the local backend: the process exits or drops the registration;
//!   ZooKeeper: the session closes or expires);
//! - plans are persistent: they outlive every process until deleted.

use egret_transport::Endpoint;
use std::future::Future;
use std::time::Duration;

use egret_config::settings::{SettingsError, validate_topology_name};
use egret_config::state::StateManagerConfig;
use egret_proto::v1::{PackingPlan, PhysicalPlan, Topology};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::StateError;
use crate::local_backend::{LocalRegistration, LocalStateManager};
use crate::zk::{ZkOptions, ZkRegistration, ZkStateManager};

#[derive(Debug, thiserror::Error)]
pub enum StateManagerError {
    #[error(transparent)]
    Local(#[from] StateError),
    #[error(transparent)]
    BadName(#[from] SettingsError),
    #[error("cannot connect to ZooKeeper at {servers}: {source}")]
    Connect {
        servers: String,
        #[source]
        source: zookeeper_client::Error,
    },
    #[error("cannot connect to ZooKeeper at {servers}: no session within {timeout:?}")]
    ConnectTimeout { servers: String, timeout: Duration },
    #[error("ZooKeeper at {servers}: cannot {action} {path}: {source}")]
    ZooKeeper {
        servers: String,
        action: &'static str,
        path: String,
        #[source]
        source: zookeeper_client::Error,
    },
    #[error("ZooKeeper at {servers}: no answer to {action} {path} within {timeout:?}")]
    Timeout {
        servers: String,
        action: &'static str,
        path: String,
        timeout: Duration,
    },
    #[error(
        "ZooKeeper at {servers}: cannot write {path}: {bytes} bytes is more than a node holds \
         ({limit} bytes; the server's jute.maxbuffer)"
    )]
    NodeTooLarge {
        servers: String,
        path: String,
        bytes: usize,
        limit: usize,
    },
    #[error("{location} does not hold a valid {what}: {detail}")]
    Corrupt {
        location: String,
        what: &'static str,
        detail: String,
    },
    #[error("topology '{topology}' already has a live topology master at {holder}")]
    MasterAlreadyRegistered { topology: String, holder: String },
    #[error("the watch on the topology master of '{topology}' has stopped: {detail}")]
    WatchStopped { topology: String, detail: String },
}

/// The state a topology's processes share. Every name is a topology name
/// (Storm's rule, `egret_config::settings::validate_topology_name`).
///
/// `get_*` return `None` when the object does not exist; `delete_*` of a
/// missing object succeeds.
pub trait StateManager: Send + Sync {
    /// Stores the topology under `topology.name`, replacing any previous one.
    fn put_topology(
        &self,
        topology: &Topology,
    ) -> impl Future<Output = Result<(), StateManagerError>> + Send;
    fn get_topology(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<Option<Topology>, StateManagerError>> + Send;
    fn delete_topology(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<(), StateManagerError>> + Send;
    /// Names of the stored topologies, sorted.
    fn topology_names(&self)
    -> impl Future<Output = Result<Vec<String>, StateManagerError>> + Send;

    fn put_packing_plan(
        &self,
        name: &str,
        plan: &PackingPlan,
    ) -> impl Future<Output = Result<(), StateManagerError>> + Send;
    fn get_packing_plan(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<Option<PackingPlan>, StateManagerError>> + Send;
    fn delete_packing_plan(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<(), StateManagerError>> + Send;

    fn put_physical_plan(
        &self,
        name: &str,
        plan: &PhysicalPlan,
    ) -> impl Future<Output = Result<(), StateManagerError>> + Send;
    fn get_physical_plan(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<Option<PhysicalPlan>, StateManagerError>> + Send;
    fn delete_physical_plan(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<(), StateManagerError>> + Send;

    /// Stores the topology's package (the user's jar), replacing any previous
    /// one. With ZooKeeper it is split over several nodes and checked by its
    /// SHA-256 when read back.
    fn put_package(
        &self,
        name: &str,
        data: &[u8],
    ) -> impl Future<Output = Result<(), StateManagerError>> + Send;
    fn get_package(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<Option<Vec<u8>>, StateManagerError>> + Send;
    fn delete_package(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<(), StateManagerError>> + Send;

    /// Registers `location` as the topology master of `name`, exclusively:
    /// fails with [`StateManagerError::MasterAlreadyRegistered`] while another
    /// live registration holds it.
    fn register_master(
        &self,
        name: &str,
        location: Endpoint,
    ) -> impl Future<Output = Result<MasterRegistration, StateManagerError>> + Send;
    /// The location of the live topology master of `name`, if any.
    fn master_location(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<Option<Endpoint>, StateManagerError>> + Send;
    /// Follows the master's location: the watch starts with the current one
    /// and yields every change (a new master, or none).
    fn watch_master(
        &self,
        name: &str,
    ) -> impl Future<Output = Result<MasterWatch, StateManagerError>> + Send;
}

/// Checks a topology name before it names a file or a node.
pub(crate) fn checked(name: &str) -> Result<&str, StateManagerError> {
    validate_topology_name(name)?;
    Ok(name)
}

/// A live registration of a topology master (see [`StateManager::register_master`]).
#[derive(Debug)]
pub struct MasterRegistration {
    topology: String,
    location: Endpoint,
    inner: Registration,
}

#[derive(Debug)]
pub(crate) enum Registration {
    Local(LocalRegistration),
    ZooKeeper(Box<ZkRegistration>),
}

impl MasterRegistration {
    pub(crate) fn new(topology: &str, location: Endpoint, inner: Registration) -> Self {
        Self {
            topology: topology.to_owned(),
            location,
            inner,
        }
    }

    pub fn topology(&self) -> &str {
        &self.topology
    }

    pub fn location(&self) -> &Endpoint {
        &self.location
    }

    /// Resolves when this registration can no longer be trusted: its
    /// ZooKeeper session has ended (expired or closed), so another master may
    /// hold the node now. Never resolves with the local backend, whose lock
    /// lives as long as the process.
    pub async fn lost(&self) -> String {
        match &self.inner {
            Registration::Local(_) => std::future::pending().await,
            Registration::ZooKeeper(zk) => zk.session_ended().await,
        }
    }

    /// Gives the registration up, so another master can register at once.
    /// (Dropping it releases it too with the local backend; with ZooKeeper a
    /// dropped registration lasts until its session ends.)
    pub async fn release(self) -> Result<(), StateManagerError> {
        match self.inner {
            Registration::Local(local) => local.release(),
            Registration::ZooKeeper(zk) => zk.release().await,
        }
    }
}

/// What a [`MasterWatch`] has seen last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seen {
    Location(Option<Endpoint>),
    /// The watch stopped (the session ended, or the location was unreadable).
    Stopped(String),
}

/// Follows a topology master's location (see [`StateManager::watch_master`]).
/// Successive equal values are reported once. Dropping the watch stops it.
#[derive(Debug)]
pub struct MasterWatch {
    topology: String,
    rx: watch::Receiver<Seen>,
    task: JoinHandle<()>,
}

impl MasterWatch {
    pub(crate) fn new(topology: &str, rx: watch::Receiver<Seen>, task: JoinHandle<()>) -> Self {
        Self {
            topology: topology.to_owned(),
            rx,
            task,
        }
    }

    /// The location seen last.
    pub fn current(&self) -> Result<Option<Endpoint>, StateManagerError> {
        let seen = self.rx.borrow().clone();
        self.interpret(seen)
    }

    /// Waits for the next change of the location and returns it.
    pub async fn changed(&mut self) -> Result<Option<Endpoint>, StateManagerError> {
        if self.rx.changed().await.is_err() {
            // The task ended; what it saw last says why.
            let seen = self.rx.borrow().clone();
            return match seen {
                Seen::Stopped(detail) => Err(self.stopped(detail)),
                Seen::Location(_) => Err(self.stopped("the watch task ended".to_owned())),
            };
        }
        let seen = self.rx.borrow_and_update().clone();
        self.interpret(seen)
    }

    fn interpret(&self, seen: Seen) -> Result<Option<Endpoint>, StateManagerError> {
        match seen {
            Seen::Location(location) => Ok(location),
            Seen::Stopped(detail) => Err(self.stopped(detail)),
        }
    }

    fn stopped(&self, detail: String) -> StateManagerError {
        StateManagerError::WatchStopped {
            topology: self.topology.clone(),
            detail,
        }
    }
}

impl Drop for MasterWatch {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The backend chosen by the configuration.
#[derive(Debug)]
pub enum Backend {
    Local(LocalStateManager),
    ZooKeeper(ZkStateManager),
}

impl Backend {
    /// The local backend holding `dir`, and the topology's name: `dir` is
    /// `<root>/topologies/<name>` (how [`crate::LocalCluster`] lays them out).
    pub fn for_topology_dir(dir: &crate::TopologyDir) -> Result<(Self, String), StateManagerError> {
        let (cluster, name) = dir.cluster_and_name()?;
        Ok((Self::Local(LocalStateManager::new(cluster)), name))
    }

    /// Opens the state manager `config` names (connecting to ZooKeeper).
    pub async fn open(config: &StateManagerConfig) -> Result<Self, StateManagerError> {
        match config {
            StateManagerConfig::Local { dir } => Ok(Self::Local(LocalStateManager::new(
                crate::LocalCluster::new(dir.clone()),
            ))),
            StateManagerConfig::ZooKeeper { servers, root } => Ok(Self::ZooKeeper(
                ZkStateManager::connect(servers, root, ZkOptions::default()).await?,
            )),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $method:ident ( $($arg:expr),* )) => {
        match $self {
            Backend::Local(b) => b.$method($($arg),*).await,
            Backend::ZooKeeper(b) => b.$method($($arg),*).await,
        }
    };
}

impl StateManager for Backend {
    async fn put_topology(&self, topology: &Topology) -> Result<(), StateManagerError> {
        dispatch!(self, put_topology(topology))
    }
    async fn get_topology(&self, name: &str) -> Result<Option<Topology>, StateManagerError> {
        dispatch!(self, get_topology(name))
    }
    async fn delete_topology(&self, name: &str) -> Result<(), StateManagerError> {
        dispatch!(self, delete_topology(name))
    }
    async fn topology_names(&self) -> Result<Vec<String>, StateManagerError> {
        dispatch!(self, topology_names())
    }
    async fn put_packing_plan(
        &self,
        name: &str,
        plan: &PackingPlan,
    ) -> Result<(), StateManagerError> {
        dispatch!(self, put_packing_plan(name, plan))
    }
    async fn get_packing_plan(&self, name: &str) -> Result<Option<PackingPlan>, StateManagerError> {
        dispatch!(self, get_packing_plan(name))
    }
    async fn delete_packing_plan(&self, name: &str) -> Result<(), StateManagerError> {
        dispatch!(self, delete_packing_plan(name))
    }
    async fn put_physical_plan(
        &self,
        name: &str,
        plan: &PhysicalPlan,
    ) -> Result<(), StateManagerError> {
        dispatch!(self, put_physical_plan(name, plan))
    }
    async fn get_physical_plan(
        &self,
        name: &str,
    ) -> Result<Option<PhysicalPlan>, StateManagerError> {
        dispatch!(self, get_physical_plan(name))
    }
    async fn delete_physical_plan(&self, name: &str) -> Result<(), StateManagerError> {
        dispatch!(self, delete_physical_plan(name))
    }
    async fn put_package(&self, name: &str, data: &[u8]) -> Result<(), StateManagerError> {
        dispatch!(self, put_package(name, data))
    }
    async fn get_package(&self, name: &str) -> Result<Option<Vec<u8>>, StateManagerError> {
        dispatch!(self, get_package(name))
    }
    async fn delete_package(&self, name: &str) -> Result<(), StateManagerError> {
        dispatch!(self, delete_package(name))
    }
    async fn register_master(
        &self,
        name: &str,
        location: Endpoint,
    ) -> Result<MasterRegistration, StateManagerError> {
        dispatch!(self, register_master(name, location))
    }
    async fn master_location(&self, name: &str) -> Result<Option<Endpoint>, StateManagerError> {
        dispatch!(self, master_location(name))
    }
    async fn watch_master(&self, name: &str) -> Result<MasterWatch, StateManagerError> {
        dispatch!(self, watch_master(name))
    }
}
