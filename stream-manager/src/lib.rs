//! The stream manager (SM) of one container: serves the container's instances
//! over a Unix socket, routes their tuples by task id to local instances or to
//! the stream managers of other containers, and follows the topology master's
//! physical plan. See `docs/internals/contracts.md`.
//!
//! Structure (one task each):
//! - the instance listener and the data (peer) listener accept connections;
//!   each accepted connection gets a reader task;
//! - one writer per destination (local instance or peer SM) owns the
//!   destination's outbound queue and its current connection;
//! - the master session registers with the topology master and publishes each
//!   plan it receives on a `watch` channel that writers and dialers follow;
//! - one dialer per higher-indexed peer keeps the mesh connection up;
//! - the ledger timer rotates the ledger of the local spout tasks every T/2
//!   (`ledger`) and writes the metrics snapshot `DIR/metrics/stmgr-N.json`;
//! - backpressure (`backpressure`) needs no task of its own: the queues'
//!   gauges drive it, the instance readers and writers and the peer writers
//!   follow its `watch` channels.
//!
//! Invariants:
//! - every queue on the data path is bounded (see `router`), in batches as a
//!   hard cap and in bytes through the spout backpressure;
//! - a destination has at most one current connection; a newer one replaces
//!   it and the older is closed;
//! - an instance receives its assignment before anything else, and tuples only
//!   after it has said `ready`;
//! - every task this crate spawns ends when `run` returns (or is dropped).

use std::collections::HashMap;
use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use egret_metrics::manager::{ManagerHandle, ManagerSettings, MetricsManager};
use egret_metrics::{Registry, Snapshot, SnapshotWriter};
use egret_proto::Token;
use egret_proto::v1::{ComponentKind, PackingPlan, PhysicalPlan, Topology, TopologyState};
use egret_state_manager::{Backend, StateError, StateManagerError, TopologyDir};
use egret_transport::{CredentialsError, Host, Tls};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

mod backoff;
pub mod backpressure;
pub mod delivery;
mod error_reports;
mod instances;
mod ledger;
mod master;
mod peers;
mod router;
mod settings;
mod state;

pub use delivery::{DeliveryTable, Destination, PlanError};
pub use settings::{AckingSettings, BackpressureSettings, SettingsError};

pub use instances::{FrameStream, InstanceConnection, SendPath};
use instances::{InstanceContext, InstanceEvent};
use peers::PeerEvent;
pub use router::FrameSink;
use router::Router;

/// How long the instance writers get to tell their instances about a kill.
const KILL_GRACE: Duration = Duration::from_secs(2);
/// Capacity of the small control channels (connection events); never the data path.
const EVENT_CAPACITY: usize = 16;
/// How often the ledger's counters are copied to the metrics registry (the
/// snapshot writer throttles the file writes itself).
const METRICS_TICK: Duration = Duration::from_secs(1);

#[derive(Debug, Clone)]
pub struct StreamManagerOptions {
    /// The container's topology directory: topology, packing plan, token,
    /// sockets, logs and metrics.
    pub topology_dir: PathBuf,
    pub container_index: i32,
    /// Where the topology master is registered; `None`: the local state
    /// manager holding `topology_dir`.
    pub state: Option<Arc<Backend>>,
    /// The IP the data port binds.
    pub bind: IpAddr,
    /// The host (an IP or a DNS name) registered with the master for peers
    /// to dial; the bound IP when `None`.
    pub advertise: Option<Host>,
}

impl StreamManagerOptions {
    /// Container `container_index` of the topology in `topology_dir` on the
    /// local cluster: loopback only, the master found in the local state manager.
    pub fn local(topology_dir: impl Into<PathBuf>, container_index: i32) -> Self {
        Self {
            topology_dir: topology_dir.into(),
            container_index,
            state: None,
            bind: IpAddr::from([127, 0, 0, 1]),
            advertise: None,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StreamManagerError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    StateManager(#[from] StateManagerError),
    #[error("the packing plan is not valid for this topology: {0}")]
    Plan(#[from] PlanError),
    #[error("invalid topology settings: {0}")]
    Settings(#[from] SettingsError),
    #[error("the topology's credentials are not usable: {0}")]
    Credentials(#[from] CredentialsError),
    #[error(transparent)]
    Metrics(#[from] egret_metrics::manager::SettingsError),
    #[error("{0}")]
    Config(String),
    #[error("cannot {action} {what}: {source}")]
    Io {
        action: &'static str,
        what: String,
        #[source]
        source: std::io::Error,
    },
}

fn io_error(
    action: &'static str,
    what: impl Into<String>,
) -> impl FnOnce(std::io::Error) -> StreamManagerError {
    let what = what.into();
    move |source| StreamManagerError::Io {
        action,
        what,
        source,
    }
}

/// The proto name of a topology state, for logs.
pub(crate) fn state_name(state: i32) -> &'static str {
    TopologyState::try_from(state)
        .map(|s| s.as_str_name())
        .unwrap_or("UNKNOWN")
}

/// What every task of the stream manager shares.
pub(crate) struct Shared {
    pub dir: TopologyDir,
    pub index: i32,
    /// Where the topology master is registered.
    pub state: Arc<Backend>,
    /// The host registered with the master (peers dial it).
    pub advertise: Host,
    pub token: Token,
    /// The TLS layer of the TCP links (peers and master).
    pub tls: Tls,
    pub max_frame_bytes: usize,
    pub topology: Arc<Topology>,
    pub packing: PackingPlan,
    pub router: Router,
    pub instances: HashMap<String, Arc<InstanceContext>>,
    pub instance_events: HashMap<String, mpsc::Sender<InstanceEvent>>,
    pub peer_events: HashMap<i32, mpsc::Sender<PeerEvent>>,
    pub plan_tx: watch::Sender<Option<Arc<PhysicalPlan>>>,
    /// Instances' statistics reports and errors on their way to the topology
    /// master (bounded).
    pub master_tx: mpsc::Sender<egret_proto::v1::stream_manager_to_master::Message>,
    pub metrics: Registry,
    /// The container's metrics manager: instances' reports are offered to it
    /// (never waiting).
    pub metrics_manager: ManagerHandle,
    /// The topology's checkpoint store (durable state of stateful tasks).
    pub checkpoints: egret_checkpoint_store::Checkpoints,
    /// `topology.reliability.mode: EFFECTIVELY_ONCE` (resolved): instances'
    /// readiness goes to the master, and its `recover_checkpoint` fails the
    /// local checkpoint spout tasks' pending trees.
    pub effectively_once: bool,
    pub cancel: CancellationToken,
    next_connection: AtomicU64,
}

impl Shared {
    pub fn next_connection(&self) -> u64 {
        self.next_connection.fetch_add(1, Ordering::Relaxed)
    }

    /// Spawns a task that ends when the stream manager stops.
    pub fn spawn<F>(&self, future: F) -> JoinHandle<()>
    where
        F: Future<Output = ()> + Send + 'static,
    {
        let cancel = self.cancel.clone();
        tokio::spawn(async move {
            tokio::select! {
                () = cancel.cancelled() => {}
                () = future => {}
            }
        })
    }
}

/// Runs the stream manager of one container until the topology master says
/// KILLED (then returns `Ok`) or the process is killed.
pub async fn run(options: StreamManagerOptions) -> Result<(), StreamManagerError> {
    run_with(options, None).await
}

/// As [`run`], also serving the instance connections `in_process` yields
/// (the JNI bridge's executors) beside those of the instance socket.
pub async fn run_with(
    options: StreamManagerOptions,
    in_process: Option<mpsc::Receiver<InstanceConnection>>,
) -> Result<(), StreamManagerError> {
    let dir = TopologyDir::new(&options.topology_dir);
    let index = options.container_index;
    let state = match &options.state {
        Some(state) => Arc::clone(state),
        None => Arc::new(Backend::for_topology_dir(&dir)?.0),
    };
    let topology = dir.read_topology()?;
    let packing = dir.read_packing_plan()?;
    let credentials = dir.read_credentials()?;
    let token = credentials.token().clone();
    let tls = Tls::new(&credentials)?;
    let table = DeliveryTable::build(&topology, &packing, index)?;
    let settings = *egret_config::settings::settings_of(&topology)?;
    info!(
        container = index,
        "Resolved settings: {}",
        egret_config::settings::describe(&settings)
    );
    let max_frame_bytes = settings.frame_max_bytes as usize;
    let metrics_settings = ManagerSettings::from_config(
        &egret_config::topology::config_map(&topology).map_err(StreamManagerError::Config)?,
    )?;
    let acking = AckingSettings::from_settings(&settings);
    let watermarks = BackpressureSettings::from_settings(&settings);

    let own = packing
        .containers
        .iter()
        .find(|c| c.index == index)
        .ok_or(PlanError::NoSuchContainer(index))?;
    let instance_ids: Vec<String> = own
        .instances
        .iter()
        .map(|i| i.instance_id.clone())
        .collect();
    let peers: Vec<i32> = packing
        .containers
        .iter()
        .map(|c| c.index)
        .filter(|&i| i != index)
        .collect();
    let local_spouts = own
        .instances
        .iter()
        .filter(|i| {
            topology
                .components
                .iter()
                .any(|c| c.id == i.component && c.kind == ComponentKind::Spout as i32)
        })
        .map(|i| i.component.clone())
        .collect();
    let pressure = Arc::new(backpressure::Pressure::new(
        index,
        watermarks,
        backpressure::upstream_spouts(&topology),
        local_spouts,
    ));
    info!(
        high_watermark = watermarks.high_watermark,
        low_watermark = watermarks.low_watermark,
        "Backpressure watermarks set (bytes queued per destination)."
    );
    let (router, mut receivers) = Router::new(&table, &peers, &instance_ids, pressure);

    let task_container: Arc<HashMap<i32, i32>> = Arc::new(
        table
            .task_container()
            .iter()
            .map(|(&t, &c)| (t, c))
            .collect(),
    );
    let task_component: Arc<HashMap<i32, String>> = Arc::new(table.task_components().clone());
    let mut instances = HashMap::new();
    let mut instance_events = HashMap::new();
    let mut instance_event_rx = HashMap::new();
    for plan in &own.instances {
        let context = Arc::new(InstanceContext {
            plan: plan.clone(),
            work_dir: dir
                .work_dir(&plan.instance_id)
                .to_string_lossy()
                .into_owned(),
            task_container: Arc::clone(&task_container),
            task_component: Arc::clone(&task_component),
        });
        instances.insert(plan.instance_id.clone(), context);
        let (tx, rx) = mpsc::channel(EVENT_CAPACITY);
        instance_events.insert(plan.instance_id.clone(), tx);
        instance_event_rx.insert(plan.instance_id.clone(), rx);
    }
    let mut peer_events = HashMap::new();
    let mut peer_event_rx = HashMap::new();
    for &peer in &peers {
        let (tx, rx) = mpsc::channel(EVENT_CAPACITY);
        peer_events.insert(peer, tx);
        peer_event_rx.insert(peer, rx);
    }

    // Listeners first: their addresses are what we register.
    dir.create_socket_dir()?;
    let socket = dir.stream_manager_socket(index);
    match std::fs::remove_file(&socket) {
        Ok(()) => info!(path = %socket.display(), "Removed a stale instance socket."),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            return Err(io_error(
                "remove the stale socket",
                socket.display().to_string(),
            )(e));
        }
    }
    let instance_listener =
        UnixListener::bind(&socket).map_err(io_error("listen on", socket.display().to_string()))?;
    let data_listener = TcpListener::bind((options.bind, 0))
        .await
        .map_err(io_error(
            "listen on",
            format!("{} (data port)", options.bind),
        ))?;
    let data_port = data_listener
        .local_addr()
        .map_err(io_error("read the address of", "the data listener"))?
        .port();
    let advertise = options.advertise.unwrap_or(Host::Ip(options.bind));
    info!(
        container = index,
        socket = %socket.display(),
        data_port,
        instances = instance_ids.len(),
        tasks = table.num_tasks(),
        "Stream manager listening."
    );

    let (plan_tx, _) = watch::channel(None);
    let (master_tx, master_rx) = mpsc::channel(master::MASTER_QUEUE);
    let metrics = Registry::new();
    let manager = {
        let topology_dir = dir.path().to_owned();
        let container = format!("container-{index}");
        MetricsManager::new(
            &topology.name,
            index,
            table.task_components().clone(),
            topology
                .components
                .iter()
                .filter(|c| c.kind == ComponentKind::Spout as i32)
                .map(|c| c.id.clone())
                .collect(),
            metrics.clone(),
            // The container supervisor's restarts and cgroup usage.
            Box::new(move || match Snapshot::read(&topology_dir, &container) {
                Ok(Some(snapshot)) => snapshot.metrics,
                _ => Vec::new(),
            }),
        )
    };
    let (metrics_manager, manager_task) = manager.start();
    let cancel = CancellationToken::new();
    // Dropping `run`'s future (the process shutting down) stops every task too.
    let _stop_all = cancel.clone().drop_guard();
    let checkpoint_settings =
        egret_config::settings::checkpoint_settings(&topology, &options.topology_dir)?;
    info!(
        dir = %checkpoint_settings.dir.display(),
        retain = checkpoint_settings.retain,
        "Checkpoint store: a local directory."
    );
    let checkpoints = egret_checkpoint_store::Checkpoints::new(
        Arc::new(egret_checkpoint_store::LocalDirStore::new(
            &checkpoint_settings.dir,
        )),
        &topology.name,
        checkpoint_settings.retain,
    );
    let shared = Arc::new(Shared {
        dir,
        index,
        state,
        advertise,
        token,
        tls,
        max_frame_bytes,
        topology: Arc::new(topology),
        packing,
        router,
        instances,
        instance_events,
        peer_events,
        plan_tx,
        master_tx,
        metrics,
        metrics_manager,
        checkpoints,
        effectively_once: settings.effectively_once,
        cancel: cancel.clone(),
        next_connection: AtomicU64::new(1),
    });

    let mut instance_writers = Vec::new();
    for id in &instance_ids {
        let (Some(tuples), Some(trees), Some(events), Some(context)) = (
            receivers.local.remove(id),
            receivers.trees.remove(id),
            instance_event_rx.remove(id),
            shared.instances.get(id).cloned(),
        ) else {
            continue;
        };
        let plans = shared.plan_tx.subscribe();
        instance_writers.push(shared.spawn(instances::writer(
            Arc::clone(&shared),
            context,
            tuples,
            trees,
            events,
            plans,
        )));
    }
    for &peer in &peers {
        let (Some(tuples), Some(events)) =
            (receivers.remote.remove(&peer), peer_event_rx.remove(&peer))
        else {
            continue;
        };
        shared.spawn(peers::writer(Arc::clone(&shared), peer, tuples, events));
        if peer > index {
            shared.spawn(peers::dialer(Arc::clone(&shared), peer));
        }
    }
    shared.spawn(instances::accept_loop(
        Arc::clone(&shared),
        instance_listener,
    ));
    if let Some(connections) = in_process {
        shared.spawn(instances::in_process_loop(Arc::clone(&shared), connections));
    }
    shared.spawn(peers::accept_loop(Arc::clone(&shared), data_listener));
    shared.spawn(master::session_loop(
        Arc::clone(&shared),
        data_port,
        master_rx,
    ));
    info!(
        acking = acking.enabled,
        timeout_secs = acking.timeout.as_secs(),
        timeouts = acking.timeouts_enabled,
        "Ledger ready."
    );
    shared.spawn(ledger_timer(Arc::clone(&shared), acking));
    let manager_tasks =
        start_metrics_exports(&shared, &manager, &metrics_settings, options.bind).await?;

    let mut plans = shared.plan_tx.subscribe();
    loop {
        if plans.changed().await.is_err() {
            break;
        }
        let killed = plans
            .borrow_and_update()
            .as_ref()
            .is_some_and(|p| p.state == TopologyState::Killed as i32);
        if killed {
            info!(
                container = index,
                "The topology is killed: closing the instance connections."
            );
            break;
        }
    }
    // Instance writers tell their instances, close their connections and end.
    let _ = tokio::time::timeout(KILL_GRACE, futures::future::join_all(instance_writers)).await;
    cancel.cancel();
    manager_task.abort();
    for task in manager_tasks {
        task.abort();
    }
    shared.router.publish_metrics(&shared.metrics);
    shared.tls.refused().publish(&shared.metrics);
    if let Err(err) = SnapshotWriter::new(shared.dir.path(), &format!("stmgr-{index}"))
        .write_now(&shared.metrics, std::time::Instant::now())
    {
        warn!(error = %err, "Writing the last metrics snapshot failed.");
    }
    if let Err(err) = std::fs::remove_file(&socket) {
        warn!(path = %socket.display(), error = %err, "Removing the instance socket failed.");
    }
    info!(
        container = index,
        dropped_tuples = shared.router.dropped(),
        dropped_acks = shared.router.dropped_acks(),
        dropped_tree_events = shared.router.dropped_tree_events(),
        "Stream manager stopped."
    );
    Ok(())
}

/// Starts the metrics manager's exports: the Prometheus endpoint (its address
/// written to `DIR/metrics/prometheus-N.addr`) and the Graphite sinks, as
/// configured.
async fn start_metrics_exports(
    shared: &Shared,
    manager: &MetricsManager,
    settings: &ManagerSettings,
    bind: IpAddr,
) -> Result<Vec<JoinHandle<()>>, StreamManagerError> {
    let mut tasks = Vec::new();
    if let Some(port) = settings.prometheus_port_of(shared.index) {
        let ip = settings.prometheus_bind.unwrap_or(bind);
        let (addr, task) = egret_metrics::http::serve(manager.clone(), (ip, port).into())
            .await
            .map_err(io_error(
                "listen on",
                format!("{ip}:{port} (the Prometheus endpoint)"),
            ))?;
        tasks.push(task);
        let file = egret_metrics::http::address_file(shared.dir.path(), shared.index);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent)
                .map_err(io_error("create", parent.display().to_string()))?;
        }
        std::fs::write(&file, format!("{addr}\n"))
            .map_err(io_error("write", file.display().to_string()))?;
        info!(container = shared.index, %addr, "Metrics manager: Prometheus endpoint listening (/metrics).");
    }
    let log_dir = shared.dir.logs_dir();
    tasks.extend(manager.spawn_sinks(settings, &log_dir).map_err(io_error(
        "start",
        format!("the metrics file sink in {}", log_dir.display()),
    ))?);
    Ok(tasks)
}

/// Rotates the ledger every T/2 (unless timeouts are off) and keeps the
/// metrics snapshot current.
async fn ledger_timer(shared: Arc<Shared>, acking: AckingSettings) {
    let period = ledger::rotation_period(acking.timeout);
    let start = tokio::time::Instant::now();
    let mut rotation = tokio::time::interval_at(start + period, period);
    rotation.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut metrics = tokio::time::interval(METRICS_TICK);
    metrics.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut writer = SnapshotWriter::new(shared.dir.path(), &format!("stmgr-{}", shared.index));
    let mut failing = false;
    loop {
        tokio::select! {
            _ = rotation.tick(), if acking.timeouts_enabled => {
                shared.router.rotate_ledger();
            }
            _ = metrics.tick() => {
                shared.router.publish_metrics(&shared.metrics);
                shared.tls.refused().publish(&shared.metrics);
                match writer.write_if_due(&shared.metrics, std::time::Instant::now()) {
                    Ok(_) => failing = false,
                    Err(err) => {
                        if !failing {
                            warn!(error = %err, "Writing the metrics snapshot failed.");
                        }
                        failing = true;
                    }
                }
            }
        }
    }
}
