//! The instances of this container: the Unix socket listener, one reader per
//! connection, and one writer per instance.
//!
//! Order on a connection (contracts, "Instance JVMs"): the hello, the
//! `InstanceAssignment` as soon as the physical plan is known, then state
//! changes; tuples go to the instance only after it has said `ready`.
//!
//! Backpressure: while a spout instance's component is throttled, its writer
//! has told it so (`Throttle`, sent after the assignment) and its reader does
//! not read its socket at all, so the spout's JVM blocks on its own writes
//! whatever it does. The writer keeps writing tree events and state changes
//! to it: the acking path never waits on the throttle.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use egret_metrics::MetricKey;
use egret_proto::FrameError;
use egret_proto::frame::encode_message;
use egret_proto::raw::{self, Decoded, Outbound};
use egret_proto::v1::{
    EventLogging, Hello, InstanceAssignment, InstancePlan, InstanceToStreamManager, PeerRole,
    PhysicalPlan, StateChange, StreamManagerToInstance, Throttle, TopologyState, TreeEvents,
    instance_to_stream_manager, stream_manager_to_instance,
};
use futures::{SinkExt, StreamExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, oneshot, watch};
use tracing::{debug, error, info, warn};

use crate::Shared;
use crate::error_reports::{ErrorReportSettings, ErrorThrottle};
use crate::router::{
    FrameSink, MAX_TREE_EVENTS_PER_FRAME, Source, TreeReceiver, TupleReceiver, next_batch,
};
use egret_proto::handshake::accept_checked;

/// How long a connecting instance may take to send its hello.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);

/// What the assignment of one instance is made of (fixed for the run).
pub(crate) struct InstanceContext {
    pub plan: InstancePlan,
    pub work_dir: String,
    pub task_container: Arc<HashMap<i32, i32>>,
    /// The component of every task, from the packing plan.
    pub task_component: Arc<HashMap<i32, String>>,
}

/// Frames from an instance, whichever bridge carries them.
pub type FrameStream =
    std::pin::Pin<Box<dyn futures::Stream<Item = Result<bytes::Bytes, FrameError>> + Send>>;

/// A connection's route on the sending thread: the JNI bridge's port offers
/// each frame its executor sends to the installed route first, on the
/// executor's thread ([`crate::router::Router::route_now`]), while nothing
/// it sent before is still queued or being handled (`handled` counts those
/// down). A socket has none.
pub trait SendPath: Send + Sync {
    /// Frames are offered to `route` from now on: it returns true when it routed one.
    fn install(&self, route: Box<dyn Fn(&bytes::Bytes) -> bool + Send + Sync>);
    /// No frame is offered to a route any more.
    fn clear(&self);
    /// One frame taken from the connection's stream has been handled.
    fn handled(&self);
}

/// One connection of an instance as the stream manager serves it: who it is
/// (for a socket, the instance its hello proved; for the JNI bridge, the
/// executor the process started) and its duplex stream of frames (the same
/// protobuf messages either way). Nothing past this type knows the bridge.
pub struct InstanceConnection {
    pub instance_id: String,
    /// For an executor this process hosts (the JNI bridge's), how often its
    /// host restarted it so far: published as its `egret.restarts`. `None`
    /// for an instance JVM, whose restarts its container counts.
    pub hosted_restarts: Option<u64>,
    pub sink: FrameSink,
    pub stream: FrameStream,
    /// The JNI bridge's route on the sending thread; `None` for a socket.
    pub send_path: Option<Arc<dyn SendPath>>,
    /// The JNI bridge's queue toward the instance, which the router fills
    /// itself once the instance is ready and its writer has nothing pending
    /// (`router::DirectPort`); `None` for a socket.
    pub direct: Option<mpsc::Sender<bytes::Bytes>>,
}

impl std::fmt::Debug for InstanceConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InstanceConnection")
            .field("instance_id", &self.instance_id)
            .finish_non_exhaustive()
    }
}

impl InstanceConnection {
    /// A connection over two bounded in-process queues of frame bodies (the
    /// JNI bridge's): a frame from the instance larger than `max_frame_bytes`
    /// ends it as the socket codec would; a closed queue is a closed connection.
    /// `restarts`: how often the process restarted the executor before.
    /// `send_path`: the port's route on the sending thread, if it has one.
    pub fn from_channels(
        instance_id: String,
        restarts: u64,
        to_instance: mpsc::Sender<bytes::Bytes>,
        from_instance: mpsc::Receiver<bytes::Bytes>,
        max_frame_bytes: usize,
        send_path: Option<Arc<dyn SendPath>>,
    ) -> Self {
        let direct = send_path.as_ref().map(|_| to_instance.clone());
        let sink = tokio_util::sync::PollSender::new(to_instance)
            .sink_map_err(|_| {
                FrameError::Io(std::io::Error::new(
                    std::io::ErrorKind::BrokenPipe,
                    "the instance closed its in-process channel",
                ))
            })
            .with(|frame: Outbound| std::future::ready(Ok::<_, FrameError>(frame.into_body())));
        let stream = futures::stream::unfold(
            (from_instance, false),
            move |(mut from_instance, failed)| async move {
                if failed {
                    return None;
                }
                let frame = from_instance.recv().await?;
                if frame.len() > max_frame_bytes {
                    let err = FrameError::TooLarge {
                        length: frame.len(),
                        limit: max_frame_bytes,
                    };
                    return Some((Err(err), (from_instance, true)));
                }
                Some((Ok(frame), (from_instance, false)))
            },
        );
        Self {
            instance_id,
            hosted_restarts: Some(restarts),
            sink: Box::pin(sink),
            stream: Box::pin(stream),
            send_path,
            direct,
        }
    }
}

pub(crate) enum InstanceEvent {
    Connected {
        connection: u64,
        sink: FrameSink,
        direct: Option<mpsc::Sender<bytes::Bytes>>,
        superseded: oneshot::Sender<()>,
    },
    Ready {
        connection: u64,
    },
    Lost {
        connection: u64,
    },
    /// The answer to a state request read on `connection`.
    StateReply {
        connection: u64,
        reply: egret_proto::v1::StateReply,
    },
}

pub(crate) async fn accept_loop(shared: Arc<Shared>, listener: UnixListener) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                shared.spawn(serve(Arc::clone(&shared), stream));
            }
            Err(err) => {
                error!(error = %err, "Accepting an instance connection failed.");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

async fn serve(shared: Arc<Shared>, stream: UnixStream) {
    let allow = |hello: &Hello| {
        if shared.instances.contains_key(&hello.peer_id) {
            Ok(())
        } else {
            Err(format!(
                "instance '{}' is not an instance of container {}",
                hello.peer_id, shared.index
            ))
        }
    };
    let accepted = tokio::time::timeout(
        HELLO_TIMEOUT,
        accept_checked(
            stream,
            &shared.token,
            &[PeerRole::Instance],
            shared.max_frame_bytes,
            allow,
        ),
    )
    .await;
    let (hello, framed) = match accepted {
        Ok(Ok(accepted)) => accepted,
        Ok(Err(err)) => {
            warn!(error = %err, "Instance connection refused.");
            return;
        }
        Err(_) => {
            warn!("Instance connection refused: no hello within the timeout.");
            return;
        }
    };
    let (sink, stream) = framed.split();
    let connection = InstanceConnection {
        instance_id: hello.peer_id,
        hosted_restarts: None,
        sink: Box::pin(sink),
        stream: Box::pin(stream),
        send_path: None,
        direct: None,
    };
    serve_connection(shared, connection).await;
}

/// Serves the in-process connections of the JNI bridge (already known to be
/// this container's: the process made them for its own executors).
pub(crate) async fn in_process_loop(
    shared: Arc<Shared>,
    mut connections: mpsc::Receiver<InstanceConnection>,
) {
    while let Some(connection) = connections.recv().await {
        if !shared.instances.contains_key(&connection.instance_id) {
            warn!(instance = %connection.instance_id, "Refusing an in-process connection of an instance not in this container.");
            continue;
        }
        if let Some(restarts) = connection.hosted_restarts {
            shared.metrics.set(
                MetricKey::new("egret.restarts", &connection.instance_id, 0),
                restarts as f64,
            );
        }
        shared.spawn(serve_connection(Arc::clone(&shared), connection));
    }
}

/// One instance's connection from its hello on: its reader, and its sink
/// handed to its writer. Both bridges end here.
async fn serve_connection(shared: Arc<Shared>, connection: InstanceConnection) {
    let InstanceConnection {
        instance_id: id,
        sink,
        mut stream,
        send_path,
        direct,
        ..
    } = connection;
    let Some(events) = shared.instance_events.get(&id).cloned() else {
        return;
    };
    let connection = shared.next_connection();
    info!(instance = %id, connection, "Instance connection accepted.");
    let (superseded_tx, mut superseded) = oneshot::channel();
    let connected = InstanceEvent::Connected {
        connection,
        sink,
        direct,
        superseded: superseded_tx,
    };
    if events.send(connected).await.is_err() {
        return;
    }
    let component = shared
        .instances
        .get(&id)
        .map(|c| c.plan.component.clone())
        .unwrap_or_default();
    let _send_path = send_path.map(|path| {
        path.install(route_now(&shared, &id, &component));
        Installed(path)
    });
    // Only spouts are ever throttled; other readers never look. The pause
    // starts after `ready` has been read, so that tree events reach a spout
    // that connects while throttled.
    let mut ready = false;
    let mut error_throttle =
        ErrorThrottle::new(ErrorReportSettings::from_topology(&shared.topology));
    let mut throttle = shared
        .router
        .pressure()
        .is_local_spout(&component)
        .then(|| shared.router.pressure().throttled());
    loop {
        if let Some(throttle) = throttle.as_mut().filter(|_| ready) {
            while throttle.borrow_and_update().contains(&component) {
                tokio::select! {
                    _ = &mut superseded => {
                        info!(instance = %id, connection, "Closing an instance connection that is no longer current.");
                        return;
                    }
                    changed = throttle.changed() => {
                        if changed.is_err() {
                            return;
                        }
                    }
                }
            }
        }
        let frame = tokio::select! {
            _ = &mut superseded => {
                info!(instance = %id, connection, "Closing an instance connection that is no longer current.");
                return;
            }
            frame = stream.next() => frame,
        };
        // Counted down once this frame is handled, so the sender routes on its own thread again.
        let _handled = frame.is_some().then(|| {
            _send_path
                .as_ref()
                .map(|Installed(path)| HandledOnDrop(path.as_ref()))
        });
        let body = match frame {
            None => {
                info!(instance = %id, connection, "Instance closed its connection.");
                break;
            }
            Some(Err(err)) => {
                warn!(instance = %id, connection, error = %err, "Instance connection failed.");
                break;
            }
            Some(Ok(body)) => body,
        };
        // Tuples, most of the traffic, are routed as the bytes they came in.
        let decoded = raw::decode_message::<InstanceToStreamManager>(
            body,
            raw::INSTANCE_TO_STREAM_MANAGER_TUPLES,
        );
        let message = match decoded {
            Ok(Decoded::Tuples(batch)) => {
                shared.router.route(batch, Source::Instance(&id)).await;
                continue;
            }
            Ok(Decoded::Message(message)) => message,
            Err(err) => {
                warn!(instance = %id, error = %err, "Dropping an instance that sent a malformed message.");
                break;
            }
        };
        let message = match message.message.map(crate::state::Request::of) {
            Some(Ok(request)) => {
                let tasks = shared
                    .instances
                    .get(&id)
                    .map(|c| c.plan.task_ids.clone())
                    .unwrap_or_default();
                let reply = crate::state::serve(&shared.checkpoints, &id, &tasks, request).await;
                if events
                    .send(InstanceEvent::StateReply { connection, reply })
                    .await
                    .is_err()
                {
                    return;
                }
                continue;
            }
            Some(Err(message)) => Some(message),
            None => None,
        };
        match message {
            Some(instance_to_stream_manager::Message::Tuples(batch)) => {
                shared
                    .router
                    .route(batch.into(), Source::Instance(&id))
                    .await;
            }
            Some(instance_to_stream_manager::Message::Ready(_)) => {
                ready = true;
                if events
                    .send(InstanceEvent::Ready { connection })
                    .await
                    .is_err()
                {
                    return;
                }
            }
            Some(instance_to_stream_manager::Message::Error(mut reported)) => {
                if reported.fatal {
                    error!(instance = %id, task = reported.task_id, message = %reported.message, "Instance reported a fatal error.");
                } else {
                    warn!(instance = %id, task = reported.task_id, message = %reported.message, "Instance reported an error.");
                }
                if error_throttle.admit(reported.task_id, std::time::Instant::now()) {
                    reported.time_secs = unix_now_secs();
                    crate::master::forward_error(&shared, reported, &id);
                }
            }
            Some(instance_to_stream_manager::Message::Stats(mut report)) => {
                // The master checks the tasks against the instance: say who sent it.
                report.instance_id.clone_from(&id);
                shared.metrics_manager.offer(report.clone());
                crate::master::forward_stats(&shared, report);
            }
            Some(instance_to_stream_manager::Message::Jvm(jvm)) => {
                // Per instance (its id as the component, as the supervisor's cgroup figures).
                let key = |name: &str| egret_metrics::MetricKey::new(name, id.as_str(), 0);
                shared
                    .metrics
                    .set(key(JVM_HEAP_USED), jvm.heap_used_bytes as f64);
                shared
                    .metrics
                    .set(key(JVM_HEAP_COMMITTED), jvm.heap_committed_bytes as f64);
                shared.metrics.set(key(JVM_GC_COUNT), jvm.gc_count as f64);
                shared
                    .metrics
                    .set(key(JVM_GC_TIME_MS), jvm.gc_time_ms as f64);
            }
            Some(
                instance_to_stream_manager::Message::StateSave(_)
                | instance_to_stream_manager::Message::StateLoad(_)
                | instance_to_stream_manager::Message::CheckpointComplete(_),
            ) => {} // carried out above
            None => warn!(instance = %id, "Ignoring an empty or unknown instance message."),
        }
    }
    let _ = events.send(InstanceEvent::Lost { connection }).await;
}

/// The route [`serve_connection`] installs on a connection's sending thread: a
/// batch of tuples and acks goes straight to the router, unless the instance
/// is a spout whose component is throttled (its frames then wait in the queue
/// the reader does not read, as a socket's do).
fn route_now(
    shared: &Arc<Shared>,
    id: &str,
    component: &str,
) -> Box<dyn Fn(&bytes::Bytes) -> bool + Send + Sync> {
    let shared = Arc::clone(shared);
    let id = id.to_owned();
    let component = component.to_owned();
    let pressure = shared.router.pressure();
    let throttle = pressure
        .is_local_spout(&component)
        .then(|| pressure.throttled());
    Box::new(move |frame: &bytes::Bytes| {
        if throttle
            .as_ref()
            .is_some_and(|t| t.borrow().contains(&component))
        {
            return false;
        }
        shared.router.route_now(frame, &id)
    })
}

/// A route installed on a connection, cleared when its reader ends.
struct Installed(Arc<dyn SendPath>);

impl Drop for Installed {
    fn drop(&mut self) {
        self.0.clear();
    }
}

/// Counts one frame of the connection's stream as handled when dropped.
struct HandledOnDrop<'a>(&'a dyn SendPath);

impl Drop for HandledOnDrop<'_> {
    fn drop(&mut self) {
        self.0.handled();
    }
}

/// An instance JVM's heap in use, bytes (`JvmStats`), by instance id.
pub const JVM_HEAP_USED: &str = "egret.jvm.heap.used-bytes";
/// Its committed heap, bytes.
pub const JVM_HEAP_COMMITTED: &str = "egret.jvm.heap.committed-bytes";
/// Its collections since it started, over every collector.
pub const JVM_GC_COUNT: &str = "egret.jvm.gc.count";
/// Their time in ms since it started.
pub const JVM_GC_TIME_MS: &str = "egret.jvm.gc.time-ms";

struct Current {
    connection: u64,
    sink: FrameSink,
    /// The JNI bridge's queue toward the instance, published for the router
    /// while the connection is ready.
    direct: Option<mpsc::Sender<bytes::Bytes>>,
    _superseded: oneshot::Sender<()>,
    assigned: bool,
    ready: bool,
    state: i32,
    /// The event sampling this connection was last told (assignment or `event_logging`).
    sampling_pct: f64,
    /// What this connection was last told about the throttle (a new one starts unthrottled).
    throttled: bool,
    /// The log level entries this connection was last told (assignment or `log_levels`).
    log_levels: Vec<egret_proto::v1::LoggerLevel>,
}

fn assignment(
    shared: &Shared,
    context: &InstanceContext,
    state: i32,
    sampling_pct: f64,
    log_levels: &[egret_proto::v1::LoggerLevel],
) -> StreamManagerToInstance {
    StreamManagerToInstance {
        message: Some(stream_manager_to_instance::Message::Assignment(
            InstanceAssignment {
                topology: Some((*shared.topology).clone()),
                instance: Some(context.plan.clone()),
                task_container: (*context.task_container).clone(),
                task_component: (*context.task_component).clone(),
                container_index: shared.index,
                work_dir: context.work_dir.clone(),
                state,
                event_sampling_pct: sampling_pct,
                log_levels: log_levels.to_vec(),
            },
        )),
    }
}

/// Brings the instance up to date with `plan`: its assignment first, then
/// state changes and event logging changes (Storm's debug options of its
/// component). Forgets the connection if sending fails.
async fn sync(
    shared: &Shared,
    context: &InstanceContext,
    current: &mut Option<Current>,
    plan: &PhysicalPlan,
) {
    let Some(conn) = current.as_mut() else {
        return;
    };
    let id = context.plan.instance_id.as_str();
    let sampling_pct = egret_proto::event_sampling_pct(&plan.debug, &context.plan.component);
    if !conn.assigned {
        let message = assignment(shared, context, plan.state, sampling_pct, &plan.log_levels);
        if let Err(err) = conn.sink.send(encode_message(&message).into()).await {
            warn!(instance = %id, error = %err, "Instance lost while sending it the plan.");
            *current = None;
            return;
        }
        info!(instance = %id, state = crate::state_name(plan.state), sampling_pct, "Assignment sent to the instance.");
        conn.assigned = true;
        conn.state = plan.state;
        conn.sampling_pct = sampling_pct;
        conn.log_levels = plan.log_levels.clone();
        return;
    }
    if conn.state != plan.state {
        let message = StreamManagerToInstance {
            message: Some(stream_manager_to_instance::Message::State(StateChange {
                state: plan.state,
            })),
        };
        if let Err(err) = conn.sink.send(encode_message(&message).into()).await {
            warn!(instance = %id, error = %err, "Instance lost while sending it the plan.");
            *current = None;
            return;
        }
        info!(instance = %id, state = crate::state_name(plan.state), "State change sent to the instance.");
        conn.state = plan.state;
    }
    if conn.sampling_pct != sampling_pct {
        let message = StreamManagerToInstance {
            message: Some(stream_manager_to_instance::Message::EventLogging(
                EventLogging { sampling_pct },
            )),
        };
        if let Err(err) = conn.sink.send(encode_message(&message).into()).await {
            warn!(instance = %id, error = %err, "Instance lost while sending it its event logging.");
            *current = None;
            return;
        }
        info!(instance = %id, sampling_pct, "Event logging change sent to the instance.");
        conn.sampling_pct = sampling_pct;
    }
    if conn.log_levels != plan.log_levels {
        let message = StreamManagerToInstance {
            message: Some(stream_manager_to_instance::Message::LogLevels(
                egret_proto::v1::LogLevels {
                    levels: plan.log_levels.clone(),
                },
            )),
        };
        if let Err(err) = conn.sink.send(encode_message(&message).into()).await {
            warn!(instance = %id, error = %err, "Instance lost while sending it its log levels.");
            *current = None;
            return;
        }
        info!(instance = %id, entries = plan.log_levels.len(), "Log levels sent to the instance.");
        conn.log_levels = plan.log_levels.clone();
    }
}

/// Tells a spout instance its throttle changed, once it has its assignment.
/// Forgets the connection if sending fails.
async fn sync_throttle(id: &str, current: &mut Option<Current>, throttled: bool) {
    let Some(conn) = current
        .as_mut()
        .filter(|c| c.assigned && c.throttled != throttled)
    else {
        return;
    };
    let message = StreamManagerToInstance {
        message: Some(stream_manager_to_instance::Message::Throttle(Throttle {
            throttled,
        })),
    };
    match conn.sink.send(encode_message(&message).into()).await {
        Ok(()) => {
            conn.throttled = throttled;
            debug!(instance = %id, throttled, "Throttle sent to the spout instance.");
        }
        Err(err) => {
            warn!(instance = %id, error = %err, "Instance lost while sending it the throttle.");
            *current = None;
        }
    }
}

/// The writer of one instance: owns its outbound queue and its current connection.
pub(crate) async fn writer(
    shared: Arc<Shared>,
    context: Arc<InstanceContext>,
    mut tuples: TupleReceiver,
    mut trees: TreeReceiver,
    mut events: mpsc::Receiver<InstanceEvent>,
    mut plans: watch::Receiver<Option<Arc<PhysicalPlan>>>,
) {
    let id = context.plan.instance_id.clone();
    let component = context.plan.component.clone();
    let mut current: Option<Current> = None;
    // Connections of this instance so far, in this process.
    let mut connections = 0u32;
    let pressure = shared.router.pressure();
    let spout = pressure.is_local_spout(&component);
    let mut throttle = pressure.throttled();
    let throttled_now = |throttle: &mut watch::Receiver<
        Arc<std::collections::BTreeSet<String>>,
    >| { spout && throttle.borrow_and_update().contains(&component) };
    // The router fills the instance's queue itself only while this writer's
    // connection is ready; unpublished when the writer ends.
    let direct = tuples.direct.clone().map(Unpublish);
    let mut published: Option<u64> = None;
    loop {
        if let Some(Unpublish(port)) = &direct {
            let ready = current.as_ref().filter(|c| c.ready && c.direct.is_some());
            let now = ready.map(|c| c.connection);
            if now != published {
                port.publish(ready.and_then(|c| c.direct.clone()));
                published = now;
            }
        }
        tokio::select! {
            event = events.recv() => {
                let Some(event) = event else { return };
                match event {
                    InstanceEvent::Connected { connection, sink, direct, superseded } => {
                        if current.is_some() {
                            info!(instance = %id, connection, "Instance reconnected: its new connection replaces the old one.");
                        }
                        connections = connections.saturating_add(1);
                        current = Some(Current { connection, sink, direct, _superseded: superseded, assigned: false, ready: false, state: 0, sampling_pct: 0.0, throttled: false, log_levels: Vec::new() });
                        let plan = plans.borrow().clone();
                        if let Some(plan) = plan {
                            sync(&shared, &context, &mut current, &plan).await;
                        }
                        sync_throttle(&id, &mut current, throttled_now(&mut throttle)).await;
                    }
                    InstanceEvent::Ready { connection } => {
                        if let Some(conn) = current.as_mut().filter(|c| c.connection == connection) {
                            conn.ready = true;
                            info!(instance = %id, connection, "Instance registered and ready.");
                            if shared.effectively_once {
                                crate::master::forward_instance_ready(&shared, &id, connections > 1);
                            }
                        }
                    }
                    InstanceEvent::StateReply { connection, reply } => {
                        let Some(conn) = current.as_mut().filter(|c| c.connection == connection) else {
                            // The instance's new connection starts over: it fails what it waited for.
                            debug!(instance = %id, connection, "Dropping a state reply: its connection is gone.");
                            continue;
                        };
                        let message = StreamManagerToInstance {
                            message: Some(stream_manager_to_instance::Message::StateReply(reply)),
                        };
                        if let Err(err) = conn.sink.send(encode_message(&message).into()).await {
                            warn!(instance = %id, error = %err, "Instance lost while sending it a state reply.");
                            current = None;
                        }
                    }
                    InstanceEvent::Lost { connection } => {
                        if current.as_ref().is_some_and(|c| c.connection == connection) {
                            current = None;
                            warn!(instance = %id, connection, "Instance lost; its container restarts it.");
                        }
                    }
                }
            }
            changed = plans.changed() => {
                if changed.is_err() {
                    return;
                }
                let plan = plans.borrow_and_update().clone();
                if let Some(plan) = plan {
                    sync(&shared, &context, &mut current, &plan).await;
                    sync_throttle(&id, &mut current, throttled_now(&mut throttle)).await;
                    if plan.state == TopologyState::Killed as i32 {
                        // Returning drops the connection, which closes it (the reader ends too).
                        return;
                    }
                }
            }
            changed = throttle.changed(), if spout => {
                if changed.is_err() {
                    return;
                }
                sync_throttle(&id, &mut current, throttled_now(&mut throttle)).await;
            }
            batch = next_batch(&mut tuples, shared.max_frame_bytes), if current.as_ref().is_some_and(|c| c.ready) => {
                // Its bytes stay counted until the write is over.
                let Some((batch, _in_flight)) = batch else { return };
                let Some(conn) = current.as_mut() else { continue };
                let count = batch.tuples.len();
                let frame = Outbound::Tuples {
                    field: raw::STREAM_MANAGER_TO_INSTANCE_TUPLES,
                    batch,
                };
                if let Err(err) = conn.sink.send(frame).await {
                    warn!(instance = %id, error = %err, dropped_tuples = count, "Instance lost while sending it tuples.");
                    current = None;
                }
            }
            events = trees.recv() => {
                let Some(mut events) = events else { return };
                // Take whatever else is queued: one frame for all of it.
                let mut taken = 1;
                while events.len() < MAX_TREE_EVENTS_PER_FRAME {
                    match trees.try_recv() {
                        Ok(more) => {
                            events.extend(more);
                            taken += 1;
                        }
                        Err(_) => break,
                    }
                }
                // Counted as written once this arm is over, whatever it does.
                let _taken = direct.as_ref().map(|Unpublish(port)| TreesTaken(port, taken));
                let Some(conn) = current.as_mut().filter(|c| c.ready) else {
                    // The instance fails every pending tree when it (re)connects.
                    debug!(instance = %id, dropped = events.len(), "Dropping tree events: the instance is not connected.");
                    continue;
                };
                let count = events.len();
                let message = StreamManagerToInstance {
                    message: Some(stream_manager_to_instance::Message::TreeEvents(TreeEvents { events })),
                };
                if let Err(err) = conn.sink.send(encode_message(&message).into()).await {
                    warn!(instance = %id, error = %err, dropped_tree_events = count, "Instance lost while sending it tree events.");
                    current = None;
                }
            }
        }
    }
}

/// Unpublishes a writer's direct queue when the writer ends.
struct Unpublish(Arc<crate::router::DirectPort>);

impl Drop for Unpublish {
    fn drop(&mut self) {
        self.0.publish(None);
    }
}

/// Counts batches of tree events the writer took as written when dropped.
struct TreesTaken<'a>(&'a crate::router::DirectPort, usize);

impl Drop for TreesTaken<'_> {
    fn drop(&mut self) {
        self.0.trees_taken(self.1);
    }
}

fn unix_now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, reason = "test code")]
    use super::*;
    use bytes::Bytes;

    #[tokio::test]
    async fn an_in_process_connection_carries_whole_frames_both_ways_and_ends_like_a_socket() {
        let (to_instance, mut instance_reads) = mpsc::channel(2);
        let (instance_writes, from_instance) = mpsc::channel(2);
        let mut c = InstanceConnection::from_channels(
            "count-1".into(),
            0,
            to_instance,
            from_instance,
            8,
            None,
        );
        assert_eq!(c.instance_id, "count-1");

        c.sink
            .send(Bytes::from_static(b"batch").into())
            .await
            .unwrap();
        assert_eq!(
            instance_reads.recv().await.unwrap(),
            Bytes::from_static(b"batch")
        );

        instance_writes
            .send(Bytes::from_static(b"ready"))
            .await
            .unwrap();
        assert_eq!(
            c.stream.next().await.unwrap().unwrap(),
            Bytes::from_static(b"ready")
        );

        // A frame over the cap fails the connection as the socket codec does.
        instance_writes
            .send(Bytes::from_static(b"123456789"))
            .await
            .unwrap();
        let err = c.stream.next().await.unwrap().unwrap_err();
        assert!(
            matches!(
                err,
                FrameError::TooLarge {
                    length: 9,
                    limit: 8
                }
            ),
            "{err}"
        );
        assert!(
            c.stream.next().await.is_none(),
            "nothing after a refused frame"
        );

        // The instance closing its side: sends fail, as on a closed socket.
        drop(instance_reads);
        let err = c
            .sink
            .send(Bytes::from_static(b"late").into())
            .await
            .unwrap_err();
        assert!(
            err.to_string().contains("closed its in-process channel"),
            "{err}"
        );
    }

    #[tokio::test]
    async fn an_in_process_connection_ends_when_the_instance_closes_it() {
        let (to_instance, _instance_reads) = mpsc::channel(1);
        let (instance_writes, from_instance) = mpsc::channel(1);
        let mut c = InstanceConnection::from_channels(
            "split-0".into(),
            0,
            to_instance,
            from_instance,
            64,
            None,
        );
        drop(instance_writes);
        assert!(c.stream.next().await.is_none());
    }
}
