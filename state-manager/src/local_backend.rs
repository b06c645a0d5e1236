//! [`StateManager`] over the local directory: a thin adapter over
//! [`LocalCluster`] and [`TopologyDir`] (contracts.md, "State directory" and
//! "State manager").
//!
//! Semantics of this backend:
//! - objects are the files `topology.pb`, `packing.pb` and `physical.pb` of
//!   `<dir>/topologies/<name>/`, written atomically; a topology is listed
//!   while its `topology.pb` exists; deleting removes the file only (the
//!   directory, with its logs, is the scheduler's to retire);
//! - the master's registration is an exclusive `flock(2)` on
//!   `<dir>/topologies/<name>/tmaster.lock`, whose content is the master's
//!   `host:port`. The kernel drops the lock when the registering process
//!   exits, however it exits, so a location is live exactly while its
//!   process holds the lock: a reader that can take a shared lock sees no
//!   master. This holds for processes of one machine only;
//! - the watch polls (every [`LocalStateManager::poll_interval`]);
//! - the file system calls are blocking; they are small and local.

use egret_transport::Endpoint;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use egret_proto::v1::{PackingPlan, PhysicalPlan, Topology};
use tokio::sync::watch;

use crate::manager::{
    MasterRegistration, MasterWatch, Registration, Seen, StateManager, StateManagerError, checked,
};
use crate::{LocalCluster, StateError, TopologyDir};

const LOCK_FILE: &str = "tmaster.lock";
/// How often, and how long, a registration retries a lock a reader holds
/// shared for an instant before concluding that a master holds it.
const LOCK_RETRIES: u32 = 20;
const LOCK_RETRY_PAUSE: Duration = Duration::from_millis(5);

/// The local backend (see the module's documentation).
#[derive(Debug, Clone)]
pub struct LocalStateManager {
    cluster: LocalCluster,
    poll_interval: Duration,
}

impl LocalStateManager {
    pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_millis(200);

    pub fn new(cluster: LocalCluster) -> Self {
        Self {
            cluster,
            poll_interval: Self::DEFAULT_POLL_INTERVAL,
        }
    }

    pub fn with_poll_interval(mut self, interval: Duration) -> Self {
        self.poll_interval = interval;
        self
    }

    pub fn poll_interval(&self) -> Duration {
        self.poll_interval
    }

    pub fn cluster(&self) -> &LocalCluster {
        &self.cluster
    }

    fn dir(&self, name: &str) -> Result<TopologyDir, StateManagerError> {
        Ok(self.cluster.topology_dir(checked(name)?))
    }

    /// The topology's directory, created when missing (for a write).
    fn dir_for_write(&self, name: &str) -> Result<TopologyDir, StateManagerError> {
        let dir = self.dir(name)?;
        fs::create_dir_all(dir.path()).map_err(|source| StateError::Io {
            action: "create",
            path: dir.path().to_owned(),
            source,
        })?;
        Ok(dir)
    }
}

/// `None` for a file that does not exist (or whose directory does not).
fn optional<T>(result: Result<T, StateError>) -> Result<Option<T>, StateManagerError> {
    match result {
        Ok(value) => Ok(Some(value)),
        Err(StateError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

fn remove(path: PathBuf) -> Result<(), StateManagerError> {
    match fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(StateError::Io {
            action: "remove",
            path,
            source,
        }
        .into()),
    }
}

fn io(
    action: &'static str,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> StateManagerError + use<> {
    let path = path.to_owned();
    move |source| {
        StateError::Io {
            action,
            path,
            source,
        }
        .into()
    }
}

fn read_location(file: &mut File, path: &Path) -> Result<Option<Endpoint>, StateManagerError> {
    let mut text = String::new();
    file.rewind().map_err(io("read", path))?;
    file.read_to_string(&mut text).map_err(io("read", path))?;
    let text = text.trim();
    if text.is_empty() {
        // Locked by a master that has not written its location yet.
        return Ok(None);
    }
    text.parse().map(Some).map_err(
        |e: egret_transport::EndpointError| StateManagerError::Corrupt {
            location: path.display().to_string(),
            what: "topology master location",
            detail: e.to_string(),
        },
    )
}

/// The live master's location in the lock file at `path`.
fn live_location(path: &Path) -> Result<Option<Endpoint>, StateManagerError> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io("open", path)(e)),
    };
    match file.try_lock_shared() {
        // Nobody holds it exclusively: no live master. Dropping the file unlocks.
        Ok(()) => Ok(None),
        Err(TryLockError::WouldBlock) => read_location(&mut file, path),
        Err(TryLockError::Error(e)) => Err(io("lock", path)(e)),
    }
}

impl StateManager for LocalStateManager {
    async fn put_topology(&self, topology: &Topology) -> Result<(), StateManagerError> {
        Ok(self
            .dir_for_write(&topology.name)?
            .write_topology(topology)?)
    }

    async fn get_topology(&self, name: &str) -> Result<Option<Topology>, StateManagerError> {
        optional(self.dir(name)?.read_topology())
    }

    async fn delete_topology(&self, name: &str) -> Result<(), StateManagerError> {
        remove(self.dir(name)?.path().join("topology.pb"))
    }

    async fn topology_names(&self) -> Result<Vec<String>, StateManagerError> {
        Ok(self.cluster.topology_names()?)
    }

    async fn put_packing_plan(
        &self,
        name: &str,
        plan: &PackingPlan,
    ) -> Result<(), StateManagerError> {
        Ok(self.dir_for_write(name)?.write_packing_plan(plan)?)
    }

    async fn get_packing_plan(&self, name: &str) -> Result<Option<PackingPlan>, StateManagerError> {
        optional(self.dir(name)?.read_packing_plan())
    }

    async fn delete_packing_plan(&self, name: &str) -> Result<(), StateManagerError> {
        remove(self.dir(name)?.path().join("packing.pb"))
    }

    async fn put_physical_plan(
        &self,
        name: &str,
        plan: &PhysicalPlan,
    ) -> Result<(), StateManagerError> {
        Ok(self.dir_for_write(name)?.write_physical_plan(plan)?)
    }

    async fn get_physical_plan(
        &self,
        name: &str,
    ) -> Result<Option<PhysicalPlan>, StateManagerError> {
        optional(self.dir(name)?.read_physical_plan())
    }

    async fn delete_physical_plan(&self, name: &str) -> Result<(), StateManagerError> {
        remove(self.dir(name)?.path().join("physical.pb"))
    }

    async fn put_package(&self, name: &str, data: &[u8]) -> Result<(), StateManagerError> {
        Ok(self.dir_for_write(name)?.write_jar(data)?)
    }

    async fn get_package(&self, name: &str) -> Result<Option<Vec<u8>>, StateManagerError> {
        let path = self.dir(name)?.jar();
        match std::fs::read(&path) {
            Ok(data) => Ok(Some(data)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io("read", &path)(e)),
        }
    }

    async fn delete_package(&self, name: &str) -> Result<(), StateManagerError> {
        remove(self.dir(name)?.jar())
    }

    async fn register_master(
        &self,
        name: &str,
        location: Endpoint,
    ) -> Result<MasterRegistration, StateManagerError> {
        let dir = self.dir_for_write(name)?;
        let path = dir.path().join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io("open", &path))?;
        let mut attempt = 0;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(TryLockError::WouldBlock) if attempt < LOCK_RETRIES => {
                    attempt += 1;
                    tokio::time::sleep(LOCK_RETRY_PAUSE).await;
                }
                Err(TryLockError::WouldBlock) => {
                    let holder = match read_location(&mut file, &path) {
                        Ok(Some(addr)) => addr.to_string(),
                        Ok(None) => "an address not yet written".to_owned(),
                        Err(e) => format!("an unreadable address ({e})"),
                    };
                    return Err(StateManagerError::MasterAlreadyRegistered {
                        topology: name.to_owned(),
                        holder,
                    });
                }
                Err(TryLockError::Error(e)) => return Err(io("lock", &path)(e)),
            }
        }
        file.set_len(0).map_err(io("write", &path))?;
        file.rewind().map_err(io("write", &path))?;
        file.write_all(location.to_string().as_bytes())
            .map_err(io("write", &path))?;
        tracing::debug!(topology = name, %location, "registered the topology master (local)");
        Ok(MasterRegistration::new(
            name,
            location,
            Registration::Local(LocalRegistration {
                file: Some(file),
                path,
            }),
        ))
    }

    async fn master_location(&self, name: &str) -> Result<Option<Endpoint>, StateManagerError> {
        live_location(&self.dir(name)?.path().join(LOCK_FILE))
    }

    async fn watch_master(&self, name: &str) -> Result<MasterWatch, StateManagerError> {
        let path = self.dir(name)?.path().join(LOCK_FILE);
        let first = live_location(&path)?;
        let (tx, rx) = watch::channel(Seen::Location(first));
        let interval = self.poll_interval;
        let task = tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = tokio::time::sleep(interval) => {}
                    () = tx.closed() => return,
                }
                match live_location(&path) {
                    Ok(location) => {
                        tx.send_if_modified(|seen| {
                            let next = Seen::Location(location);
                            let changed = *seen != next;
                            *seen = next;
                            changed
                        });
                    }
                    Err(e) => {
                        tx.send_replace(Seen::Stopped(e.to_string()));
                        return;
                    }
                }
            }
        });
        Ok(MasterWatch::new(name, rx, task))
    }
}

/// The lock held by a local registration; closing the file releases it.
#[derive(Debug)]
pub(crate) struct LocalRegistration {
    file: Option<File>,
    path: PathBuf,
}

impl LocalRegistration {
    pub(crate) fn release(mut self) -> Result<(), StateManagerError> {
        self.clear()
    }

    /// Empties the location, then unlocks (by closing the file).
    fn clear(&mut self) -> Result<(), StateManagerError> {
        if let Some(file) = self.file.take() {
            file.set_len(0).map_err(io("write", &self.path))?;
        }
        Ok(())
    }
}

impl Drop for LocalRegistration {
    fn drop(&mut self) {
        if let Err(e) = self.clear() {
            tracing::warn!("releasing the topology master's registration: {e}");
        }
    }
}
