//! `egret jar` and `egret local` (contracts.md, "Submission"): run the user's
//! main() in a JVM with the shim, serve its `SubmitTopologyRequest`s on a Unix
//! socket, and hand each one to the cluster's submitter ([`egret_submitter`]:
//! validation, packing, the state directory, the detached scheduler); print
//! what was submitted and, for `egret local`, follow the logs and kill the
//! topologies when the TTL ends.
//!
//! Invariants:
//! - the submitter JVM is our child (own process group, parent-death signal):
//!   it never outlives this command; an error ends it and leaves no process;
//! - what is printed of a submitted topology (containers, executors, tasks)
//!   comes from the one packing plan the submitter wrote.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use egret_config::state::StateManagerConfig;
use egret_config::{ConfigMap, Layered};
use egret_proto::Token;
use egret_proto::frame::{decode_message, encode_message};
use egret_proto::handshake;
use egret_proto::v1::{PeerRole, SubmitTopologyRequest, SubmitTopologyResponse, Topology};
use egret_submitter::cluster::{ClusterSubmission, ClusterSubmitter};
use egret_submitter::{LocalSubmitter, SubmittedTopology};
use egret_supervisor::{self as process, set_parent_death_signal};
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::Mutex;
use tokio::task::JoinSet;

use crate::SubmitArgs;
use crate::manage;
use crate::tail::LogTail;

pub const DEFAULT_LOCAL_TTL: u64 = 20;
/// The shim's client entry point.
pub const SUBMITTER_MAIN: &str = "dev.egret.client.SubmitterMain";

/// The delivery guarantee the topology runs with, for the submission message.
pub fn delivery_note(
    acking: &egret_stream_manager::AckingSettings,
    effectively_once: bool,
) -> String {
    if !acking.enabled {
        return "Acking is off (topology.acker.executors = 0): at-most-once, a spout's ack is called at emit.".to_owned();
    }
    let timeout = if acking.timeouts_enabled {
        format!(
            "tuple trees not acked within {} s (topology.message.timeout.secs) fail and are replayed by the spout",
            acking.timeout.as_secs()
        )
    } else {
        "message timeouts are disabled (topology.enable.message.timeouts = false)".to_owned()
    };
    if effectively_once {
        return format!(
            "Effectively once (topology.reliability.mode = EFFECTIVELY_ONCE): stateful bolts' state \
             rolls back to the last complete checkpoint on any failure and spouts replay what it does not \
             hold; {timeout}."
        );
    }
    format!("Acking is on: at-least-once for spout emits with a message id; {timeout}.")
}

/// Takes `-c key=value` (and, for `local`, `--local-ttl SECS`) out of the
/// arguments after the main class, as `storm jar`/`storm local` accept them there.
pub fn split_trailing_options(
    mut args: SubmitArgs,
    mut conf: Vec<String>,
    local: bool,
) -> anyhow::Result<(SubmitArgs, Vec<String>, Option<u64>)> {
    let mut ttl = None;
    let mut rest = Vec::with_capacity(args.args.len());
    let mut it = std::mem::take(&mut args.args).into_iter();
    while let Some(arg) = it.next() {
        if arg == "-c" {
            let value = it.next().context("option -c needs a value: -c key=value")?;
            conf.push(value);
        } else if local && arg == "--local-ttl" {
            let value = it
                .next()
                .context("option --local-ttl needs a value in seconds")?;
            ttl = Some(parse_ttl(&value)?);
        } else if let Some(value) = arg.strip_prefix("--local-ttl=").filter(|_| local) {
            ttl = Some(parse_ttl(value)?);
        } else {
            rest.push(arg);
        }
    }
    args.args = rest;
    Ok((args, conf, ttl))
}

fn parse_ttl(value: &str) -> anyhow::Result<u64> {
    value
        .parse()
        .with_context(|| format!("--local-ttl must be a number of seconds, got '{value}'"))
}

/// Checks that `path` is a readable zip file (a jar).
pub fn check_jar(path: &Path) -> anyhow::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let cannot_read = || format!("cannot read the jar {}", path.display());
    let mut file = std::fs::File::open(path).with_context(cannot_read)?;
    let len = file.metadata().with_context(cannot_read)?.len();
    let mut head = [0u8; 4];
    let starts_like_zip =
        file.read_exact(&mut head).is_ok() && (head == *b"PK\x03\x04" || head == *b"PK\x05\x06");
    // The end-of-central-directory record sits in the last 22 + 65535 bytes: only
    // those are read (a fat jar is a hundred megabytes).
    let tail_start = len.saturating_sub(22 + 65_535);
    let mut tail = Vec::new();
    file.seek(SeekFrom::Start(tail_start))
        .and_then(|_| file.read_to_end(&mut tail))
        .with_context(cannot_read)?;
    let has_end = tail.windows(4).any(|w| w == b"PK\x05\x06");
    if !starts_like_zip || !has_end {
        bail!("{} is not a jar (not a readable zip file)", path.display());
    }
    Ok(())
}

/// `egret.java.search.dirs`: a directory or a list of them.
fn java_search_dirs(config: &Layered) -> anyhow::Result<Vec<PathBuf>> {
    use crate::java_runtime::{DEFAULT_SEARCH_DIR, SEARCH_DIRS};
    match config.merged.get(SEARCH_DIRS) {
        None | Some(Value::Null) => Ok(vec![PathBuf::from(DEFAULT_SEARCH_DIR)]),
        Some(Value::String(dir)) => Ok(vec![PathBuf::from(dir)]),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(dir) => Ok(PathBuf::from(dir)),
                other => bail!("{SEARCH_DIRS} must list directories, found an item {other}"),
            })
            .collect(),
        Some(other) => bail!("{SEARCH_DIRS} must be a directory or a list of them, found {other}"),
    }
}

/// The submitter JVM's own flags: it runs the user's `main`, which builds and
/// submits the topology (and, in local mode, sleeps while it runs), so a
/// small heap that grows, the serial collector and the client compiler only:
/// less memory held for the topology's lifetime and a faster start.
pub const SUBMITTER_JVM_OPTS: [&str; 4] = [
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-Xss512k",
    "-Xms16m",
];

/// Storm's variable of extra flags for `storm jar`'s JVM; Egret's submitter
/// JVM takes them after its own (so they win).
pub const JAR_JVM_OPTS_ENV: &str = "STORM_JAR_JVM_OPTS";

/// The flags of `STORM_JAR_JVM_OPTS` (split as a shell would, as Storm does).
pub fn jar_jvm_opts(value: Option<&str>) -> anyhow::Result<Vec<String>> {
    match value {
        None => Ok(Vec::new()),
        Some(v) => shlex::split(v).with_context(|| {
            format!("{JAR_JVM_OPTS_ENV} is not valid shell words (an unclosed quote?): {v}")
        }),
    }
}

/// The submitter JVM's arguments (after the `java` launcher).
pub fn submitter_args(
    class_archive: &[String],
    jvm_opts: &[String],
    shim_jar: &Path,
    user_jar: &Path,
    raw_options: &[String],
    main_class: &str,
    main_args: &[String],
) -> Vec<String> {
    let mut args: Vec<String> = SUBMITTER_JVM_OPTS.iter().map(|s| (*s).to_owned()).collect();
    args.extend(class_archive.iter().cloned());
    args.extend(jvm_opts.iter().cloned());
    args.extend([
        // The shim on the class path, the user's jar in the topology's class loader.
        egret_config::topology_class_path_option(&[user_jar])
            .to_string_lossy()
            .into_owned(),
        "-cp".to_owned(),
        shim_jar.display().to_string(),
        format!("-Dstorm.jar={}", user_jar.display()),
        format!(
            "-Dstorm.options={}",
            egret_config::storm_options(raw_options)
        ),
        SUBMITTER_MAIN.to_owned(),
        main_class.to_owned(),
    ]);
    args.extend(main_args.iter().cloned());
    args
}

/// What serving a submission needs.
pub struct Launcher {
    pub submitter: LocalSubmitter,
    /// Where the topologies go: the local cluster, a shared state manager
    /// (and the scheduler that runs them from there), or nowhere (printed).
    pub target: Target,
    pub user_jar: PathBuf,
    pub submitted: Vec<SubmittedTopology>,
    /// What went to the shared state manager.
    pub stored: Vec<ClusterSubmission>,
    /// How many topologies' manifests were printed.
    pub printed: usize,
}

/// Where a submission's topologies go.
pub enum Target {
    /// The local cluster: run here.
    Local,
    /// Stored in the shared state manager, then launched by `scheduler`
    /// (the operator's hosts, or Kubernetes).
    Cluster {
        submitter: ClusterSubmitter,
        scheduler: Box<dyn egret_scheduler::cluster::ClusterScheduler>,
    },
    /// `egret kubernetes manifests`: validated, packed and printed as YAML.
    Manifests(crate::kube::Manifests),
}

impl Launcher {
    /// Submits one topology to the cluster and says so; returns its id, or
    /// the refusal.
    pub async fn submit(&mut self, topology: Option<Topology>) -> Result<String, String> {
        let topology = topology.ok_or("the submission holds no topology")?;
        match &self.target {
            Target::Local => {}
            Target::Manifests(manifests) => {
                let name = topology.name.clone();
                let yaml = manifests.render(topology).map_err(|e| format!("{e:#}"))?;
                print!("{yaml}");
                self.printed += 1;
                return Ok(format!("{name} (not submitted)"));
            }
            Target::Cluster {
                submitter,
                scheduler,
            } => {
                let stored = submitter
                    .submit(topology, &self.user_jar)
                    .await
                    .map_err(|e| e.to_string())?;
                let containers = stored.plan.containers.len();
                println!(
                    "Submitted topology '{}' ({}) to the cluster's state manager: {containers} containers.",
                    stored.name, stored.id,
                );
                let launch = egret_scheduler::cluster::ClusterLaunch {
                    name: stored.name.clone(),
                    id: stored.id.clone(),
                    plan: stored.plan.clone(),
                    settings: stored.settings,
                    credentials_dir: stored.credentials_dir.clone(),
                };
                let told = scheduler.launch(&launch).await.map_err(|e| {
                    format!(
                        "topology '{}' is in the state manager but could not be launched: {e} \
                         (egret kill {} removes it)",
                        stored.name, stored.name
                    )
                })?;
                println!("{told}");
                let id = stored.id.clone();
                self.stored.push(stored);
                return Ok(id);
            }
        }
        let submitted = self
            .submitter
            .submit(topology, &self.user_jar)
            .map_err(|e| e.to_string())?;
        let note = delivery_note(
            &egret_stream_manager::AckingSettings::from_settings(&submitted.settings),
            submitted.settings.effectively_once,
        );
        println!(
            "Submitted topology '{}' ({}): {} containers, {} executors, {} tasks. {note}",
            submitted.name,
            submitted.id,
            submitted.plan.containers.len(),
            submitted.executors(),
            submitted.tasks(),
        );
        let id = submitted.id.clone();
        self.submitted.push(submitted);
        Ok(id)
    }
}

async fn serve_connection(
    stream: UnixStream,
    token: Token,
    max_frame: usize,
    launcher: Arc<Mutex<Launcher>>,
) {
    let mut framed =
        match handshake::accept(stream, &token, &[PeerRole::Submitter], max_frame).await {
            Ok((_, framed)) => framed,
            Err(e) => {
                tracing::warn!(error = %e, "Refused a connection on the submission socket.");
                return;
            }
        };
    while let Some(frame) = framed.next().await {
        let response = match frame.map_err(|e| e.to_string()).and_then(|body| {
            decode_message::<SubmitTopologyRequest>(body).map_err(|e| e.to_string())
        }) {
            Ok(request) => match launcher.lock().await.submit(request.topology).await {
                Ok(id) => SubmitTopologyResponse {
                    ok: true,
                    error: String::new(),
                    topology_id: id,
                },
                Err(error) => {
                    tracing::warn!(%error, "Refused a topology.");
                    SubmitTopologyResponse {
                        ok: false,
                        error,
                        topology_id: String::new(),
                    }
                }
            },
            Err(e) => {
                tracing::warn!(error = %e, "Bad frame on the submission socket; closing it.");
                return;
            }
        };
        if let Err(e) = framed.send(encode_message(&response)).await {
            tracing::warn!(error = %e, "Could not answer the submitter.");
            return;
        }
    }
}

/// What running main() produced.
struct MainOutcome {
    launcher: Launcher,
    /// Why main() failed (the command's error), if it did.
    failure: Option<anyhow::Error>,
    interrupted: bool,
    /// The logs followed while main() ran (`egret local`), to go on following.
    tail: Option<LogTail>,
}

/// How often `egret local` prints what the topologies' logs gained.
const LOG_POLL: Duration = Duration::from_millis(200);

/// Follows the logs of every topology `launcher` launched so far and prints what they gained.
fn poll_logs(tail: &mut LogTail, launcher: &Launcher) {
    for s in &launcher.submitted {
        tail.add_dir(s.dir.logs_dir());
    }
    let mut out = std::io::stdout().lock();
    if let Err(e) = tail.poll(&mut out) {
        tracing::debug!(error = %e, "Could not write the logs to stdout.");
    }
}

/// The submission socket's frame cap: the cluster config's resolved one (a bad
/// value there refuses the submission itself, naming the key).
fn frame_cap(config: &ConfigMap) -> usize {
    egret_config::settings::resolve(config)
        .map(|s| s.frame_max_bytes)
        .unwrap_or(egret_config::settings::DEFAULT_FRAME_MAX_BYTES) as usize
}

/// Runs main() in the submitter JVM, serving its submissions until it exits. With
/// `follow_logs` (`egret local`), the logs of the topologies it launches are printed
/// meanwhile, however long main() runs.
async fn run_main(
    config: &Layered,
    args: &SubmitArgs,
    follow_logs: bool,
    manifests: bool,
) -> anyhow::Result<MainOutcome> {
    let executable =
        std::env::current_exe().context("cannot find the path of the egret executable")?;
    let shim =
        egret_config::resolve_shim_jar(&config.merged, &executable).map_err(anyhow::Error::msg)?;
    let shim = std::fs::canonicalize(&shim).unwrap_or(shim);
    if !args.jar.exists() {
        bail!("the jar {} does not exist", args.jar.display());
    }
    let user_jar = std::fs::canonicalize(&args.jar)
        .with_context(|| format!("cannot read the jar {}", args.jar.display()))?;
    check_jar(&user_jar)?;
    let cluster = manage::cluster(config)?;
    std::fs::create_dir_all(cluster.root()).with_context(|| {
        format!(
            "cannot create the local cluster directory {}",
            cluster.root().display()
        )
    })?;

    // What the JVM merges under the Config main() builds: defaults and the file,
    // with the shim jar resolved so every instance uses the same one.
    let mut cluster_config = config.cluster.clone();
    cluster_config.insert(
        egret_config::SHIM_JAR.into(),
        Value::String(shim.to_string_lossy().into_owned()),
    );
    let configured_java = config
        .get_str(egret_config::JAVA)
        .filter(|j| !j.trim().is_empty())
        .unwrap_or("java");
    let java = crate::java_runtime::choose(
        &user_jar,
        Path::new(configured_java),
        &java_search_dirs(config)?,
    )?;
    // The jar's directory, read for that, is freed: give it back (`egret local` lives on).
    egret_supervisor::release_freed_memory();
    // Instances run on the submitter's runtime: the jar's classes need it.
    cluster_config.insert(
        egret_config::JAVA.into(),
        Value::String(java.to_string_lossy().into_owned()),
    );
    // ...except in pods, which have the image's.
    if manifests || crate::kube::runs_in_pods(config)? {
        crate::kube::pod_paths(config, &mut cluster_config)?;
    }

    let socket_dir = tempfile::Builder::new()
        .prefix("egret-submit-")
        .tempdir_in("/tmp")
        .context("cannot create a temporary directory for the submission socket")?;
    let socket = socket_dir.path().join("submit.sock");
    let listener = UnixListener::bind(&socket)
        .with_context(|| format!("cannot listen on {}", socket.display()))?;
    let token = Token::new(rand::random::<[u8; 32]>().to_vec());
    // Where each topology's TLS key material comes from, resolved once.
    let credentials = egret_config::tls::CredentialsSource::resolve(&config.merged)?;

    let jar_jvm_opts = jar_jvm_opts(std::env::var(JAR_JVM_OPTS_ENV).ok().as_deref())?;
    let mut cmd = std::process::Command::new(&java);
    cmd.args(submitter_args(
        &egret_config::class_archive_options(&shim, egret_config::ArchiveRole::Submitter),
        &jar_jvm_opts,
        &shim,
        &user_jar,
        &config.raw_options,
        &args.main_class,
        &args.args,
    ))
    .env("EGRET_SUBMIT_SOCKET", &socket)
    .env("EGRET_SUBMIT_TOKEN", token.to_hex())
    .env(
        "EGRET_CLUSTER_CONFIG",
        Value::Object(cluster_config).to_string(),
    )
    .stdin(Stdio::null());
    if manifests {
        // stdout is the YAML: main()'s own output goes to stderr.
        cmd.stdout(std::io::stderr());
    }
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    set_parent_death_signal(&mut cmd);
    let mut jvm = tokio::process::Command::from(cmd)
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("cannot start the JVM '{}'", java.display()))?;

    let target = match StateManagerConfig::resolve(&config.merged)? {
        _ if manifests => Target::Manifests(crate::kube::Manifests::resolve(config)?),
        StateManagerConfig::Local { .. } => {
            if crate::kube::runs_in_pods(config)? {
                bail!(
                    "the Kubernetes scheduler keeps topologies in ZooKeeper: set {}=zookeeper and {}",
                    egret_config::state::STATE_MANAGER,
                    egret_config::state::ZOOKEEPER_SERVERS
                );
            }
            Target::Local
        }
        other if follow_logs => bail!(
            "egret local runs topologies on this machine's local cluster, not on {other:?}: use egret jar to submit to a cluster (or drop {})",
            egret_config::state::STATE_MANAGER
        ),
        other => Target::Cluster {
            submitter: ClusterSubmitter::new(
                egret_state_manager::Backend::open(&other).await?,
                crate::hosts::credentials_root(config),
                credentials.clone(),
            ),
            scheduler: crate::kube::cluster_scheduler(&config.merged, &other).await?,
        },
    };
    let launcher = Arc::new(Mutex::new(Launcher {
        submitter: LocalSubmitter::new(cluster, executable).with_credentials(credentials),
        target,
        user_jar,
        submitted: Vec::new(),
        stored: Vec::new(),
        printed: 0,
    }));
    let max_frame = frame_cap(&config.merged);
    let mut connections = JoinSet::new();
    let mut interrupted = false;
    let mut stop =
        std::pin::pin!(process::termination_signal().context("cannot wait for signals")?);
    let mut tail = follow_logs.then(LogTail::new);
    let mut tick = tokio::time::interval(LOG_POLL);
    let status = loop {
        tokio::select! {
            _ = tick.tick(), if tail.is_some() => {
                // A submission being served holds the lock: its logs are picked up next tick.
                if let (Some(tail), Ok(launcher)) = (tail.as_mut(), launcher.try_lock()) {
                    poll_logs(tail, &launcher);
                }
            }
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(serve_connection(stream, token.clone(), max_frame, launcher.clone()));
                }
                Err(e) => tracing::warn!(error = %e, "Could not accept on the submission socket."),
            },
            status = jvm.wait() => break Some(status.context("cannot wait for the JVM")?),
            _ = &mut stop => {
                interrupted = true;
                let _ = process::terminate(&mut jvm, process::STOP_GRACE).await;
                break None;
            }
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    };
    // The JVM is gone: its connections see EOF; let them finish their last answer.
    let _ = tokio::time::timeout(Duration::from_secs(5), async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    connections.abort_all();
    drop(listener);

    let launcher = Arc::try_unwrap(launcher)
        .map_err(|_| anyhow::anyhow!("submission connections still running"))?
        .into_inner();
    let failure = match status {
        None => Some(anyhow::anyhow!("interrupted")),
        Some(status) => match status.code() {
            Some(0)
                if launcher.submitted.is_empty()
                    && launcher.stored.is_empty()
                    && launcher.printed == 0 =>
            {
                Some(anyhow::anyhow!(
                    "main class {} returned without submitting a topology",
                    args.main_class
                ))
            }
            Some(0) => None,
            // 2: not in the jar; 3: in it but a class it needs is missing. The
            // JVM printed the error, naming the class: it is not repeated here.
            Some(2 | 3) => Some(anyhow::anyhow!(
                "the JVM could not load main class {} (its error is above)",
                args.main_class
            )),
            Some(code) => Some(anyhow::anyhow!(
                "main class {} failed (exit code {code})",
                args.main_class
            )),
            None => Some(anyhow::anyhow!(
                "main class {} failed ({status})",
                args.main_class
            )),
        },
    };
    if let Some(tail) = tail.as_mut() {
        poll_logs(tail, &launcher);
    }
    Ok(MainOutcome {
        launcher,
        failure,
        interrupted,
        tail,
    })
}

/// `egret jar`.
pub async fn jar(
    config_file: Option<PathBuf>,
    conf: Vec<String>,
    args: SubmitArgs,
) -> anyhow::Result<()> {
    let config = crate::manage::load_config(config_file.as_deref(), &conf)?;
    let outcome = run_main(&config, &args, false, false).await?;
    match outcome.failure {
        Some(e) => {
            for s in &outcome.launcher.submitted {
                eprintln!(
                    "Topology '{}' ({}) was submitted before the failure and keeps running.",
                    s.name, s.id
                );
            }
            Err(e)
        }
        None => Ok(()),
    }
}

/// `egret kubernetes manifests`: runs main() as `egret jar` does and prints
/// the Kubernetes objects of every topology it submits; nothing is stored.
pub async fn manifests(
    config_file: Option<PathBuf>,
    conf: Vec<String>,
    args: SubmitArgs,
) -> anyhow::Result<()> {
    let config = crate::manage::load_config(config_file.as_deref(), &conf)?;
    let outcome = run_main(&config, &args, false, true).await?;
    match outcome.failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Whether the topology `s` is still in the cluster: its dir holds a plan with its id (a
/// killed topology's dir moves to `killed/`; a later one may reuse the name).
fn still_running(s: &SubmittedTopology) -> bool {
    !egret_submitter::stop::is_retired(&s.dir, &s.id)
}

/// Kills (wait 0) the launched topologies that are still running; those main() killed
/// itself are gone and left alone.
async fn kill_all(launcher: &Launcher) {
    for s in launcher.submitted.iter().filter(|s| still_running(s)) {
        match manage::kill_topology(launcher.submitter.cluster(), &s.dir, &s.name, 0).await {
            Ok(()) => eprintln!("Killed topology '{}' ({}).", s.name, s.id),
            Err(e) => eprintln!("error: cannot kill topology '{}': {e:#}", s.name),
        }
    }
}

/// Why `egret local` stopped following the topologies after main() returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TtlEnd {
    /// `--local-ttl` seconds passed since main() returned.
    Elapsed,
    /// None of the launched topologies is running any more (main() killed them).
    AllGone,
    /// SIGINT/SIGTERM.
    Interrupted,
}

/// Prints the topologies' logs from main()'s return until `ttl` has passed, every launched
/// topology is gone, or `stop` fires, as `storm local` sleeps its TTL after main returns.
async fn follow_for_ttl(
    launcher: &Launcher,
    tail: &mut LogTail,
    ttl: Duration,
    stop: impl std::future::Future<Output = ()>,
) -> TtlEnd {
    let deadline = tokio::time::Instant::now() + ttl;
    let mut stop = std::pin::pin!(stop);
    let mut tick = tokio::time::interval(LOG_POLL);
    loop {
        tokio::select! {
            _ = tick.tick() => {
                poll_logs(tail, launcher);
                if !launcher.submitted.iter().any(still_running) {
                    return TtlEnd::AllGone;
                }
            }
            _ = tokio::time::sleep_until(deadline) => return TtlEnd::Elapsed,
            _ = &mut stop => return TtlEnd::Interrupted,
        }
    }
}

/// `egret local`: as `storm local`, runs main() in the foreground while printing the logs
/// of the topologies it submits (however long it runs); once main() returns, goes on for
/// `ttl_secs` (or until none of them runs any more), then kills those still running.
pub async fn local(
    config_file: Option<PathBuf>,
    conf: Vec<String>,
    args: SubmitArgs,
    ttl_secs: u64,
) -> anyhow::Result<()> {
    let config = crate::manage::load_config(config_file.as_deref(), &conf)?;
    let outcome = run_main(&config, &args, true, false).await?;
    let launcher = outcome.launcher;
    let mut tail = outcome.tail.unwrap_or_default();
    if let Some(e) = outcome.failure {
        let _ = tail.finish(&mut std::io::stdout().lock());
        kill_all(&launcher).await;
        return Err(e);
    }
    let _ = outcome.interrupted;
    let stop = process::termination_signal().context("cannot wait for signals")?;
    let end = follow_for_ttl(&launcher, &mut tail, Duration::from_secs(ttl_secs), async {
        stop.await;
    })
    .await;
    tracing::debug!(?end, "Stopped following the topologies.");
    let _ = tail.finish(&mut std::io::stdout().lock());
    kill_all(&launcher).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use egret_state_manager::LocalCluster;

    use egret_submitter::fixtures::{bolt, spout, topology};

    #[test]
    fn the_submission_states_the_delivery_mode() {
        let settings = |json: &str| {
            let mut t = Topology {
                name: "t".into(),
                config_json: json.into(),
                // Effectively once needs the checkpoint spout of a stateful bolt.
                components: vec![egret_proto::v1::Component {
                    id: "$checkpointspout".into(),
                    kind: egret_proto::v1::ComponentKind::Spout as i32,
                    ..Default::default()
                }],
                ..Default::default()
            };
            egret_config::settings::resolve_topology(&mut t).unwrap();
            (
                egret_stream_manager::AckingSettings::from_topology(&t).unwrap(),
                egret_config::settings::settings_of(&t)
                    .unwrap()
                    .effectively_once,
            )
        };
        let note = |json: &str| {
            let (acking, eo) = settings(json);
            delivery_note(&acking, eo)
        };
        let on = note("{}");
        assert!(on.contains("at-least-once") && on.contains("30 s"), "{on}");
        let short = note(r#"{"topology.message.timeout.secs": 5}"#);
        assert!(short.contains("5 s"), "{short}");
        let off = note(r#"{"topology.acker.executors": 0}"#);
        assert!(off.contains("at-most-once"), "{off}");
        let no_timeouts = note(r#"{"topology.enable.message.timeouts": false}"#);
        assert!(no_timeouts.contains("disabled"), "{no_timeouts}");
        let eo = note(r#"{"topology.reliability.mode": "EFFECTIVELY_ONCE"}"#);
        assert!(eo.contains("EFFECTIVELY_ONCE"), "{eo}");
    }

    fn launcher(root: &Path, jar: &Path) -> Launcher {
        Launcher {
            submitter: LocalSubmitter::without_scheduler(LocalCluster::new(root)),
            target: Target::Local,
            stored: Vec::new(),
            user_jar: jar.to_owned(),
            submitted: Vec::new(),
            printed: 0,
        }
    }

    #[tokio::test]
    async fn the_launcher_keeps_what_it_submitted_and_states_refusals() {
        let tmp = tempfile::tempdir().unwrap();
        let jar = tmp.path().join("app.jar");
        std::fs::write(&jar, b"PK\x05\x06jar").unwrap();
        let mut l = launcher(&tmp.path().join("local"), &jar);
        let id = l
            .submit(Some(topology(
                "wc",
                vec![spout("s"), bolt("b", "s", "default")],
            )))
            .await
            .unwrap();
        let s = l.submitted[0].clone();
        assert_eq!(s.id, id);
        assert!(s.id.starts_with("wc-1-"), "{}", s.id);
        assert_eq!(s.dir.read_packing_plan().unwrap(), s.plan);
        assert_eq!(l.submitted.len(), 1);
        let err = l
            .submit(Some(topology("wc", vec![spout("s")])))
            .await
            .unwrap_err();
        assert!(
            err.contains("'wc'") && err.contains("already running"),
            "{err}"
        );
        let err = l
            .submit(Some(topology(
                "bad",
                vec![spout("s"), bolt("b", "x", "default")],
            )))
            .await
            .unwrap_err();
        assert!(err.contains("unknown component 'x'"), "{err}");
        assert!(l.submit(None).await.is_err());
        assert_eq!(l.submitted.len(), 1);
    }

    #[test]
    fn submitter_command_line_follows_the_contract() {
        let args = submitter_args(
            &["-XX:SharedArchiveFile=/s/egret-shim.jsa".into()],
            &["-Xmx2g".into()],
            Path::new("/s/egret-shim.jar"),
            Path::new("/u/app.jar"),
            &["topology.workers=2".into(), "x=a,b c".into()],
            "com.acme.Main",
            &["arg1".into(), "-x".into()],
        );
        assert_eq!(
            args,
            vec![
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Xss512k",
                "-Xms16m",
                "-XX:SharedArchiveFile=/s/egret-shim.jsa",
                "-Xmx2g",
                "-Degret.topology.classpath=/u/app.jar",
                "-cp",
                "/s/egret-shim.jar",
                "-Dstorm.jar=/u/app.jar",
                "-Dstorm.options=topology.workers%3D2,x%3Da%2Cb%20c",
                "dev.egret.client.SubmitterMain",
                "com.acme.Main",
                "arg1",
                "-x"
            ]
        );
    }

    #[test]
    fn storm_jar_jvm_opts_split_as_a_shell_would() {
        assert!(jar_jvm_opts(None).unwrap().is_empty());
        assert_eq!(
            jar_jvm_opts(Some(" -Xmx1g  '-Dk=a b' ")).unwrap(),
            vec!["-Xmx1g", "-Dk=a b"]
        );
        let err = jar_jvm_opts(Some("-Dk='open")).unwrap_err().to_string();
        assert!(err.contains("STORM_JAR_JVM_OPTS"), "{err}");
    }

    #[test]
    fn trailing_config_options_and_ttl_are_taken_out() {
        let args = SubmitArgs {
            jar: "a.jar".into(),
            main_class: "M".into(),
            args: vec![
                "x".into(),
                "-c".into(),
                "k=v".into(),
                "--local-ttl".into(),
                "7".into(),
                "y".into(),
            ],
        };
        let (rest, conf, ttl) =
            split_trailing_options(args.clone(), vec!["a=1".into()], true).unwrap();
        assert_eq!(rest.args, vec!["x", "y"]);
        assert_eq!(conf, vec!["a=1", "k=v"]);
        assert_eq!(ttl, Some(7));
        let (rest, _, ttl) = split_trailing_options(args, vec![], false).unwrap();
        assert_eq!(rest.args, vec!["x", "--local-ttl", "7", "y"]);
        assert_eq!(ttl, None);
    }

    /// A launcher with one topology "wc" launched (no scheduler): its dir is in `topologies/`.
    async fn launched(tmp: &Path) -> Launcher {
        let jar = tmp.join("app.jar");
        std::fs::write(&jar, b"PK\x05\x06jar").unwrap();
        let mut l = launcher(&tmp.join("local"), &jar);
        l.submit(Some(topology("wc", vec![spout("s")])))
            .await
            .unwrap();
        l
    }

    #[tokio::test]
    async fn a_topology_runs_until_its_dir_is_retired_or_its_name_reused() {
        let tmp = tempfile::tempdir().unwrap();
        let l = launched(tmp.path()).await;
        let s = l.submitted[0].clone();
        assert!(still_running(&s));
        // Retired (killed by main through LocalCluster or Nimbus): gone.
        l.submitter.cluster().retire(&s.dir, &s.id).unwrap();
        assert!(!still_running(&s));
        // The name taken again by a later submission: that is not the first one.
        let mut l = l;
        l.submit(Some(topology("wc", vec![spout("s")])))
            .await
            .unwrap();
        let again = l.submitted.last().unwrap().clone();
        assert!(!still_running(&s));
        assert!(still_running(&again));
    }

    #[tokio::test(start_paused = true)]
    async fn the_ttl_counts_from_mains_return_and_ends_early_when_all_are_gone() {
        let tmp = tempfile::tempdir().unwrap();
        let l = launched(tmp.path()).await;
        let mut tail = LogTail::new();
        let started = tokio::time::Instant::now();
        let end = follow_for_ttl(
            &l,
            &mut tail,
            Duration::from_secs(5),
            std::future::pending::<()>(),
        )
        .await;
        assert_eq!(end, TtlEnd::Elapsed);
        assert_eq!(started.elapsed(), Duration::from_secs(5));

        // A stop signal ends the wait at once.
        let end = follow_for_ttl(&l, &mut tail, Duration::from_secs(5), async {}).await;
        assert_eq!(end, TtlEnd::Interrupted);

        // Main killed its topology itself: nothing to wait for, no error.
        l.submitter
            .cluster()
            .retire(&l.submitted[0].dir, &l.submitted[0].id)
            .unwrap();
        let started = tokio::time::Instant::now();
        let end = follow_for_ttl(
            &l,
            &mut tail,
            Duration::from_secs(20),
            std::future::pending::<()>(),
        )
        .await;
        assert_eq!(end, TtlEnd::AllGone);
        assert!(started.elapsed() < Duration::from_secs(1));
        // And kill_all leaves the retired topology alone (it would fail to reach its TM).
        kill_all(&l).await;
    }

    #[test]
    fn jar_check_accepts_zips_only() {
        let tmp = tempfile::tempdir().unwrap();
        let good = tmp.path().join("g.jar");
        std::fs::write(
            &good,
            b"PK\x03\x04....PK\x05\x06\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0",
        )
        .unwrap();
        assert!(check_jar(&good).is_ok());
        // The end record must be within the last 64 KiB + 22 bytes, as zip readers look for it.
        let far = tmp.path().join("far.jar");
        let mut bytes = b"PK\x03\x04PK\x05\x06".to_vec();
        bytes.resize(70_000, 0);
        std::fs::write(&far, bytes).unwrap();
        assert!(check_jar(&far).is_err());
        let bad = tmp.path().join("b.jar");
        std::fs::write(&bad, b"hello").unwrap();
        assert!(
            check_jar(&bad)
                .unwrap_err()
                .to_string()
                .contains("not a jar")
        );
        assert!(check_jar(&tmp.path().join("none.jar")).is_err());
    }
}
