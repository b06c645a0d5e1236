//! Routing by task id, and the per-destination outbound queues and writers.
//!
//! Invariants:
//! - there is one bounded queue per destination (each local instance, each
//!   peer stream manager), created at startup, so tuples for a destination
//!   that has not connected yet wait there (bounded) instead of being lost;
//! - [`Router::route`] awaits on a full queue: the reader that called it stops
//!   reading its source, which is the backpressure;
//! - a queue has exactly one consumer, its destination's writer, which sends
//!   whatever has accumulated as one `TupleBatch` frame (re-batching);
//! - `TupleData::values` is never decoded; it is `Bytes` moved from frame to
//!   frame without copying.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use egret_proto::v1::TupleData;
use prost::Message;
use tokio::sync::mpsc;
use tracing::warn;

use crate::delivery::{DeliveryTable, Destination};

/// Batches a queue holds before its senders wait.
pub(crate) const QUEUE_CAPACITY: usize = 1024;
/// At most one warning per this interval about dropped tuples.
const WARN_INTERVAL: Duration = Duration::from_secs(1);
/// Tuples re-batched into one frame at most.
const MAX_TUPLES_PER_FRAME: usize = 16 * 1024;

/// The sending half of a framed connection (Unix or TCP), owned by a writer.
pub(crate) type FrameSink =
    std::pin::Pin<Box<dyn futures::Sink<bytes::Bytes, Error = egret_proto::FrameError> + Send>>;

pub(crate) type TupleSender = mpsc::Sender<Vec<TupleData>>;
pub(crate) type TupleReceiver = mpsc::Receiver<Vec<TupleData>>;

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

pub(crate) struct Router {
    /// task id -> index into `queues`, and whether that destination is local.
    routes: HashMap<i32, (usize, bool)>,
    queues: Vec<TupleSender>,
    dropped: AtomicU64,
    last_warning: Mutex<Option<Instant>>,
}

/// The receiving ends of the router's queues, for the writers.
pub(crate) struct Receivers {
    pub local: HashMap<String, TupleReceiver>,
    pub remote: HashMap<i32, TupleReceiver>,
}

impl Router {
    pub(crate) fn new(
        table: &DeliveryTable,
        peers: &[i32],
        instances: &[String],
    ) -> (Self, Receivers) {
        let mut queues = Vec::new();
        let mut slots: HashMap<Destination, usize> = HashMap::new();
        let mut receivers = Receivers {
            local: HashMap::new(),
            remote: HashMap::new(),
        };
        let mut add = |destination: Destination, queues: &mut Vec<TupleSender>| {
            let (tx, rx) = mpsc::channel(QUEUE_CAPACITY);
            slots.insert(destination.clone(), queues.len());
            queues.push(tx);
            match destination {
                Destination::Local(id) => {
                    receivers.local.insert(id.to_string(), rx);
                }
                Destination::Remote(index) => {
                    receivers.remote.insert(index, rx);
                }
            }
        };
        for id in instances {
            add(Destination::Local(id.as_str().into()), &mut queues);
        }
        for &index in peers {
            add(Destination::Remote(index), &mut queues);
        }
        let mut routes = HashMap::new();
        for &task in table.task_container().keys() {
            if let Some(destination) = table.destination(task)
                && let Some(&slot) = slots.get(destination)
            {
                routes.insert(task, (slot, matches!(destination, Destination::Local(_))));
            }
        }
        let router = Self {
            routes,
            queues,
            dropped: AtomicU64::new(0),
            last_warning: Mutex::new(None),
        };
        (router, receivers)
    }

    /// Tuples dropped so far (unknown task, or misrouted by a peer).
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }

    /// Sends every tuple to its destination's queue, waiting while a queue is full.
    pub(crate) async fn route(&self, tuples: Vec<TupleData>, source: Source<'_>) {
        let mut groups: Vec<Vec<TupleData>> = Vec::new();
        groups.resize_with(self.queues.len(), Vec::new);
        for tuple in tuples {
            match self.routes.get(&tuple.dest_task) {
                Some(&(slot, local)) => {
                    if let Source::Peer(_) = source
                        && !local
                    {
                        // A peer must only send us tuples for our tasks; forwarding
                        // would risk loops between stream managers.
                        self.drop_tuple(tuple.dest_task, source, "is not hosted by this container");
                    } else if let Some(group) = groups.get_mut(slot) {
                        group.push(tuple);
                    }
                }
                None => self.drop_tuple(tuple.dest_task, source, "is not a task of the topology"),
            }
        }
        for (slot, group) in groups.into_iter().enumerate() {
            if group.is_empty() {
                continue;
            }
            if let Some(queue) = self.queues.get(slot)
                && queue.send(group).await.is_err()
            {
                // Only when shutting down: the writer is gone.
                return;
            }
        }
    }

    fn drop_tuple(&self, task: i32, source: Source<'_>, why: &str) {
        let dropped = self.dropped.fetch_add(1, Ordering::Relaxed) + 1;
        let mut last = self.last_warning.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        if last.is_none_or(|at| now.duration_since(at) >= WARN_INTERVAL) {
            *last = Some(now);
            warn!(task, %source, dropped_total = dropped, "Dropping a tuple: its destination task {why}.");
        }
    }
}

/// Waits for one queued batch, then takes whatever else is already queued,
/// up to about half the frame cap, as one batch. `None` when the queue is closed.
pub(crate) async fn next_batch(
    queue: &mut TupleReceiver,
    max_frame_bytes: usize,
) -> Option<Vec<TupleData>> {
    let mut batch = queue.recv().await?;
    let budget = max_frame_bytes / 2;
    let mut bytes: usize = batch.iter().map(|t| t.encoded_len() + 8).sum();
    while bytes < budget && batch.len() < MAX_TUPLES_PER_FRAME {
        match queue.try_recv() {
            Ok(more) => {
                bytes += more.iter().map(|t| t.encoded_len() + 8).sum::<usize>();
                batch.extend(more);
            }
            Err(_) => break,
        }
    }
    Some(batch)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::tests::sample;
    use bytes::Bytes;

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
        let (router, mut rx) = Router::new(&table, &[2], &instances);
        router
            .route(
                vec![
                    tuple(1, b"a"),
                    tuple(3, b"b"),
                    tuple(99, b"x"),
                    tuple(2, b"c"),
                    tuple(7, b"d"),
                ],
                Source::Instance("split-0"),
            )
            .await;
        let count = rx.local.get_mut("count-0").unwrap().recv().await.unwrap();
        assert_eq!(
            count.iter().map(|t| t.dest_task).collect::<Vec<_>>(),
            vec![1, 2]
        );
        assert_eq!(count[1].values, Bytes::from_static(b"c"));
        let remote = rx.remote.get_mut(&2).unwrap().recv().await.unwrap();
        assert_eq!(
            remote.iter().map(|t| t.dest_task).collect::<Vec<_>>(),
            vec![3]
        );
        let words = rx.local.get_mut("words-1").unwrap().recv().await.unwrap();
        assert_eq!(words[0].dest_task, 7);
        assert!(rx.local.get_mut("split-0").unwrap().try_recv().is_err());
        assert_eq!(router.dropped(), 1);

        // From a peer, a tuple for a remote task is not forwarded again.
        router.route(vec![tuple(3, b"b")], Source::Peer(2)).await;
        assert!(rx.remote.get_mut(&2).unwrap().try_recv().is_err());
        assert_eq!(router.dropped(), 2);
    }

    #[tokio::test]
    async fn a_full_queue_makes_the_router_wait_and_writers_rebatch() {
        let (topology, packing) = sample();
        let table = DeliveryTable::build(&topology, &packing, 1).unwrap();
        let (router, mut rx) = Router::new(&table, &[2], &["count-0".to_owned()]);
        for _ in 0..QUEUE_CAPACITY {
            router
                .route(vec![tuple(1, b"a")], Source::Instance("x"))
                .await;
        }
        let blocked = tokio::time::timeout(
            Duration::from_millis(50),
            router.route(vec![tuple(1, b"a")], Source::Instance("x")),
        )
        .await;
        assert!(blocked.is_err(), "routing into a full queue must wait");
        let queue = rx.local.get_mut("count-0").unwrap();
        let batch = next_batch(queue, 1 << 20).await.unwrap();
        assert_eq!(
            batch.len(),
            QUEUE_CAPACITY,
            "everything queued goes out as one batch"
        );
    }
}
