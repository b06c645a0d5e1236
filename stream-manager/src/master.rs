//! The session with the topology master: register (retrying until
//! `tmaster.addr` exists and the master answers), heartbeat, publish every
//! physical plan received, and forward the instances' statistics reports.
//! Reconnects whenever the connection drops.
//!
//! Statistics go through one bounded queue ([`STATS_QUEUE`] reports): while
//! the master is away the queue fills and further reports are dropped and
//! counted (`egret.dropped.stats`); those queued are sent once a new session
//! is registered. A report is exact deltas, so a dropped one is lost from the
//! master's totals (never counted twice).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use egret_metrics::MetricKey;
use egret_proto::frame::{FrameError, decode_message, encode_message};
use egret_proto::handshake::{HandshakeError, connect};
use egret_proto::v1::{
    Empty, MasterToStreamManager, PeerRole, RegisterStreamManager, StatsReport,
    StreamManagerLocation, StreamManagerToMaster, master_to_stream_manager,
    stream_manager_to_master,
};
use egret_state_manager::StateError;
use futures::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio::sync::mpsc::error::TrySendError;
use tracing::{debug, info, warn};

use crate::Shared;
use crate::backoff::Backoff;

const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(5);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Statistics reports queued toward the topology master at most: with one
/// report per instance every 5 s, minutes of a typical container's reports.
pub(crate) const STATS_QUEUE: usize = 256;
/// Counter of the reports dropped because the queue was full (master away).
pub(crate) const DROPPED_STATS: &str = "egret.dropped.stats";

/// Queues an instance's report for the topology master, or drops and counts it.
pub(crate) fn forward_stats(shared: &Shared, report: StatsReport) {
    match shared.stats_tx.try_send(report) {
        Ok(()) => {}
        Err(TrySendError::Full(report) | TrySendError::Closed(report)) => {
            let dropped = shared
                .metrics
                .add(MetricKey::new(DROPPED_STATS, "__ledger", 0), 1.0);
            // Once per power of two: visible without flooding the log.
            let dropped = dropped as u64;
            if dropped.is_power_of_two() {
                warn!(instance = %report.instance_id, dropped, "Dropping a statistics report: the topology master is not keeping up or is away.");
            }
        }
    }
}

#[derive(Debug, thiserror::Error)]
enum SessionError {
    #[error("the topology master has not written its address yet")]
    NoAddress,
    #[error(transparent)]
    State(#[from] StateError),
    #[error("cannot connect: {0}")]
    Io(#[from] std::io::Error),
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
    mut stats: mpsc::Receiver<StatsReport>,
) {
    let mut backoff = Backoff::new();
    let mut told_waiting = false;
    loop {
        match session(&shared, data_port, &mut backoff, &mut stats).await {
            Err(SessionError::NoAddress) => {
                if !told_waiting {
                    info!("Waiting for the topology master to write its address.");
                    told_waiting = true;
                }
            }
            Err(err) => warn!(error = %err, "Topology master connection failed; reconnecting."),
            Ok(never) => match never {},
        }
        backoff.wait().await;
    }
}

async fn session(
    shared: &Shared,
    data_port: u16,
    backoff: &mut Backoff,
    stats: &mut mpsc::Receiver<StatsReport>,
) -> Result<Infallible, SessionError> {
    let addr = shared
        .dir
        .read_tmaster_addr()?
        .ok_or(SessionError::NoAddress)?;
    let handshake = async {
        let stream = TcpStream::connect(addr).await?;
        let _ = stream.set_nodelay(true);
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
                    host: "127.0.0.1".to_owned(),
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
                debug!("Heartbeat sent to the topology master.");
            }
            // The sender lives in `Shared`, so `None` never comes while we run.
            Some(report) = stats.recv() => {
                let message = StreamManagerToMaster {
                    message: Some(stream_manager_to_master::Message::Stats(report)),
                };
                // A failed send loses this report (counted as a lost
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
                    None => warn!("Ignoring an empty or unknown message from the topology master."),
                }
            }
        }
    }
}
