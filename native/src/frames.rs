//! Frames between the executors of the embedded JVM and the stream manager,
//! through direct `ByteBuffer`s: the natives of the shim's
//! `dev.egret.instance.JniFrameChannel`.
//!
//! One connection ("port") per `open0` call, as one Unix socket connection
//! per `connect()` with the socket bridge: the stream manager gets a
//! [`NativeConnection`] (two bounded queues of frames) and cannot tell it
//! from a socket's frames. Every native call carries one whole frame (a
//! batch of tuples, acks, tree events or a control message), never one
//! tuple.
//!
//! Buffer ownership:
//! - a direct buffer is the Java channel's; Rust reads (`send0`) or writes
//!   (`receive0`) it only during the native call that is handed it, under
//!   the Java side's write or read lock, and keeps no pointer after returning;
//! - the frame's bytes, once copied out of (or before being copied into) the
//!   buffer, are a `Bytes` owned by the port's bounded queue, then by
//!   whichever side took it.
//!
//! Routing on the sending thread: while the stream manager serves a port it
//! installs a [`SendPath`] route. A frame sent when nothing sent before it is
//! still queued or being handled is offered to that route first, on the
//! executor's own thread: a batch of tuples and acks that every destination
//! can take without waiting is routed there and then (no hand-off to a
//! stream manager thread). Anything else (a control message, a full
//! destination, a throttled spout) goes through the queue as before, and so
//! does every frame after it until the stream manager has handled it, so a
//! port's frames keep their order.
//!
//! Blocking: `send0` blocks while the stream manager's queue toward the
//! router is full (backpressure, as a full socket blocks its writer);
//! `trySend0` never waits: it queues the frame only when there is room (the
//! executor's own thread sends this way, and leaves a frame that does not
//! fit to its writer thread);
//! `receive0` blocks until a frame comes; `receiveWithin0` waits at most a
//! timeout and returns early, without a frame, after `wake0` (the executor
//! reads its own frames this way and is woken by its writer); all return at
//! once when the port is closed by either side (`close0`, or the stream
//! manager dropping its halves).

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use bytes::Bytes;
use jni::objects::{JByteBuffer, JClass, JString};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned, NativeMethod, jni_str};
use tokio::sync::{Notify, mpsc};
use tokio_util::sync::CancellationToken;

use crate::errors::{BridgeError, ThrowBridgeError};

/// The binary name of the Java class whose natives these are.
pub const CHANNEL_CLASS: &str = "dev.egret.instance.JniFrameChannel";

/// Frames one port's queues hold in each direction (each at most the frame cap).
pub const PORT_QUEUE_FRAMES: usize = 8;

/// One executor connection, as the stream manager receives it.
#[derive(Debug)]
pub struct NativeConnection {
    /// The instance id the executor connected as.
    pub instance_id: String,
    /// How often the executor was restarted in the JVM before this run.
    pub restarts: u64,
    /// Frames toward the executor (closing it closes the executor's reads).
    pub to_instance: mpsc::Sender<Bytes>,
    /// Frames from the executor (ends when the executor closes its channel).
    pub from_instance: mpsc::Receiver<Bytes>,
    /// Where the stream manager installs its route on the sending thread.
    pub send_path: Arc<SendPath>,
}

/// Routes one frame on the thread that sends it: true when it did (the frame
/// is then handled), false when the frame must be queued as usual.
pub type RouteNow = Box<dyn Fn(&Bytes) -> bool + Send + Sync>;

/// A port's route on the sending thread, installed by the stream manager
/// while it serves the port, and the count of frames queued toward it that
/// it has not handled yet (the route is only tried when that count is 0).
#[derive(Default)]
pub struct SendPath {
    route: RwLock<Option<RouteNow>>,
    queued: AtomicUsize,
    /// Frames still queued without being offered, after the route refused one.
    skip: AtomicUsize,
}

/// Frames queued without being offered to the route after it refused one: a
/// refusal mostly means the pipeline is busy (a destination has not taken
/// what it was handed), when the reader routing in parallel with the sender
/// is faster, and offering costs a decode.
pub const SKIP_AFTER_REFUSAL: usize = 8;

impl std::fmt::Debug for SendPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SendPath")
            .field("queued", &self.queued.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl SendPath {
    /// Frames are offered to `route` from now on.
    pub fn install(&self, route: RouteNow) {
        *self.route.write().unwrap_or_else(|e| e.into_inner()) = Some(route);
    }

    /// No frame is offered to a route any more (the stream manager stopped serving the port).
    pub fn clear(&self) {
        *self.route.write().unwrap_or_else(|e| e.into_inner()) = None;
    }

    /// The stream manager has handled one frame it took from the port's queue.
    pub fn handled(&self) {
        // Never below 0, whatever a caller does.
        let _ = self
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_sub(1));
    }

    /// Whether the frame sent now is offered to the route: no frame sent
    /// before is still queued or being handled, and no refusal was met in the
    /// last [`SKIP_AFTER_REFUSAL`] frames (each call counts one). The port's
    /// sends are serialized by its Java channel.
    fn offers(&self) -> bool {
        if self.queued.load(Ordering::Acquire) != 0 {
            return false;
        }
        let skip = self.skip.load(Ordering::Relaxed);
        if skip > 0 {
            self.skip.store(skip - 1, Ordering::Relaxed);
            return false;
        }
        true
    }

    /// Offers `frame` to the route (after [`SendPath::offers`]): true when it
    /// was routed; false, as a refusal, when none is installed.
    fn try_route(&self, frame: &Bytes) -> bool {
        let routed = match self
            .route
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
        {
            Some(route) => route(frame),
            None => false,
        };
        if !routed {
            self.skip.store(SKIP_AFTER_REFUSAL, Ordering::Relaxed);
        }
        routed
    }
}

struct Port {
    to_sm: mpsc::Sender<Bytes>,
    send_path: Arc<SendPath>,
    from_sm: Mutex<Inbound>,
    closed: CancellationToken,
    /// Ends a [`receive_within`] early (a permit is kept when nobody waits).
    wake: Notify,
}

struct Inbound {
    queue: mpsc::Receiver<Bytes>,
    /// A frame too large for the last buffer offered: given to the next call.
    pending: Option<Bytes>,
}

struct Host {
    connections: mpsc::Sender<NativeConnection>,
    ports: Mutex<HashMap<jlong, Arc<Port>>>,
    next: AtomicI64,
}

static HOST: OnceLock<Host> = OnceLock::new();

/// Where new executor connections go; set once per process (the embedded
/// JVM is one per process too). An error when already set.
pub fn install(connections: mpsc::Sender<NativeConnection>) -> Result<(), BridgeError> {
    HOST.set(Host {
        connections,
        ports: Mutex::new(HashMap::new()),
        next: AtomicI64::new(1),
    })
    .map_err(|_| BridgeError::Bridge("the frame bridge is installed already".to_owned()))
}

fn host() -> Result<&'static Host, BridgeError> {
    HOST.get()
        .ok_or_else(|| BridgeError::Bridge("the frame bridge is not installed".to_owned()))
}

fn port(handle: jlong) -> Result<Arc<Port>, BridgeError> {
    let host = host()?;
    let ports = host
        .ports
        .lock()
        .map_err(|_| BridgeError::Bridge("the port table is poisoned".to_owned()))?;
    ports
        .get(&handle)
        .cloned()
        .ok_or_else(|| BridgeError::Bridge(format!("no open frame channel {handle}")))
}

/// Opens a port for `instance_id` (restarted `restarts` times in the JVM so
/// far) and hands its other end to the stream manager.
pub fn open(instance_id: String, restarts: u64) -> Result<jlong, BridgeError> {
    let host = host()?;
    let (to_sm, from_instance) = mpsc::channel(PORT_QUEUE_FRAMES);
    let (to_instance, from_sm) = mpsc::channel(PORT_QUEUE_FRAMES);
    let send_path = Arc::new(SendPath::default());
    let connection = NativeConnection {
        instance_id,
        restarts,
        to_instance,
        from_instance,
        send_path: Arc::clone(&send_path),
    };
    host.connections
        .blocking_send(connection)
        .map_err(|_| BridgeError::Bridge("the stream manager is gone".to_owned()))?;
    let handle = host.next.fetch_add(1, Ordering::Relaxed);
    let port = Arc::new(Port {
        to_sm,
        send_path,
        from_sm: Mutex::new(Inbound {
            queue: from_sm,
            pending: None,
        }),
        closed: CancellationToken::new(),
        wake: Notify::new(),
    });
    host.ports
        .lock()
        .map_err(|_| BridgeError::Bridge("the port table is poisoned".to_owned()))?
        .insert(handle, port);
    Ok(handle)
}

/// Routes one frame on this thread ([`SendPath`]) or queues it toward the
/// stream manager, waiting for room; false when the port is closed.
pub fn send(handle: jlong, frame: Bytes) -> Result<bool, BridgeError> {
    let port = port(handle)?;
    if port.closed.is_cancelled() {
        return Ok(false);
    }
    if port.send_path.offers() && port.send_path.try_route(&frame) {
        return Ok(true);
    }
    port.send_path.queued.fetch_add(1, Ordering::AcqRel);
    let sent = futures::executor::block_on(async {
        tokio::select! {
            sent = port.to_sm.send(frame) => sent.is_ok(),
            () = port.closed.cancelled() => false,
        }
    });
    if !sent {
        port.send_path.handled();
    }
    Ok(sent)
}

/// What [`try_send`] did with a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrySent {
    /// Queued toward the stream manager.
    Sent,
    /// Not queued: the port's queue is full (backpressure); try the blocking send.
    Full,
    /// Not queued: the port is closed.
    Closed,
}

/// Routes one frame on this thread ([`SendPath`]) or queues it toward the
/// stream manager if its queue has room now, never waiting. `frame` makes the
/// frame's bytes; when no route may take it, it is called only once a place
/// in the queue is held for them (no copy of a frame that would not be
/// queued).
pub fn try_send(
    handle: jlong,
    frame: impl FnOnce() -> Result<Bytes, BridgeError>,
) -> Result<TrySent, BridgeError> {
    let port = port(handle)?;
    if port.closed.is_cancelled() {
        return Ok(TrySent::Closed);
    }
    if port.send_path.offers() {
        let bytes = frame()?;
        if port.send_path.try_route(&bytes) {
            return Ok(TrySent::Sent);
        }
        return try_queue(&port, || Ok(bytes));
    }
    try_queue(&port, frame)
}

/// Queues the frame `frame` makes if the port's queue has room now (made only then).
fn try_queue(
    port: &Port,
    frame: impl FnOnce() -> Result<Bytes, BridgeError>,
) -> Result<TrySent, BridgeError> {
    let permit = match port.to_sm.try_reserve() {
        Ok(permit) => permit,
        Err(mpsc::error::TrySendError::Full(())) => return Ok(TrySent::Full),
        Err(mpsc::error::TrySendError::Closed(())) => return Ok(TrySent::Closed),
    };
    let bytes = frame()?;
    port.send_path.queued.fetch_add(1, Ordering::AcqRel);
    permit.send(bytes);
    Ok(TrySent::Sent)
}

/// The next frame from the stream manager, copied by `fill` when it takes
/// it. `fill` gets the frame and returns false when it does not fit (the
/// frame is kept for the next call). Returns the frame's length, or -1 when
/// the port is closed.
pub fn receive(handle: jlong, fill: impl FnOnce(&[u8]) -> bool) -> Result<i64, BridgeError> {
    receive_frame(handle, None, fill)
}

/// What [`receive_within`] returns when no frame came in time or it was woken.
pub const NO_FRAME: i64 = -2;

/// Unparks the thread that polls with it.
struct ThreadWaker(std::thread::Thread);

impl Wake for ThreadWaker {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.0.unpark();
    }
}

thread_local! {
    static THREAD_WAKER: Waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
}

/// Polls `future` on this thread, parked in between, until it is ready or
/// `deadline` passes (None then).
fn block_on_until<F: Future>(future: F, deadline: Instant) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    THREAD_WAKER.with(|waker| {
        let mut cx = Context::from_waker(waker);
        loop {
            if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return Some(out);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            std::thread::park_timeout(deadline - now);
        }
    })
}

/// [`receive`] waiting at most `timeout` (zero: only a frame already
/// queued), and ended early by [`wake`]: the frame's length, -1 when the
/// port is closed, [`NO_FRAME`] when none came.
pub fn receive_within(
    handle: jlong,
    timeout: Duration,
    fill: impl FnOnce(&[u8]) -> bool,
) -> Result<i64, BridgeError> {
    receive_frame(handle, Some(timeout), fill)
}

/// [`receive`] (`timeout` None: until a frame comes or the port closes) and
/// [`receive_within`].
fn receive_frame(
    handle: jlong,
    timeout: Option<Duration>,
    fill: impl FnOnce(&[u8]) -> bool,
) -> Result<i64, BridgeError> {
    let port = port(handle)?;
    let mut inbound = port
        .from_sm
        .lock()
        .map_err(|_| BridgeError::Bridge("a frame channel's reader panicked".to_owned()))?;
    let frame = match inbound.pending.take() {
        Some(frame) => frame,
        None => match next_frame(&port, &mut inbound.queue, timeout) {
            Ok(frame) => frame,
            Err(code) => return Ok(code),
        },
    };
    let length = i64::try_from(frame.len()).unwrap_or(i64::MAX);
    if !fill(&frame) {
        inbound.pending = Some(frame);
    }
    Ok(length)
}

/// The queue's next frame, waiting as [`receive_frame`] says; else -1 (closed)
/// or [`NO_FRAME`].
fn next_frame(
    port: &Port,
    queue: &mut mpsc::Receiver<Bytes>,
    timeout: Option<Duration>,
) -> Result<Bytes, i64> {
    let Some(timeout) = timeout else {
        return futures::executor::block_on(async {
            tokio::select! {
                frame = queue.recv() => frame,
                () = port.closed.cancelled() => None,
            }
        })
        .ok_or(-1);
    };
    match queue.try_recv() {
        Ok(frame) => return Ok(frame),
        Err(mpsc::error::TryRecvError::Disconnected) => return Err(-1),
        Err(mpsc::error::TryRecvError::Empty) => {}
    }
    if port.closed.is_cancelled() {
        return Err(-1);
    }
    if timeout.is_zero() {
        return Err(NO_FRAME);
    }
    let waited = block_on_until(
        async {
            tokio::select! {
                biased;
                frame = queue.recv() => Some(frame),
                () = port.closed.cancelled() => Some(None),
                () = port.wake.notified() => None,
            }
        },
        Instant::now() + timeout,
    );
    match waited {
        Some(Some(Some(frame))) => Ok(frame),
        Some(Some(None)) => Err(-1),
        Some(None) | None => Err(NO_FRAME),
    }
}

/// Ends the port's current or next [`receive_within`] wait early.
pub fn wake(handle: jlong) -> Result<(), BridgeError> {
    port(handle)?.wake.notify_one();
    Ok(())
}

/// Closes a port: both directions end, a blocked `send0`/`receive0` returns.
pub fn close(handle: jlong) -> Result<(), BridgeError> {
    let host = host()?;
    let removed = host
        .ports
        .lock()
        .map_err(|_| BridgeError::Bridge("the port table is poisoned".to_owned()))?
        .remove(&handle);
    if let Some(port) = removed {
        port.closed.cancel();
    }
    Ok(())
}

/// The address of a direct buffer that holds at least `length` bytes.
fn buffer_address(
    env: &Env<'_>,
    buffer: &JByteBuffer<'_>,
    length: usize,
) -> Result<*mut u8, BridgeError> {
    let address = env
        .get_direct_buffer_address(buffer)
        .map_err(|e| BridgeError::Bridge(format!("not a direct ByteBuffer: {e}")))?;
    let capacity = env
        .get_direct_buffer_capacity(buffer)
        .map_err(|e| BridgeError::Bridge(format!("not a direct ByteBuffer: {e}")))?;
    if length > capacity {
        return Err(BridgeError::Bridge(format!(
            "a frame of {length} bytes does not fit a buffer of {capacity}"
        )));
    }
    Ok(address)
}

/// A copy of the direct buffer's first `length` bytes.
fn copy_out(env: &Env<'_>, buffer: &JByteBuffer<'_>, length: usize) -> Result<Bytes, BridgeError> {
    if length == 0 {
        return Ok(Bytes::new());
    }
    let address = buffer_address(env, buffer, length)?;
    // SAFETY: the JVM keeps a direct buffer's memory valid for its capacity
    // while the buffer is reachable (`buffer` is a local reference of this
    // native call) and `length` is within the capacity; the Java channel
    // holds its write lock, so nothing else writes these bytes meanwhile.
    #[allow(unsafe_code)]
    let bytes = unsafe { std::slice::from_raw_parts(address, length) };
    Ok(Bytes::copy_from_slice(bytes))
}

/// Copies `frame` to the start of the direct buffer.
fn copy_in(env: &Env<'_>, buffer: &JByteBuffer<'_>, frame: &[u8]) -> Result<(), BridgeError> {
    if frame.is_empty() {
        return Ok(());
    }
    let address = buffer_address(env, buffer, frame.len())?;
    // SAFETY: as in `copy_out`; the Java channel holds its read lock, so
    // nothing else reads or writes the buffer during the copy.
    #[allow(unsafe_code)]
    unsafe {
        std::ptr::copy_nonoverlapping(frame.as_ptr(), address, frame.len());
    }
    Ok(())
}

extern "system" fn open0<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    instance_id: JString<'local>,
    restarts: jint,
) -> jlong {
    unowned
        .with_env(|env| -> Result<jlong, BridgeError> {
            let id = instance_id
                .try_to_string(env)
                .map_err(|e| BridgeError::from_jni(env, e))?;
            let restarts = u64::try_from(restarts).map_err(|_| {
                BridgeError::Bridge(format!("a negative restart count {restarts} for {id}"))
            })?;
            open(id, restarts)
        })
        .resolve::<ThrowBridgeError>()
}

/// A frame length from Java, refused when negative.
fn frame_length(length: jint) -> Result<usize, BridgeError> {
    usize::try_from(length)
        .map_err(|_| BridgeError::Bridge(format!("a negative frame length {length}")))
}

extern "system" fn send0<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    buffer: JByteBuffer<'local>,
    length: jint,
) -> jint {
    unowned
        .with_env(|env| -> Result<jint, BridgeError> {
            let length = frame_length(length)?;
            let frame = copy_out(env, &buffer, length)?;
            Ok(if send(handle, frame)? { 0 } else { -1 })
        })
        .resolve::<ThrowBridgeError>()
}

/// 1 when the frame was queued, 0 when the queue was full (nothing queued),
/// -1 when the port is closed.
extern "system" fn try_send0<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    buffer: JByteBuffer<'local>,
    length: jint,
) -> jint {
    unowned
        .with_env(|env| -> Result<jint, BridgeError> {
            let length = frame_length(length)?;
            Ok(match try_send(handle, || copy_out(env, &buffer, length))? {
                TrySent::Sent => 1,
                TrySent::Full => 0,
                TrySent::Closed => -1,
            })
        })
        .resolve::<ThrowBridgeError>()
}

extern "system" fn receive0<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    buffer: JByteBuffer<'local>,
) -> jlong {
    unowned
        .with_env(|env| -> Result<jlong, BridgeError> {
            receive_into(env, &buffer, |fill| receive(handle, fill))
        })
        .resolve::<ThrowBridgeError>()
}

/// Copies the next frame into `buffer` if it fits (else keeps it for the
/// next call): the frame's length, -1 when closed, [`NO_FRAME`] when none.
fn receive_into(
    env: &mut Env<'_>,
    buffer: &JByteBuffer<'_>,
    receive: impl FnOnce(&mut dyn FnMut(&[u8]) -> bool) -> Result<i64, BridgeError>,
) -> Result<i64, BridgeError> {
    let capacity = env
        .get_direct_buffer_capacity(buffer)
        .map_err(|e| BridgeError::Bridge(format!("not a direct ByteBuffer: {e}")))?;
    let mut failed = None;
    let length = receive(&mut |frame| {
        if frame.len() > capacity {
            return false;
        }
        if let Err(err) = copy_in(env, buffer, frame) {
            failed = Some(err);
        }
        true
    })?;
    match failed {
        Some(err) => Err(err),
        None => Ok(length),
    }
}

extern "system" fn receive_within0<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
    buffer: JByteBuffer<'local>,
    timeout_nanos: jlong,
) -> jlong {
    unowned
        .with_env(|env| -> Result<jlong, BridgeError> {
            let timeout = Duration::from_nanos(u64::try_from(timeout_nanos).unwrap_or(0));
            receive_into(env, &buffer, |fill| receive_within(handle, timeout, fill))
        })
        .resolve::<ThrowBridgeError>()
}

extern "system" fn wake0<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    unowned
        .with_env(|_env| -> Result<(), BridgeError> { wake(handle) })
        .resolve::<ThrowBridgeError>();
}

extern "system" fn close0<'local>(
    mut unowned: EnvUnowned<'local>,
    _class: JClass<'local>,
    handle: jlong,
) {
    unowned
        .with_env(|_env| -> Result<(), BridgeError> { close(handle) })
        .resolve::<ThrowBridgeError>();
}

/// Registers the natives on `class` (the shim's `JniFrameChannel`).
pub fn register(env: &mut Env<'_>, class: &JClass<'_>) -> Result<(), BridgeError> {
    // SAFETY: each function pointer matches its JNI signature: a static
    // native gets (EnvUnowned, JClass, args...) and returns the signature's
    // type (J = jlong, I = jint, V = ()); `Ljava/nio/ByteBuffer;` is a
    // JByteBuffer, `Ljava/lang/String;` a JString.
    #[allow(unsafe_code)]
    let methods = unsafe {
        [
            NativeMethod::from_raw_parts(
                jni_str!("open0"),
                jni_str!("(Ljava/lang/String;I)J"),
                open0 as *mut std::ffi::c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("send0"),
                jni_str!("(JLjava/nio/ByteBuffer;I)I"),
                send0 as *mut std::ffi::c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("trySend0"),
                jni_str!("(JLjava/nio/ByteBuffer;I)I"),
                try_send0 as *mut std::ffi::c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("receive0"),
                jni_str!("(JLjava/nio/ByteBuffer;)J"),
                receive0 as *mut std::ffi::c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("receiveWithin0"),
                jni_str!("(JLjava/nio/ByteBuffer;J)J"),
                receive_within0 as *mut std::ffi::c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("wake0"),
                jni_str!("(J)V"),
                wake0 as *mut std::ffi::c_void,
            ),
            NativeMethod::from_raw_parts(
                jni_str!("close0"),
                jni_str!("(J)V"),
                close0 as *mut std::ffi::c_void,
            ),
        ]
    };
    // SAFETY: as above, the pointers match the signatures.
    #[allow(unsafe_code)]
    let registered = unsafe { env.register_native_methods(class, &methods) };
    registered.map_err(|e| BridgeError::from_jni(env, e))
}
