//! Routing by task id, the ledger updates of each batch, and the
//! per-destination outbound queues and writers.
//!
//! Invariants:
//! - there is one bounded queue per destination (each local instance, each
//!   peer stream manager), created at startup, so tuples for a destination
//!   that has not connected yet wait there (bounded) instead of being lost;
//! - [`Router::route`] awaits on a full queue (a hard cap in batches): the
//!   reader that called it stops reading its source;
//! - each queue has a [`Gauge`] of the encoded bytes it holds, counted from
//!   before a batch enters the queue until its writer has written it (or
//!   dropped it), so a writer blocked on a slow socket still counts what it
//!   holds; the gauges drive the spout backpressure (`backpressure`);
//! - a batch's `acks` are applied (local ledger) or queued (peer) before its
//!   tuples are routed (contracts, "Acking"); an ack whose spout task is local
//!   goes to the ledger, else to the peer hosting the task, never further
//!   when it came from a peer (no forwarding loops);
//! - tree events go to the instance hosting the spout task through a bounded
//!   queue that never blocks the router: when it is full they are dropped and
//!   counted (the spout's own 3 × timeout safety net then fails the tree);
//! - a queue has exactly one consumer, its destination's writer, which sends
//!   whatever has accumulated as one `TupleBatch` frame (re-batching), but
//!   never merges past its merge cap ([`merge_cap`]: at most
//!   [`MAX_BATCH_BYTES`], a quarter of the watermarks' gap, half the frame
//!   cap): a batch that would cross it is held back for the next frame, so
//!   what one frame hands an instance (whose input queue is bounded in bytes)
//!   stays small, and a queue's gauge drains in steps finer than the gap
//!   between the watermarks;
//! - with the JNI bridge, a batch may be routed on the executor thread that
//!   sent it ([`Router::route_now`]) when every destination takes it without
//!   waiting; a local instance that is ready and whose queue and writer hold
//!   no tuples (its gauge is 0) is then handed its frame directly
//!   ([`DirectPort`]), and tree events likewise when none are queued or being
//!   written for it: nothing overtakes what one source sent before, since a
//!   source's later batches only go direct once the gauge shows its earlier
//!   ones written;
//! - a tuple is never decoded: the router reads its `dest_task` from the wire
//!   and forwards its encoded bytes ([`RawBatch`]), a slice of the frame it
//!   came in, copied once, into the frame it goes out in.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use egret_metrics::{MetricKey, Registry};
use egret_proto::frame::encode_message;
use egret_proto::raw::{self, Decoded, Outbound, RawBatch};
use egret_proto::v1::{
    AckEntry, InstanceToStreamManager, StreamManagerToInstance, TreeEvent, TreeEvents,
    stream_manager_to_instance,
};
use tokio::sync::mpsc;
use tracing::{debug, warn};

use crate::backpressure::{Gauge, Pressure, QueueKey};
use crate::delivery::{DeliveryTable, Destination};
use crate::ledger::Ledger;

/// Batches a queue holds before its senders wait.
pub(crate) const QUEUE_CAPACITY: usize = 1024;
/// Batches of tree events queued toward one instance before they are dropped.
pub(crate) const TREE_QUEUE_CAPACITY: usize = 1024;
/// At most one warning per this interval about dropped tuples.
const WARN_INTERVAL: Duration = Duration::from_secs(1);
/// Tuples (and acks) re-batched into one frame at most.
const MAX_TUPLES_PER_FRAME: usize = 16 * 1024;
/// Tree events sent to an instance in one frame at most (about 30 bytes each).
pub(crate) const MAX_TREE_EVENTS_PER_FRAME: usize = 16 * 1024;
/// Encoded bytes of queued batches a writer merges into one frame at most,
/// whatever the watermarks: large enough that per-frame costs do not matter
/// (about 1000 tuples of 1 KiB). With the default watermarks (512 KiB /
/// 256 KiB per destination) [`merge_cap`] is lower, 64 KiB, so a congested
/// instance is handed its backlog in steps it can hold (its input queue,
/// `egret.instance.inbound.bytes`, is 256 KiB). A single queued batch larger
/// than the cap still goes out alone.
pub(crate) const MAX_BATCH_BYTES: u64 = 1 << 20;
/// The merge cap never goes below this (tiny watermarks in tests).
const MIN_BATCH_BYTES: u64 = 16 * 1024;

/// Bytes a writer merges into one frame at most: [`MAX_BATCH_BYTES`], or a
/// quarter of the gap between the watermarks when that is smaller. A queue's
/// gauge only drops when its writer has written a frame, so frames as large as
/// the gap would make it jump from above the high watermark to empty: the
/// throttle would then lift only when a slow instance had consumed a whole
/// watermark of work, in long stop-and-go cycles.
pub(crate) fn merge_cap(settings: &crate::settings::BackpressureSettings) -> u64 {
    let gap = settings
        .high_watermark
        .saturating_sub(settings.low_watermark);
    (gap / 4).clamp(MIN_BATCH_BYTES, MAX_BATCH_BYTES)
}
/// The component name of the ledger's own metrics.
pub(crate) const LEDGER_COMPONENT: &str = "__ledger";

/// The sending half of a framed connection (Unix or TCP, or the JNI bridge's
/// queues), owned by a writer.
pub type FrameSink = std::pin::Pin<
    Box<dyn futures::Sink<egret_proto::raw::Outbound, Error = egret_proto::FrameError> + Send>,
>;

/// A batch in an outbound queue, with the bytes its gauge counts for it.
pub(crate) struct Queued {
    batch: RawBatch,
    bytes: u64,
}

pub(crate) type TupleSender = mpsc::Sender<Queued>;

/// The receiving end of an outbound queue, owned by its destination's writer.
pub(crate) struct TupleReceiver {
    rx: mpsc::Receiver<Queued>,
    gauge: Arc<Gauge>,
    /// A batch taken from `rx` that did not fit in the previous frame; it goes
    /// first in the next one. Still counted by the gauge.
    held: Option<Queued>,
    /// Bytes merged into one frame at most ([`merge_cap`]).
    merge_cap: u64,
    /// A local instance's queue that the router may fill itself.
    pub(crate) direct: Option<Arc<DirectPort>>,
}

/// A local instance's own queue of frames (the JNI bridge's), published by
/// its writer while its connection is ready, which the router fills itself
/// when the writer has nothing pending: tuples when the slot's gauge is 0,
/// tree events when no batch of them is queued or being written.
#[derive(Default)]
pub(crate) struct DirectPort {
    sender: RwLock<Option<mpsc::Sender<Bytes>>>,
    /// Batches of tree events in the slot's tree queue or being written.
    trees_pending: AtomicUsize,
}

impl DirectPort {
    /// The writer's current, ready connection's queue, or none.
    pub(crate) fn publish(&self, sender: Option<mpsc::Sender<Bytes>>) {
        *self.sender.write().unwrap_or_else(|e| e.into_inner()) = sender;
    }

    /// A place in the published queue, if there is one with room now; with
    /// `only_if_empty`, only if the instance has taken everything queued there
    /// (it keeps up: handing it a frame now costs no latency).
    fn reserve(&self, only_if_empty: bool) -> Option<mpsc::OwnedPermit<Bytes>> {
        let guard = self.sender.read().unwrap_or_else(|e| e.into_inner());
        let sender = guard.as_ref()?;
        if only_if_empty && sender.capacity() != sender.max_capacity() {
            return None;
        }
        sender.clone().try_reserve_owned().ok()
    }

    /// The writer took `batches` batches of tree events and wrote (or dropped) them.
    pub(crate) fn trees_taken(&self, batches: usize) {
        let _ = self
            .trees_pending
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                Some(n.saturating_sub(batches))
            });
    }
}
impl TupleReceiver {
    /// Bytes held by the queue and its writer now.
    #[cfg(test)]
    pub(crate) fn queued_bytes(&self) -> u64 {
        self.gauge.bytes()
    }

    /// One queued batch, uncounted at once, decoded.
    #[cfg(test)]
    #[allow(clippy::expect_used, reason = "test code: the router encoded it")]
    pub(crate) async fn recv(&mut self) -> Option<egret_proto::v1::TupleBatch> {
        let queued = match self.held.take() {
            Some(held) => held,
            None => self.rx.recv().await?,
        };
        self.gauge.remove(queued.bytes);
        Some(queued.batch.to_batch().expect("a routed batch decodes"))
    }

    #[cfg(test)]
    #[allow(clippy::expect_used, reason = "test code: the router encoded it")]
    pub(crate) fn try_recv(
        &mut self,
    ) -> Result<egret_proto::v1::TupleBatch, mpsc::error::TryRecvError> {
        let queued = match self.held.take() {
            Some(held) => held,
            None => self.rx.try_recv()?,
        };
        self.gauge.remove(queued.bytes);
        Ok(queued.batch.to_batch().expect("a routed batch decodes"))
    }
}

/// Batches a writer has taken from its queue: their bytes stay counted until
/// this is dropped (after the write, or when the batches are lost).
#[must_use]
pub(crate) struct InFlight {
    gauge: Arc<Gauge>,
    bytes: u64,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.gauge.remove(self.bytes);
    }
}
pub(crate) type TreeReceiver = mpsc::Receiver<Vec<TreeEvent>>;

/// Where a batch being routed came from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Source<'a> {
    Instance(&'a str),
    Peer(i32),
}

impl std::fmt::Display for Source<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Instance(id) => write!(f, "instance {id}"),
            Source::Peer(index) => write!(f, "stmgr-{index}"),
        }
    }
}

/// One destination of the router: its outbound queue, that queue's gauge and,
/// for a local instance, its tree event queue.
struct Slot {
    queue: TupleSender,
    gauge: Arc<Gauge>,
    /// `None` for a peer stream manager (tree events only go to local spouts).
    trees: Option<mpsc::Sender<Vec<TreeEvent>>>,
    /// `None` for a peer stream manager.
    direct: Option<Arc<DirectPort>>,
}

/// Where the router sends one task's tuples: an index into `slots`, and
/// whether that destination is a local instance.
#[derive(Debug, Clone, Copy)]
struct Route {
    slot: u32,
    local: bool,
}

/// Task id -> route, dense: task ids are `1..=N` (`delivery`), so a lookup is
/// one bounds check and an index instead of hashing every tuple's task id.
struct RouteTable(Vec<Option<Route>>);

impl RouteTable {
    fn get(&self, task: i32) -> Option<(usize, bool)> {
        let index = usize::try_from(task).ok()?;
        self.0
            .get(index)
            .copied()
            .flatten()
            .map(|r| (r.slot as usize, r.local))
    }
}

pub(crate) struct Router {
    /// task id -> index into `slots`, and whether that destination is local.
    routes: RouteTable,
    slots: Vec<Slot>,
    pressure: Arc<Pressure>,
    /// Task id -> component, for the ledger's metrics.
    components: HashMap<i32, String>,
    /// One ledger per local task, indexed by task id as `routes` is: a
    /// tree's entry lives in its spout task's ledger, so readers applying acks
    /// of different spout tasks never wait for each other.
    ledgers: Vec<Option<Mutex<Ledger>>>,
    dropped: AtomicU64,
    dropped_acks: AtomicU64,
    dropped_tree_events: AtomicU64,
    last_warning: Mutex<Option<Instant>>,
}

/// The receiving ends of the router's queues, for the writers.
pub(crate) struct Receivers {
    pub local: HashMap<String, TupleReceiver>,
    pub remote: HashMap<i32, TupleReceiver>,
    pub trees: HashMap<String, TreeReceiver>,
}

impl Router {
    pub(crate) fn new(
        table: &DeliveryTable,
        peers: &[i32],
        instances: &[String],
        pressure: Arc<Pressure>,
    ) -> (Self, Receivers) {
        // The components each destination hosts: what its congestion names.
        let mut hosted: HashMap<Destination, BTreeSet<String>> = HashMap::new();
        for (task, component) in table.task_components() {
            if let Some(destination) = table.destination(*task) {
                hosted
                    .entry(destination.clone())
                    .or_default()
                    .insert(component.clone());
            }
        }
        let mut slots: Vec<Slot> = Vec::new();
        let mut slot_of: HashMap<Destination, usize> = HashMap::new();
        let mut receivers = Receivers {
            local: HashMap::new(),
            remote: HashMap::new(),
            trees: HashMap::new(),
        };
        let cap = merge_cap(&pressure.settings);
        let mut add = |destination: Destination| {
            let (queue, rx) = mpsc::channel(QUEUE_CAPACITY);
            slot_of.insert(destination.clone(), slots.len());
            let key = match &destination {
                Destination::Local(id) => QueueKey::Instance(id.to_string()),
                Destination::Remote(index) => QueueKey::Peer(*index),
            };
            let components = hosted
                .get(&destination)
                .map(|c| c.iter().cloned().collect())
                .unwrap_or_default();
            let gauge = Arc::new(Gauge::new(key, components, Arc::clone(&pressure)));
            let direct = matches!(destination, Destination::Local(_))
                .then(|| Arc::new(DirectPort::default()));
            let rx = TupleReceiver {
                rx,
                gauge: Arc::clone(&gauge),
                held: None,
                merge_cap: cap,
                direct: direct.clone(),
            };
            let trees = match destination {
                Destination::Local(id) => {
                    receivers.local.insert(id.to_string(), rx);
                    let (tx, rx) = mpsc::channel(TREE_QUEUE_CAPACITY);
                    receivers.trees.insert(id.to_string(), rx);
                    Some(tx)
                }
                Destination::Remote(index) => {
                    receivers.remote.insert(index, rx);
                    None
                }
            };
            slots.push(Slot {
                queue,
                gauge,
                trees,
                direct,
            });
        };
        for id in instances {
            add(Destination::Local(id.as_str().into()));
        }
        for &index in peers {
            add(Destination::Remote(index));
        }
        let max_task = table
            .task_container()
            .keys()
            .next_back()
            .copied()
            .unwrap_or(0);
        let mut routes = vec![None; usize::try_from(max_task).unwrap_or(0) + 1];
        for &task in table.task_container().keys() {
            if let Some(destination) = table.destination(task)
                && let Some(&slot) = slot_of.get(destination)
                && let Ok(index) = usize::try_from(task)
                && let Some(route) = routes.get_mut(index)
            {
                *route = Some(Route {
                    slot: u32::try_from(slot).unwrap_or(u32::MAX),
                    local: matches!(destination, Destination::Local(_)),
                });
            }
        }
        let epoch = Instant::now();
        let ledgers = routes
            .iter()
            .map(|route| {
                route
                    .filter(|r| r.local)
                    .map(|_| Mutex::new(Ledger::new(epoch)))
            })
            .collect();
        let routes = RouteTable(routes);
        let router = Self {
            routes,
            slots,
            pressure,
            components: table.task_components().clone(),
            ledgers,
            dropped: AtomicU64::new(0),
            dropped_acks: AtomicU64::new(0),
            dropped_tree_events: AtomicU64::new(0),
            last_warning: Mutex::new(None),
        };
        (router, receivers)
    }

    pub(crate) fn pressure(&self) -> &Arc<Pressure> {
        &self.pressure
    }

    /// Tuples dropped so far (unknown task, or misrouted by a peer).
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Acks dropped so far (unknown spout task, or misrouted by a peer).
    pub(crate) fn dropped_acks(&self) -> u64 {
        self.dropped_acks.load(Ordering::Relaxed)
    }

    /// Tree events dropped so far (instance queue full).
    pub(crate) fn dropped_tree_events(&self) -> u64 {
        self.dropped_tree_events.load(Ordering::Relaxed)
    }

    /// The ledger of a local task, locked.
    fn lock_ledger(&self, task: i32) -> Option<std::sync::MutexGuard<'_, Ledger>> {
        let ledger = self.ledgers.get(usize::try_from(task).ok()?)?.as_ref()?;
        // Ledger operations do not panic half-way in practice; if one did, the
        // ledger is still a valid set of entries.
        Some(ledger.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Every local task's ledger, one at a time.
    fn each_ledger(&self, mut f: impl FnMut(&mut Ledger)) {
        for ledger in self.ledgers.iter().flatten() {
            f(&mut ledger.lock().unwrap_or_else(|e| e.into_inner()));
        }
    }

    /// Applies the batch's acks, then sends every tuple to its destination's
    /// queue, waiting while a queue is full.
    pub(crate) async fn route(&self, batch: RawBatch, source: Source<'_>) {
        let mut groups: Vec<RawBatch> = Vec::new();
        groups.resize_with(self.slots.len(), RawBatch::default);
        if !batch.acks.is_empty() {
            self.apply_acks(batch.acks, source, &mut groups);
        }
        for tuple in batch.tuples {
            match self.routes.get(tuple.dest_task) {
                Some((slot, local)) => {
                    if let Source::Peer(_) = source
                        && !local
                    {
                        // A peer must only send us tuples for our tasks; forwarding
                        // would risk loops between stream managers.
                        self.drop_tuple(tuple.dest_task, source, "is not hosted by this container");
                    } else if let Some(group) = groups.get_mut(slot) {
                        group.tuples.push(tuple);
                    }
                }
                None => self.drop_tuple(tuple.dest_task, source, "is not a task of the topology"),
            }
        }
        for (slot, group) in groups.into_iter().enumerate() {
            if group.is_empty() {
                continue;
            }
            let Some(Slot { queue, gauge, .. }) = self.slots.get(slot) else {
                continue;
            };
            // Counted before it enters the queue (the writer may take it out and
            // uncount it at once), and only once a slot is reserved, so that a
            // cancelled wait leaves nothing counted.
            let Ok(permit) = queue.reserve().await else {
                // Only when shutting down: the writer is gone.
                return;
            };
            let bytes = group.encoded_len() as u64;
            gauge.add(bytes);
            permit.send(Queued {
                batch: group,
                bytes,
            });
        }
    }

    /// Routes a frame an instance sends on its own thread (the JNI bridge's
    /// [`crate::instances::SendPath`]), never waiting: true when it was a
    /// batch of tuples and acks, its acks all of local spout tasks, whose
    /// every destination is a ready local instance with nothing pending (its
    /// gauge is 0) that has taken everything in its own queue: each is handed
    /// its part directly. False, with nothing done, for anything else: the
    /// frame then goes the usual way ([`Router::route`] on the connection's
    /// reader). So the sending thread routes when the pipeline keeps up (a
    /// hand-off less per frame, which at low rates is most of a frame's
    /// cost), and under load the reader's thread routes in parallel with it.
    pub(crate) fn route_now(&self, frame: &Bytes, id: &str) -> bool {
        let Ok(Decoded::Tuples(batch)) = raw::decode_message::<InstanceToStreamManager>(
            frame.clone(),
            raw::INSTANCE_TO_STREAM_MANAGER_TUPLES,
        ) else {
            return false;
        };
        let all_local = batch.acks.iter().all(|ack| {
            let task = ack.root.as_ref().map_or(0, |r| r.spout_task);
            matches!(self.routes.get(task), Some((_, true)))
        });
        if !all_local {
            return false;
        }
        let mut groups: Vec<RawBatch> = Vec::new();
        groups.resize_with(self.slots.len(), RawBatch::default);
        for tuple in batch.tuples {
            match self.routes.get(tuple.dest_task) {
                Some((slot, _)) if slot < groups.len() => groups[slot].tuples.push(tuple),
                // Dropped and counted on the usual way.
                _ => return false,
            }
        }
        let mut places = Vec::new();
        for (slot, group) in groups.iter().enumerate() {
            if group.is_empty() {
                continue;
            }
            let permit = self.slots.get(slot).and_then(|s| {
                s.direct
                    .as_ref()
                    .filter(|_| s.gauge.bytes() == 0)
                    .and_then(|d| d.reserve(true))
            });
            match permit {
                Some(permit) => places.push((slot, permit)),
                None => return false,
            }
        }
        if !batch.acks.is_empty() {
            // All local: the groups take none of them.
            self.apply_acks(batch.acks, Source::Instance(id), &mut groups);
        }
        for (slot, permit) in places {
            let Some(group) = groups.get_mut(slot) else {
                continue;
            };
            permit.send(
                Outbound::Tuples {
                    field: raw::STREAM_MANAGER_TO_INSTANCE_TUPLES,
                    batch: std::mem::take(group),
                }
                .into_body(),
            );
        }
        true
    }

    /// Local roots go to the ledger now; remote ones into their peer's group.
    fn apply_acks(&self, acks: Vec<AckEntry>, source: Source<'_>, groups: &mut [RawBatch]) {
        let now = Instant::now();
        let mut events = Vec::new();
        {
            // The ledger last locked, kept while acks are of its task.
            let mut locked: Option<(i32, std::sync::MutexGuard<'_, Ledger>)> = None;
            for ack in acks {
                let task = ack.root.as_ref().map_or(0, |r| r.spout_task);
                match self.routes.get(task) {
                    Some((_, true)) => {
                        if locked.as_ref().is_none_or(|(held, _)| *held != task) {
                            // Released first: a reader never holds two ledgers.
                            drop(locked.take());
                            locked = self.lock_ledger(task).map(|guard| (task, guard));
                        }
                        if let Some((_, ledger)) = locked.as_mut()
                            && let Some(event) = ledger.apply(&ack, now)
                        {
                            events.push((task, event));
                        }
                    }
                    Some((slot, false)) if matches!(source, Source::Instance(_)) => {
                        if let Some(group) = groups.get_mut(slot) {
                            group.acks.push(ack);
                        }
                    }
                    Some(_) => self.drop_ack(task, source, "is not hosted by this container"),
                    None => self.drop_ack(task, source, "is not a task of the topology"),
                }
            }
        }
        self.dispatch(events);
    }

    /// Sends tree events to the instances hosting their spout tasks, never waiting.
    fn dispatch(&self, events: Vec<(i32, TreeEvent)>) {
        if events.is_empty() {
            return;
        }
        let mut per_instance: Vec<Vec<TreeEvent>> = Vec::new();
        per_instance.resize_with(self.slots.len(), Vec::new);
        for (task, event) in events {
            if let Some((slot, true)) = self.routes.get(task)
                && let Some(group) = per_instance.get_mut(slot)
            {
                group.push(event);
            }
        }
        for (slot, group) in per_instance.into_iter().enumerate() {
            if group.is_empty() {
                continue;
            }
            let count = group.len() as u64;
            let Some(s) = self.slots.get(slot) else {
                continue;
            };
            let Some(group) = send_trees_direct(s.direct.as_deref(), group) else {
                continue;
            };
            if let Some(direct) = &s.direct {
                direct.trees_pending.fetch_add(1, Ordering::AcqRel);
            }
            if let Some(queue) = s.trees.as_ref()
                && queue.try_send(group).is_err()
            {
                if let Some(direct) = &s.direct {
                    direct.trees_taken(1);
                }
                let total = self.dropped_tree_events.fetch_add(count, Ordering::Relaxed) + count;
                if self.warn_now() {
                    warn!(
                        dropped_total = total,
                        "Dropping tree events: the instance's queue is full."
                    );
                }
            }
        }
    }

    /// Fails every pending tree of the local spout tasks of `component`
    /// (effectively once: the checkpoint spout's, after a restart elsewhere).
    pub(crate) fn fail_pending_of(&self, component: &str) -> usize {
        let mut failed = Vec::new();
        for (&task, name) in &self.components {
            if name == component
                && let Some(mut ledger) = self.lock_ledger(task)
            {
                failed.extend(ledger.fail_all());
            }
        }
        let count = failed.len();
        self.dispatch(
            failed
                .into_iter()
                .map(|e| (e.root.as_ref().map_or(0, |r| r.spout_task), e))
                .collect(),
        );
        count
    }

    /// Rotates the ledger (every T/2): trees in the oldest bucket time out.
    pub(crate) fn rotate_ledger(&self) -> usize {
        let mut expired = Vec::new();
        self.each_ledger(|ledger| expired.extend(ledger.rotate()));
        let count = expired.len();
        if count > 0 {
            debug!(expired = count, "Tuple trees timed out.");
        }
        self.dispatch(
            expired
                .into_iter()
                .map(|e| (e.root.as_ref().map_or(0, |r| r.spout_task), e))
                .collect(),
        );
        count
    }

    /// Copies the ledger's counters into the metrics registry (contracts,
    /// "Metrics snapshots").
    pub(crate) fn publish_metrics(&self, registry: &Registry) {
        let (mut pending, mut bytes, mut late) = (0, 0, 0);
        self.each_ledger(|ledger| {
            for (&task, stats) in ledger.task_stats() {
                let component = self.components.get(&task).map_or("", String::as_str);
                let key = |name: &str| MetricKey::new(name, component, task);
                registry.set(key("__ack-count"), stats.acked as f64);
                registry.set(key("__fail-count"), stats.failed as f64);
                registry.set(key("__timeout-count"), stats.timed_out as f64);
                registry.set(key("__complete-latency-ms"), stats.mean_latency_ms());
                registry.set(key("__complete-latency-p50-ms"), stats.p50_latency_ms());
                registry.set(key("__complete-latency-p99-ms"), stats.p99_latency_ms());
            }
            pending += ledger.pending();
            bytes += ledger.bytes();
            late += ledger.late;
        });
        let key = |name: &str| MetricKey::new(name, LEDGER_COMPONENT, 0);
        registry.set(key("egret.ledger.pending"), pending as f64);
        registry.set(key("egret.ledger.bytes"), bytes as f64);
        registry.set(key("egret.ledger.late"), late as f64);
        self.pressure.publish_metrics(registry);
        registry.set(key("egret.dropped.tuples"), self.dropped() as f64);
        registry.set(key("egret.dropped.acks"), self.dropped_acks() as f64);
        registry.set(
            key("egret.dropped.tree-events"),
            self.dropped_tree_events() as f64,
        );
    }

    fn warn_now(&self) -> bool {
        let mut last = self.last_warning.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if last.is_none_or(|at| now.duration_since(at) >= WARN_INTERVAL) {
            *last = Some(now);
            true
        } else {
            false
        }
    }

    fn drop_tuple(&self, task: i32, source: Source<'_>, why: &str) {
        let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
        if self.warn_now() {
            warn!(task, %source, dropped_total = dropped, "Dropping a tuple: its destination task {why}.");
        }
    }

    fn drop_ack(&self, task: i32, source: Source<'_>, why: &str) {
        let dropped = self.dropped_acks.fetch_add(1, Ordering::Relaxed) + 1;
        if self.warn_now() {
            warn!(task, %source, dropped_total = dropped, "Dropping an ack: its spout task {why}.");
        }
    }
}

/// Hands `events` straight to a ready local instance when none of its tree
/// events are queued or being written and its queue has room: `None` then,
/// else the events back for its tree queue.
fn send_trees_direct(
    direct: Option<&DirectPort>,
    events: Vec<TreeEvent>,
) -> Option<Vec<TreeEvent>> {
    let Some(direct) = direct else {
        return Some(events);
    };
    if events.len() > MAX_TREE_EVENTS_PER_FRAME || direct.trees_pending.load(Ordering::Acquire) != 0
    {
        return Some(events);
    }
    let Some(permit) = direct.reserve(false) else {
        return Some(events);
    };
    let message = StreamManagerToInstance {
        message: Some(stream_manager_to_instance::Message::TreeEvents(
            TreeEvents { events },
        )),
    };
    permit.send(encode_message(&message));
    None
}

/// Waits for one queued batch, then takes whatever else is already queued,
/// up to the queue's [`merge_cap`] (or half the frame cap, if smaller) and
/// [`MAX_TUPLES_PER_FRAME`] entries, as one batch; a queued batch that would
/// cross either cap is held for the next call. `None` when the queue is
/// closed. The batch's bytes stay counted by the queue's gauge until the
/// returned [`InFlight`] is dropped.
///
/// Cancel-safe (used in `select!`): the only await is the first `recv`, and a
/// held batch is taken without awaiting.
pub(crate) async fn next_batch(
    queue: &mut TupleReceiver,
    max_frame_bytes: usize,
) -> Option<(RawBatch, InFlight)> {
    let first = match queue.held.take() {
        Some(held) => held,
        None => queue.rx.recv().await?,
    };
    let mut batch = first.batch;
    let mut in_flight = InFlight {
        gauge: Arc::clone(&queue.gauge),
        bytes: first.bytes,
    };
    let budget = queue.merge_cap.min((max_frame_bytes / 2) as u64);
    while in_flight.bytes < budget && batch.entries() < MAX_TUPLES_PER_FRAME {
        match queue.rx.try_recv() {
            Ok(more) => {
                if in_flight.bytes + more.bytes > budget
                    || batch.entries() + more.batch.entries() > MAX_TUPLES_PER_FRAME
                {
                    queue.held = Some(more);
                    break;
                }
                in_flight.bytes += more.bytes;
                // Acks may overtake tuples queued before them: XOR acking is
                // order-independent, and a tree cannot reach 0 while a tuple
                // of it is unacked.
                batch.append(more.batch);
            }
            Err(_) => break,
        }
    }
    Some((batch, in_flight))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::tests::sample;
    use bytes::Bytes;
    use egret_proto::v1::{AckKind, RootId, TreeOutcome, TupleBatch, TupleData};

    fn no_spouts() -> Arc<Pressure> {
        watermarks(1 << 20, 1 << 19)
    }

    fn watermarks(high_watermark: u64, low_watermark: u64) -> Arc<Pressure> {
        Arc::new(Pressure::new(
            1,
            crate::settings::BackpressureSettings {
                high_watermark,
                low_watermark,
            },
            Default::default(),
            Default::default(),
        ))
    }

    fn tuples(tuples: Vec<TupleData>) -> RawBatch {
        TupleBatch {
            tuples,
            acks: Vec::new(),
        }
        .into()
    }

    fn ack(kind: AckKind, spout_task: i32, key: u64, xor: u64) -> AckEntry {
        AckEntry {
            kind: kind as i32,
            root: Some(RootId { spout_task, key }),
            xor,
        }
    }

    fn tuple(task: i32, value: &'static [u8]) -> TupleData {
        TupleData {
            dest_task: task,
            src_task: 4,
            stream: "default".into(),
            values: Bytes::from_static(value),
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn routes_by_task_and_drops_unknown_tasks() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let instances: Vec<String> = ["count-0", "split-0", "words-1"].map(String::from).to_vec();
        let (router, mut rx) = Router::new(&table, &[2], &instances, no_spouts());
        router
            .route(
                tuples(vec![
                    tuple(1, b"a"),
                    tuple(3, b"b"),
                    tuple(99, b"x"),
                    tuple(2, b"c"),
                    tuple(7, b"d"),
                ]),
                Source::Instance("split-0"),
            )
            .await;
        let count = rx
            .local
            .get_mut("count-0")
            .unwrap()
            .recv()
            .await
            .unwrap()
            .tuples;
        assert_eq!(
            count.iter().map(|t| t.dest_task).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert_eq!(count[1].values, Bytes::from_static(b"c"));
        let remote = rx.remote.get_mut(&2).unwrap().recv().await.unwrap().tuples;
        assert_eq!(
            remote.iter().map(|t| t.dest_task).collect::<Vec<_>>(),
            vec![3]
        );
        let words = rx
            .local
            .get_mut("words-1")
            .unwrap()
            .recv()
            .await
            .unwrap()
            .tuples;
        assert_eq!(words[0].dest_task, 7);
        assert!(rx.local.get_mut("split-0").unwrap().try_recv().is_err());
        assert_eq!(router.dropped(), 1);

        // From a peer, a tuple for a remote task is not forwarded again.
        router
            .route(tuples(vec![tuple(3, b"b")]), Source::Peer(2))
            .await;
        assert!(rx.remote.get_mut(&2).unwrap().try_recv().is_err());
        assert_eq!(router.dropped(), 2);
    }

    #[tokio::test]
    async fn a_full_queue_makes_the_router_wait_and_writers_rebatch() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let (router, mut rx) = Router::new(&table, &[2], &["count-0".to_owned()], no_spouts());
        for _ in 0..QUEUE_CAPACITY {
            router
                .route(tuples(vec![tuple(1, b"a")]), Source::Instance("x"))
                .await;
        }
        let blocked = tokio::time::timeout(
            Duration::from_millis(50),
            router.route(tuples(vec![tuple(1, b"a")]), Source::Instance("x")),
        )
        .await;
        assert!(blocked.is_err(), "routing into a full queue must wait");
        let queue = rx.local.get_mut("count-0").unwrap();
        let held = queue.queued_bytes();
        assert!(held > 0);
        let (batch, in_flight) = next_batch(queue, 1 << 20).await.unwrap();
        assert_eq!(
            batch.tuples.len(),
            QUEUE_CAPACITY,
            "everything queued goes out as one batch"
        );
        assert_eq!(
            queue.queued_bytes(),
            held,
            "a batch being written is still counted"
        );
        drop(in_flight);
        assert_eq!(queue.queued_bytes(), 0);
    }

    #[tokio::test]
    async fn a_merged_batch_never_exceeds_the_byte_cap_and_nothing_is_lost() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        // Watermarks far apart (16 MiB / 8 MiB, the defaults before the
        // performance pass; today's are 512 KiB / 256 KiB): a quarter of the gap
        // exceeds MAX_BATCH_BYTES, so the cap is MAX_BATCH_BYTES.
        let (router, mut rx) = Router::new(
            &table,
            &[2],
            &["count-0".to_owned()],
            watermarks(16 << 20, 8 << 20),
        );
        // 40 batches of 3 tuples of 30 KiB (~90 KiB each, ~3.6 MiB in all),
        // then one batch larger than the cap on its own.
        let value = Bytes::from(vec![7u8; 30 * 1024]);
        let mut sent = 0u64;
        for _ in 0..40 {
            let batch = (0..3)
                .map(|_| {
                    sent += 1;
                    TupleData {
                        dest_task: 1,
                        src_task: 4,
                        stream: "default".into(),
                        values: value.clone(),
                        edge_id: sent,
                        ..Default::default()
                    }
                })
                .collect();
            router.route(tuples(batch), Source::Instance("x")).await;
        }
        let big = Bytes::from(vec![1u8; (MAX_BATCH_BYTES + 1024) as usize]);
        sent += 1;
        let huge = TupleData {
            dest_task: 1,
            src_task: 4,
            stream: "default".into(),
            values: big,
            edge_id: sent,
            ..Default::default()
        };
        router
            .route(tuples(vec![huge]), Source::Instance("x"))
            .await;

        let queue = rx.local.get_mut("count-0").unwrap();
        let total = queue.queued_bytes();
        let mut seen = Vec::new();
        let mut frames = 0;
        let mut taken = 0u64;
        // A frame cap far above MAX_BATCH_BYTES: the byte cap alone limits merging.
        while seen.len() < sent as usize {
            let (batch, in_flight) = next_batch(queue, 64 << 20).await.unwrap();
            frames += 1;
            let encoded = batch.encoded_len() as u64;
            if batch.tuples.len() > 1 {
                assert!(
                    in_flight.bytes <= MAX_BATCH_BYTES,
                    "a merged batch of {} bytes is above the cap",
                    in_flight.bytes
                );
                assert!(
                    encoded <= MAX_BATCH_BYTES + 1024,
                    "frame of {encoded} bytes"
                );
            }
            // Held batches are still counted until written.
            assert_eq!(queue.queued_bytes(), total - taken);
            taken += in_flight.bytes;
            seen.extend(batch.to_batch().unwrap().tuples.iter().map(|t| t.edge_id));
            drop(in_flight);
        }
        assert_eq!(seen, (1..=sent).collect::<Vec<_>>(), "in order, none lost");
        assert!(
            frames >= 5,
            "3.6 MiB plus one big batch took only {frames} frames"
        );
        assert_eq!(queue.queued_bytes(), 0);
        assert!(queue.try_recv().is_err());

        // Half the frame cap still bounds a merge when it is smaller.
        for _ in 0..4 {
            let t = TupleData {
                dest_task: 1,
                values: value.clone(),
                ..Default::default()
            };
            router.route(tuples(vec![t]), Source::Instance("x")).await;
        }
        let (batch, in_flight) = next_batch(queue, 100 * 1024).await.unwrap();
        assert_eq!(
            batch.tuples.len(),
            1,
            "two 30 KiB tuples exceed half of 100 KiB"
        );
        drop(in_flight);
    }

    #[test]
    fn the_merge_cap_is_a_quarter_of_the_watermark_gap_within_bounds() {
        let cap = |high, low| {
            merge_cap(&crate::settings::BackpressureSettings {
                high_watermark: high,
                low_watermark: low,
            })
        };
        assert_eq!(cap(16 << 20, 8 << 20), MAX_BATCH_BYTES);
        assert_eq!(cap(1 << 20, 1 << 19), 128 * 1024);
        assert_eq!(cap(1 << 20, (1 << 20) - 1), MIN_BATCH_BYTES);
        assert_eq!(cap(u64::MAX, 0), MAX_BATCH_BYTES);
    }

    #[tokio::test]
    async fn small_watermarks_make_small_frames() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let (router, mut rx) = Router::new(&table, &[2], &["count-0".to_owned()], no_spouts());
        let value = Bytes::from(vec![7u8; 10 * 1024]);
        for _ in 0..40 {
            let t = TupleData {
                dest_task: 1,
                values: value.clone(),
                ..Default::default()
            };
            router.route(tuples(vec![t]), Source::Instance("x")).await;
        }
        let queue = rx.local.get_mut("count-0").unwrap();
        let mut n = 0;
        while n < 40 {
            let (batch, in_flight) = next_batch(queue, 64 << 20).await.unwrap();
            assert!(in_flight.bytes <= 128 * 1024, "{} bytes", in_flight.bytes);
            n += batch.tuples.len();
            assert!(
                batch.tuples.len() >= 10 || n == 40,
                "merging still happens: {} tuples",
                batch.tuples.len()
            );
        }
        assert_eq!(n, 40);
    }

    /// The frame an instance sends for `batch`.
    fn sent(batch: TupleBatch) -> Bytes {
        encode_message(&InstanceToStreamManager {
            message: Some(egret_proto::v1::instance_to_stream_manager::Message::Tuples(batch)),
        })
    }

    /// A frame the router handed an instance directly.
    fn received(frame: Bytes) -> StreamManagerToInstance {
        use prost::Message;
        StreamManagerToInstance::decode(frame).unwrap()
    }

    fn received_tuples(frame: Bytes) -> Vec<(i32, Bytes)> {
        match received(frame).message {
            Some(stream_manager_to_instance::Message::Tuples(batch)) => batch
                .tuples
                .into_iter()
                .map(|t| (t.dest_task, t.values))
                .collect(),
            other => panic!("not tuples: {other:?}"),
        }
    }

    #[tokio::test]
    async fn routing_on_the_sending_thread_goes_direct_only_when_nothing_is_pending() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let instances: Vec<String> = ["count-0", "split-0", "words-1"].map(String::from).to_vec();
        let (router, mut rx) = Router::new(&table, &[2], &instances, no_spouts());
        let count = rx.local.get_mut("count-0").unwrap();
        let port = Arc::clone(count.direct.as_ref().unwrap());
        let batch = |values: Vec<(i32, &'static [u8])>| {
            sent(TupleBatch {
                tuples: values.into_iter().map(|(t, v)| tuple(t, v)).collect(),
                acks: Vec::new(),
            })
        };

        // Not published (no ready connection): refused, for the reader to route.
        assert!(!router.route_now(&batch(vec![(1, b"a")]), "split-0"));
        assert_eq!(count.queued_bytes(), 0);

        // Published, and nothing pending: handed over directly.
        let (tx, mut direct) = mpsc::channel(4);
        port.publish(Some(tx));
        assert!(router.route_now(&batch(vec![(1, b"a"), (2, b"b")]), "split-0"));
        assert_eq!(
            received_tuples(direct.try_recv().unwrap()),
            vec![(1, Bytes::from_static(b"a")), (2, Bytes::from_static(b"b"))]
        );
        assert_eq!(count.queued_bytes(), 0);

        // The reader queued a batch: nothing overtakes it, queued or being written.
        router
            .route(tuples(vec![tuple(1, b"c")]), Source::Instance("split-0"))
            .await;
        assert!(!router.route_now(&batch(vec![(1, b"d")]), "split-0"));
        let (queued, in_flight) = next_batch(count, 1 << 20).await.unwrap();
        assert_eq!(
            queued.to_batch().unwrap().tuples[0].values,
            Bytes::from_static(b"c")
        );
        assert!(!router.route_now(&batch(vec![(1, b"d")]), "split-0"));
        drop(in_flight);
        assert!(direct.try_recv().is_err(), "nothing went direct meanwhile");
        assert!(router.route_now(&batch(vec![(1, b"d")]), "split-0"));

        // The instance has not taken what it was handed: refused (the reader
        // routes while the instance catches up), and nothing half done.
        assert!(!router.route_now(&batch(vec![(1, b"e")]), "split-0"));
        assert!(!router.route_now(&batch(vec![(7, b"f"), (1, b"e")]), "split-0"));
        assert_eq!(
            received_tuples(direct.try_recv().unwrap())[0].1,
            Bytes::from_static(b"d")
        );
        assert!(direct.try_recv().is_err());
        assert!(rx.local.get_mut("words-1").unwrap().try_recv().is_err());

        // A remote task needs the peer's queue: refused.
        assert!(!router.route_now(&batch(vec![(1, b"g"), (3, b"h")]), "split-0"));
        assert!(rx.remote.get_mut(&2).unwrap().try_recv().is_err());
        assert!(direct.try_recv().is_err());

        // Unpublished (the connection is gone): refused.
        port.publish(None);
        assert!(!router.route_now(&batch(vec![(1, b"j")]), "split-0"));
        assert!(direct.try_recv().is_err());
    }

    #[tokio::test]
    async fn routing_on_the_sending_thread_leaves_what_it_cannot_finish_untouched() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let instances: Vec<String> = ["count-0", "split-0", "words-1"].map(String::from).to_vec();
        let (router, mut rx) = Router::new(&table, &[2], &instances, no_spouts());
        // Both instances ready, and a batch for them goes direct.
        let (tx, mut direct) = mpsc::channel(4);
        for id in ["count-0", "words-1"] {
            rx.local[id]
                .direct
                .as_ref()
                .unwrap()
                .publish(Some(tx.clone()));
        }
        assert!(router.route_now(
            &sent(tuples(vec![tuple(1, b"a")]).to_batch().unwrap()),
            "split-0"
        ));
        assert!(direct.try_recv().is_ok());
        let no = |frame: Bytes, why: &str| {
            assert!(!router.route_now(&frame, "split-0"), "{why}");
        };
        // An unknown task (dropped and counted by the usual way), a peer's spout
        // task in an ack, a frame that is not tuples, and garbage.
        no(
            sent(
                tuples(vec![tuple(1, b"a"), tuple(99, b"x")])
                    .to_batch()
                    .unwrap(),
            ),
            "unknown task",
        );
        no(
            sent(TupleBatch {
                tuples: vec![tuple(1, b"a")],
                acks: vec![ack(AckKind::Ack, 3, 5, 9)],
            }),
            "an ack for a remote spout task",
        );
        no(
            encode_message(&InstanceToStreamManager {
                message: Some(egret_proto::v1::instance_to_stream_manager::Message::Ready(
                    Default::default(),
                )),
            }),
            "a control message",
        );
        no(Bytes::from_static(b"\xff\xff\xff"), "garbage");
        assert_eq!(router.dropped(), 0);
        assert_eq!(router.dropped_acks(), 0);
        assert!(
            rx.local.get_mut("count-0").unwrap().try_recv().is_err(),
            "nothing routed"
        );
        assert!(rx.remote.get_mut(&2).unwrap().try_recv().is_err());

        // A full destination queue: nothing of the batch goes anywhere, and its
        // acks are not applied (the reader will route the whole frame).
        for _ in 0..QUEUE_CAPACITY {
            router
                .route(tuples(vec![tuple(7, b"w")]), Source::Instance("x"))
                .await;
        }
        no(
            sent(TupleBatch {
                tuples: vec![tuple(1, b"a"), tuple(7, b"b")],
                acks: vec![ack(AckKind::Init, 4, 77, 0b1)],
            }),
            "a full queue",
        );
        assert!(rx.local.get_mut("count-0").unwrap().try_recv().is_err());
        let mut ledger_pending = 0;
        router.each_ledger(|l| ledger_pending += l.pending());
        assert_eq!(ledger_pending, 0, "the INIT was not applied");
        assert!(direct.try_recv().is_err(), "nothing went direct");
    }

    #[tokio::test]
    async fn tree_events_go_direct_only_when_none_are_queued_or_being_written() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let instances: Vec<String> = ["count-0", "split-0", "words-1"].map(String::from).to_vec();
        let (router, mut rx) = Router::new(&table, &[2], &instances, no_spouts());
        let port = Arc::clone(rx.local["split-0"].direct.as_ref().unwrap());
        let complete = |key: u64| {
            sent(TupleBatch {
                tuples: Vec::new(),
                acks: vec![
                    ack(AckKind::Init, 4, key, 0b1),
                    ack(AckKind::Ack, 4, key, 0b1),
                ],
            })
        };
        let root = |events: &[TreeEvent]| {
            events
                .iter()
                .map(|e| e.root.unwrap().key)
                .collect::<Vec<_>>()
        };

        // Not published: the tree queue.
        assert!(router.route_now(&complete(1), "count-0"));
        let trees = rx.trees.get_mut("split-0").unwrap();
        let queued = trees.try_recv().unwrap();
        assert_eq!(root(&queued), vec![1]);
        // The writer has taken it and not written it yet: the next one queues too.
        let (tx, mut direct) = mpsc::channel(4);
        port.publish(Some(tx));
        assert!(router.route_now(&complete(2), "count-0"));
        assert!(
            direct.try_recv().is_err(),
            "nothing overtakes a batch being written"
        );
        port.trees_taken(1);
        assert_eq!(root(&trees.try_recv().unwrap()), vec![2]);
        port.trees_taken(1);

        // Nothing pending: direct, as one TreeEvents frame.
        assert!(router.route_now(&complete(3), "count-0"));
        match received(direct.try_recv().unwrap()).message {
            Some(stream_manager_to_instance::Message::TreeEvents(events)) => {
                assert_eq!(root(&events.events), vec![3]);
                assert_eq!(events.events[0].outcome, TreeOutcome::Completed as i32);
            }
            other => panic!("not tree events: {other:?}"),
        }
        assert!(trees.try_recv().is_err());
    }

    #[tokio::test]
    async fn acks_go_to_the_local_ledger_or_the_peer_hosting_the_spout_task() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let instances: Vec<String> = ["count-0", "split-0", "words-1"].map(String::from).to_vec();
        let (router, mut rx) = Router::new(&table, &[2], &instances, no_spouts());
        // Task 4 (split-0) is local: its INIT and ACK go to the ledger; task 3 is
        // on container 2: its ACK goes to the peer, with the tuple for task 6.
        router
            .route(
                TupleBatch {
                    tuples: vec![tuple(6, b"x")],
                    acks: vec![
                        ack(AckKind::Init, 4, 77, 0b101),
                        ack(AckKind::Ack, 3, 5, 9),
                        ack(AckKind::Ack, 4, 77, 0b100),
                        ack(AckKind::Ack, 99, 1, 1),
                    ],
                }
                .into(),
                Source::Instance("split-0"),
            )
            .await;
        let remote = rx.remote.get_mut(&2).unwrap().recv().await.unwrap();
        assert_eq!(remote.tuples.len(), 1);
        assert_eq!(remote.acks, vec![ack(AckKind::Ack, 3, 5, 9)]);
        assert!(rx.trees.get_mut("split-0").unwrap().try_recv().is_err());
        assert_eq!(router.dropped_acks(), 1);

        // The last ack arrives from the peer: the tree completes, the spout's
        // instance is told. A peer's ack for a remote spout task is dropped.
        router
            .route(
                TupleBatch {
                    tuples: Vec::new(),
                    acks: vec![ack(AckKind::Ack, 4, 77, 0b001), ack(AckKind::Ack, 3, 5, 9)],
                }
                .into(),
                Source::Peer(2),
            )
            .await;
        let events = rx.trees.get_mut("split-0").unwrap().recv().await.unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].outcome, TreeOutcome::Completed as i32);
        assert_eq!(
            events[0].root,
            Some(RootId {
                spout_task: 4,
                key: 77
            })
        );
        assert!(
            rx.remote.get_mut(&2).unwrap().try_recv().is_err(),
            "acks are never forwarded"
        );
        assert_eq!(router.dropped_acks(), 2);
        // A late ack changes nothing.
        router
            .route(
                TupleBatch {
                    tuples: Vec::new(),
                    acks: vec![ack(AckKind::Ack, 4, 77, 0b001)],
                }
                .into(),
                Source::Peer(2),
            )
            .await;
        assert!(rx.trees.get_mut("split-0").unwrap().try_recv().is_err());

        let registry = Registry::new();
        router.publish_metrics(&registry);
        assert_eq!(
            registry.get(&MetricKey::new("__ack-count", "split", 4)),
            Some(1.0)
        );
        assert_eq!(
            registry.get(&MetricKey::new("egret.ledger.late", LEDGER_COMPONENT, 0)),
            Some(1.0)
        );
        assert_eq!(
            registry.get(&MetricKey::new("egret.ledger.pending", LEDGER_COMPONENT, 0)),
            Some(0.0)
        );
    }

    #[tokio::test]
    async fn trees_of_different_spout_tasks_with_one_key_stay_apart() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let instances: Vec<String> = ["count-0", "split-0", "words-1"].map(String::from).to_vec();
        let (router, mut rx) = Router::new(&table, &[2], &instances, no_spouts());
        // Tasks 4 and 5 (split-0) and 7 (words-1) each start a tree with key 9;
        // their acks arrive interleaved, and only 4's and 7's complete.
        let batch = TupleBatch {
            tuples: Vec::new(),
            acks: vec![
                ack(AckKind::Init, 4, 9, 0b11),
                ack(AckKind::Init, 5, 9, 0b11),
                ack(AckKind::Init, 7, 9, 0b1),
                ack(AckKind::Ack, 5, 9, 0b01),
                ack(AckKind::Ack, 4, 9, 0b01),
                ack(AckKind::Ack, 7, 9, 0b1),
                ack(AckKind::Ack, 4, 9, 0b10),
            ],
        };
        router
            .route(batch.into(), Source::Instance("count-0"))
            .await;
        let events = rx.trees.get_mut("split-0").unwrap().recv().await.unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].root.as_ref().unwrap().spout_task, 4);
        let events = rx.trees.get_mut("words-1").unwrap().recv().await.unwrap();
        assert_eq!(events[0].root.as_ref().unwrap().spout_task, 7);
        let registry = Registry::new();
        router.publish_metrics(&registry);
        let ledger = |name: &str| registry.get(&MetricKey::new(name, LEDGER_COMPONENT, 0));
        assert_eq!(
            ledger("egret.ledger.pending"),
            Some(1.0),
            "5's tree is open"
        );
        assert_eq!(
            registry.get(&MetricKey::new("__ack-count", "words", 7)),
            Some(1.0)
        );
        // The last ack of 5's tree completes it.
        router
            .route(
                TupleBatch {
                    tuples: Vec::new(),
                    acks: vec![ack(AckKind::Ack, 5, 9, 0b10)],
                }
                .into(),
                Source::Instance("split-0"),
            )
            .await;
        let events = rx.trees.get_mut("split-0").unwrap().recv().await.unwrap();
        assert_eq!(events[0].root.as_ref().unwrap().spout_task, 5);
        assert_eq!(router.rotate_ledger(), 0);
    }

    #[tokio::test]
    async fn rotations_time_trees_out_and_tell_the_spout() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let instances: Vec<String> = ["count-0", "split-0", "words-1"].map(String::from).to_vec();
        let (router, mut rx) = Router::new(&table, &[2], &instances, no_spouts());
        router
            .route(
                TupleBatch {
                    tuples: Vec::new(),
                    acks: vec![ack(AckKind::Init, 5, 1, 3), ack(AckKind::Init, 1, 2, 3)],
                }
                .into(),
                Source::Instance("split-0"),
            )
            .await;
        assert_eq!(router.rotate_ledger(), 0);
        assert_eq!(router.rotate_ledger(), 0);
        assert_eq!(router.rotate_ledger(), 2);
        let events = rx.trees.get_mut("split-0").unwrap().recv().await.unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].outcome, TreeOutcome::Failed as i32);
        // Task 1 is count-0's: its event goes there.
        let events = rx.trees.get_mut("count-0").unwrap().recv().await.unwrap();
        assert_eq!(events[0].root.as_ref().unwrap().spout_task, 1);
        let registry = Registry::new();
        router.publish_metrics(&registry);
        assert_eq!(
            registry.get(&MetricKey::new("__timeout-count", "split", 5)),
            Some(1.0)
        );
    }

    #[test]
    fn a_full_tree_queue_drops_events_without_blocking() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let (router, _rx) = Router::new(
            &table,
            &[2],
            &[
                "split-0".to_owned(),
                "count-0".to_owned(),
                "words-1".to_owned(),
            ],
            no_spouts(),
        );
        for key in 1..=(TREE_QUEUE_CAPACITY as u64 + 5) {
            let mut groups = Vec::new();
            groups.resize_with(4, RawBatch::default);
            router.apply_acks(
                vec![ack(AckKind::Init, 4, key, 0)],
                Source::Instance("split-0"),
                &mut groups,
            );
        }
        assert_eq!(router.dropped_tree_events(), 5);
    }
}
