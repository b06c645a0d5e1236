//! The state managers. This file: the local directory a topology's processes
//! use today, one directory per topology (see `docs/internals/contracts.md`,
//! "State directory"). [`manager`]: the [`StateManager`] trait over the
//! cluster-wide state (plans, the topology master's registration), with a
//! local backend ([`LocalStateManager`]) and a ZooKeeper one
//! ([`ZkStateManager`]) (contracts.md, "State manager").
//!
//! Invariants:
//! - every file another process may read while it is being written is written
//!   atomically (a temporary file in the same directory, then a rename), so a
//!   reader sees the old content or the new, never a torn one;
//! - the credentials directory is created 0700 and its files 0600 before
//!   anything is written to them (`egret_transport::credentials`).

use std::fs;
use std::path::{Path, PathBuf};

use bytes::Bytes;
use egret_proto::Token;
use egret_proto::v1::{PackingPlan, PhysicalPlan, Topology};
use egret_transport::{CredentialsError, DEFAULT_VALIDITY, TopologyCredentials, load_token};
use prost::Message;
use sha2::{Digest, Sha256};

mod local_backend;
pub mod logs;
pub mod manager;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod zk;

pub use local_backend::LocalStateManager;
pub use manager::{Backend, MasterRegistration, MasterWatch, StateManager, StateManagerError};
pub use zk::{ZkOptions, ZkStateManager};

/// The credentials directory, under the topology dir.
pub const CREDENTIALS_DIR: &str = "credentials";

/// Longest socket path we accept under the topology dir (the kernel's limit is 107).
const MAX_SOCKET_PATH: usize = 100;

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("cannot {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} does not hold a valid {what}: {detail}")]
    Corrupt {
        path: PathBuf,
        what: &'static str,
        detail: String,
    },
    #[error("a topology named '{0}' is already running on this cluster")]
    NameInUse(String),
    #[error("no topology named '{0}' is running on this cluster")]
    NoSuchTopology(String),
    #[error("{0} is not a topology directory of a local cluster (<root>/topologies/<name>)")]
    NotInCluster(PathBuf),
    #[error(transparent)]
    Credentials(#[from] CredentialsError),
    #[error("refusing the socket directory {path}: {problem}")]
    UnsafeSocketDir { path: PathBuf, problem: String },
}

fn io_err<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> StateError + 'a {
    move |source| StateError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

/// The local cluster: `<egret.local.dir>`.
#[derive(Debug, Clone)]
pub struct LocalCluster {
    root: PathBuf,
}

impl LocalCluster {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn topologies(&self) -> PathBuf {
        self.root.join("topologies")
    }

    /// The directory a topology named `name` has or would have (it may not
    /// exist). The caller has checked the name.
    pub fn topology_dir(&self, name: &str) -> TopologyDir {
        TopologyDir::new(self.topologies().join(name))
    }

    /// The directory of a running topology, if there is one by that name.
    pub fn topology(&self, name: &str) -> Result<TopologyDir, StateError> {
        let dir = self.topologies().join(name);
        if dir.join("topology.pb").is_file() {
            Ok(TopologyDir::new(dir))
        } else {
            Err(StateError::NoSuchTopology(name.to_owned()))
        }
    }

    /// Creates the directory of a new topology; refuses a name in use.
    pub fn create_topology(&self, name: &str) -> Result<TopologyDir, StateError> {
        let parent = self.topologies();
        fs::create_dir_all(&parent).map_err(io_err("create", &parent))?;
        let dir = parent.join(name);
        match fs::create_dir(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                return Err(StateError::NameInUse(name.to_owned()));
            }
            Err(e) => return Err(io_err("create", &dir)(e)),
        }
        let topo = TopologyDir::new(dir);
        for sub in [topo.logs_dir(), topo.path().join("work")] {
            fs::create_dir_all(&sub).map_err(io_err("create", &sub))?;
        }
        Ok(topo)
    }

    /// Names of the topologies with a directory here, sorted.
    pub fn topology_names(&self) -> Result<Vec<String>, StateError> {
        let parent = self.topologies();
        let entries = match fs::read_dir(&parent) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_err("list", &parent)(e)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(io_err("list", &parent))?;
            if entry.path().join("topology.pb").is_file() {
                names.push(entry.file_name().to_string_lossy().into_owned());
            }
        }
        names.sort();
        Ok(names)
    }

    /// Moves a topology's directory out of the running set, keeping its logs,
    /// plans and metrics, to `<root>/killed/<topology id>`. Its jar goes, as
    /// Storm's Nimbus deletes a killed topology's jar: nothing runs it from
    /// there, and a fat jar is hundreds of MiB (storm-perf's is 214) that would
    /// otherwise stay for every topology ever killed.
    pub fn retire(&self, topo: &TopologyDir, topology_id: &str) -> Result<PathBuf, StateError> {
        let killed = self.root.join("killed");
        fs::create_dir_all(&killed).map_err(io_err("create", &killed))?;
        let target = killed.join(topology_id);
        fs::rename(topo.path(), &target).map_err(io_err("move", topo.path()))?;
        let jar = TopologyDir::new(&target).jar();
        match fs::remove_file(&jar) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            // The topology is retired all the same; only the space stays taken.
            Err(e) => {
                tracing::warn!(jar = %jar.display(), error = %e, "Cannot remove a killed topology's jar.")
            }
        }
        Ok(target)
    }
}

/// One topology's directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopologyDir {
    dir: PathBuf,
}

impl TopologyDir {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The local cluster this directory belongs to and the topology's name,
    /// from the layout `<root>/topologies/<name>`; any other path is refused.
    pub fn cluster_and_name(&self) -> Result<(LocalCluster, String), StateError> {
        let not_in_cluster = || StateError::NotInCluster(self.dir.clone());
        let name = self
            .dir
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(not_in_cluster)?;
        let parent = self.dir.parent().ok_or_else(not_in_cluster)?;
        if parent.file_name().and_then(|n| n.to_str()) != Some("topologies") {
            return Err(not_in_cluster());
        }
        let root = parent.parent().ok_or_else(not_in_cluster)?;
        Ok((LocalCluster::new(root), name.to_owned()))
    }

    pub fn logs_dir(&self) -> PathBuf {
        self.dir.join("logs")
    }

    pub fn log_file(&self, process: &str) -> PathBuf {
        self.logs_dir().join(format!("{process}.log"))
    }

    pub fn work_dir(&self, instance_id: &str) -> PathBuf {
        self.dir.join("work").join(instance_id)
    }

    /// The user's jar, copied here at submission.
    pub fn jar(&self) -> PathBuf {
        self.dir.join("topology.jar")
    }

    pub fn scheduler_pid_file(&self) -> PathBuf {
        self.dir.join("scheduler.pid")
    }

    /// Directory of the stream managers' Unix sockets: `sock/` under the topology
    /// dir when short enough, else a per-topology directory under `/tmp`.
    pub fn socket_dir(&self) -> PathBuf {
        let local = self.dir.join("sock");
        if local.join("sm-999.sock").as_os_str().len() <= MAX_SOCKET_PATH {
            return local;
        }
        let digest = Sha256::digest(self.dir.as_os_str().as_encoded_bytes());
        let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
        PathBuf::from(format!("/tmp/egret-{hex}"))
    }

    /// Creates [`Self::socket_dir`] for this user alone, or checks the one that
    /// is there: a real directory (not a link), owned by this process's user,
    /// with no access for group or others. A directory of ours with looser
    /// permissions is narrowed to 0700; anything else is refused, naming the
    /// path and the problem (the `/tmp` fallback has a predictable name, so
    /// another user could have made it first).
    pub fn create_socket_dir(&self) -> Result<PathBuf, StateError> {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
        let path = self.socket_dir();
        match fs::DirBuilder::new().mode(0o700).create(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io_err("create", &path)(e)),
        }
        let meta = fs::symlink_metadata(&path).map_err(io_err("inspect", &path))?;
        let unsafe_dir = |problem: String| StateError::UnsafeSocketDir {
            path: path.clone(),
            problem,
        };
        if !meta.file_type().is_dir() {
            return Err(unsafe_dir("it is not a directory".to_owned()));
        }
        let me = nix::unistd::geteuid().as_raw();
        if meta.uid() != me {
            return Err(unsafe_dir(format!(
                "it is owned by uid {}, not by this user (uid {me})",
                meta.uid()
            )));
        }
        if meta.mode() & 0o077 != 0 {
            fs::set_permissions(&path, fs::Permissions::from_mode(0o700))
                .map_err(io_err("restrict to its owner", &path))?;
        }
        Ok(path)
    }

    pub fn stream_manager_socket(&self, container_index: i32) -> PathBuf {
        self.socket_dir().join(format!("sm-{container_index}.sock"))
    }

    pub fn write_topology(&self, topology: &Topology) -> Result<(), StateError> {
        self.write_atomic("topology.pb", &topology.encode_to_vec())
    }

    pub fn read_topology(&self) -> Result<Topology, StateError> {
        self.read_message("topology.pb", "logical plan")
    }

    pub fn write_packing_plan(&self, plan: &PackingPlan) -> Result<(), StateError> {
        self.write_atomic("packing.pb", &plan.encode_to_vec())
    }

    pub fn read_packing_plan(&self) -> Result<PackingPlan, StateError> {
        self.read_message("packing.pb", "packing plan")
    }

    pub fn write_physical_plan(&self, plan: &PhysicalPlan) -> Result<(), StateError> {
        self.write_atomic("physical.pb", &plan.encode_to_vec())
    }

    pub fn read_physical_plan(&self) -> Result<PhysicalPlan, StateError> {
        self.read_message("physical.pb", "physical plan")
    }

    /// The topology's credentials directory (`DIR/credentials/`: token, CA,
    /// certificate, key; see `egret_transport::credentials`).
    pub fn credentials_dir(&self) -> PathBuf {
        self.dir.join(CREDENTIALS_DIR)
    }

    /// Generates the topology's credentials (a new CA, its certificate and
    /// key, a random token) and writes them to [`credentials_dir`](Self::credentials_dir).
    pub fn create_credentials(
        &self,
        topology_name: &str,
    ) -> Result<TopologyCredentials, StateError> {
        let credentials = TopologyCredentials::generate(topology_name, DEFAULT_VALIDITY)?;
        self.save_credentials(&credentials)?;
        Ok(credentials)
    }

    /// Writes given credentials (0700 directory, 0600 files); the directory
    /// must not exist yet.
    pub fn save_credentials(&self, credentials: &TopologyCredentials) -> Result<(), StateError> {
        Ok(credentials.save(&self.credentials_dir())?)
    }

    pub fn read_credentials(&self) -> Result<TopologyCredentials, StateError> {
        Ok(TopologyCredentials::load(&self.credentials_dir())?)
    }

    /// Only the token (what the Unix-socket links need).
    pub fn read_token(&self) -> Result<Token, StateError> {
        Ok(load_token(&self.credentials_dir())?)
    }

    pub fn write_scheduler_pid(&self, pid: u32) -> Result<(), StateError> {
        self.write_atomic("scheduler.pid", pid.to_string().as_bytes())
    }

    pub fn read_scheduler_pid(&self) -> Result<Option<i32>, StateError> {
        self.read_optional_text("scheduler.pid", "pid")
    }

    /// A small text file parsed as `T`; `None` while the file does not exist.
    fn read_optional_text<T>(&self, name: &str, what: &'static str) -> Result<Option<T>, StateError>
    where
        T: std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        let path = self.dir.join(name);
        match fs::read_to_string(&path) {
            Ok(text) => text
                .trim()
                .parse()
                .map(Some)
                .map_err(|e: T::Err| StateError::Corrupt {
                    path,
                    what,
                    detail: e.to_string(),
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err("read", &path)(e)),
        }
    }

    /// Writes the user's jar (`topology.jar`) atomically.
    pub fn write_jar(&self, bytes: &[u8]) -> Result<(), StateError> {
        self.write_atomic("topology.jar", bytes)
    }

    fn write_atomic(&self, name: &str, bytes: &[u8]) -> Result<(), StateError> {
        let target = self.dir.join(name);
        let tmp = self.dir.join(format!(".{name}.tmp-{}", std::process::id()));
        fs::write(&tmp, bytes).map_err(io_err("write", &tmp))?;
        fs::rename(&tmp, &target).map_err(io_err("rename", &tmp))
    }

    fn read_message<M: Message + Default>(
        &self,
        name: &str,
        what: &'static str,
    ) -> Result<M, StateError> {
        let path = self.dir.join(name);
        let bytes = fs::read(&path).map_err(io_err("read", &path))?;
        M::decode(Bytes::from(bytes)).map_err(|e| StateError::Corrupt {
            path,
            what,
            detail: e.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn create_list_read_and_retire() {
        let tmp = tempfile::tempdir().unwrap();
        let cluster = LocalCluster::new(tmp.path());
        assert!(cluster.topology_names().unwrap().is_empty());
        let dir = cluster.create_topology("wc").unwrap();
        assert!(matches!(
            cluster.create_topology("wc"),
            Err(StateError::NameInUse(_))
        ));
        let topology = Topology {
            name: "wc".into(),
            id: "wc-1-1".into(),
            ..Default::default()
        };
        dir.write_topology(&topology).unwrap();
        assert_eq!(cluster.topology_names().unwrap(), vec!["wc".to_string()]);
        assert_eq!(
            cluster.topology("wc").unwrap().read_topology().unwrap(),
            topology
        );
        let credentials = dir.create_credentials("wordcount").unwrap();
        assert_eq!(dir.read_token().unwrap(), *credentials.token());
        assert_eq!(
            dir.read_credentials().unwrap().cert_pem(),
            credentials.cert_pem()
        );
        dir.write_jar(b"PK\x05\x06").unwrap();
        std::fs::create_dir_all(dir.path().join("logs")).unwrap();
        std::fs::write(dir.path().join("logs/stmgr-1.log"), b"a line\n").unwrap();
        let retired = cluster.retire(&dir, "wc-1-1").unwrap();
        assert!(retired.join("topology.pb").is_file());
        assert!(retired.join("logs/stmgr-1.log").is_file(), "the logs stay");
        assert!(!retired.join("topology.jar").exists(), "the jar goes");
        assert!(matches!(
            cluster.topology("wc"),
            Err(StateError::NoSuchTopology(_))
        ));
    }

    #[test]
    fn long_paths_put_sockets_under_tmp() {
        let short = TopologyDir::new("/tmp/x");
        assert_eq!(
            short.stream_manager_socket(1),
            PathBuf::from("/tmp/x/sock/sm-1.sock")
        );
        let long = TopologyDir::new(format!("/tmp/{}", "d".repeat(120)));
        let sock = long.stream_manager_socket(12);
        assert!(sock.to_string_lossy().starts_with("/tmp/egret-"));
        assert!(sock.as_os_str().len() < 107);
    }

    #[test]
    fn the_socket_dir_is_its_owners_alone() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let tmp = tempfile::tempdir().unwrap();
        let dir = TopologyDir::new(tmp.path());
        let sock = dir.create_socket_dir().unwrap();
        assert_eq!(sock, tmp.path().join("sock"));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().mode() & 0o777;
        assert_eq!(mode(&sock), 0o700);
        // One of ours with looser permissions is narrowed.
        std::fs::set_permissions(&sock, std::fs::Permissions::from_mode(0o777)).unwrap();
        dir.create_socket_dir().unwrap();
        assert_eq!(mode(&sock), 0o700);
        // A link (to a directory someone else chose) is refused.
        std::fs::remove_dir(&sock).unwrap();
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &sock).unwrap();
        let err = dir.create_socket_dir().unwrap_err().to_string();
        assert!(
            err.contains("not a directory") && err.contains("sock"),
            "{err}"
        );
        // A directory of another user is refused (needs root to make one).
        std::fs::remove_file(&sock).unwrap();
        std::fs::create_dir(&sock).unwrap();
        if nix::unistd::geteuid().is_root() {
            nix::unistd::chown(&sock, Some(nix::unistd::Uid::from_raw(65534)), None).unwrap();
            let err = dir.create_socket_dir().unwrap_err().to_string();
            assert!(err.contains("owned by uid 65534"), "{err}");
        }
    }

    #[test]
    fn corrupt_plan_is_a_clear_error() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = TopologyDir::new(tmp.path());
        std::fs::write(tmp.path().join("packing.pb"), [0xff, 0xff]).unwrap();
        let err = dir.read_packing_plan().unwrap_err().to_string();
        assert!(err.contains("packing plan"), "{err}");
    }

    #[test]
    fn a_topology_dir_names_its_cluster_and_topology() {
        let cluster = LocalCluster::new("/var/egret/local");
        let (found, name) = cluster.topology_dir("wc").cluster_and_name().unwrap();
        assert_eq!(found.root(), Path::new("/var/egret/local"));
        assert_eq!(name, "wc");
        assert!(matches!(
            TopologyDir::new("/tmp/wc").cluster_and_name(),
            Err(StateError::NotInCluster(_))
        ));
    }
}
