//! `egret-submitter`: the cluster side of a submission (contracts.md,
//! "Submission" and "State directory"). Given a submitted [`Topology`] and its
//! jar, [`LocalSubmitter::submit`] validates the topology ([`validate`]), gives
//! it its id, packs it (once: the scheduler and every other reader use the
//! `packing.pb` written here), creates its state directory and launches its
//! scheduler, and returns the [`SubmittedTopology`] with its packing plan.
//!
//! The cluster is a local directory ([`LocalCluster`]), or a state manager
//! shared by several hosts ([`cluster::ClusterSubmitter`], which stores the
//! topology for the hosts to run and starts nothing).
//!
//! Invariants:
//! - a topology is packed before anything is written: an invalid or
//!   unpackable topology leaves no directory;
//! - a topology is launched only once its directory is complete (jar copied,
//!   token created, `packing.pb` and then `topology.pb` written); a failure
//!   half way removes the directory, so a name is never left taken by a broken
//!   submission;
//! - the scheduler of each topology is detached (new session, stdin null,
//!   output to `logs/scheduler.log`): the submitting command may return while
//!   it runs.
//!
//! The forced stop of a topology whose master cannot be reached lives in
//! [`stop`]: the only code that signals a scheduler.

pub mod cluster;
pub mod stop;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{SystemTime, UNIX_EPOCH};

use egret_config::tls::CredentialsSource;
use egret_proto::v1::{ComponentKind, PackingPlan, Topology, TopologySettings};
use egret_scheduler::packing::{self, PackingError};
use egret_state_manager::{LocalCluster, StateError, TopologyDir};
use egret_supervisor::{open_log, set_new_session};
use egret_transport::{CredentialsError, TopologyCredentials};

#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    /// The topology is invalid; the text names the problem ([`validate`]).
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Packing(#[from] PackingError),
    #[error("a topology named '{0}' is already running")]
    NameInUse(String),
    #[error(transparent)]
    State(StateError),
    #[error("the TLS files configured by egret.tls.*.file are not usable: {0}")]
    Credentials(#[from] CredentialsError),
    #[error(transparent)]
    StateManager(#[from] egret_state_manager::StateManagerError),
    #[error("cannot read the jar {path}: {source}")]
    ReadJar {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot copy {from} to {to}: {source}")]
    CopyJar {
        from: PathBuf,
        to: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot start the scheduler of '{name}': {source}")]
    StartScheduler {
        name: String,
        #[source]
        source: std::io::Error,
    },
}

impl From<StateError> for SubmitError {
    fn from(e: StateError) -> Self {
        match e {
            StateError::NameInUse(name) => SubmitError::NameInUse(name),
            other => SubmitError::State(other),
        }
    }
}

/// Resolves the settings every process of `topology` shares (once, here) and
/// validates it; returns the settings.
pub fn prepare(topology: &mut Topology) -> Result<TopologySettings, SubmitError> {
    egret_config::settings::resolve_topology(topology)
        .map_err(|e| SubmitError::Invalid(e.to_string()))?;
    validate(topology).map_err(SubmitError::Invalid)?;
    // The metrics manager's settings are read by each stream manager; a bad
    // one is refused here rather than by every container at its start.
    let config = egret_config::topology::config_map(topology).map_err(SubmitError::Invalid)?;
    egret_metrics::manager::ManagerSettings::from_config(&config)
        .map_err(|e| SubmitError::Invalid(e.to_string()))?;
    egret_config::settings::settings_of(topology)
        .copied()
        .map_err(|e| SubmitError::Invalid(e.to_string()))
}

/// Checks a submitted topology; the error names the problem.
pub fn validate(topology: &Topology) -> Result<(), String> {
    let name = &topology.name;
    egret_config::settings::validate_topology_name(name).map_err(|e| e.to_string())?;
    let mut ids = std::collections::BTreeMap::new();
    for c in &topology.components {
        if c.id.is_empty() {
            return Err(format!(
                "topology '{name}' has a component with an empty id"
            ));
        }
        if ids.insert(c.id.as_str(), c).is_some() {
            return Err(format!(
                "topology '{name}' has two components named '{}'",
                c.id
            ));
        }
    }
    if !topology
        .components
        .iter()
        .any(|c| c.kind == ComponentKind::Spout as i32)
    {
        return Err(format!("topology '{name}' has no spout"));
    }
    for bolt in &topology.components {
        for input in &bolt.inputs {
            let Some(source) = ids.get(input.component.as_str()) else {
                return Err(format!(
                    "bolt '{}' subscribes to unknown component '{}'",
                    bolt.id, input.component
                ));
            };
            if !source.streams.iter().any(|s| s.id == input.stream) {
                return Err(format!(
                    "bolt '{}' subscribes to stream '{}' of component '{}', which does not declare it",
                    bolt.id, input.stream, input.component
                ));
            }
        }
    }
    Ok(())
}

/// A topology accepted by the cluster.
#[derive(Debug, Clone)]
pub struct SubmittedTopology {
    pub name: String,
    /// `<name>-<counter>-<unix secs>`.
    pub id: String,
    pub dir: TopologyDir,
    /// The one packing plan of the topology (also in `packing.pb`).
    pub plan: PackingPlan,
    /// The settings resolved at submission (also in `topology.pb`).
    pub settings: TopologySettings,
}

impl SubmittedTopology {
    /// The number of executors of the plan.
    pub fn executors(&self) -> usize {
        self.plan.containers.iter().map(|c| c.instances.len()).sum()
    }

    /// The number of tasks of the plan.
    pub fn tasks(&self) -> usize {
        self.plan
            .containers
            .iter()
            .flat_map(|c| &c.instances)
            .map(|i| i.task_ids.len())
            .sum()
    }
}

/// Submits topologies to a local cluster and runs each one's scheduler.
#[derive(Debug, Clone)]
pub struct LocalSubmitter {
    cluster: LocalCluster,
    /// The `egret` executable the scheduler runs (`egret scheduler`).
    executable: PathBuf,
    start_scheduler: bool,
    /// Where each topology's key material comes from (resolved once, from
    /// `egret.tls.*.file`).
    credentials: CredentialsSource,
}

impl LocalSubmitter {
    pub fn new(cluster: LocalCluster, executable: PathBuf) -> Self {
        Self {
            cluster,
            executable,
            start_scheduler: true,
            credentials: CredentialsSource::Generate,
        }
    }

    /// Takes every topology's CA, certificate and key from `source` (the
    /// default generates them per topology).
    pub fn with_credentials(mut self, source: CredentialsSource) -> Self {
        self.credentials = source;
        self
    }

    /// A submitter that writes the topology directory but starts no scheduler
    /// (for tests of submission).
    pub fn without_scheduler(cluster: LocalCluster) -> Self {
        Self {
            cluster,
            executable: PathBuf::new(),
            start_scheduler: false,
            credentials: CredentialsSource::Generate,
        }
    }

    pub fn cluster(&self) -> &LocalCluster {
        &self.cluster
    }

    fn next_counter(&self) -> usize {
        let count = |sub: &str| {
            std::fs::read_dir(self.cluster.root().join(sub))
                .map(|entries| entries.count())
                .unwrap_or(0)
        };
        count("topologies") + count("killed") + 1
    }

    /// Validates, packs and launches `topology`, whose code is in `jar`.
    pub fn submit(
        &self,
        mut topology: Topology,
        jar: &Path,
    ) -> Result<SubmittedTopology, SubmitError> {
        let settings = prepare(&mut topology)?;
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        topology.id = format!("{}-{}-{}", topology.name, self.next_counter(), secs);
        let plan = packing::pack_topology(&topology)?;
        let dir = self.cluster.create_topology(&topology.name)?;
        if let Err(e) = self.populate(&dir, &topology, &plan, jar) {
            let _ = std::fs::remove_dir_all(dir.path());
            return Err(e);
        }
        tracing::info!(topology = %topology.id, dir = %dir.path().display(), "Topology submitted.");
        Ok(SubmittedTopology {
            name: topology.name,
            id: topology.id,
            dir,
            plan,
            settings,
        })
    }

    fn populate(
        &self,
        dir: &TopologyDir,
        topology: &Topology,
        plan: &PackingPlan,
        jar: &Path,
    ) -> Result<(), SubmitError> {
        std::fs::copy(jar, dir.jar()).map_err(|source| SubmitError::CopyJar {
            from: jar.to_owned(),
            to: dir.jar(),
            source,
        })?;
        match &self.credentials {
            CredentialsSource::Generate => {
                dir.create_credentials(&topology.name)?;
            }
            CredentialsSource::Files { ca, cert, key } => {
                let credentials = TopologyCredentials::from_files(ca, cert, key)?;
                dir.save_credentials(&credentials)?;
            }
        }
        dir.write_packing_plan(plan)?;
        dir.write_topology(topology)?;
        if self.start_scheduler {
            spawn_scheduler(&self.executable, dir).map_err(|source| {
                SubmitError::StartScheduler {
                    name: topology.name.clone(),
                    source,
                }
            })?;
        }
        Ok(())
    }
}

/// Starts `egret scheduler --topology-dir D` detached from the caller.
fn spawn_scheduler(executable: &Path, dir: &TopologyDir) -> std::io::Result<()> {
    let (out, err) = open_log(&dir.log_file("scheduler"))?;
    let mut cmd = std::process::Command::new(executable);
    cmd.arg("scheduler")
        .arg("--topology-dir")
        .arg(dir.path())
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err);
    set_new_session(&mut cmd);
    // The child is not waited for: it outlives the submitting command. When it
    // is ours (`egret local`), [`stop`] reaps it.
    let child = cmd.spawn()?;
    tracing::debug!(pid = child.id(), dir = %dir.path().display(), "Scheduler started.");
    Ok(())
}

/// Small topologies for tests of submission (here and in the `egret` command's
/// tests, through the `test-fixtures` feature).
#[cfg(any(test, feature = "test-fixtures"))]
pub mod fixtures {
    use egret_proto::v1::{
        Component, ComponentKind, Grouping, InputDef, StreamDef, Topology, grouping,
    };

    pub fn spout(id: &str) -> Component {
        Component {
            id: id.into(),
            kind: ComponentKind::Spout as i32,
            parallelism: 1,
            num_tasks: 1,
            streams: vec![StreamDef {
                id: "default".into(),
                fields: vec!["word".into()],
                direct: false,
            }],
            ..Default::default()
        }
    }

    pub fn bolt(id: &str, from: &str, stream: &str) -> Component {
        Component {
            id: id.into(),
            kind: ComponentKind::Bolt as i32,
            parallelism: 1,
            num_tasks: 1,
            inputs: vec![InputDef {
                component: from.into(),
                stream: stream.into(),
                grouping: Some(Grouping {
                    kind: Some(grouping::Kind::Shuffle(Default::default())),
                }),
            }],
            ..Default::default()
        }
    }

    pub fn topology(name: &str, components: Vec<Component>) -> Topology {
        Topology {
            name: name.into(),
            config_json: "{}".into(),
            components,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::fixtures::{bolt, spout, topology};

    #[test]
    fn validation_names_the_problem() {
        assert!(validate(&topology("ok", vec![spout("s"), bolt("b", "s", "default")])).is_ok());
        let err = validate(&topology(
            "t",
            vec![spout("s"), bolt("b", "nope", "default")],
        ))
        .unwrap_err();
        assert!(
            err.contains("'b'") && err.contains("unknown component 'nope'"),
            "{err}"
        );
        let err = validate(&topology("t", vec![spout("s"), bolt("b", "s", "other")])).unwrap_err();
        assert!(
            err.contains("'b'") && err.contains("'other'") && err.contains("'s'"),
            "{err}"
        );
        let err = validate(&topology("t", vec![bolt("b", "b", "default")])).unwrap_err();
        assert!(err.contains("no spout"), "{err}");
        assert!(
            validate(&topology("", vec![spout("s")]))
                .unwrap_err()
                .contains("empty")
        );
        assert!(validate(&topology("a/b", vec![spout("s")])).is_err());
        assert!(
            validate(&topology("t", vec![spout("s"), spout("s")]))
                .unwrap_err()
                .contains("two components")
        );
    }

    #[test]
    fn configured_tls_files_are_copied_into_the_topologys_credentials() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let jar = tmp.path().join("app.jar");
        std::fs::write(&jar, b"PK\x05\x06jar").unwrap();
        let given = tmp.path().join("given");
        let made = TopologyCredentials::generate("org", egret_transport::DEFAULT_VALIDITY).unwrap();
        made.save(&given).unwrap();
        let files = CredentialsSource::Files {
            ca: given.join("ca.pem"),
            cert: given.join("cert.pem"),
            key: given.join("key.pem"),
        };
        let submitter = LocalSubmitter::without_scheduler(LocalCluster::new(tmp.path().join("l")))
            .with_credentials(files);
        let s = submitter
            .submit(topology("wc", vec![spout("s")]), &jar)
            .unwrap();
        let copied = s.dir.read_credentials().unwrap();
        assert_eq!(copied.ca_pem(), made.ca_pem());
        assert_eq!(copied.cert_pem(), made.cert_pem());
        // The token is the topology's own, never shared through the files.
        assert_ne!(copied.token(), made.token());

        // A key file others may read is refused, naming it; nothing is left behind.
        std::fs::set_permissions(
            given.join("key.pem"),
            std::fs::Permissions::from_mode(0o644),
        )
        .unwrap();
        let err = submitter
            .submit(topology("other", vec![spout("s")]), &jar)
            .unwrap_err();
        assert!(matches!(err, SubmitError::Credentials(_)), "{err:?}");
        assert!(err.to_string().contains("key.pem"), "{err}");
        assert!(submitter.cluster().topology("other").is_err());
    }

    #[test]
    fn submission_packs_once_creates_the_dir_and_refuses_a_name_in_use() {
        let tmp = tempfile::tempdir().unwrap();
        let jar = tmp.path().join("app.jar");
        std::fs::write(&jar, b"PK\x05\x06jar").unwrap();
        let submitter = LocalSubmitter::without_scheduler(LocalCluster::new(tmp.path().join("l")));
        let s = submitter
            .submit(
                topology("wc", vec![spout("s"), bolt("b", "s", "default")]),
                &jar,
            )
            .unwrap();
        assert!(s.id.starts_with("wc-1-"), "{}", s.id);
        let dir = submitter.cluster().topology("wc").unwrap();
        assert_eq!(dir, s.dir);
        assert_eq!(dir.read_topology().unwrap().id, s.id);
        // The plan returned is the one written, for the topology's id.
        assert_eq!(dir.read_packing_plan().unwrap(), s.plan);
        assert_eq!(s.plan.topology_id, s.id);
        assert_eq!(
            (s.plan.containers.len(), s.executors(), s.tasks()),
            (1, 2, 2)
        );
        assert!(dir.jar().is_file());
        assert!(dir.read_credentials().is_ok());
        assert!(dir.credentials_dir().join("key.pem").is_file());
        assert!(!dir.path().join("token").exists());
        let err = submitter
            .submit(topology("wc", vec![spout("s")]), &jar)
            .unwrap_err();
        assert!(matches!(err, SubmitError::NameInUse(_)), "{err:?}");
        let err = err.to_string();
        assert!(
            err.contains("'wc'") && err.contains("already running"),
            "{err}"
        );
        // The refused submission did not disturb the running one.
        assert_eq!(dir.read_topology().unwrap().id, s.id);
        let s2 = submitter
            .submit(topology("other", vec![spout("s")]), &jar)
            .unwrap();
        assert!(s2.id.starts_with("other-2-"), "{}", s2.id);
        let err = submitter
            .submit(
                topology("bad", vec![spout("s"), bolt("b", "x", "default")]),
                &jar,
            )
            .unwrap_err();
        assert!(err.to_string().contains("unknown component 'x'"), "{err}");
        assert!(submitter.cluster().topology("bad").is_err());
        // An unpackable topology leaves no directory either.
        let mut zero = topology("zero", vec![spout("s")]);
        zero.config_json = r#"{"topology.workers": 0}"#.into();
        let err = submitter.submit(zero, &jar).unwrap_err();
        assert!(matches!(err, SubmitError::Packing(_)), "{err:?}");
        assert!(!tmp.path().join("l/topologies/zero").exists());
    }

    #[test]
    fn failed_population_frees_the_name() {
        let tmp = tempfile::tempdir().unwrap();
        let submitter =
            LocalSubmitter::without_scheduler(LocalCluster::new(tmp.path().join("local")));
        let err = submitter
            .submit(
                topology("wc", vec![spout("s")]),
                &tmp.path().join("missing.jar"),
            )
            .unwrap_err();
        assert!(err.to_string().contains("missing.jar"), "{err}");
        assert!(!tmp.path().join("local/topologies/wc").exists());
    }
}
