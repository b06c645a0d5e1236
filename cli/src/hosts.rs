//! The processes a host of a multi-host cluster runs, given the cluster's
//! state manager (config keys `egret.state.manager`, `egret.zookeeper.*`) and
//! a topology's credentials directory: `egret tmaster --topology NAME` and
//! `egret container --topology NAME --index N` (contracts.md, "Running on
//! several hosts"). They find everything else in the state manager.

use std::ffi::OsString;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Args;
use egret_config::Layered;
use egret_config::state::StateManagerConfig;
use egret_state_manager::{Backend, StateManager};
use egret_topology_master::client::ClientError;
use egret_transport::{Host, TopologyCredentials};

/// Where a host's process listens and what it tells its peers.
#[derive(Debug, Clone, Args)]
pub struct NetworkArgs {
    /// The IP this process's TCP listener binds.
    #[arg(long, value_name = "IP", default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// The host registered for peers to dial: an IP or a DNS name that
    /// resolves to this host on every peer (the bound IP when absent; give
    /// one when binding 0.0.0.0).
    #[arg(long, value_name = "HOST")]
    pub advertise: Option<Host>,
}

impl NetworkArgs {
    fn advertised(&self) -> anyhow::Result<Option<Host>> {
        match &self.advertise {
            None if self.bind.is_unspecified() => anyhow::bail!(
                "--bind {} needs --advertise HOST: peers cannot dial an unspecified address",
                self.bind
            ),
            Some(host) if host.is_unspecified() => anyhow::bail!(
                "--advertise {host} is an unspecified address, which peers cannot dial"
            ),
            advertise => Ok(advertise.clone()),
        }
    }
}

/// `egret tmaster|container --topology NAME ...`: one topology of a cluster.
#[derive(Debug, Clone, Args)]
pub struct HostArgs {
    /// The topology (its name in the state manager).
    #[arg(long, value_name = "NAME")]
    pub topology: Option<String>,
    /// The topology's credentials directory (token, ca.pem, cert.pem,
    /// key.pem), as `egret jar` wrote it.
    #[arg(long, value_name = "DIR", requires = "topology")]
    pub credentials: Option<PathBuf>,
    /// Where this host keeps the topology's local files (logs, metrics,
    /// sockets, the fetched jar): `<DIR>/topologies/<name>/`.
    #[arg(long, value_name = "DIR", requires = "topology")]
    pub work_dir: Option<PathBuf>,
    #[command(flatten)]
    pub network: NetworkArgs,
}

/// The cluster's state manager, as the config names it; the local one is
/// refused (a host of a cluster shares its state with the others).
pub async fn open_cluster_state(config: &Layered) -> anyhow::Result<(Backend, StateManagerConfig)> {
    shared_state(config).await?.with_context(|| {
        format!(
            "a host of a multi-host cluster needs a shared state manager: set {}=zookeeper and {}",
            egret_config::state::STATE_MANAGER,
            egret_config::state::ZOOKEEPER_SERVERS
        )
    })
}

/// The shared state manager the config names, opened, with its resolved
/// config; `None` for the local one.
async fn shared_state(config: &Layered) -> anyhow::Result<Option<(Backend, StateManagerConfig)>> {
    match StateManagerConfig::resolve(&config.merged)? {
        StateManagerConfig::Local { .. } => Ok(None),
        other => Ok(Some((Backend::open(&other).await?, other))),
    }
}

fn required<'a, T>(value: &'a Option<T>, flag: &str) -> anyhow::Result<&'a T> {
    value
        .as_ref()
        .with_context(|| format!("--topology needs {flag}"))
}

/// `egret tmaster --topology NAME --credentials DIR --work-dir DIR`.
/// Returns once the topology was killed, having removed it from the state
/// manager (every container then stops), or rebalanced (the new plan stored:
/// whoever runs this process starts it again).
pub async fn run_master(
    config: &Layered,
    args: &HostArgs,
) -> anyhow::Result<egret_topology_master::Exit> {
    let name = required(&args.topology, "a topology name")?;
    let credentials = required(&args.credentials, "--credentials DIR")?;
    let work = required(&args.work_dir, "--work-dir DIR")?;
    let advertise = args.network.advertised()?;
    let (state, _) = open_cluster_state(config).await?;
    let state = Arc::new(state);
    let credentials = TopologyCredentials::load(credentials)?;
    let health = match crate::health::configured_port(config)? {
        Some(port) => Some(crate::health::serve(args.network.bind, port).await?),
        None => None,
    };
    let metrics_dir = work.join("topologies").join(name);
    std::fs::create_dir_all(&metrics_dir)
        .with_context(|| format!("cannot create {}", metrics_dir.display()))?;
    let master =
        egret_topology_master::TopologyMaster::bind_setup(egret_topology_master::MasterSetup {
            state: Arc::clone(&state),
            name: name.clone(),
            credentials,
            metrics_dir,
            bind: SocketAddr::new(args.network.bind, 0),
            advertise,
        })
        .await?;
    // Serving from here (a standby returns from bind_setup once it took over).
    if let Some(health) = &health {
        health.set_ready(true);
    }
    let exit = master.serve().await?;
    if exit == egret_topology_master::Exit::Killed {
        remove_topology(&state, name).await;
    }
    Ok(exit)
}

/// What a kill leaves: nothing of the topology in the state manager.
pub(crate) async fn remove_topology(state: &Backend, name: &str) {
    let removals = [
        ("topology", state.delete_topology(name).await),
        ("package", state.delete_package(name).await),
        ("packing plan", state.delete_packing_plan(name).await),
        ("physical plan", state.delete_physical_plan(name).await),
    ];
    for (what, outcome) in removals {
        if let Err(err) = outcome {
            tracing::warn!(topology = name, error = %err, "Removing the killed topology's {what} failed.");
        }
    }
    tracing::info!(
        topology = name,
        "The killed topology was removed from the state manager."
    );
}

/// `egret container --topology NAME --index N --credentials DIR --work-dir DIR`:
/// fetches the topology, then supervises `egret container --topology-dir`
/// (which runs the stream manager and the instances), restarting it where it
/// ran when it dies, until the topology leaves the state manager (or a
/// signal).
pub async fn run_container(
    config: &Layered,
    args: &HostArgs,
    index: i32,
    executable: PathBuf,
) -> anyhow::Result<()> {
    use egret_supervisor::{ChildSpec, RestartPolicy, Supervisor};
    let name = required(&args.topology, "a topology name")?;
    let credentials = required(&args.credentials, "--credentials DIR")?;
    let work = required(&args.work_dir, "--work-dir DIR")?;
    args.network.advertised()?;
    let signal = egret_supervisor::termination_signal().context("cannot wait for signals")?;
    let (state, resolved) = open_cluster_state(config).await?;
    let health = match crate::health::configured_port(config)? {
        Some(port) => Some(crate::health::serve(args.network.bind, port).await?),
        None => None,
    };
    let dir = egret_container::cluster::materialize(&state, name, credentials, work).await?;
    let topology = dir.read_topology()?;
    let (servers, root) = match &resolved {
        StateManagerConfig::ZooKeeper { servers, root } => {
            (Some(servers.as_str()), Some(root.as_str()))
        }
        StateManagerConfig::Local { .. } => (None, None),
    };
    let mut container_args: Vec<OsString> = vec![
        "container".into(),
        "--topology-dir".into(),
        dir.path().as_os_str().to_owned(),
        "--index".into(),
        index.to_string().into(),
    ];
    container_args.extend(stream_manager_args(servers, root, &args.network));
    let child = format!("container-{index}");
    let mut supervisor = Supervisor::new(RestartPolicy::default());
    supervisor.spawn(ChildSpec {
        log_file: dir.log_file(&child),
        name: child,
        program: executable,
        args: container_args,
        env: Vec::new(),
        cwd: Some(dir.path().to_owned()),
        final_exit_code: None,
        cgroup_procs: Vec::new(),
        batch_scheduling: false,
    });
    tracing::info!(topology = %topology.id, container = index, "Container started (restarted here when it dies).");
    let why = tokio::select! {
        which = signal => format!("signal {which}"),
        reason = egret_container::cluster::until_removed(&state, name, &topology.id) => reason,
        never = follow_readiness(&state, name, &topology.id, index, health.as_ref()) => match never {},
    };
    tracing::info!(container = index, reason = %why, "Stopping the container.");
    for summary in supervisor.stop().await {
        tracing::info!(child = %summary.name, restarts = summary.restarts, "Child stopped.");
    }
    Ok(())
}

/// How often a container's readiness is checked in the state manager.
const READINESS_POLL: std::time::Duration = std::time::Duration::from_secs(1);

/// Keeps `health` ready exactly while the physical plan the master
/// published for topology `id` lists container `index`'s stream manager
/// (registered with the serving master). Never returns.
async fn follow_readiness(
    state: &Backend,
    name: &str,
    id: &str,
    index: i32,
    health: Option<&crate::health::Health>,
) -> std::convert::Infallible {
    let Some(health) = health else {
        return std::future::pending().await;
    };
    loop {
        let ready = match state.get_physical_plan(name).await {
            Ok(Some(plan)) => {
                plan.topology_id == id
                    && plan
                        .stream_managers
                        .iter()
                        .any(|s| s.container_index == index)
            }
            Ok(None) => false,
            Err(e) => {
                tracing::debug!(error = %e, "Cannot read the physical plan for readiness.");
                false
            }
        };
        health.set_ready(ready);
        tokio::time::sleep(READINESS_POLL).await;
    }
}

/// The flags of `egret container --topology-dir` (and `egret stmgr`) naming
/// where the master is registered and the addresses the stream manager binds
/// and advertises.
pub fn stream_manager_args(
    zookeeper: Option<&str>,
    root: Option<&str>,
    network: &NetworkArgs,
) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    if let Some(servers) = zookeeper {
        args.push("--zookeeper".into());
        args.push(servers.into());
        if let Some(root) = root {
            args.push("--zookeeper-root".into());
            args.push(root.into());
        }
    }
    args.push("--bind".into());
    args.push(network.bind.to_string().into());
    if let Some(host) = &network.advertise {
        args.push("--advertise".into());
        args.push(host.to_string().into());
    }
    args
}

/// The state manager `egret stmgr` is told about: ZooKeeper when given,
/// else the local one holding its topology directory.
pub async fn stream_manager_state(
    zookeeper: Option<&str>,
    root: Option<&str>,
) -> anyhow::Result<Option<Arc<Backend>>> {
    let Some(servers) = zookeeper else {
        return Ok(None);
    };
    let config = StateManagerConfig::ZooKeeper {
        servers: servers.to_owned(),
        root: root
            .unwrap_or(egret_config::state::DEFAULT_ZOOKEEPER_ROOT)
            .to_owned(),
    };
    Ok(Some(Arc::new(Backend::open(&config).await?)))
}

/// Used by `egret jar` in cluster mode: where credentials directories go.
pub fn credentials_root(config: &Layered) -> PathBuf {
    match config.get_str(CREDENTIALS_DIR) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => egret_config::Environment::from_process()
            .egret_home
            .join("credentials"),
    }
}

/// `egret.credentials.dir`: where `egret jar` writes each cluster topology's
/// credentials directory (`<dir>/<name>/`); default `$EGRET_HOME/credentials`.
pub const CREDENTIALS_DIR: &str = "egret.credentials.dir";

/// `egret list|kill|activate|deactivate` against a shared state manager:
/// the topology's master is found there and asked with the credentials in
/// `<egret.credentials.dir>/<name>/`. `None` when the config names the local
/// state manager (the local cluster answers then).
pub async fn cluster_of(config: &Layered) -> anyhow::Result<Option<Backend>> {
    Ok(shared_state(config).await?.map(|(state, _)| state))
}

pub(crate) async fn ask(
    state: &Backend,
    config: &Layered,
    name: &str,
    request: egret_proto::v1::client_request::Request,
    timeout: std::time::Duration,
) -> anyhow::Result<egret_proto::v1::ClientResponse> {
    let credentials_dir = credentials_root(config).join(name);
    let response = egret_topology_master::client::request_cluster(
        state,
        name,
        &credentials_dir,
        egret_proto::v1::ClientRequest {
            request: Some(request),
        },
        timeout,
    )
    .await
    .map_err(|e| match e {
        ClientError::NoAddress(_) => {
            anyhow::anyhow!("topology '{name}' has no live topology master")
        }
        ClientError::Credentials(e) => anyhow::Error::new(e).context(format!(
            "cannot read the credentials of '{name}' (set {CREDENTIALS_DIR} to the directory holding {name}/)"
        )),
        e => anyhow::Error::new(e).context(format!(
            "cannot reach the topology master of '{name}'"
        )),
    })?;
    if !response.ok {
        anyhow::bail!("topology '{name}' refused: {}", response.error);
    }
    Ok(response)
}

/// `egret list` on a cluster: every topology of the state manager.
pub async fn list(state: &Backend, config: &Layered) -> anyhow::Result<()> {
    use egret_proto::v1::{Empty, client_request::Request};
    let mut rows = Vec::new();
    for name in state.topology_names().await? {
        let Some(topology) = state.get_topology(&name).await? else {
            continue;
        };
        let described = ask(
            state,
            config,
            &name,
            Request::Describe(Empty {}),
            std::time::Duration::from_secs(5),
        )
        .await;
        rows.push(match described {
            Ok(response) => {
                let s = response.summary.unwrap_or_default();
                vec![
                    name,
                    topology.id,
                    crate::manage::state_name(s.state).to_owned(),
                    s.num_containers.to_string(),
                    s.num_executors.to_string(),
                    s.num_tasks.to_string(),
                ]
            }
            Err(e) => {
                tracing::debug!(error = %e, "Topology master did not answer.");
                vec![
                    name,
                    topology.id,
                    "UNREACHABLE".into(),
                    "-".into(),
                    "-".into(),
                    "-".into(),
                ]
            }
        });
    }
    if rows.is_empty() {
        println!("No topologies running.");
        return Ok(());
    }
    println!(
        "{}",
        crate::manage::render_table(
            &["NAME", "ID", "STATUS", "CONTAINERS", "EXECUTORS", "TASKS"],
            &rows
        )
    );
    Ok(())
}

/// `egret activate|deactivate NAME` on a cluster.
pub async fn set_active(
    state: &Backend,
    config: &Layered,
    name: &str,
    active: bool,
) -> anyhow::Result<()> {
    use egret_proto::v1::{Empty, client_request::Request};
    let request = if active {
        Request::Activate(Empty {})
    } else {
        Request::Deactivate(Empty {})
    };
    ask(
        state,
        config,
        name,
        request,
        std::time::Duration::from_secs(20),
    )
    .await?;
    Ok(())
}

/// `egret kill NAME -w SECS` on a cluster: the master kills the topology and
/// removes it from the state manager (its containers then stop); this waits
/// (at most 30 s after the kill's answer) until it is gone.
pub async fn kill(
    state: &Backend,
    config: &Layered,
    name: &str,
    wait_secs: u32,
) -> anyhow::Result<()> {
    use egret_proto::v1::{KillRequest, client_request::Request};
    let timeout = std::time::Duration::from_secs(u64::from(wait_secs) + 10);
    ask(
        state,
        config,
        name,
        Request::Kill(KillRequest { wait_secs }),
        timeout,
    )
    .await?;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(30);
    while state.get_topology(name).await?.is_some() {
        if tokio::time::Instant::now() > deadline {
            anyhow::bail!(
                "topology '{name}' was killed but is still in the state manager after 30 s"
            );
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    Ok(())
}
