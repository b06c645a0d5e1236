//! The session with the topology master: find it in the state manager and
//! follow it there (a watch on its registration), register, heartbeat,
//! publish every physical plan received, and forward the instances'
//! statistics reports, and send the container's latest metrics with every
//! heartbeat. Reconnects whenever the connection drops, and moves
//! to a new master as soon as the state manager names one.
//!
//! Statistics reports and task errors go through one bounded queue
//! ([`MASTER_QUEUE`] messages): while the master is away the queue fills and
//! further messages are dropped and counted (`egret.dropped.stats`); those
//! queued are sent once a new session is registered. A report is exact deltas,
//! so a dropped one is lost from the master's totals (never counted twice).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use egret_metrics::{MetricKey, Snapshot};
use egret_proto::frame::{FrameError, decode_message, encode_message};
use egret_proto::handshake::{HandshakeError, connect};
use egret_proto::v1::{
    Empty, InstanceReady, LogReply, LogRequest, MasterToStreamManager, MetricsReport, PeerRole,
    RegisterStreamManager, ReportedError, StatsReport, StreamManagerLocation,
    StreamManagerToMaster, master_to_stream_manager, stream_manager_to_master,
};
use egret_state_manager::StateManager;
use egret_transport::{Endpoint, TlsError};
use futures::{SinkExt, StreamExt};
use tokio::sync::mpsc;
use tracing::{debug, info, warn};

use crate::Shared;
use crate::backoff::Backoff;

const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(5);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Messages queued toward the topology master at most: with one statistics
/// report per instance every 5 s, minutes of a typical container's reports.
pub(crate) const MASTER_QUEUE: usize = 256;
/// Counter of the messages dropped because the queue was full (master away).
pub(crate) const DROPPED_STATS: &str = "egret.dropped.stats";

/// Queues an instance's report for the topology master, or drops and counts it.
pub(crate) fn forward_stats(shared: &Shared, report: StatsReport) {
    let instance = report.instance_id.clone();
    forward(
        shared,
        stream_manager_to_master::Message::Stats(report),
        &instance,
    );
}

/// Queues a task's error (already stamped and throttled) for the topology
/// master, or drops and counts it.
pub(crate) fn forward_error(shared: &Shared, error: ReportedError, instance: &str) {
    forward(
        shared,
        stream_manager_to_master::Message::Error(error),
        instance,
    );
}

/// Effectively once: queues for the master that `instance` is ready on a new
/// connection (`reconnected`: it had one before in this process).
pub(crate) fn forward_instance_ready(shared: &Shared, instance: &str, reconnected: bool) {
    forward(
        shared,
        stream_manager_to_master::Message::InstanceReady(InstanceReady {
            instance_id: instance.to_owned(),
            reconnected,
        }),
        instance,
    );
}

fn forward(shared: &Shared, message: stream_manager_to_master::Message, instance: &str) {
    if shared.master_tx.try_send(message).is_err() {
        let dropped = shared
            .metrics
            .add(MetricKey::new(DROPPED_STATS, "__ledger", 0), 1.0);
        // Once per power of two: visible without flooding the log.
        let dropped = dropped as u64;
        if dropped.is_power_of_two() {
            warn!(%instance, dropped, "Dropping a report for the topology master: it is not keeping up or is away.");
        }
    }
}

/// The latest metrics of this container's processes: the stream manager's
/// registry and the container supervisor's snapshot (`container-<index>`,
/// in the same topology dir). Sent with every heartbeat rather than queued:
/// each replaces the last, so none is worth keeping while the master is away.
fn metrics_report(shared: &Shared) -> StreamManagerToMaster {
    let (_, own) = Snapshot::take(&format!("stmgr-{}", shared.index), &shared.metrics);
    let mut processes = vec![own.into()];
    let container = format!("container-{}", shared.index);
    match Snapshot::read(shared.dir.path(), &container) {
        Ok(Some(snapshot)) => processes.push(snapshot.into()),
        Ok(None) => {}
        // Being replaced right now, or damaged: the next heartbeat tries again.
        Err(err) => debug!(error = %err, "The container's metrics snapshot is not readable."),
    }
    StreamManagerToMaster {
        message: Some(stream_manager_to_master::Message::Metrics(MetricsReport {
            processes,
        })),
    }
}

/// The processes of this container whose logs this stream manager serves:
/// its own and its instances' (the host may hold other containers' logs).
fn own_processes(shared: &Shared) -> Vec<String> {
    let mut own = vec![format!("stmgr-{}", shared.index)];
    if let Some(container) = shared
        .packing
        .containers
        .iter()
        .find(|c| c.index == shared.index)
    {
        own.extend(container.instances.iter().map(|i| i.instance_id.clone()));
    }
    own
}

/// Answers the master's question about this container's logs, read off the
/// session's task (files may be large); the reply takes the bounded queue
/// toward the master and is dropped, like a report, when it is full (the
/// client's request then times out).
fn answer_log_request(shared: &Arc<Shared>, request: LogRequest) {
    let shared = Arc::clone(shared);
    tokio::task::spawn_blocking(move || {
        let query = request.query.unwrap_or_default();
        let own = own_processes(&shared);
        let logs_dir = shared.dir.logs_dir();
        let mut reply = LogReply {
            request_id: request.request_id,
            ..Default::default()
        };
        if query.process.is_empty() {
            let present = egret_state_manager::logs::list(&logs_dir);
            reply.processes = present.into_iter().filter(|p| own.contains(p)).collect();
        } else if !own.contains(&query.process) {
            reply.error = format!(
                "process '{}' is not one of container {}",
                query.process, shared.index
            );
        } else {
            let lines = usize::try_from(query.lines).unwrap_or(usize::MAX);
            match egret_state_manager::logs::tail(&logs_dir, &query.process, lines) {
                Ok(tail) => reply.lines = tail,
                Err(err) => reply.error = err.to_string(),
            }
        }
        forward(
            &shared,
            stream_manager_to_master::Message::Logs(reply),
            "logs",
        );
    });
}

#[derive(Debug, thiserror::Error)]
enum SessionError {
    #[error("the topology master moved to {0}")]
    Moved(String),
    #[error("cannot connect: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error("hello failed: {0}")]
    Handshake(#[from] HandshakeError),
    #[error(transparent)]
    Frame(#[from] FrameError),
    #[error("no answer within {0:?}")]
    Timeout(Duration),
    #[error("the topology master closed the connection")]
    Closed,
    #[error("the topology master refused the registration: {0}")]
    Refused(String),
}

pub(crate) async fn session_loop(
    shared: Arc<Shared>,
    data_port: u16,
    mut outbox: mpsc::Receiver<stream_manager_to_master::Message>,
) {
    let mut backoff = Backoff::new();
    loop {
        // The watch ends with its session (ZooKeeper): open a new one.
        let mut watch = match shared.state.watch_master(&shared.topology.name).await {
            Ok(watch) => watch,
            Err(err) => {
                warn!(error = %err, "Cannot watch the topology master's registration; retrying.");
                backoff.wait().await;
                continue;
            }
        };
        let mut told_waiting = false;
        loop {
            let addr = match watch.current() {
                Ok(Some(addr)) => addr,
                Ok(None) => {
                    if !told_waiting {
                        info!("Waiting for a topology master to register.");
                        told_waiting = true;
                    }
                    if let Err(err) = watch.changed().await {
                        warn!(error = %err, "The watch on the topology master stopped; watching again.");
                        break;
                    }
                    continue;
                }
                Err(err) => {
                    warn!(error = %err, "The watch on the topology master stopped; watching again.");
                    break;
                }
            };
            told_waiting = false;
            let moved = async {
                loop {
                    match watch.changed().await {
                        Ok(Some(next)) if next == addr => continue,
                        Ok(Some(next)) => return next.to_string(),
                        Ok(None) => return "nowhere (its registration ended)".to_owned(),
                        Err(err) => return format!("an unknown place ({err})"),
                    }
                }
            };
            let outcome = tokio::select! {
                outcome = session(&shared, &addr, data_port, &mut backoff, &mut outbox) => outcome,
                to = moved => Err(SessionError::Moved(to)),
            };
            match outcome {
                Err(SessionError::Moved(to)) => {
                    info!(from = %addr, %to, "The topology master moved; following it.");
                    backoff.reset();
                    continue;
                }
                Err(err) => {
                    warn!(%addr, error = %err, "Topology master connection failed; reconnecting.")
                }
                Ok(never) => match never {},
            }
            backoff.wait().await;
        }
        backoff.wait().await;
    }
}

async fn session(
    shared: &Arc<Shared>,
    addr: &Endpoint,
    data_port: u16,
    backoff: &mut Backoff,
    outbox: &mut mpsc::Receiver<stream_manager_to_master::Message>,
) -> Result<Infallible, SessionError> {
    let handshake = async {
        let stream = addr.connect().await?;
        let peer = stream.peer_addr()?;
        let stream = shared.tls.connect(stream, peer).await?;
        let peer_id = format!("stmgr-{}", shared.index);
        Ok::<_, SessionError>(
            connect(
                stream,
                &shared.token,
                PeerRole::StreamManager,
                &peer_id,
                shared.max_frame_bytes,
            )
            .await?,
        )
    };
    let framed = tokio::time::timeout(CONNECT_TIMEOUT, handshake)
        .await
        .map_err(|_| SessionError::Timeout(CONNECT_TIMEOUT))??;
    let (mut sink, mut stream) = framed.split();
    let register = StreamManagerToMaster {
        message: Some(stream_manager_to_master::Message::Register(
            RegisterStreamManager {
                location: Some(StreamManagerLocation {
                    container_index: shared.index,
                    host: shared.advertise.to_string(),
                    data_port: u32::from(data_port),
                }),
            },
        )),
    };
    sink.send(encode_message(&register)).await?;
    info!(%addr, container = shared.index, data_port, "Registered with the topology master.");
    backoff.reset();
    let heartbeat = StreamManagerToMaster {
        message: Some(stream_manager_to_master::Message::Heartbeat(Empty {})),
    };
    let mut ticks = tokio::time::interval_at(
        tokio::time::Instant::now() + HEARTBEAT_INTERVAL,
        HEARTBEAT_INTERVAL,
    );
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {
                sink.send(encode_message(&heartbeat)).await?;
                sink.send(encode_message(&metrics_report(shared))).await?;
                debug!("Heartbeat and metrics sent to the topology master.");
            }
            // The sender lives in `Shared`, so `None` never comes while we run.
            Some(message) = outbox.recv() => {
                let message = StreamManagerToMaster {
                    message: Some(message),
                };
                // A failed send loses this message (counted as a lost
                // connection, not as a drop): the session restarts.
                sink.send(encode_message(&message)).await?;
            }
            frame = stream.next() => {
                let body = frame.ok_or(SessionError::Closed)??;
                let message: MasterToStreamManager = decode_message(body)?;
                match message.message {
                    Some(master_to_stream_manager::Message::PhysicalPlan(plan)) => {
                        if plan.topology_id != shared.topology.id {
                            warn!(plan_topology = %plan.topology_id, topology = %shared.topology.id, "Ignoring a physical plan of another topology.");
                            continue;
                        }
                        if plan.packing.as_ref() != Some(&shared.packing) {
                            warn!("The physical plan's packing differs from packing.pb; routing keeps the packing read at startup.");
                        }
                        // A restarted master sends the plan we already follow:
                        // nothing must move (no redial, no reassignment).
                        let changed = shared.plan_tx.send_if_modified(|current| {
                            if current.as_deref() == Some(&plan) {
                                return false;
                            }
                            *current = Some(Arc::new(plan.clone()));
                            true
                        });
                        if changed {
                            info!(
                                state = crate::state_name(plan.state),
                                stream_managers = plan.stream_managers.len(),
                                "Physical plan received."
                            );
                        } else {
                            info!("Physical plan received, unchanged.");
                        }
                    }
                    Some(master_to_stream_manager::Message::Error(reason)) => {
                        return Err(SessionError::Refused(reason));
                    }
                    Some(master_to_stream_manager::Message::Logs(request)) => {
                        answer_log_request(shared, request);
                    }
                    Some(master_to_stream_manager::Message::RecoverCheckpoint(recover)) => {
                        if shared.effectively_once {
                            let failed = shared
                                .router
                                .fail_pending_of(egret_config::settings::CHECKPOINT_SPOUT);
                            info!(restarted = %recover.restarted, failed,
                                "An instance restarted: failed the checkpoint spout's pending trees here, so that it rolls back now.");
                        }
                    }
                    None => warn!("Ignoring an empty or unknown message from the topology master."),
                }
            }
        }
    }
}
