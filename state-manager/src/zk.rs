//! [`StateManager`] on ZooKeeper, with the `zookeeper-client` crate.
//!
//! Node layout under the root (default `/egret`), as Heron's:
//!
//! | node | kind | data |
//! |---|---|---|
//! | `<root>/topologies/<name>` | persistent | `Topology` |
//! | `<root>/packingplans/<name>` | persistent | `PackingPlan` |
//! | `<root>/pplans/<name>` | persistent | `PhysicalPlan` |
//! | `<root>/tmasters/<name>` | ephemeral | the master's `host:port`, UTF-8 |
//!
//! The four parents are created at connection when missing. The master's
//! node belongs to the session that created it: ZooKeeper deletes it when
//! that session closes (every clone of the client dropped, e.g. the process
//! exits) or expires (the process stopped answering for the session timeout).
//! Every error names the servers and the node.

use egret_transport::Endpoint;
use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use egret_proto::v1::{PackingPlan, PhysicalPlan, Topology};
use prost::Message;
use sha2::{Digest, Sha256};
use tokio::sync::watch;
use zookeeper_client as zk;

use crate::manager::{
    MasterRegistration, MasterWatch, Registration, Seen, StateManager, StateManagerError, checked,
};

const TOPOLOGIES: &str = "topologies";
const PACKING_PLANS: &str = "packingplans";
const PHYSICAL_PLANS: &str = "pplans";
const MASTERS: &str = "tmasters";
/// `<root>/packages/<name>`: the package's manifest; its children `0`, `1`,
/// ... hold the package's bytes in order.
const PACKAGES: &str = "packages";
/// The manifest's format tag.
const PACKAGE_MANIFEST: &str = "egret-package-v1";

const PERSISTENT: zk::CreateOptions<'static> =
    zk::CreateMode::Persistent.with_acls(zk::Acls::anyone_all());
const EPHEMERAL: zk::CreateOptions<'static> =
    zk::CreateMode::Ephemeral.with_acls(zk::Acls::anyone_all());

/// The pause before a watch re-reads after a lost connection.
const RETRY_PAUSE: Duration = Duration::from_millis(200);

/// A failure the client may recover from by reconnecting.
fn is_transient(error: &StateManagerError) -> bool {
    match error {
        StateManagerError::Timeout { .. } => true,
        StateManagerError::ZooKeeper { source, .. } => {
            matches!(source, zk::Error::ConnectionLoss | zk::Error::Throttled)
        }
        _ => false,
    }
}

/// Timeouts of a ZooKeeper state manager.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ZkOptions {
    /// Asked of the server; a master whose process stops answering loses
    /// its registration after about this long.
    pub session_timeout: Duration,
    /// How long [`ZkStateManager::connect`] waits for a session.
    pub connect_timeout: Duration,
    /// How long one operation waits for its answer.
    pub operation_timeout: Duration,
    /// The largest data written to a node. A server drops the connection of a
    /// request larger than its `jute.maxbuffer` (default 1 MiB less one byte,
    /// path and headers included), so a larger one is refused here, clearly.
    pub max_node_bytes: usize,
}

/// ZooKeeper's default `jute.maxbuffer` less room for a request's path and headers.
pub const DEFAULT_MAX_NODE_BYTES: usize = 1024 * 1024 - 4096;

impl Default for ZkOptions {
    fn default() -> Self {
        Self {
            session_timeout: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(10),
            operation_timeout: Duration::from_secs(10),
            max_node_bytes: DEFAULT_MAX_NODE_BYTES,
        }
    }
}

/// The ZooKeeper backend (see the module's documentation). Cloning shares
/// the session.
#[derive(Debug, Clone)]
pub struct ZkStateManager {
    client: zk::Client,
    servers: String,
    root: String,
    options: ZkOptions,
}

impl ZkStateManager {
    /// Opens a session on `servers` (`host:port,host:port`) and creates the
    /// layout under `root` (absolute, e.g. `/egret`) when missing.
    pub async fn connect(
        servers: &str,
        root: &str,
        options: ZkOptions,
    ) -> Result<Self, StateManagerError> {
        let connecting = zk::Client::connector()
            .with_session_timeout(options.session_timeout)
            .with_fail_eagerly()
            .connect(servers);
        let client = match tokio::time::timeout(options.connect_timeout, connecting).await {
            Ok(Ok(client)) => client,
            Ok(Err(source)) => {
                return Err(StateManagerError::Connect {
                    servers: servers.to_owned(),
                    source,
                });
            }
            Err(_) => {
                return Err(StateManagerError::ConnectTimeout {
                    servers: servers.to_owned(),
                    timeout: options.connect_timeout,
                });
            }
        };
        let manager = Self {
            client,
            servers: servers.to_owned(),
            root: root.trim_end_matches('/').to_owned(),
            options,
        };
        for parent in [TOPOLOGIES, PACKING_PLANS, PHYSICAL_PLANS, MASTERS, PACKAGES] {
            let path = format!("{}/{parent}", manager.root);
            manager
                .op("create", &path, manager.client.mkdir(&path, &PERSISTENT))
                .await?;
        }
        tracing::info!(servers, root, session = %manager.client.session_id(), "connected to ZooKeeper");
        Ok(manager)
    }

    pub fn servers(&self) -> &str {
        &self.servers
    }

    pub fn root(&self) -> &str {
        &self.root
    }

    /// The session's state (connected, expired, closed...).
    pub fn session_state(&self) -> zk::SessionState {
        self.client.state()
    }

    fn node(&self, parent: &str, name: &str) -> Result<String, StateManagerError> {
        Ok(format!("{}/{parent}/{}", self.root, checked(name)?))
    }

    fn error(&self, action: &'static str, path: &str, source: zk::Error) -> StateManagerError {
        StateManagerError::ZooKeeper {
            servers: self.servers.clone(),
            action,
            path: path.to_owned(),
            source,
        }
    }

    /// One operation, bounded by the operation timeout; errors name the node.
    async fn op<T>(
        &self,
        action: &'static str,
        path: &str,
        future: impl Future<Output = Result<T, zk::Error>>,
    ) -> Result<T, StateManagerError> {
        self.op_raw(action, path, future)
            .await?
            .map_err(|e| self.error(action, path, e))
    }

    /// As [`Self::op`], leaving ZooKeeper's answer to the caller.
    async fn op_raw<T>(
        &self,
        action: &'static str,
        path: &str,
        future: impl Future<Output = Result<T, zk::Error>>,
    ) -> Result<Result<T, zk::Error>, StateManagerError> {
        tokio::time::timeout(self.options.operation_timeout, future)
            .await
            .map_err(|_| StateManagerError::Timeout {
                servers: self.servers.clone(),
                action,
                path: path.to_owned(),
                timeout: self.options.operation_timeout,
            })
    }

    /// Creates or replaces a persistent node's data.
    async fn put(&self, parent: &str, name: &str, data: &[u8]) -> Result<(), StateManagerError> {
        let path = self.node(parent, name)?;
        if data.len() > self.options.max_node_bytes {
            return Err(StateManagerError::NodeTooLarge {
                servers: self.servers.clone(),
                path,
                bytes: data.len(),
                limit: self.options.max_node_bytes,
            });
        }
        for _ in 0..3 {
            match self
                .op_raw("write", &path, self.client.set_data(&path, data, None))
                .await?
            {
                Ok(_) => return Ok(()),
                Err(zk::Error::NoNode) => {}
                Err(e) => return Err(self.error("write", &path, e)),
            }
            match self
                .op_raw(
                    "create",
                    &path,
                    self.client.create(&path, data, &PERSISTENT),
                )
                .await?
            {
                Ok(_) => return Ok(()),
                // Created meanwhile by another writer: replace its data.
                Err(zk::Error::NodeExists) => {}
                Err(e) => return Err(self.error("create", &path, e)),
            }
        }
        Err(self.error("write", &path, zk::Error::NodeExists))
    }

    async fn get<M: Message + Default>(
        &self,
        parent: &str,
        name: &str,
        what: &'static str,
    ) -> Result<Option<M>, StateManagerError> {
        let path = self.node(parent, name)?;
        match self
            .op_raw("read", &path, self.client.get_data(&path))
            .await?
        {
            Ok((data, _)) => {
                M::decode(Bytes::from(data))
                    .map(Some)
                    .map_err(|e| StateManagerError::Corrupt {
                        location: format!("ZooKeeper node {path} at {}", self.servers),
                        what,
                        detail: e.to_string(),
                    })
            }
            Err(zk::Error::NoNode) => Ok(None),
            Err(e) => Err(self.error("read", &path, e)),
        }
    }

    async fn delete(&self, parent: &str, name: &str) -> Result<(), StateManagerError> {
        let path = self.node(parent, name)?;
        match self
            .op_raw("delete", &path, self.client.delete(&path, None))
            .await?
        {
            Ok(()) | Err(zk::Error::NoNode) => Ok(()),
            Err(e) => Err(self.error("delete", &path, e)),
        }
    }

    /// Deletes the chunks under a package node (not the node).
    async fn delete_chunks(&self, path: &str) -> Result<(), StateManagerError> {
        let children = match self
            .op_raw("list", path, self.client.list_children(path))
            .await?
        {
            Ok(children) => children,
            Err(zk::Error::NoNode) => return Ok(()),
            Err(e) => return Err(self.error("list", path, e)),
        };
        for child in children {
            let chunk = format!("{path}/{child}");
            match self
                .op_raw("delete", &chunk, self.client.delete(&chunk, None))
                .await?
            {
                Ok(()) | Err(zk::Error::NoNode) => {}
                Err(e) => return Err(self.error("delete", &chunk, e)),
            }
        }
        Ok(())
    }

    fn corrupt_package(&self, path: &str, detail: String) -> StateManagerError {
        StateManagerError::Corrupt {
            location: format!("ZooKeeper node {path} at {}", self.servers),
            what: "topology package",
            detail,
        }
    }

    fn parse_location(&self, path: &str, data: &[u8]) -> Result<Endpoint, StateManagerError> {
        let corrupt = |detail: String| StateManagerError::Corrupt {
            location: format!("ZooKeeper node {path} at {}", self.servers),
            what: "topology master location",
            detail,
        };
        let text = std::str::from_utf8(data).map_err(|e| corrupt(e.to_string()))?;
        text.trim()
            .parse()
            .map_err(|e: egret_transport::EndpointError| corrupt(format!("{e}: {:?}", text.trim())))
    }

    /// The master's location and a watch that fires on its next change.
    async fn location_and_watch(
        &self,
        path: &str,
    ) -> Result<(Option<Endpoint>, zk::OneshotWatcher), StateManagerError> {
        loop {
            match self
                .op_raw("watch", path, self.client.get_and_watch_data(path))
                .await?
            {
                Ok((data, _, watcher)) => {
                    return Ok((Some(self.parse_location(path, &data)?), watcher));
                }
                Err(zk::Error::NoNode) => {}
                Err(e) => return Err(self.error("watch", path, e)),
            }
            // No node: watch for its creation.
            match self
                .op("watch", path, self.client.check_and_watch_stat(path))
                .await?
            {
                (None, watcher) => return Ok((None, watcher)),
                // Created between the two requests: read it.
                (Some(_), _) => continue,
            }
        }
    }
}

impl StateManager for ZkStateManager {
    async fn put_topology(&self, topology: &Topology) -> Result<(), StateManagerError> {
        self.put(TOPOLOGIES, &topology.name, &topology.encode_to_vec())
            .await
    }

    async fn get_topology(&self, name: &str) -> Result<Option<Topology>, StateManagerError> {
        self.get(TOPOLOGIES, name, "logical plan").await
    }

    async fn delete_topology(&self, name: &str) -> Result<(), StateManagerError> {
        self.delete(TOPOLOGIES, name).await
    }

    async fn topology_names(&self) -> Result<Vec<String>, StateManagerError> {
        let path = format!("{}/{TOPOLOGIES}", self.root);
        let mut names = self
            .op("list", &path, self.client.list_children(&path))
            .await?;
        names.sort();
        Ok(names)
    }

    async fn put_packing_plan(
        &self,
        name: &str,
        plan: &PackingPlan,
    ) -> Result<(), StateManagerError> {
        self.put(PACKING_PLANS, name, &plan.encode_to_vec()).await
    }

    async fn get_packing_plan(&self, name: &str) -> Result<Option<PackingPlan>, StateManagerError> {
        self.get(PACKING_PLANS, name, "packing plan").await
    }

    async fn delete_packing_plan(&self, name: &str) -> Result<(), StateManagerError> {
        self.delete(PACKING_PLANS, name).await
    }

    async fn put_physical_plan(
        &self,
        name: &str,
        plan: &PhysicalPlan,
    ) -> Result<(), StateManagerError> {
        self.put(PHYSICAL_PLANS, name, &plan.encode_to_vec()).await
    }

    async fn get_physical_plan(
        &self,
        name: &str,
    ) -> Result<Option<PhysicalPlan>, StateManagerError> {
        self.get(PHYSICAL_PLANS, name, "physical plan").await
    }

    async fn delete_physical_plan(&self, name: &str) -> Result<(), StateManagerError> {
        self.delete(PHYSICAL_PLANS, name).await
    }

    /// The manifest is emptied first and written last, so a reader never
    /// takes a half-written package for a whole one.
    async fn put_package(&self, name: &str, data: &[u8]) -> Result<(), StateManagerError> {
        let path = self.node(PACKAGES, name)?;
        self.put(PACKAGES, name, b"").await?;
        self.delete_chunks(&path).await?;
        let chunk_bytes = self.options.max_node_bytes.max(1);
        let chunks = data.chunks(chunk_bytes);
        let count = chunks.len();
        for (index, chunk) in chunks.enumerate() {
            let node = format!("{path}/{index}");
            self.op(
                "create",
                &node,
                self.client.create(&node, chunk, &PERSISTENT),
            )
            .await?;
        }
        let digest = hex::encode(Sha256::digest(data));
        let manifest = format!("{PACKAGE_MANIFEST} {} {count} {digest}", data.len());
        self.put(PACKAGES, name, manifest.as_bytes()).await
    }

    async fn get_package(&self, name: &str) -> Result<Option<Vec<u8>>, StateManagerError> {
        let path = self.node(PACKAGES, name)?;
        let manifest = match self
            .op_raw("read", &path, self.client.get_data(&path))
            .await?
        {
            Ok((data, _)) => data,
            Err(zk::Error::NoNode) => return Ok(None),
            Err(e) => return Err(self.error("read", &path, e)),
        };
        let text = String::from_utf8_lossy(&manifest).into_owned();
        let fields: Vec<&str> = text.split_whitespace().collect();
        let (size, count, digest) = match fields.as_slice() {
            [tag, size, count, digest] if *tag == PACKAGE_MANIFEST => {
                match (size.parse::<usize>(), count.parse::<usize>()) {
                    (Ok(size), Ok(count)) => (size, count, digest.to_string()),
                    _ => return Err(self.corrupt_package(&path, format!("bad manifest {text:?}"))),
                }
            }
            [] => {
                return Err(self.corrupt_package(
                    &path,
                    "the package is being written (empty manifest)".to_owned(),
                ));
            }
            _ => return Err(self.corrupt_package(&path, format!("bad manifest {text:?}"))),
        };
        let mut data = Vec::with_capacity(size);
        for index in 0..count {
            let node = format!("{path}/{index}");
            match self
                .op_raw("read", &node, self.client.get_data(&node))
                .await?
            {
                Ok((chunk, _)) => data.extend_from_slice(&chunk),
                Err(zk::Error::NoNode) => {
                    return Err(
                        self.corrupt_package(&path, format!("chunk {index} of {count} is missing"))
                    );
                }
                Err(e) => return Err(self.error("read", &node, e)),
            }
        }
        let found = hex::encode(Sha256::digest(&data));
        if data.len() != size || found != digest {
            return Err(self.corrupt_package(
                &path,
                format!(
                    "read {} bytes with SHA-256 {found}, the manifest says {size} bytes with {digest}",
                    data.len()
                ),
            ));
        }
        Ok(Some(data))
    }

    async fn delete_package(&self, name: &str) -> Result<(), StateManagerError> {
        let path = self.node(PACKAGES, name)?;
        self.delete_chunks(&path).await?;
        self.delete(PACKAGES, name).await
    }

    async fn register_master(
        &self,
        name: &str,
        location: Endpoint,
    ) -> Result<MasterRegistration, StateManagerError> {
        let path = self.node(MASTERS, name)?;
        let data = location.to_string();
        for _ in 0..3 {
            match self
                .op_raw(
                    "create",
                    &path,
                    self.client.create(&path, data.as_bytes(), &EPHEMERAL),
                )
                .await?
            {
                Ok((stat, _)) => {
                    tracing::info!(topology = name, %location, path = %path, "registered the topology master");
                    return Ok(MasterRegistration::new(
                        name,
                        location,
                        Registration::ZooKeeper(Box::new(ZkRegistration {
                            manager: self.clone(),
                            path,
                            version: stat.version,
                        })),
                    ));
                }
                Err(zk::Error::NodeExists) => {}
                Err(e) => return Err(self.error("create", &path, e)),
            }
            match self
                .op_raw("read", &path, self.client.get_data(&path))
                .await?
            {
                Ok((holder, _)) => {
                    return Err(StateManagerError::MasterAlreadyRegistered {
                        topology: name.to_owned(),
                        holder: String::from_utf8_lossy(&holder).trim().to_owned(),
                    });
                }
                // Its session ended meanwhile: try again.
                Err(zk::Error::NoNode) => {}
                Err(e) => return Err(self.error("read", &path, e)),
            }
        }
        Err(self.error("create", &path, zk::Error::NodeExists))
    }

    async fn master_location(&self, name: &str) -> Result<Option<Endpoint>, StateManagerError> {
        let path = self.node(MASTERS, name)?;
        match self
            .op_raw("read", &path, self.client.get_data(&path))
            .await?
        {
            Ok((data, _)) => Ok(Some(self.parse_location(&path, &data)?)),
            Err(zk::Error::NoNode) => Ok(None),
            Err(e) => Err(self.error("read", &path, e)),
        }
    }

    async fn watch_master(&self, name: &str) -> Result<MasterWatch, StateManagerError> {
        let path = self.node(MASTERS, name)?;
        let (first, mut watcher) = self.location_and_watch(&path).await?;
        let (tx, rx) = watch::channel(Seen::Location(first));
        let manager = self.clone();
        let task = tokio::spawn(async move {
            loop {
                let event = watcher.changed().await;
                if event.event_type == zk::EventType::Session && event.session_state.is_terminated()
                {
                    tx.send_replace(Seen::Stopped(format!(
                        "the ZooKeeper session at {} ended: {}",
                        manager.servers, event.session_state
                    )));
                    return;
                }
                let (location, next) = loop {
                    match manager.location_and_watch(&path).await {
                        Ok(found) => break found,
                        // Disconnected: the client reconnects while the session lives.
                        Err(e) if is_transient(&e) && !manager.client.state().is_terminated() => {
                            tracing::debug!("watching {path}: {e}; retrying");
                            tokio::time::sleep(RETRY_PAUSE).await;
                        }
                        Err(e) => {
                            tx.send_replace(Seen::Stopped(e.to_string()));
                            return;
                        }
                    }
                };
                watcher = next;
                tx.send_if_modified(|seen| {
                    let next = Seen::Location(location);
                    let changed = *seen != next;
                    *seen = next;
                    changed
                });
            }
        });
        Ok(MasterWatch::new(name, rx, task))
    }
}

/// The ephemeral node of a registration, and the session that owns it.
#[derive(Debug)]
pub(crate) struct ZkRegistration {
    manager: ZkStateManager,
    path: String,
    version: i32,
}

impl ZkRegistration {
    /// Waits until the session that owns the node has ended; says how.
    pub(crate) async fn session_ended(&self) -> String {
        let mut states = self.manager.client.state_watcher();
        let mut state = states.peek_state();
        while !state.is_terminated() {
            state = states.changed().await;
        }
        format!(
            "the ZooKeeper session at {} ended: {state}",
            self.manager.servers
        )
    }

    /// Deletes the node (only if it is still the one this registration created).
    pub(crate) async fn release(self) -> Result<(), StateManagerError> {
        let manager = &self.manager;
        match manager
            .op_raw(
                "delete",
                &self.path,
                manager.client.delete(&self.path, Some(self.version)),
            )
            .await?
        {
            Ok(()) | Err(zk::Error::NoNode) | Err(zk::Error::BadVersion) => Ok(()),
            Err(e) => Err(manager.error("delete", &self.path, e)),
        }
    }
}
