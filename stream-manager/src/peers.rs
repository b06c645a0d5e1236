//! The stream manager mesh: one TCP connection per pair of containers, dialed
//! by the lower index (contracts, "Stream managers and the topology master").
//! Each peer has a writer owning its outbound queue and its current connection;
//! each connection has a reader routing incoming tuples to local instances.
//!
//! Backpressure: the writer sends this stream manager's `BackpressureNotice`
//! (its full set of causes) first on every new connection and again whenever
//! the set changes; the reader hands the peer's notices to `Pressure`, which
//! keeps the peer's causes across a disconnection until the peer's next notice.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use egret_proto::FrameCodec;
use egret_proto::frame::encode_message;
use egret_proto::handshake::{HandshakeError, connect};
use egret_proto::raw::{self, Decoded};
use egret_proto::v1::{
    BackpressureNotice, Hello, PeerMessage, PeerRole, PhysicalPlan, peer_message,
};
use egret_transport::{Endpoint, Host, TlsError, TlsStream};
use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::codec::Framed;
use tracing::{debug, error, info, warn};

use crate::Shared;
use crate::backoff::Backoff;
use crate::router::{FrameSink, Source, TupleReceiver, next_batch};
use egret_proto::handshake::accept_checked;

const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
const DIAL_TIMEOUT: Duration = Duration::from_secs(5);

pub(crate) enum PeerEvent {
    Connected {
        connection: u64,
        sink: FrameSink,
        superseded: oneshot::Sender<()>,
    },
    Lost {
        connection: u64,
    },
}

#[derive(Debug, thiserror::Error)]
enum DialError {
    #[error("cannot connect: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Tls(#[from] TlsError),
    #[error("hello failed: {0}")]
    Handshake(#[from] HandshakeError),
    #[error("no answer within {0:?}")]
    Timeout(Duration),
}

fn peer_id(index: i32) -> String {
    format!("stmgr-{index}")
}

fn parse_peer_id(id: &str) -> Option<i32> {
    id.strip_prefix("stmgr-")?.parse().ok()
}

/// The data address of container `peer` in `plan`. (The master refuses a
/// registration whose host or port is not dialable, so a plan holds none; one
/// that does anyway is logged and treated as absent.)
fn peer_address(plan: Option<&PhysicalPlan>, peer: i32) -> Option<Endpoint> {
    let sm = plan?
        .stream_managers
        .iter()
        .find(|sm| sm.container_index == peer)?;
    let port = u16::try_from(sm.data_port).ok();
    match (sm.host.parse::<Host>(), port) {
        (Ok(host), Some(port)) => Some(Endpoint::new(host, port)),
        (host, _) => {
            warn!(peer, host = %sm.host, port = sm.data_port, problem = ?host.err(), "The plan's address of the peer stream manager is not dialable.");
            None
        }
    }
}

/// The writer toward one peer stream manager.
pub(crate) async fn writer(
    shared: Arc<Shared>,
    peer: i32,
    mut tuples: TupleReceiver,
    mut events: mpsc::Receiver<PeerEvent>,
) {
    let mut current: Option<(u64, FrameSink, oneshot::Sender<()>)> = None;
    let mut notices = shared.router.pressure().notices();
    loop {
        tokio::select! {
            event = events.recv() => match event {
                None => return,
                Some(PeerEvent::Connected { connection, sink, superseded }) => {
                    if current.is_some() {
                        info!(peer, connection, "A new connection to the peer stream manager replaces the old one.");
                    }
                    current = Some((connection, sink, superseded));
                    // The full state first: the peer may have missed changes, or restarted.
                    let notice = Arc::clone(&notices.borrow_and_update());
                    send_notice(peer, &mut current, &notice).await;
                }
                Some(PeerEvent::Lost { connection }) => {
                    if current.as_ref().is_some_and(|(c, _, _)| *c == connection) {
                        current = None;
                    }
                }
            },
            changed = notices.changed() => {
                if changed.is_err() {
                    return;
                }
                let notice = Arc::clone(&notices.borrow_and_update());
                send_notice(peer, &mut current, &notice).await;
            }
            batch = next_batch(&mut tuples, shared.max_frame_bytes), if current.is_some() => {
                let Some((batch, _in_flight)) = batch else { return };
                let Some((_, sink, _)) = current.as_mut() else { continue };
                let (count, acks) = (batch.tuples.len(), batch.acks.len());
                let frame = raw::Outbound::Tuples {
                    field: raw::PEER_MESSAGE_TUPLES,
                    batch,
                };
                if let Err(err) = sink.send(frame).await {
                    // Lost acks and tuples are failed by the ledger's timeout and replayed.
                    warn!(peer, error = %err, dropped_tuples = count, dropped_acks = acks, "Peer stream manager lost while sending it tuples.");
                    current = None;
                }
            }
        }
    }
}

/// Sends this stream manager's causes to the peer, if connected (a later
/// connection sends them again).
async fn send_notice(
    peer: i32,
    current: &mut Option<(u64, FrameSink, oneshot::Sender<()>)>,
    notice: &BackpressureNotice,
) {
    let Some((_, sink, _)) = current.as_mut() else {
        return;
    };
    let message = PeerMessage {
        message: Some(peer_message::Message::Backpressure(notice.clone())),
    };
    if let Err(err) = sink.send(encode_message(&message).into()).await {
        warn!(peer, error = %err, "Peer stream manager lost while sending it a backpressure notice.");
        *current = None;
    } else {
        debug!(
            peer,
            congested = notice.congested.len(),
            "Backpressure notice sent."
        );
    }
}

/// Accepts the data connections of lower-indexed stream managers.
pub(crate) async fn accept_loop(shared: Arc<Shared>, listener: TcpListener) {
    loop {
        match listener.accept().await {
            Ok((stream, addr)) => {
                let _ = stream.set_nodelay(true);
                let task_shared = Arc::clone(&shared);
                shared.spawn(async move {
                    // TLS first (a refusal is logged and counted there); the hello inside.
                    let Ok(stream) = task_shared.tls.accept(stream, addr).await else { return };
                    let allow = |hello: &Hello| match parse_peer_id(&hello.peer_id) {
                        Some(index) if index < task_shared.index && task_shared.peer_events.contains_key(&index) => Ok(()),
                        _ => Err(format!(
                            "'{}' may not open a data connection to container {} (only lower-indexed stream managers of the topology dial)",
                            hello.peer_id, task_shared.index
                        )),
                    };
                    let accepted = tokio::time::timeout(
                        HELLO_TIMEOUT,
                        accept_checked(stream, &task_shared.token, &[PeerRole::StreamManager], task_shared.max_frame_bytes, allow),
                    )
                    .await;
                    match accepted {
                        Ok(Ok((hello, framed))) => {
                            let Some(peer) = parse_peer_id(&hello.peer_id) else { return };
                            info!(peer, %addr, "Peer stream manager connected.");
                            run_connection(&task_shared, peer, framed, std::future::pending()).await;
                        }
                        Ok(Err(err)) => warn!(%addr, error = %err, "Peer connection refused."),
                        Err(_) => warn!(%addr, "Peer connection refused: no hello within the timeout."),
                    }
                });
            }
            Err(err) => {
                error!(error = %err, "Accepting a peer connection failed.");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Keeps the connection to a higher-indexed peer up: dials its address from
/// the physical plan, redials when it drops or when the plan moves it.
pub(crate) async fn dialer(shared: Arc<Shared>, peer: i32) {
    let mut plans = shared.plan_tx.subscribe();
    let mut backoff = Backoff::new();
    loop {
        let addr = loop {
            let addr = peer_address(plans.borrow_and_update().as_deref(), peer);
            if let Some(addr) = addr {
                break addr;
            }
            if plans.changed().await.is_err() {
                return;
            }
        };
        match dial(&shared, &addr).await {
            Ok(framed) => {
                backoff.reset();
                info!(peer, %addr, "Connected to the peer stream manager.");
                let moved = address_change(plans.clone(), peer, addr.clone());
                run_connection(&shared, peer, framed, moved).await;
            }
            Err(err) => {
                warn!(peer, %addr, error = %err, "Dialing the peer stream manager failed; retrying.")
            }
        }
        backoff.wait().await;
    }
}

async fn dial(
    shared: &Shared,
    addr: &Endpoint,
) -> Result<Framed<TlsStream, FrameCodec>, DialError> {
    let attempt = async {
        let stream = addr.connect().await?;
        let peer = stream.peer_addr()?;
        let stream = shared.tls.connect(stream, peer).await?;
        Ok(connect(
            stream,
            &shared.token,
            PeerRole::StreamManager,
            &peer_id(shared.index),
            shared.max_frame_bytes,
        )
        .await?)
    };
    tokio::time::timeout(DIAL_TIMEOUT, attempt)
        .await
        .map_err(|_| DialError::Timeout(DIAL_TIMEOUT))?
}

/// Resolves when the plan gives `peer` an address other than `addr`.
async fn address_change(
    mut plans: watch::Receiver<Option<Arc<PhysicalPlan>>>,
    peer: i32,
    addr: Endpoint,
) {
    loop {
        if plans.changed().await.is_err() {
            return std::future::pending().await;
        }
        let now = peer_address(plans.borrow_and_update().as_deref(), peer);
        if now.is_some_and(|now| now != addr) {
            info!(peer, old = %addr, "The peer stream manager moved: redialing.");
            return;
        }
    }
}

/// Hands the connection's sending half to the peer's writer and routes what
/// arrives until the connection drops, is replaced, or `until` resolves.
async fn run_connection<S>(
    shared: &Arc<Shared>,
    peer: i32,
    framed: Framed<S, FrameCodec>,
    until: impl Future<Output = ()>,
) where
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let Some(events) = shared.peer_events.get(&peer).cloned() else {
        return;
    };
    let connection = shared.next_connection();
    let (sink, mut stream) = framed.split();
    let (superseded_tx, mut superseded) = oneshot::channel();
    let connected = PeerEvent::Connected {
        connection,
        sink: Box::pin(sink),
        superseded: superseded_tx,
    };
    if events.send(connected).await.is_err() {
        return;
    }
    tokio::pin!(until);
    let reason: String = loop {
        let frame = tokio::select! {
            _ = &mut superseded => break "replaced by a newer connection".to_owned(),
            () = &mut until => break "its address changed".to_owned(),
            frame = stream.next() => frame,
        };
        let body = match frame {
            None => break "connection closed".to_owned(),
            Some(Err(err)) => break format!("connection failed: {err}"),
            Some(Ok(body)) => body,
        };
        // Tuples, most of the traffic, are routed as the bytes they came in.
        let message = match raw::decode_message::<PeerMessage>(body, raw::PEER_MESSAGE_TUPLES) {
            Ok(Decoded::Tuples(batch)) => {
                shared.router.route(batch, Source::Peer(peer)).await;
                continue;
            }
            Ok(Decoded::Message(message)) => Ok(message),
            Err(err) => Err(err),
        };
        match message {
            Ok(PeerMessage {
                message: Some(peer_message::Message::Tuples(batch)),
            }) => {
                shared.router.route(batch.into(), Source::Peer(peer)).await;
            }
            Ok(PeerMessage {
                message: Some(peer_message::Message::Backpressure(notice)),
            }) => {
                shared.router.pressure().peer_notice(peer, &notice);
            }
            Ok(PeerMessage { message: None }) => {
                debug!(peer, "Ignoring an empty or unknown peer message.")
            }
            Err(err) => break format!("malformed message: {err}"),
        }
    };
    let _ = events.send(PeerEvent::Lost { connection }).await;
    warn!(peer, connection, %reason, "Peer stream manager connection lost.");
}
