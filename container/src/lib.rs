//! The container supervisor (`egret container --topology-dir D --index N`):
//! runs container N's stream manager (`egret stmgr`) and one JVM per instance
//! of container N, and restarts any of them that dies.
//!
//! Invariants:
//! - the instance JVM's command line, environment, working directory and log
//!   file are exactly those of contracts.md, "Instance JVMs";
//! - the JVM launcher, shim jar and instance JVM flags come from the
//!   topology's merged config (`egret.java`, `egret.shim.jar`,
//!   `egret.instance.jvm.opts`), falling back to Egret's defaults;
//! - children are supervised by [`egret_supervisor::Supervisor`]
//!   (own process group, parent-death signal, restart with backoff), so this
//!   role must run on a current-thread runtime on the main thread;
//! - restarts of each child are counted (`egret.restarts`, component
//!   `stmgr-N` or the instance id) in `DIR/metrics/container-N.json`;
//! - each instance JVM runs in its own cgroup when the topology's
//!   `egret.isolation` allows it ([`isolation`]; contracts.md, "Resource
//!   isolation"), and its usage is published as `egret.cgroup.*`;
//! - on SIGTERM or SIGINT every child is stopped and reaped, then `run` returns.

pub mod cluster;
pub mod code_dir;
mod isolation;
pub mod jni;

use std::ffi::OsString;
use std::future::Future;
use std::path::{Path, PathBuf};

use egret_config::{ConfigMap, Environment};
use egret_proto::v1::InstancePlan;
use egret_state_manager::{StateError, TopologyDir};
use egret_supervisor::{self as process, ChildSpec, RestartPolicy, Supervisor};
use serde_json::Value;

/// The instance runtime's entry point in the shim jar.
pub const INSTANCE_MAIN: &str = "dev.egret.instance.InstanceMain";

#[derive(Debug, thiserror::Error)]
pub enum ContainerError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error("container {index} is not in the packing plan of {topology}")]
    NoSuchContainer { index: i32, topology: String },
    #[error("invalid topology config: {0}")]
    Config(String),
    #[error("cannot create {path}: {source}")]
    CreateDir {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot wait for signals: {0}")]
    Signals(#[source] std::io::Error),
    #[error("the JNI bridge failed: {0}")]
    Bridge(String),
    #[error("cannot isolate the instances (egret.isolation): {0}")]
    Isolation(#[source] egret_isolation::IsolationError),
    #[error(transparent)]
    CodeDir(#[from] code_dir::CodeDirError),
}

/// How instance JVMs are launched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JvmSettings {
    /// `egret.java`.
    pub java: PathBuf,
    /// `egret.shim.jar`.
    pub shim_jar: PathBuf,
    /// `egret.instance.jvm.opts`, split into arguments: an instance JVM's
    /// (socket bridge), [`egret_config::DEFAULT_INSTANCE_JVM_OPTS`] when unset.
    pub jvm_opts: Vec<String>,
    /// The same for the JNI bridge's embedded JVM:
    /// [`egret_config::DEFAULT_EMBEDDED_JVM_OPTS`] when unset, else the key's value.
    pub embedded_jvm_opts: Vec<String>,
    /// `egret.instance.classpath.extra`: jars after the topology jar.
    pub classpath_extra: Vec<PathBuf>,
    /// The options mapping the executors' class archive (`egret-shim-executors.jsa`
    /// beside `shim_jar`, else `egret-shim.jsa`), resolved once with it: empty
    /// when there is none. Given to
    /// the embedded JVM only: an instance JVM would pay the archive's resident
    /// pages (about 11 MiB) once per executor (docs/performance.md).
    pub class_archive: Vec<String>,
}

impl JvmSettings {
    /// Reads the settings from a topology's merged config; keys it lacks take
    /// Egret's defaults (the shim jar is then searched for from `executable`).
    pub fn from_config(
        config: &ConfigMap,
        env: &Environment,
        executable: &Path,
    ) -> Result<Self, ContainerError> {
        let defaults = egret_config::defaults(env);
        let get = |key: &str| {
            config
                .get(key)
                .filter(|v| !v.is_null())
                .or(defaults.get(key))
        };
        let java = match get(egret_config::JAVA) {
            Some(Value::String(s)) if !s.trim().is_empty() => PathBuf::from(s),
            Some(other) => {
                return Err(ContainerError::Config(format!(
                    "{} must be a path, found {other}",
                    egret_config::JAVA
                )));
            }
            None => PathBuf::from("java"),
        };
        let split = |s: &str| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        let (jvm_opts, embedded_jvm_opts) = match get(egret_config::INSTANCE_JVM_OPTS) {
            None | Some(Value::Null) => (
                split(egret_config::DEFAULT_INSTANCE_JVM_OPTS),
                split(egret_config::DEFAULT_EMBEDDED_JVM_OPTS),
            ),
            Some(Value::String(s)) => (split(s), split(s)),
            Some(Value::Array(items)) => {
                let opts = items
                    .iter()
                    .map(|item| match item {
                        Value::String(s) => Ok(s.clone()),
                        other => Err(ContainerError::Config(format!(
                            "{} must be a string or a list of strings, found an item {other}",
                            egret_config::INSTANCE_JVM_OPTS
                        ))),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                (opts.clone(), opts)
            }
            Some(other) => {
                return Err(ContainerError::Config(format!(
                    "{} must be a string or a list of strings, found {other}",
                    egret_config::INSTANCE_JVM_OPTS
                )));
            }
        };
        let classpath_extra = match get(egret_config::INSTANCE_CLASSPATH_EXTRA) {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::String(s)) => s
                .split(':')
                .filter(|p| !p.trim().is_empty())
                .map(PathBuf::from)
                .collect(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|item| match item {
                    Value::String(s) => Ok(PathBuf::from(s)),
                    other => Err(ContainerError::Config(format!(
                        "{} must be a path list, found an item {other}",
                        egret_config::INSTANCE_CLASSPATH_EXTRA
                    ))),
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(ContainerError::Config(format!(
                    "{} must be a ':'-separated string or a list of paths, found {other}",
                    egret_config::INSTANCE_CLASSPATH_EXTRA
                )));
            }
        };
        let shim_jar =
            egret_config::resolve_shim_jar(config, executable).map_err(ContainerError::Config)?;
        let class_archive =
            egret_config::class_archive_options(&shim_jar, egret_config::ArchiveRole::Executors);
        Ok(Self {
            java,
            shim_jar,
            jvm_opts,
            embedded_jvm_opts,
            classpath_extra,
            class_archive,
        })
    }

    /// The topology's own jars, in class-path order: its jar, then
    /// `egret.instance.classpath.extra`.
    pub fn topology_jars(&self, dir: &TopologyDir) -> Vec<PathBuf> {
        std::iter::once(dir.jar())
            .chain(self.classpath_extra.iter().cloned())
            .collect()
    }
}

/// The initial heap an instance JVM (or an embedded one) starts with: at
/// most this many MiB, so that its memory follows use instead of starting at
/// the JVM's default (1/64 of the machine's memory, up to `-Xmx`).
pub const INITIAL_HEAP_MB: i64 = 32;

/// `-Xms` for a JVM whose `-Xmx` is `heap_mb` MiB; it comes before
/// `egret.instance.jvm.opts`, so an `-Xms` there wins.
pub fn initial_heap_option(heap_mb: i64) -> String {
    format!("-Xms{}m", heap_mb.clamp(1, INITIAL_HEAP_MB))
}

/// Every instance JVM's: an `OutOfMemoryError` ends it (contracts.md, "Instance JVMs").
pub const EXIT_ON_OUT_OF_MEMORY: &str = "-XX:+ExitOnOutOfMemoryError";

/// The instance JVM of `instance` (contracts.md, "Instance JVMs").
pub fn instance_spec(
    settings: &JvmSettings,
    dir: &TopologyDir,
    container_index: i32,
    instance: &InstancePlan,
    token_hex: &str,
    frame_max_bytes: u32,
    batch_scheduling: bool,
) -> ChildSpec {
    let mut args: Vec<std::ffi::OsString> = vec![initial_heap_option(instance.heap_mb).into()];
    args.push(code_dir::EXTRACTED_PROPERTY.into());
    // An OutOfMemoryError ends the JVM, which the container restarts, as Storm's
    // worker halts on one: a thread of the runtime that died of it (the writer)
    // would leave the instance connected but mute.
    args.push(EXIT_ON_OUT_OF_MEMORY.into());
    args.extend(settings.jvm_opts.iter().map(Into::into));
    args.push(format!("-Xmx{}m", instance.heap_mb).into());
    // The shim on the class path, the topology's jars in its class loader.
    args.push(egret_config::topology_class_path_option(
        &settings.topology_jars(dir),
    ));
    args.push("-cp".into());
    args.push(settings.shim_jar.as_os_str().to_owned());
    args.push(INSTANCE_MAIN.into());
    ChildSpec {
        name: instance.instance_id.clone(),
        program: settings.java.clone(),
        args,
        env: vec![
            (
                "EGRET_SM_SOCKET".to_owned(),
                dir.stream_manager_socket(container_index)
                    .to_string_lossy()
                    .into_owned(),
            ),
            ("EGRET_INSTANCE_ID".to_owned(), instance.instance_id.clone()),
            ("EGRET_TOPOLOGY_TOKEN".to_owned(), token_hex.to_owned()),
            // The resolved frame cap, in force from the assignment frame on.
            (
                egret_config::settings::FRAME_MAX_BYTES_ENV.to_owned(),
                frame_max_bytes.to_string(),
            ),
        ],
        cwd: Some(dir.work_dir(&instance.instance_id)),
        log_file: dir.log_file(&instance.instance_id),
        final_exit_code: None,
        cgroup_procs: Vec::new(),
        batch_scheduling,
    }
}

/// The stream manager of container `index`: `egret stmgr`.
pub fn stream_manager_spec(
    executable: &Path,
    dir: &TopologyDir,
    index: i32,
    extra_args: &[OsString],
    batch_scheduling: bool,
) -> ChildSpec {
    let name = format!("stmgr-{index}");
    let mut args: Vec<OsString> = vec![
        "stmgr".into(),
        "--topology-dir".into(),
        dir.path().as_os_str().to_owned(),
        "--index".into(),
        index.to_string().into(),
    ];
    args.extend(extra_args.iter().cloned());
    ChildSpec {
        log_file: dir.log_file(&name),
        name,
        program: executable.to_owned(),
        args,
        env: Vec::new(),
        cwd: Some(dir.path().to_owned()),
        // A stream manager that saw its topology KILLED exits with this code:
        // it is not restarted (the topology is ending).
        final_exit_code: Some(i32::from(egret_proto::EXIT_TOPOLOGY_KILLED)),
        cgroup_procs: Vec::new(),
        batch_scheduling,
    }
}

/// Options of the `egret container` role.
#[derive(Debug, Clone)]
pub struct ContainerOptions {
    pub topology_dir: PathBuf,
    pub index: i32,
    /// The `egret` executable (`std::env::current_exe()`), for `egret stmgr`.
    pub executable: PathBuf,
    /// Appended to `egret stmgr`'s arguments (where its master is registered,
    /// the addresses it binds and advertises).
    pub stream_manager_args: Vec<OsString>,
}

/// The `egret container` role: runs until SIGTERM/SIGINT.
pub async fn run(options: ContainerOptions) -> Result<(), ContainerError> {
    run_until(options, std::future::pending()).await
}

/// As [`run`], also stopping everything when `done` resolves (with why).
pub async fn run_until(
    options: ContainerOptions,
    done: impl Future<Output = String>,
) -> Result<(), ContainerError> {
    let signal = process::termination_signal().map_err(ContainerError::Signals)?;
    let dir = TopologyDir::new(&options.topology_dir);
    let topology = dir.read_topology()?;
    let plan = dir.read_packing_plan()?;
    let container = plan
        .containers
        .iter()
        .find(|c| c.index == options.index)
        .ok_or_else(|| ContainerError::NoSuchContainer {
            index: options.index,
            topology: topology.id.clone(),
        })?;
    let config = egret_config::topology::config_map(&topology).map_err(ContainerError::Config)?;
    let settings =
        JvmSettings::from_config(&config, &Environment::from_process(), &options.executable)?;
    let token = dir.read_token()?.to_hex();
    let resolved = egret_config::settings::settings_of(&topology)
        .map_err(|e| ContainerError::Config(e.to_string()))?;
    let frame_max_bytes = resolved.frame_max_bytes;
    // The data path's processes (the stream manager, with the JNI bridge's
    // executors in it, and the instance JVMs): egret.sched.policy.
    let batch_scheduling = resolved.sched_policy() == egret_proto::v1::SchedPolicy::Batch;
    // With the JNI bridge the executors are threads of the stream manager's
    // process (`jni`): no instance JVM to start, none to isolate.
    let embedded = resolved.bridge() == egret_proto::v1::Bridge::Jni;
    let isolation = if embedded {
        None
    } else {
        isolation::Isolated::open(&topology.id, options.index, resolved)?.map(std::sync::Arc::new)
    };

    // Every instance's work dir, with the jar's resources/ in it, before anything
    // that runs an executor starts (code_dir.rs).
    let work_dirs: Vec<PathBuf> = container
        .instances
        .iter()
        .map(|i| dir.work_dir(&i.instance_id))
        .collect();
    for work in &work_dirs {
        std::fs::create_dir_all(work).map_err(|source| ContainerError::CreateDir {
            path: work.clone(),
            source,
        })?;
    }
    let started = std::time::Instant::now();
    let jars = code_dir::user_jars(&dir.jar(), &settings.classpath_extra);
    let files = code_dir::extract(&jars, &work_dirs)?;
    // The jar's directory, read for that, is freed: give it back (this process lives on).
    egret_supervisor::release_freed_memory();
    if files > 0 {
        tracing::info!(files, work_dirs = work_dirs.len(), elapsed = ?started.elapsed(), "Extracted the jar's resources/ into the instances' code directories.");
    }

    let mut supervisor = Supervisor::new(RestartPolicy::default());
    supervisor.spawn(stream_manager_spec(
        &options.executable,
        &dir,
        options.index,
        &options.stream_manager_args,
        batch_scheduling,
    ));
    for instance in &container.instances {
        if embedded {
            continue;
        }
        let mut spec = instance_spec(
            &settings,
            &dir,
            options.index,
            instance,
            &token,
            frame_max_bytes,
            batch_scheduling,
        );
        if let Some(isolated) = &isolation {
            spec.cgroup_procs = isolated.place(instance)?;
        }
        tracing::debug!(instance = %instance.instance_id, command = %spec.display_command(), "Instance command line.");
        supervisor.spawn(spec);
    }
    let process_name = format!("container-{}", options.index);
    let metrics = supervisor.metrics().clone();
    let metrics_writer = process::spawn_metrics_writer(metrics.clone(), dir.path(), &process_name);
    let usage_task = isolation
        .as_ref()
        .map(|isolated| isolated.spawn_usage_publisher(metrics.clone()));
    tracing::info!(topology = %topology.id, container = options.index, instances = container.instances.len(), "Container started its stream manager and instances.");

    let why = tokio::select! {
        which = signal => format!("signal {which}"),
        reason = done => reason,
    };
    tracing::info!(
        container = options.index,
        reason = %why,
        "Stopping the container."
    );
    for summary in supervisor.stop().await {
        tracing::info!(child = %summary.name, restarts = summary.restarts, "Child stopped.");
    }
    if let Some(task) = usage_task {
        task.abort();
    }
    if let Some(isolated) = &isolation {
        isolated.publish_usage(&metrics);
        isolated.remove();
    }
    metrics_writer.abort();
    process::write_metrics_now(&metrics, dir.path(), &process_name);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env() -> Environment {
        Environment {
            egret_home: PathBuf::from("/home/u/.egret"),
            java_home: Some(PathBuf::from("/opt/jdk")),
            storm_yaml: None,
        }
    }

    #[test]
    fn the_initial_heap_is_small_and_never_above_the_maximum() {
        assert_eq!(initial_heap_option(256), "-Xms32m");
        assert_eq!(initial_heap_option(16), "-Xms16m");
        assert_eq!(initial_heap_option(0), "-Xms1m");
    }

    #[test]
    fn instance_command_line_env_cwd_and_log_follow_the_contract() {
        let settings = JvmSettings {
            java: "/opt/jdk/bin/java".into(),
            shim_jar: "/opt/egret/egret-shim.jar".into(),
            jvm_opts: vec!["-XX:+UseSerialGC".into(), "-Xss512k".into()],
            embedded_jvm_opts: Vec::new(),
            classpath_extra: Vec::new(),
            class_archive: Vec::new(),
        };
        let dir = TopologyDir::new("/s/topologies/wc");
        let instance = InstancePlan {
            instance_id: "count-1".into(),
            component: "count".into(),
            executor_index: 1,
            task_ids: vec![3, 4],
            heap_mb: 256,
            cpu_percent: 0.0,
        };
        let spec = instance_spec(&settings, &dir, 2, &instance, "abcd", 1_048_576, true);
        assert_eq!(
            spec.display_command(),
            "/opt/jdk/bin/java -Xms32m -Degret.code.dir.extracted=true -XX:+ExitOnOutOfMemoryError -XX:+UseSerialGC -Xss512k -Xmx256m -Degret.topology.classpath=/s/topologies/wc/topology.jar -cp /opt/egret/egret-shim.jar dev.egret.instance.InstanceMain"
        );
        assert_eq!(
            spec.env,
            vec![
                (
                    "EGRET_SM_SOCKET".to_string(),
                    "/s/topologies/wc/sock/sm-2.sock".to_string()
                ),
                ("EGRET_INSTANCE_ID".to_string(), "count-1".to_string()),
                ("EGRET_TOPOLOGY_TOKEN".to_string(), "abcd".to_string()),
                ("EGRET_FRAME_MAX_BYTES".to_string(), "1048576".to_string()),
            ]
        );
        assert_eq!(
            spec.cwd,
            Some(PathBuf::from("/s/topologies/wc/work/count-1"))
        );
        assert_eq!(
            spec.log_file,
            PathBuf::from("/s/topologies/wc/logs/count-1.log")
        );
        assert_eq!(spec.name, "count-1");
        assert!(spec.batch_scheduling);

        // The shim's class archive is for the embedded JVM only.
        let archived = JvmSettings {
            class_archive: vec!["-XX:SharedArchiveFile=/opt/egret/egret-shim.jsa".into()],
            ..settings.clone()
        };
        let spec = instance_spec(&archived, &dir, 2, &instance, "abcd", 1_048_576, false);
        assert!(!spec.batch_scheduling);
        assert!(
            !spec.display_command().contains("SharedArchiveFile"),
            "{}",
            spec.display_command()
        );

        let with_extra = JvmSettings {
            classpath_extra: vec!["/b/hook.jar".into(), "/b/more.jar".into()],
            ..settings
        };
        let spec = instance_spec(&with_extra, &dir, 2, &instance, "abcd", 1_048_576, false);
        assert!(
            spec.display_command().ends_with(
                "-Degret.topology.classpath=/s/topologies/wc/topology.jar:/b/hook.jar:/b/more.jar -cp /opt/egret/egret-shim.jar dev.egret.instance.InstanceMain"
            ),
            "{}",
            spec.display_command()
        );
    }

    #[test]
    fn stream_manager_command() {
        let dir = TopologyDir::new("/s/topologies/wc");
        let spec = stream_manager_spec(Path::new("/bin/egret"), &dir, 3, &[], true);
        assert_eq!(
            spec.display_command(),
            "/bin/egret stmgr --topology-dir /s/topologies/wc --index 3"
        );
        assert_eq!(
            spec.log_file,
            PathBuf::from("/s/topologies/wc/logs/stmgr-3.log")
        );
        assert!(spec.batch_scheduling);
        assert!(
            !stream_manager_spec(Path::new("/bin/egret"), &dir, 3, &[], false).batch_scheduling
        );
    }

    #[test]
    fn jvm_settings_from_config_with_defaults_and_lists() {
        let tmp = tempfile::tempdir().unwrap();
        let jar = tmp.path().join("shim.jar");
        std::fs::write(&jar, b"PK").unwrap();
        let mut config = ConfigMap::new();
        config.insert(egret_config::SHIM_JAR.into(), json!(jar.to_string_lossy()));
        let s = JvmSettings::from_config(&config, &env(), Path::new("/nowhere/egret")).unwrap();
        assert_eq!(s.java, PathBuf::from("/opt/jdk/bin/java"));
        assert_eq!(s.jvm_opts, vec!["-XX:+UseSerialGC", "-Xss512k"]);
        assert_eq!(
            s.embedded_jvm_opts,
            vec!["-XX:+UseParallelGC", "-XX:GCTimeRatio=9", "-Xss512k"],
            "the embedded JVM hosts every executor: its own default"
        );
        assert_eq!(s.shim_jar, jar);
        assert!(s.classpath_extra.is_empty());
        config.insert(
            egret_config::INSTANCE_CLASSPATH_EXTRA.into(),
            json!("/a.jar:/b.jar"),
        );
        let s = JvmSettings::from_config(&config, &env(), Path::new("/nowhere/egret")).unwrap();
        assert_eq!(
            s.classpath_extra,
            vec![PathBuf::from("/a.jar"), PathBuf::from("/b.jar")]
        );
        config.insert(
            egret_config::INSTANCE_CLASSPATH_EXTRA.into(),
            json!(["/c.jar"]),
        );
        let s = JvmSettings::from_config(&config, &env(), Path::new("/nowhere/egret")).unwrap();
        assert_eq!(s.classpath_extra, vec![PathBuf::from("/c.jar")]);
        config.insert(egret_config::INSTANCE_CLASSPATH_EXTRA.into(), json!(7));
        assert!(JvmSettings::from_config(&config, &env(), Path::new("/nowhere/egret")).is_err());
        config.remove(egret_config::INSTANCE_CLASSPATH_EXTRA);
        config.insert(
            egret_config::INSTANCE_JVM_OPTS.into(),
            json!(["-Da=b c", "-ea"]),
        );
        config.insert(egret_config::JAVA.into(), json!("/usr/bin/java"));
        let s = JvmSettings::from_config(&config, &env(), Path::new("/nowhere/egret")).unwrap();
        assert_eq!(s.jvm_opts, vec!["-Da=b c", "-ea"]);
        assert_eq!(
            s.embedded_jvm_opts,
            vec!["-Da=b c", "-ea"],
            "a set value is both's"
        );
        assert_eq!(s.java, PathBuf::from("/usr/bin/java"));
        config.insert(egret_config::INSTANCE_JVM_OPTS.into(), json!(3));
        assert!(JvmSettings::from_config(&config, &env(), Path::new("/nowhere/egret")).is_err());
        let missing =
            JvmSettings::from_config(&ConfigMap::new(), &env(), Path::new("/nowhere/egret"));
        assert!(matches!(missing, Err(ContainerError::Config(m)) if m.contains("shim")));
    }
}
