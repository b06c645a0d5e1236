//! The topology master (TM): registers the stream managers of a topology,
//! builds the physical plan once every container of the packing plan has one,
//! distributes it, serves the `egret` client and the Java `NimbusClient`
//! (describe, topology info, activate, deactivate, kill), and aggregates the
//! instances' built-in statistics ([`stats`]). See `docs/internals/contracts.md`,
//! "Stream managers and the topology master" and "Nimbus statistics".
//!
//! Invariants:
//! - there is exactly one current physical plan (a `watch` channel holding the
//!   latest); every registered stream manager connection sends the latest plan
//!   it has not sent yet, so a slow stream manager skips intermediate plans
//!   instead of queueing them (no unbounded queue anywhere);
//! - `physical.pb` is rewritten, under the same lock that publishes the plan,
//!   before the plan is pushed, so the file never lags behind what a stream
//!   manager has seen;
//! - no plan is published before every container of the packing plan has a
//!   registered stream manager; a later registration of a container (restart,
//!   new port) replaces the older one, closes the older connection, and
//!   publishes the updated plan;
//! - once a kill has started the state only moves towards KILLED;
//! - once a kill has completed (KILLED published, by `kill` or `detached kill`,
//!   or found in `physical.pb` by a restarted master) the master serves
//!   [`KILLED_GRACE`] more, so the stream managers see KILLED and close their
//!   instances, then [`run`] returns and the process exits with
//!   [`EXIT_TOPOLOGY_KILLED`]: its scheduler, seeing that, stops every process
//!   of the topology and retires its directory (the master signals no process);
//! - statistics are kept only for the tasks of the packing plan, reported by
//!   the instance hosting them (see [`stats`]);
//! - a rebalance (Storm's, [`RebalanceRequest`]) is validated and packed
//!   before anything changes; it then deactivates, waits, stores the new
//!   topology and packing plan (and, in the stored physical plan, the state
//!   the next master starts in: the one before the rebalance), publishes
//!   nothing more and ends [`TopologyMaster::serve`] with [`Exit::Rebalanced`]
//!   after [`KILLED_GRACE`]: the master and every container then restart on
//!   the new plan (their scheduler's job); no kill, activation or other
//!   rebalance is accepted meanwhile.

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use egret_metrics::{Registry, Snapshot, SnapshotWriter};
use egret_proto::frame::{decode_message, encode_message};
use egret_proto::handshake::accept;
use egret_proto::v1::{
    ClientRequest, ClientResponse, ComponentKind, DebugRequest, ExecutorStatsSummary,
    InstanceReady, LogConfigRequest, MasterToStreamManager, MetricsReport, PackingPlan, PeerRole,
    PhysicalPlan, ProcessMetrics, RebalanceRequest, RecoverCheckpoint, ReportedError, StatsReport,
    StreamManagerLocation, StreamManagerToMaster, Topology, TopologyState, TopologySummary,
    WindowedStats, client_request, master_to_stream_manager, stream_manager_to_master,
};
use egret_proto::{FrameCodec, Token};
use egret_state_manager::{
    Backend, MasterRegistration, StateError, StateManager, StateManagerError, TopologyDir,
};
use egret_transport::{CredentialsError, Endpoint, Host, Tls, TlsStream, TopologyCredentials};
use futures::{SinkExt, StreamExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::codec::Framed;
use tracing::{debug, error, info, warn};

pub mod client;
pub mod debug;
pub mod errors;
pub mod log_levels;
mod logs;
pub mod stats;

/// How long a peer may take to send its hello (and a client its request).
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// How often the refused-handshake counters are copied to the metrics
/// registry (the snapshot writer throttles the file writes itself).
const METRICS_TICK: Duration = Duration::from_secs(1);
/// The master's metrics snapshot: `DIR/metrics/tmaster.json`.
const METRICS_PROCESS: &str = "tmaster";
/// A stream manager heartbeats every 5 s; three missed heartbeats mean it is gone.
const LIVENESS_TIMEOUT: Duration = Duration::from_secs(15);
/// After a kill publishes KILLED, how long the master goes on serving (the
/// stream managers close their instances) before it exits.
pub const KILLED_GRACE: Duration = Duration::from_secs(1);

pub use egret_proto::EXIT_TOPOLOGY_KILLED;

pub use egret_scheduler::cluster::EXIT_REBALANCED;

/// Why [`TopologyMaster::serve`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The topology was killed: nothing of it is to run any more.
    Killed,
    /// The topology was rebalanced: its master and containers are to start
    /// again on the plan now stored.
    Rebalanced,
}

#[derive(Debug, Clone)]
pub struct TopologyMasterOptions {
    pub topology_dir: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum TopologyMasterError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    StateManager(#[from] StateManagerError),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("the state manager holds no {what} for topology '{name}'")]
    Missing { what: &'static str, name: String },
    #[error("the packing plan has no container")]
    EmptyPacking,
    #[error(transparent)]
    Settings(#[from] egret_config::settings::SettingsError),
    #[error("the topology master's registration was lost ({0}); another master may serve now")]
    RegistrationLost(String),
    #[error("the topology's credentials are not usable: {0}")]
    Credentials(#[from] CredentialsError),
}

/// Runs the topology master of the local scheduler until its topology has
/// been killed (then the process exits with [`EXIT_TOPOLOGY_KILLED`]). After
/// a rebalance it serves nothing more and waits for its scheduler, which
/// restarts it and every container once it finds the new `packing.pb`.
pub async fn run(options: TopologyMasterOptions) -> Result<(), TopologyMasterError> {
    let master = TopologyMaster::bind(TopologyDir::new(options.topology_dir)).await?;
    match master.serve().await? {
        Exit::Killed => Ok(()),
        Exit::Rebalanced => {
            info!("Rebalanced: waiting for the scheduler to restart the topology on its new plan.");
            std::future::pending().await
        }
    }
}

/// What a topology master needs: where the topology's state lives, the
/// topology's secret, and the addresses to listen on and to advertise.
pub struct MasterSetup {
    pub state: Arc<Backend>,
    pub name: String,
    /// The topology's key material (TLS) and token.
    pub credentials: TopologyCredentials,
    /// Where the master writes its metrics snapshot (`<dir>/metrics/tmaster.json`).
    pub metrics_dir: PathBuf,
    /// The address the listener binds (port 0: any free port).
    pub bind: SocketAddr,
    /// The host (an IP or a DNS name) registered in the state manager for
    /// peers to dial (with the listener's port); the bound IP when `None`.
    pub advertise: Option<Host>,
}

/// A bound topology master: listening, registered as its topology's master.
pub struct TopologyMaster {
    listener: TcpListener,
    registration: MasterRegistration,
    shared: Arc<Shared>,
}

struct Shared {
    state: Arc<Backend>,
    topology: Topology,
    packing: PackingPlan,
    token: Token,
    /// The TLS layer of every connection (the listener serves TLS only).
    tls: Tls,
    metrics_dir: PathBuf,
    max_frame_bytes: usize,
    /// `topology.message.timeout.secs`, resolved: the wait of a kill without options.
    message_timeout_secs: u32,
    started: Instant,
    inner: Mutex<Inner>,
    plan_tx: watch::Sender<Option<Arc<PhysicalPlan>>>,
    /// The latest plan stored in the state manager (see [`persist_plans`]).
    persisted_tx: watch::Sender<Option<Arc<PhysicalPlan>>>,
    stats: Mutex<stats::StatsStore>,
    errors: Mutex<errors::ErrorLog>,
    /// The master's own metrics (`tmaster`).
    registry: Registry,
    /// The latest metrics each container reported, by process
    /// (`stmgr-<i>`, `container-<i>`): at most two per container.
    reported: Mutex<BTreeMap<String, ProcessMetrics>>,
    /// True once a kill has completed (KILLED published).
    killed_tx: watch::Sender<bool>,
    /// True once a rebalance has stored the new plan.
    rebalanced_tx: watch::Sender<bool>,
    /// Effectively once: how many times an instance was ready again (restarted
    /// or reconnected), and the last one; every stream manager is told.
    recover_tx: watch::Sender<(u64, String)>,
}

struct Inner {
    state: TopologyState,
    /// Storm's debug options (event logging), by component ("" for the whole topology).
    debug: debug::DebugOptions,
    /// Storm's dynamic log levels, by logger.
    log_levels: log_levels::LogLevels,
    killing: bool,
    /// A rebalance is under way: no plan is published any more.
    rebalancing: bool,
    registrations: BTreeMap<i32, Registration>,
    /// Effectively once: the instances that have been ready since this master started.
    ready_seen: BTreeSet<String>,
}

struct Registration {
    location: StreamManagerLocation,
    /// Dropped when a newer registration replaces this one: its connection closes.
    _superseded: oneshot::Sender<()>,
    /// Log queries for this stream manager's connection ([`logs`]).
    log_queries: mpsc::Sender<logs::Query>,
}

/// How long a state change waits for its plan to be stored before the
/// client is answered anyway (the stream managers have it already).
const PERSIST_WAIT: Duration = Duration::from_secs(10);

impl TopologyMaster {
    /// The master of the topology in `dir` on the local cluster: listens on
    /// 127.0.0.1 and registers in the local state manager.
    pub async fn bind(dir: TopologyDir) -> Result<Self, TopologyMasterError> {
        let (state, name) = Backend::for_topology_dir(&dir)?;
        let credentials = dir.read_credentials()?;
        Self::bind_setup(MasterSetup {
            state: Arc::new(state),
            name,
            credentials,
            metrics_dir: dir.path().to_owned(),
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            advertise: None,
        })
        .await
    }

    /// Reads the topology and its packing plan from the state manager,
    /// listens, and registers as the topology's master. While another master
    /// holds the registration this one stands by (it does not serve) and
    /// takes over once that registration ends.
    pub async fn bind_setup(setup: MasterSetup) -> Result<Self, TopologyMasterError> {
        let MasterSetup {
            state,
            name,
            credentials,
            metrics_dir,
            bind,
            advertise,
        } = setup;
        let missing = |what| TopologyMasterError::Missing {
            what,
            name: name.clone(),
        };
        let topology = state
            .get_topology(&name)
            .await?
            .ok_or_else(|| missing("topology"))?;
        let packing = state
            .get_packing_plan(&name)
            .await?
            .ok_or_else(|| missing("packing plan"))?;
        if packing.containers.is_empty() {
            return Err(TopologyMasterError::EmptyPacking);
        }
        let token = credentials.token().clone();
        let tls = Tls::new(&credentials)?;
        let settings = egret_config::settings::settings_of(&topology)?;
        info!(
            "Resolved settings: {}",
            egret_config::settings::describe(settings)
        );
        let max_frame_bytes = settings.frame_max_bytes as usize;
        let message_timeout_secs = settings.message_timeout_secs;
        let listener = TcpListener::bind(bind)
            .await
            .map_err(|source| TopologyMasterError::Listen { addr: bind, source })?;
        let bound = listener
            .local_addr()
            .map_err(|source| TopologyMasterError::Listen { addr: bind, source })?;
        let host = advertise.unwrap_or(Host::Ip(bound.ip()));
        let addr = Endpoint::new(host, bound.port());
        let registration = register(&state, &name, addr.clone()).await?;
        info!(%addr, %bound, topology = %topology.id, containers = packing.containers.len(), "Topology master listening.");
        let (state_now, killing, debug_now, log_levels_now) =
            restored_state(&state, &name, &topology).await;
        let (plan_tx, _) = watch::channel(None);
        let (persisted_tx, _) = watch::channel(None);
        let (killed_tx, _) = watch::channel(state_now == TopologyState::Killed);
        let (rebalanced_tx, _) = watch::channel(false);
        let (recover_tx, _) = watch::channel((0, String::new()));
        let stats = Mutex::new(stats::StatsStore::new(&packing));
        let errors = Mutex::new(errors::ErrorLog::new(&packing));
        let shared = Arc::new(Shared {
            state,
            topology,
            packing,
            token,
            tls,
            metrics_dir,
            max_frame_bytes,
            message_timeout_secs,
            started: Instant::now(),
            inner: Mutex::new(Inner {
                state: state_now,
                debug: debug_now,
                log_levels: log_levels_now,
                killing,
                rebalancing: false,
                registrations: BTreeMap::new(),
                ready_seen: BTreeSet::new(),
            }),
            plan_tx,
            persisted_tx,
            stats,
            errors,
            registry: Registry::new(),
            reported: Mutex::new(BTreeMap::new()),
            killed_tx,
            rebalanced_tx,
            recover_tx,
        });
        Ok(Self {
            listener,
            registration,
            shared,
        })
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The address registered in the state manager.
    pub fn advertised(&self) -> &Endpoint {
        self.registration.location()
    }

    /// Accepts connections until [`KILLED_GRACE`] after the topology was
    /// killed (the KILLED plan stored first) or rebalanced (the new plan
    /// stored), then releases the registration and returns why. Returns an error when the registration is lost (a
    /// ZooKeeper session that ended): another master may be serving, so this
    /// one must not go on. Dropping the future closes every connection too
    /// (as the process dying would).
    pub async fn serve(self) -> Result<Exit, TopologyMasterError> {
        let Self {
            listener,
            registration,
            shared,
        } = self;
        let mut connections = tokio::task::JoinSet::new();
        let persister = tokio::spawn(persist_plans(Arc::clone(&shared)));
        let mut killed = shared.killed_tx.subscribe();
        let mut rebalanced = shared.rebalanced_tx.subscribe();
        let exit_shared = Arc::clone(&shared);
        let mut exit = std::pin::pin!(async move {
            let why = tokio::select! {
                r = killed.wait_for(|k| *k) => { drop(r); Exit::Killed }
                // The rebalance stored its plans itself.
                r = rebalanced.wait_for(|r| *r) => { drop(r); Exit::Rebalanced }
            };
            if why == Exit::Killed {
                exit_shared.wait_persisted().await;
            }
            tokio::time::sleep(KILLED_GRACE).await;
            why
        });
        let registry = shared.registry.clone();
        let mut snapshots = SnapshotWriter::new(&shared.metrics_dir, METRICS_PROCESS);
        let mut metrics = tokio::time::interval(METRICS_TICK);
        metrics.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let outcome = loop {
            tokio::select! {
                why = &mut exit => {
                    match why {
                        Exit::Killed => info!("The topology was killed: the topology master exits."),
                        Exit::Rebalanced => info!("The topology was rebalanced: the topology master exits, to restart on the new plan."),
                    }
                    break Ok(why);
                }
                reason = registration.lost() => {
                    error!(%reason, "The topology master's registration was lost: exiting so that one master serves.");
                    break Err(TopologyMasterError::RegistrationLost(reason));
                }
                _ = metrics.tick() => {
                    shared.expire_log_levels();
                    shared.tls.refused().publish(&registry);
                    if let Err(err) = snapshots.write_if_due(&registry, Instant::now()) {
                        debug!(error = %err, "Writing the metrics snapshot failed.");
                    }
                }
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        let shared = Arc::clone(&shared);
                        connections.spawn(async move { handle_connection(shared, stream, peer).await });
                    }
                    Err(err) => {
                        // Typically EMFILE: back off instead of spinning.
                        error!(error = %err, "Accepting a connection failed.");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                },
                // Reap finished connections so the set stays small.
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        };
        persister.abort();
        drop(listener);
        shared.tls.refused().publish(&registry);
        if let Err(err) = snapshots.write_now(&registry, Instant::now()) {
            warn!(error = %err, "Writing the last metrics snapshot failed.");
        }
        if outcome.is_ok()
            && let Err(err) = registration.release().await
        {
            warn!(error = %err, "Releasing the topology master's registration failed.");
        }
        outcome
    }
}

/// Registers `addr` as the master of `name`; while another master holds the
/// registration, stands by until it ends.
async fn register(
    state: &Backend,
    name: &str,
    addr: Endpoint,
) -> Result<MasterRegistration, TopologyMasterError> {
    let mut told = false;
    loop {
        match state.register_master(name, addr.clone()).await {
            Ok(registration) => {
                if told {
                    info!(%addr, "The other topology master is gone: taking over.");
                }
                return Ok(registration);
            }
            Err(StateManagerError::MasterAlreadyRegistered { holder, .. }) => {
                if !told {
                    warn!(%holder, "Another topology master serves this topology: standing by until its registration ends.");
                    told = true;
                }
                let mut watch = state.watch_master(name).await?;
                while watch.current()?.is_some() {
                    watch.changed().await?;
                }
            }
            Err(err) => return Err(err.into()),
        }
    }
}

/// Stores every new physical plan in the state manager, the latest first
/// (a plan superseded while a write is under way is skipped), retrying a
/// failed write until it succeeds or a newer plan replaces it.
async fn persist_plans(shared: Arc<Shared>) {
    let mut plans = shared.plan_tx.subscribe();
    let name = shared.topology.name.clone();
    loop {
        let Some(plan) = plans.borrow_and_update().clone() else {
            if plans.changed().await.is_err() {
                return;
            }
            continue;
        };
        match shared.state.put_physical_plan(&name, &plan).await {
            Ok(()) => {
                shared.persisted_tx.send_replace(Some(plan));
                if plans.changed().await.is_err() {
                    return;
                }
            }
            Err(err) => {
                // Stream managers have the plan anyway; only readers of the
                // stored plan (a restarted master, `egret list`) lag.
                error!(error = %err, "Storing the physical plan failed; retrying.");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
        }
    }
}

/// The state a (re)started topology master starts in: the one of the
/// stored physical plan when a previous master of this topology wrote it (so
/// a deactivated topology stays deactivated across a restart, and its debug
/// options stay as they were), else RUNNING without debug options.
async fn restored_state(
    state: &Backend,
    name: &str,
    topology: &Topology,
) -> (
    TopologyState,
    bool,
    debug::DebugOptions,
    log_levels::LogLevels,
) {
    let fresh = || {
        (
            TopologyState::Running,
            false,
            debug::DebugOptions::default(),
            log_levels::LogLevels::default(),
        )
    };
    match state.get_physical_plan(name).await {
        Ok(None) => fresh(),
        Ok(Some(plan)) if plan.topology_id == topology.id => {
            let debug = debug::DebugOptions::restored(topology, &plan.debug);
            let levels = log_levels::LogLevels::restored(&plan.log_levels, now_ms());
            match TopologyState::try_from(plan.state) {
                Ok(TopologyState::Killed) => {
                    info!("Restarted after the topology was killed: staying KILLED.");
                    (TopologyState::Killed, true, debug, levels)
                }
                Ok(TopologyState::Deactivated) => {
                    info!(
                        "Restarted: the topology stays DEACTIVATED, as the previous topology master left it."
                    );
                    (TopologyState::Deactivated, false, debug, levels)
                }
                _ => {
                    info!("Restarted: the topology stays RUNNING.");
                    (TopologyState::Running, false, debug, levels)
                }
            }
        }
        Ok(Some(plan)) => {
            warn!(plan_topology = %plan.topology_id, topology = %topology.id, "Ignoring a physical plan of another topology.");
            fresh()
        }
        Err(err) => {
            warn!(error = %err, "Cannot read the previous physical plan; starting RUNNING.");
            fresh()
        }
    }
}

impl Shared {
    /// Drops the log level entries whose timeout has passed and, when one
    /// was dropped, publishes the plan: the instances' loggers return to the
    /// level they had before.
    fn expire_log_levels(&self) {
        let mut inner = self.lock();
        if inner.log_levels.expire(now_ms()) {
            info!("Log levels whose timeout passed were reset.");
            if !inner.killing {
                self.publish(&inner);
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A poisoned lock only means a panic elsewhere; the data stays consistent
        // because every critical section is a few assignments.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Builds the physical plan from the registrations and the state and, when
    /// it differs from the current one, writes and publishes it. Called with the lock held.
    fn publish(&self, inner: &Inner) {
        if inner.rebalancing {
            debug!("A rebalance is under way: no plan is published.");
            return;
        }
        let all_registered = self
            .packing
            .containers
            .iter()
            .all(|c| inner.registrations.contains_key(&c.index));
        if !all_registered {
            debug!(
                registered = inner.registrations.len(),
                expected = self.packing.containers.len(),
                "Waiting for more stream managers before building the physical plan."
            );
            return;
        }
        let plan = PhysicalPlan {
            topology_id: self.topology.id.clone(),
            packing: Some(self.packing.clone()),
            stream_managers: inner
                .registrations
                .values()
                .map(|r| r.location.clone())
                .collect(),
            state: inner.state as i32,
            debug: inner.debug.to_plan(),
            log_levels: inner.log_levels.to_plan(),
        };
        self.plan_tx.send_if_modified(|current| {
            if current.as_deref() == Some(&plan) {
                return false;
            }
            info!(state = ?inner.state, stream_managers = plan.stream_managers.len(), "Physical plan published.");
            *current = Some(Arc::new(plan));
            true
        });
    }

    /// Waits (at most [`PERSIST_WAIT`]) until the current plan is stored.
    async fn wait_persisted(&self) {
        let current = self.plan_tx.borrow().clone();
        let Some(current) = current else { return };
        let mut persisted = self.persisted_tx.subscribe();
        let stored = persisted.wait_for(|p| p.as_ref().is_some_and(|p| **p == *current));
        if tokio::time::timeout(PERSIST_WAIT, stored).await.is_err() {
            warn!("The current physical plan is not stored yet; going on.");
        }
    }

    fn summary(&self) -> TopologySummary {
        let (state, killing) = {
            let inner = self.lock();
            (inner.state, inner.killing)
        };
        let instances = self.packing.containers.iter().flat_map(|c| &c.instances);
        TopologySummary {
            name: self.topology.name.clone(),
            id: self.topology.id.clone(),
            state: state as i32,
            num_containers: count(self.packing.containers.len()),
            num_executors: count(instances.clone().count()),
            num_tasks: count(instances.map(|i| i.task_ids.len()).sum()),
            uptime_secs: i64::try_from(self.started.elapsed().as_secs()).unwrap_or(i64::MAX),
            killing,
        }
    }

    fn stats(&self) -> MutexGuard<'_, stats::StatsStore> {
        // As `lock`: a poisoned lock leaves consistent sums (each update is
        // validated before anything is added).
        self.stats.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Seconds on the master's own monotonic clock: the time base of the windows.
    fn now_secs(&self) -> u64 {
        self.started.elapsed().as_secs()
    }

    fn errors(&self) -> MutexGuard<'_, errors::ErrorLog> {
        // Each record is one push: a poisoned lock leaves a consistent log.
        self.errors.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Effectively once: an instance of the packing is ready on a connection.
    /// Ready again (its stream manager saw an earlier connection, or this
    /// master did), it restarted or reconnected: every stream manager is told
    /// to fail its checkpoint spout tasks' pending trees.
    fn instance_ready(&self, peer_id: &str, ready: InstanceReady) {
        let known = self
            .packing
            .containers
            .iter()
            .flat_map(|c| c.instances.iter())
            .any(|i| i.instance_id == ready.instance_id);
        if !known {
            warn!(%peer_id, instance = %ready.instance_id, "Ignoring the readiness of an instance not in the packing plan.");
            return;
        }
        let again = !self.lock().ready_seen.insert(ready.instance_id.clone());
        if ready.reconnected || again {
            info!(%peer_id, instance = %ready.instance_id,
                "An instance is ready again (restarted or reconnected): every stream manager fails its checkpoint spout's pending trees.");
            self.recover_tx.send_modify(|(count, last)| {
                *count += 1;
                *last = ready.instance_id;
            });
        }
    }

    fn record_error(&self, peer_id: &str, error: ReportedError) {
        if let Err(err) = self.errors().record(error) {
            warn!(%peer_id, error = %err, "Refusing a task error.");
        }
    }

    /// Keeps the latest metrics of container `index`'s processes; a process
    /// of another container is refused (so the map stays bounded).
    fn record_metrics(&self, peer_id: &str, index: i32, report: MetricsReport) {
        let own = [format!("stmgr-{index}"), format!("container-{index}")];
        let mut reported = self.reported.lock().unwrap_or_else(|e| e.into_inner());
        for process in report.processes {
            if own.contains(&process.process) {
                reported.insert(process.process.clone(), process);
            } else {
                warn!(%peer_id, process = %process.process, "Refusing the metrics of a process of another container.");
            }
        }
    }

    /// The latest metrics of every process: the master's own, then each
    /// reported one, sorted by process.
    fn metrics(&self) -> Vec<ProcessMetrics> {
        let (_, own) = Snapshot::take(METRICS_PROCESS, &self.registry);
        let reported = self.reported.lock().unwrap_or_else(|e| e.into_inner());
        let mut all: Vec<ProcessMetrics> = reported.values().cloned().collect();
        all.push(own.into());
        all.sort_by(|a, b| a.process.cmp(&b.process));
        all
    }

    fn record_stats(&self, peer_id: &str, report: &StatsReport) {
        let now = self.now_secs();
        if let Err(err) = self.stats().record(report, now) {
            warn!(%peer_id, error = %err, "Refusing a statistics report.");
        }
    }

    /// Every executor of the packing plan with its statistics per window.
    fn executors(&self) -> Vec<ExecutorStatsSummary> {
        let now = self.now_secs();
        let stats = self.stats();
        let mut out = Vec::new();
        for container in &self.packing.containers {
            for instance in &container.instances {
                let is_spout =
                    self.topology.components.iter().any(|c| {
                        c.id == instance.component && c.kind == ComponentKind::Spout as i32
                    });
                let windows = stats
                    .windows(&instance.task_ids, now)
                    .into_iter()
                    .map(|(key, sums)| WindowedStats {
                        window: key.to_owned(),
                        sums: Some(sums.to_proto()),
                    })
                    .collect();
                out.push(ExecutorStatsSummary {
                    instance_id: instance.instance_id.clone(),
                    component: instance.component.clone(),
                    task_start: instance.task_ids.iter().copied().min().unwrap_or(0),
                    task_end: instance.task_ids.iter().copied().max().unwrap_or(0),
                    host: "localhost".to_owned(),
                    port: container.index,
                    uptime_secs: i64::try_from(stats.uptime_secs(&instance.instance_id, now))
                        .unwrap_or(i64::MAX),
                    is_spout,
                    windows,
                    reported: stats.has_reported(&instance.instance_id),
                });
            }
        }
        out
    }
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

async fn handle_connection(shared: Arc<Shared>, stream: TcpStream, peer: SocketAddr) {
    let _ = stream.set_nodelay(true);
    // TLS first: nothing of the peer is decoded before its handshake is
    // complete. A refusal is logged and counted by the TLS layer.
    let Ok(stream) = shared.tls.accept(stream, peer).await else {
        return;
    };
    let hello = tokio::time::timeout(
        HELLO_TIMEOUT,
        accept(
            stream,
            &shared.token,
            &[PeerRole::StreamManager, PeerRole::Client],
            shared.max_frame_bytes,
        ),
    )
    .await;
    let (hello, framed) = match hello {
        Ok(Ok(accepted)) => accepted,
        Ok(Err(err)) => {
            warn!(%peer, error = %err, "Connection refused: the hello failed.");
            return;
        }
        Err(_) => {
            warn!(%peer, "Connection refused: no hello within the timeout.");
            return;
        }
    };
    if hello.role == PeerRole::StreamManager as i32 {
        info!(%peer, peer_id = %hello.peer_id, "Stream manager connection accepted.");
        serve_stream_manager(shared, framed, hello.peer_id, peer).await;
    } else {
        debug!(%peer, peer_id = %hello.peer_id, "Client connection accepted.");
        serve_client(shared, framed, peer).await;
    }
}

async fn serve_stream_manager(
    shared: Arc<Shared>,
    framed: Framed<TlsStream, FrameCodec>,
    peer_id: String,
    peer: SocketAddr,
) {
    let (mut sink, mut stream) = framed.split();
    let mut superseded: Option<oneshot::Receiver<()>> = None;
    let mut registered: Option<i32> = None;
    let mut plan_rx = shared.plan_tx.subscribe();
    let mut recover_rx = shared.recover_tx.subscribe();
    let mut log_rx: Option<mpsc::Receiver<logs::Query>> = None;
    let mut log_pending = logs::Pending::default();
    loop {
        tokio::select! {
            // A replaced connection must not get the plan meant for its successor.
            biased;
            _ = async { if let Some(rx) = superseded.as_mut() { let _ = rx.await; } }, if superseded.is_some() => {
                info!(%peer_id, "Closing a stream manager connection replaced by a newer registration.");
                return;
            }
            // Only armed once registered: a SM learns plans after registering.
            changed = plan_rx.changed(), if registered.is_some() => {
                if changed.is_err() {
                    return;
                }
                let plan = plan_rx.borrow_and_update().clone();
                if let Some(plan) = plan {
                    let message = MasterToStreamManager {
                        message: Some(master_to_stream_manager::Message::PhysicalPlan((*plan).clone())),
                    };
                    if let Err(err) = sink.send(encode_message(&message)).await {
                        warn!(%peer_id, error = %err, "Stream manager lost while sending it the plan.");
                        return;
                    }
                }
            }
            changed = recover_rx.changed(), if registered.is_some() => {
                if changed.is_err() {
                    return;
                }
                let restarted = recover_rx.borrow_and_update().1.clone();
                let message = MasterToStreamManager {
                    message: Some(master_to_stream_manager::Message::RecoverCheckpoint(
                        RecoverCheckpoint { restarted },
                    )),
                };
                if let Err(err) = sink.send(encode_message(&message)).await {
                    warn!(%peer_id, error = %err, "Stream manager lost while telling it to recover.");
                    return;
                }
            }
            Some((query, reply)) = async {
                match log_rx.as_mut() {
                    Some(rx) => rx.recv().await,
                    None => std::future::pending().await,
                }
            } => {
                if let Some(request) = log_pending.start(query, reply) {
                    let message = MasterToStreamManager {
                        message: Some(master_to_stream_manager::Message::Logs(request)),
                    };
                    if let Err(err) = sink.send(encode_message(&message)).await {
                        warn!(%peer_id, error = %err, "Stream manager lost while sending it a log query.");
                        return;
                    }
                }
            }
            frame = tokio::time::timeout(LIVENESS_TIMEOUT, stream.next()) => {
                let body = match frame {
                    Err(_) => {
                        warn!(%peer_id, "Stream manager lost: no heartbeat within the timeout.");
                        return;
                    }
                    Ok(None) => {
                        warn!(%peer_id, container = ?registered, "Stream manager lost: connection closed; its container restarts it.");
                        return;
                    }
                    Ok(Some(Err(err))) => {
                        warn!(%peer_id, error = %err, "Stream manager lost: connection failed.");
                        return;
                    }
                    Ok(Some(Ok(body))) => body,
                };
                let message = match decode_message::<StreamManagerToMaster>(body) {
                    Ok(message) => message,
                    Err(err) => {
                        warn!(%peer_id, error = %err, "Dropping a stream manager that sent a malformed message.");
                        return;
                    }
                };
                match message.message {
                    Some(stream_manager_to_master::Message::Heartbeat(_)) => {
                        debug!(%peer_id, "Heartbeat received.");
                    }
                    Some(stream_manager_to_master::Message::Stats(report)) => {
                        if registered.is_some() {
                            shared.record_stats(&peer_id, &report);
                        } else {
                            warn!(%peer_id, instance = %report.instance_id, "Ignoring statistics from a stream manager that has not registered.");
                        }
                    }
                    Some(stream_manager_to_master::Message::Metrics(report)) => match registered {
                        Some(index) => shared.record_metrics(&peer_id, index, report),
                        None => warn!(%peer_id, "Ignoring metrics from a stream manager that has not registered."),
                    },
                    Some(stream_manager_to_master::Message::Error(error)) => {
                        if registered.is_some() {
                            shared.record_error(&peer_id, error);
                        } else {
                            warn!(%peer_id, task = error.task_id, "Ignoring a task error from a stream manager that has not registered.");
                        }
                    }
                    Some(stream_manager_to_master::Message::Logs(reply)) => {
                        log_pending.finish(reply);
                    }
                    Some(stream_manager_to_master::Message::InstanceReady(ready)) => {
                        if registered.is_some() {
                            shared.instance_ready(&peer_id, ready);
                        } else {
                            warn!(%peer_id, instance = %ready.instance_id, "Ignoring an instance's readiness from a stream manager that has not registered.");
                        }
                    }
                    Some(stream_manager_to_master::Message::Register(register)) => {
                        match register_stream_manager(&shared, &peer_id, register.location, peer) {
                            Ok((index, rx, queries)) => {
                                registered = Some(index);
                                superseded = Some(rx);
                                log_rx = Some(queries);
                                // The current plan (if any) goes to this SM even if it has
                                // not changed since this receiver was created.
                                plan_rx.mark_changed();
                            }
                            Err(reason) => {
                                warn!(%peer_id, %reason, "Stream manager registration refused.");
                                let message = MasterToStreamManager {
                                    message: Some(master_to_stream_manager::Message::Error(reason)),
                                };
                                let _ = sink.send(encode_message(&message)).await;
                                return;
                            }
                        }
                    }
                    None => {
                        warn!(%peer_id, "Ignoring an empty or unknown stream manager message.");
                    }
                }
            }
        }
    }
}

fn register_stream_manager(
    shared: &Shared,
    peer_id: &str,
    location: Option<StreamManagerLocation>,
    peer: SocketAddr,
) -> Result<(i32, oneshot::Receiver<()>, mpsc::Receiver<logs::Query>), String> {
    let Some(mut location) = location else {
        return Err("the registration carries no location".to_owned());
    };
    let index = location.container_index;
    if !shared.packing.containers.iter().any(|c| c.index == index) {
        return Err(format!(
            "container {index} is not in the packing plan of topology {}",
            shared.topology.id
        ));
    }
    let expected_id = format!("stmgr-{index}");
    if peer_id != expected_id {
        return Err(format!(
            "peer id '{peer_id}' does not match the registered container {index} (expected '{expected_id}')"
        ));
    }
    if location.data_port == 0 || location.data_port > u32::from(u16::MAX) {
        return Err(format!("invalid data port {}", location.data_port));
    }
    if location.host.is_empty() {
        location.host = peer.ip().to_string();
    }
    if let Err(err) = location.host.parse::<egret_transport::Host>() {
        return Err(format!("its advertised host is not dialable: {err}"));
    }
    let (tx, rx) = oneshot::channel();
    let (log_queries, log_rx) = mpsc::channel(logs::QUERIES_PER_CONNECTION);
    let mut inner = shared.lock();
    info!(container = index, host = %location.host, data_port = location.data_port, "Stream manager registered.");
    inner.registrations.insert(
        index,
        Registration {
            location,
            _superseded: tx,
            log_queries,
        },
    );
    shared.publish(&inner);
    Ok((index, rx, log_rx))
}

async fn serve_client(
    shared: Arc<Shared>,
    framed: Framed<TlsStream, FrameCodec>,
    peer: SocketAddr,
) {
    let (mut sink, mut stream) = framed.split();
    let response = match tokio::time::timeout(HELLO_TIMEOUT, stream.next()).await {
        Err(_) => {
            warn!(%peer, "Client sent no request within the timeout.");
            return;
        }
        Ok(None) => return,
        Ok(Some(Err(err))) => {
            warn!(%peer, error = %err, "Client connection failed before its request.");
            return;
        }
        Ok(Some(Ok(body))) => match decode_message::<ClientRequest>(body) {
            Ok(request) => handle_request(&shared, request).await,
            Err(err) => error_response(format!("malformed client request: {err}")),
        },
    };
    if let Err(err) = sink.send(encode_message(&response)).await {
        warn!(%peer, error = %err, "Sending the client its response failed.");
    }
}

fn error_response(error: String) -> ClientResponse {
    ClientResponse {
        ok: false,
        error,
        ..Default::default()
    }
}

fn ok_response(shared: &Shared) -> ClientResponse {
    ClientResponse {
        ok: true,
        summary: Some(shared.summary()),
        ..Default::default()
    }
}

/// Starts a kill: refused when one is under way, else deactivates.
fn begin_kill(shared: &Shared, wait_secs: u32) -> Result<(), String> {
    let mut inner = shared.lock();
    if inner.killing {
        return Err(format!(
            "topology {} is already being killed",
            shared.topology.name
        ));
    }
    if inner.rebalancing {
        return Err(format!(
            "topology {} is being rebalanced: kill it once it runs again",
            shared.topology.name
        ));
    }
    inner.killing = true;
    inner.state = TopologyState::Deactivated;
    info!(wait_secs, "Kill requested: deactivating the topology.");
    shared.publish(&inner);
    Ok(())
}

/// Ends a kill after its wait: KILLED, published to every stream manager.
async fn finish_kill(shared: &Shared, wait_secs: u32) {
    tokio::time::sleep(Duration::from_secs(u64::from(wait_secs))).await;
    let mut inner = shared.lock();
    inner.state = TopologyState::Killed;
    info!("Topology killed.");
    shared.publish(&inner);
    // The master exits KILLED_GRACE from now; its scheduler stops the rest.
    shared.killed_tx.send_replace(true);
}

async fn handle_request(shared: &Arc<Shared>, request: ClientRequest) -> ClientResponse {
    match request.request {
        Some(client_request::Request::Describe(_)) => ok_response(shared),
        Some(client_request::Request::Metrics(_)) => ClientResponse {
            metrics: shared.metrics(),
            ..ok_response(shared)
        },
        Some(client_request::Request::TopologyInfo(_)) => ClientResponse {
            executors: shared.executors(),
            errors: shared.errors().all(),
            ..ok_response(shared)
        },
        Some(client_request::Request::DetachedKill(kill)) => {
            let wait_secs = if kill.wait_message_timeout {
                shared.message_timeout_secs
            } else {
                kill.wait_secs
            };
            if let Err(refused) = begin_kill(shared, wait_secs) {
                return error_response(refused);
            }
            let background = Arc::clone(shared);
            // The master exits once it is done (see `serve`).
            tokio::spawn(async move { finish_kill(&background, wait_secs).await });
            ok_response(shared)
        }
        Some(client_request::Request::Activate(_)) => {
            let response = set_state(shared, TopologyState::Running, "activate");
            shared.wait_persisted().await;
            response
        }
        Some(client_request::Request::Deactivate(_)) => {
            let response = set_state(shared, TopologyState::Deactivated, "deactivate");
            shared.wait_persisted().await;
            response
        }
        Some(client_request::Request::Debug(request)) => {
            let response = set_debug(shared, &request);
            shared.wait_persisted().await;
            response
        }
        Some(client_request::Request::Rebalance(request)) => rebalance(shared, request).await,
        Some(client_request::Request::SetLogConfig(request)) => {
            let response = set_log_config(shared, &request);
            shared.wait_persisted().await;
            response
        }
        Some(client_request::Request::Logs(query)) => {
            let connections: Vec<(i32, mpsc::Sender<logs::Query>)> = shared
                .lock()
                .registrations
                .iter()
                .map(|(index, r)| (*index, r.log_queries.clone()))
                .collect();
            match logs::answer(&shared.packing, connections, query).await {
                Ok(answer) => ClientResponse {
                    log_processes: answer.log_processes,
                    log_lines: answer.log_lines,
                    ..ok_response(shared)
                },
                Err(refused) => error_response(refused),
            }
        }
        Some(client_request::Request::LogConfig(_)) => {
            // The lock is released before ok_response takes it again.
            let log_levels = shared.lock().log_levels.to_plan();
            ClientResponse {
                log_levels,
                ..ok_response(shared)
            }
        }
        Some(client_request::Request::Kill(kill)) => {
            if let Err(refused) = begin_kill(shared, kill.wait_secs) {
                return error_response(refused);
            }
            finish_kill(shared, kill.wait_secs).await;
            shared.wait_persisted().await;
            ok_response(shared)
        }
        None => error_response(
            "unknown or empty client request (this topology master understands describe, topology info, metrics, activate, deactivate, debug, set log config, log config, rebalance, kill, detached kill)"
                .to_owned(),
        ),
    }
}

fn set_state(shared: &Shared, state: TopologyState, verb: &str) -> ClientResponse {
    {
        let mut inner = shared.lock();
        if inner.killing {
            return error_response(format!(
                "cannot {verb} topology {}: it is being killed",
                shared.topology.name
            ));
        }
        if inner.rebalancing {
            return error_response(format!(
                "cannot {verb} topology {}: it is being rebalanced",
                shared.topology.name
            ));
        }
        inner.state = state;
        info!(?state, "Topology state changed by a client request.");
        shared.publish(&inner);
    }
    ok_response(shared)
}

/// Storm's debug: validates the request against the topology, records it and
/// publishes the plan, so every stream manager tells the instances of the
/// affected components their new sampling.
fn set_debug(shared: &Shared, request: &DebugRequest) -> ClientResponse {
    let mut inner = shared.lock();
    if inner.killing || inner.rebalancing {
        return error_response(format!(
            "cannot change debug options of topology {}: it is being {}",
            shared.topology.name,
            if inner.killing {
                "killed"
            } else {
                "rebalanced"
            }
        ));
    }
    if let Err(refused) = inner.debug.apply(&shared.topology, request) {
        return error_response(refused.to_string());
    }
    info!(
        component = if request.component.is_empty() {
            "(the whole topology)"
        } else {
            request.component.as_str()
        },
        enable = request.enable,
        sampling_pct = request.sampling_pct,
        "Debug options changed by a client request."
    );
    shared.publish(&inner);
    drop(inner);
    ok_response(shared)
}

/// Storm's setLogConfig: validates every change, records them and publishes
/// the plan, so every stream manager gives its instances the new levels.
fn set_log_config(shared: &Shared, request: &LogConfigRequest) -> ClientResponse {
    let mut inner = shared.lock();
    if inner.killing || inner.rebalancing {
        return error_response(format!(
            "cannot change log levels of topology {}: it is being {}",
            shared.topology.name,
            if inner.killing {
                "killed"
            } else {
                "rebalanced"
            }
        ));
    }
    if let Err(refused) = inner.log_levels.apply(request, now_ms()) {
        return error_response(refused.to_string());
    }
    info!(changes = ?request.changes, "Log levels changed by a client request.");
    shared.publish(&inner);
    let log_levels = inner.log_levels.to_plan();
    drop(inner);
    ClientResponse {
        log_levels,
        ..ok_response(shared)
    }
}

/// Unix milliseconds now (0 before 1970).
fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// Storm's rebalance (see the module's invariants): answered once the new
/// topology and packing plan are stored, with the new plan's sizes.
async fn rebalance(shared: &Arc<Shared>, request: RebalanceRequest) -> ClientResponse {
    use egret_scheduler::rebalance::{Changes, rebalance as plan_rebalance};
    if request.workers < 0 {
        return error_response(format!(
            "the number of workers must be at least 1, found {}",
            request.workers
        ));
    }
    let changes = Changes {
        workers: (request.workers > 0).then_some(i64::from(request.workers)),
        executors: request.executors.into_iter().collect(),
    };
    let (topology, packing) = match plan_rebalance(&shared.topology, &changes) {
        Ok(planned) => planned,
        Err(refused) => return error_response(refused.to_string()),
    };
    let wait_secs = if request.wait_message_timeout {
        shared.message_timeout_secs
    } else {
        request.wait_secs
    };
    let (before, debug, log_levels) = {
        let mut inner = shared.lock();
        if inner.killing || inner.rebalancing {
            return error_response(format!(
                "topology {} is already being {}",
                shared.topology.name,
                if inner.killing {
                    "killed"
                } else {
                    "rebalanced"
                }
            ));
        }
        let before = inner.state;
        inner.state = TopologyState::Deactivated;
        info!(wait_secs, workers = ?changes.workers, executors = ?changes.executors, "Rebalance requested: deactivating the topology.");
        shared.publish(&inner);
        inner.rebalancing = true;
        (before, inner.debug.to_plan(), inner.log_levels.to_plan())
    };
    shared.wait_persisted().await;
    tokio::time::sleep(Duration::from_secs(u64::from(wait_secs))).await;
    let name = &shared.topology.name;
    // The state the restarted master starts in: the one before the
    // rebalance (Storm re-activates a rebalanced topology that was active).
    let restored = PhysicalPlan {
        topology_id: shared.topology.id.clone(),
        packing: Some(shared.packing.clone()),
        stream_managers: Vec::new(),
        state: before as i32,
        debug,
        log_levels,
    };
    let stored = async {
        shared.state.put_topology(&topology).await?;
        shared.state.put_packing_plan(name, &packing).await?;
        shared.state.put_physical_plan(name, &restored).await
    }
    .await;
    if let Err(err) = stored {
        error!(error = %err, "Storing the rebalanced plan failed; the topology stays on its plan.");
        // Best effort: the previous topology and plan back, then as before.
        let restore = async {
            shared.state.put_topology(&shared.topology).await?;
            shared.state.put_packing_plan(name, &shared.packing).await
        };
        if let Err(again) = restore.await {
            error!(error = %again, "Restoring the previous plan failed too.");
        }
        let mut inner = shared.lock();
        inner.rebalancing = false;
        inner.state = before;
        shared.publish(&inner);
        return error_response(format!(
            "rebalancing topology {name} failed storing its new plan: {err}"
        ));
    }
    let executors: usize = packing.containers.iter().map(|c| c.instances.len()).sum();
    info!(
        containers = packing.containers.len(),
        executors, "Rebalanced plan stored."
    );
    let mut response = ok_response(shared);
    if let Some(summary) = response.summary.as_mut() {
        summary.num_containers = count(packing.containers.len());
        summary.num_executors = count(executors);
    }
    shared.rebalanced_tx.send_replace(true);
    response
}

#[cfg(test)]
mod tests;
