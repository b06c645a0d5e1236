//! Spout backpressure, Heron's design narrowed to the spouts that matter.
//!
//! Every outbound queue of the stream manager (one per local instance, one per
//! peer stream manager) has a [`Gauge`] of the bytes it holds: the encoded
//! size of the batches waiting in it plus the batch its writer is writing.
//! When a gauge goes above the high watermark its destination is congested;
//! when it goes back below the low watermark it is not. A congested local
//! instance names its component; a congested link to a peer names every
//! component that peer hosts.
//!
//! The congested components are causes. Each stream manager keeps the causes
//! of every origin (itself and each peer, which sends its full set in a
//! `BackpressureNotice` on every mesh connection and on every change) and
//! throttles its local spouts that are upstream (through the subscriptions of
//! the logical plan) of any congested component anywhere. Heron throttles
//! every spout of the topology; a slow bolt in one pipeline here leaves the
//! spouts of an independent pipeline running.
//!
//! Invariants:
//! - [`Causes`] is pure: the throttled set is always `local spouts ∩
//!   upstream(union of the causes of all origins)`, so a throttle is lifted
//!   only when no cause upstream of it remains anywhere;
//! - the causes of one origin are replaced as a whole, never merged: a notice
//!   is idempotent, and a peer that reconnects with a fresh state (a restarted
//!   stream manager has none) clears what it said before;
//! - lock order is gauge -> [`Pressure`]; `Pressure` never takes a gauge lock,
//!   and a gauge calls it while holding its own lock so that the congestion
//!   transitions of one destination reach `Pressure` in order;
//! - throttling a spout is both a `Throttle` message to its instance and the
//!   pause of the reading of its socket (the reader checks the throttled set
//!   before every frame), so a spout that ignores the message cannot grow the
//!   stream manager's memory; what flows toward the spout (tree events, state)
//!   is written as usual.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use egret_metrics::{MetricKey, Registry};
use egret_proto::v1::{BackpressureNotice, ComponentKind, Congestion, Topology};
use tokio::sync::watch;
use tracing::{info, warn};

use crate::settings::BackpressureSettings;

/// The component name of the stream manager's own backpressure metrics.
pub(crate) const BACKPRESSURE_COMPONENT: &str = "__backpressure";

/// Component -> the spouts upstream of it (itself included when it is a
/// spout), following the subscriptions of the logical plan backwards.
pub type Upstream = BTreeMap<String, BTreeSet<String>>;

/// Computes, for every component, the spouts whose tuples can reach it.
pub fn upstream_spouts(topology: &Topology) -> Upstream {
    let inputs: HashMap<&str, Vec<&str>> = topology
        .components
        .iter()
        .map(|c| {
            (
                c.id.as_str(),
                c.inputs.iter().map(|i| i.component.as_str()).collect(),
            )
        })
        .collect();
    let spouts: BTreeSet<&str> = topology
        .components
        .iter()
        .filter(|c| c.kind == ComponentKind::Spout as i32)
        .map(|c| c.id.as_str())
        .collect();
    let mut upstream = Upstream::new();
    for component in &topology.components {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut stack = vec![component.id.as_str()];
        while let Some(next) = stack.pop() {
            if !seen.insert(next) {
                continue;
            }
            if let Some(sources) = inputs.get(next) {
                stack.extend(sources.iter().copied().filter(|s| !seen.contains(s)));
            }
        }
        upstream.insert(
            component.id.clone(),
            seen.into_iter()
                .filter(|c| spouts.contains(c))
                .map(str::to_owned)
                .collect(),
        );
    }
    upstream
}

/// What one [`Causes::replace`] changed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct CauseChange {
    /// Components the origin now finds congested and did not before.
    pub started: Vec<String>,
    /// Components the origin no longer finds congested.
    pub stopped: Vec<String>,
    /// Local spouts throttled by this change.
    pub throttle: Vec<String>,
    /// Local spouts whose last cause went away.
    pub release: Vec<String>,
}

/// The causes of backpressure known to one stream manager and the local
/// spouts they throttle (pure state machine; see the module invariants).
#[derive(Debug, Clone)]
pub struct Causes {
    upstream: Upstream,
    local_spouts: BTreeSet<String>,
    /// Origin container -> congested component -> bytes queued when it started.
    by_origin: BTreeMap<i32, BTreeMap<String, u64>>,
    throttled: BTreeSet<String>,
}

impl Causes {
    pub fn new(upstream: Upstream, local_spouts: BTreeSet<String>) -> Self {
        Self {
            upstream,
            local_spouts,
            by_origin: BTreeMap::new(),
            throttled: BTreeSet::new(),
        }
    }

    /// Replaces everything `origin` said before by `congested`.
    pub fn replace(&mut self, origin: i32, congested: BTreeMap<String, u64>) -> CauseChange {
        let old = self.by_origin.remove(&origin).unwrap_or_default();
        let started = congested
            .keys()
            .filter(|c| !old.contains_key(*c))
            .cloned()
            .collect();
        let stopped = old
            .keys()
            .filter(|c| !congested.contains_key(*c))
            .cloned()
            .collect();
        if !congested.is_empty() {
            self.by_origin.insert(origin, congested);
        }
        let now = self.compute();
        let throttle = now.difference(&self.throttled).cloned().collect();
        let release = self.throttled.difference(&now).cloned().collect();
        self.throttled = now;
        CauseChange {
            started,
            stopped,
            throttle,
            release,
        }
    }

    /// The local spouts throttled now.
    pub fn throttled(&self) -> &BTreeSet<String> {
        &self.throttled
    }

    /// Whether any origin has a cause.
    pub fn active(&self) -> bool {
        !self.by_origin.is_empty()
    }

    /// What `origin` finds congested now.
    pub fn of(&self, origin: i32) -> Option<&BTreeMap<String, u64>> {
        self.by_origin.get(&origin)
    }

    /// Every spout of the topology upstream of any of `components`.
    pub fn spouts_upstream_of<'a>(
        &self,
        components: impl IntoIterator<Item = &'a String>,
    ) -> BTreeSet<String> {
        components
            .into_iter()
            .filter_map(|c| self.upstream.get(c))
            .flatten()
            .cloned()
            .collect()
    }

    fn compute(&self) -> BTreeSet<String> {
        self.spouts_upstream_of(self.by_origin.values().flat_map(BTreeMap::keys))
            .intersection(&self.local_spouts)
            .cloned()
            .collect()
    }
}

/// An outbound queue of this stream manager, for logs and causes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum QueueKey {
    Instance(String),
    Peer(i32),
}

struct Congested {
    components: Vec<String>,
    bytes: u64,
    since: Instant,
}

struct Inner {
    causes: Causes,
    /// This stream manager's congested outbound queues.
    congested: BTreeMap<QueueKey, Congested>,
    /// When each cause (origin, component) started, for the stop log.
    cause_since: BTreeMap<(i32, String), Instant>,
    engaged: BTreeMap<String, u64>,
    throttled_since: BTreeMap<String, Instant>,
    throttled_total: BTreeMap<String, Duration>,
    active_since: Option<Instant>,
    active_total: Duration,
}

/// The backpressure of one stream manager: its causes, the local throttle
/// (published on a `watch` for the instance readers and writers) and its own
/// notice (published for the peer writers).
pub(crate) struct Pressure {
    own: i32,
    pub settings: BackpressureSettings,
    inner: Mutex<Inner>,
    /// Updated on every batch routed: kept out of `inner`'s lock.
    peak_bytes: AtomicU64,
    throttled_tx: watch::Sender<Arc<BTreeSet<String>>>,
    notice_tx: watch::Sender<Arc<BackpressureNotice>>,
}

impl Pressure {
    pub(crate) fn new(
        own: i32,
        settings: BackpressureSettings,
        upstream: Upstream,
        local_spouts: BTreeSet<String>,
    ) -> Self {
        let (throttled_tx, _) = watch::channel(Arc::new(BTreeSet::new()));
        let (notice_tx, _) = watch::channel(Arc::new(BackpressureNotice {
            origin_container: own,
            congested: Vec::new(),
        }));
        Self {
            own,
            settings,
            inner: Mutex::new(Inner {
                causes: Causes::new(upstream, local_spouts),
                congested: BTreeMap::new(),
                cause_since: BTreeMap::new(),
                engaged: BTreeMap::new(),
                throttled_since: BTreeMap::new(),
                throttled_total: BTreeMap::new(),
                active_since: None,
                active_total: Duration::ZERO,
            }),
            peak_bytes: AtomicU64::new(0),
            throttled_tx,
            notice_tx,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Nothing panics half-way under this lock in practice; if something
        // did, the state is still a valid set of causes.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The local spouts throttled now, and every change.
    pub(crate) fn throttled(&self) -> watch::Receiver<Arc<BTreeSet<String>>> {
        self.throttled_tx.subscribe()
    }

    /// This stream manager's own causes as a notice for its peers, and every change.
    pub(crate) fn notices(&self) -> watch::Receiver<Arc<BackpressureNotice>> {
        self.notice_tx.subscribe()
    }

    pub(crate) fn is_local_spout(&self, component: &str) -> bool {
        self.lock().causes.local_spouts.contains(component)
    }

    fn record_peak(&self, bytes: u64) {
        self.peak_bytes.fetch_max(bytes, Ordering::Relaxed);
    }

    /// A local outbound queue crossed a watermark (called by its gauge).
    fn queue_changed(&self, key: &QueueKey, components: &[String], bytes: u64, congested: bool) {
        let now = Instant::now();
        let mut inner = self.lock();
        let what = describe(key, components, self.own);
        if congested {
            inner.congested.insert(
                key.clone(),
                Congested {
                    components: components.to_vec(),
                    bytes,
                    since: now,
                },
            );
            for component in components {
                *inner.engaged.entry(component.clone()).or_default() += 1;
            }
            let spouts = inner.causes.spouts_upstream_of(components);
            info!(
                queue = ?key,
                queued_bytes = bytes,
                high_watermark = self.settings.high_watermark,
                "Backpressure started: {what} has {bytes} bytes queued; throttling spouts {spouts:?}."
            );
        } else if let Some(was) = inner.congested.remove(key) {
            info!(
                queue = ?key,
                queued_bytes = bytes,
                peak_at_start = was.bytes,
                duration_ms = millis(now - was.since),
                "Backpressure stopped: {what} drained to {bytes} bytes after {} ms.",
                millis(now - was.since)
            );
        }
        let mut own: BTreeMap<String, u64> = BTreeMap::new();
        for c in inner.congested.values() {
            for component in &c.components {
                let entry = own.entry(component.clone()).or_default();
                *entry = (*entry).max(c.bytes);
            }
        }
        let change = inner.causes.replace(self.own, own);
        self.apply(&mut inner, self.own, change, now);
    }

    /// A peer's notice: its causes replace what it said before.
    pub(crate) fn peer_notice(&self, peer: i32, notice: &BackpressureNotice) {
        if notice.origin_container != peer {
            warn!(
                peer,
                origin = notice.origin_container,
                "Ignoring a backpressure notice whose origin is not the peer that sent it."
            );
            return;
        }
        let congested: BTreeMap<String, u64> = notice
            .congested
            .iter()
            .map(|c| (c.component.clone(), c.queued_bytes))
            .collect();
        let now = Instant::now();
        let mut inner = self.lock();
        let change = inner.causes.replace(peer, congested);
        for component in &change.started {
            let bytes = inner
                .causes
                .of(peer)
                .and_then(|m| m.get(component))
                .copied()
                .unwrap_or_default();
            let spouts = inner.causes.spouts_upstream_of([component]);
            info!(
                peer,
                component = %component,
                queued_bytes = bytes,
                "Backpressure started: component {component} in container {peer} has {bytes} bytes queued (reported by stmgr-{peer}); throttling spouts {spouts:?}."
            );
        }
        for component in &change.stopped {
            let since = inner.cause_since.get(&(peer, component.clone())).copied();
            let ms = since.map_or(0, |s| millis(now - s));
            info!(
                peer,
                component = %component,
                duration_ms = ms,
                "Backpressure stopped: component {component} in container {peer} (reported by stmgr-{peer}) after {ms} ms."
            );
        }
        self.apply(&mut inner, peer, change, now);
    }

    fn apply(&self, inner: &mut Inner, origin: i32, change: CauseChange, now: Instant) {
        for component in &change.started {
            inner.cause_since.insert((origin, component.clone()), now);
        }
        for component in &change.stopped {
            inner.cause_since.remove(&(origin, component.clone()));
        }
        for spout in &change.throttle {
            inner.throttled_since.insert(spout.clone(), now);
        }
        for spout in &change.release {
            if let Some(since) = inner.throttled_since.remove(spout) {
                let took = now - since;
                *inner.throttled_total.entry(spout.clone()).or_default() += took;
                info!(
                    spout = %spout,
                    duration_ms = millis(took),
                    "Spout {spout} resumes: no backpressure cause upstream of it remains after {} ms.",
                    millis(took)
                );
            }
        }
        if !change.throttle.is_empty() {
            info!(spouts = ?change.throttle, "Throttling local spouts {:?}.", change.throttle);
        }
        match (inner.active_since, inner.causes.active()) {
            (None, true) => inner.active_since = Some(now),
            (Some(since), false) => {
                inner.active_since = None;
                inner.active_total += now - since;
            }
            _ => {}
        }
        if !change.throttle.is_empty() || !change.release.is_empty() {
            let throttled = Arc::new(inner.causes.throttled().clone());
            self.throttled_tx.send_replace(throttled);
        }
        if origin == self.own && (!change.started.is_empty() || !change.stopped.is_empty()) {
            let congested = inner
                .causes
                .of(self.own)
                .map(|m| {
                    m.iter()
                        .map(|(component, &queued_bytes)| Congestion {
                            component: component.clone(),
                            queued_bytes,
                        })
                        .collect()
                })
                .unwrap_or_default();
            self.notice_tx.send_replace(Arc::new(BackpressureNotice {
                origin_container: self.own,
                congested,
            }));
        }
    }

    /// Copies the backpressure metrics into the registry (contracts, "Metrics
    /// snapshots").
    pub(crate) fn publish_metrics(&self, registry: &Registry) {
        let now = Instant::now();
        let inner = self.lock();
        for (component, &count) in &inner.engaged {
            registry.set(
                MetricKey::new("egret.backpressure.engaged", component, 0),
                count as f64,
            );
        }
        for spout in &inner.causes.local_spouts {
            let mut total = inner
                .throttled_total
                .get(spout)
                .copied()
                .unwrap_or_default();
            if let Some(since) = inner.throttled_since.get(spout) {
                total += now - *since;
            }
            registry.set(
                MetricKey::new("egret.backpressure.time-ms", spout, 0),
                millis(total) as f64,
            );
        }
        let mut active_total = inner.active_total;
        if let Some(since) = inner.active_since {
            active_total += now - since;
        }
        let key = |name: &str| MetricKey::new(name, BACKPRESSURE_COMPONENT, 0);
        registry.set(
            key("egret.backpressure.time-ms"),
            millis(active_total) as f64,
        );
        registry.set(
            key("egret.backpressure.active"),
            if inner.causes.active() { 1.0 } else { 0.0 },
        );
        registry.set(
            key("egret.queue.bytes.peak"),
            self.peak_bytes.load(Ordering::Relaxed) as f64,
        );
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn describe(key: &QueueKey, components: &[String], own: i32) -> String {
    match key {
        QueueKey::Instance(id) => format!(
            "component {} in container {own} (instance {id})",
            components.first().map_or("?", String::as_str)
        ),
        QueueKey::Peer(peer) => format!(
            "the link to container {peer} (components {})",
            components.join(", ")
        ),
    }
}

/// The bytes held by one outbound queue, and its congestion state.
pub(crate) struct Gauge {
    key: QueueKey,
    components: Vec<String>,
    pressure: Arc<Pressure>,
    state: Mutex<GaugeState>,
}

#[derive(Default)]
struct GaugeState {
    bytes: u64,
    congested: bool,
}

impl Gauge {
    pub(crate) fn new(key: QueueKey, components: Vec<String>, pressure: Arc<Pressure>) -> Self {
        Self {
            key,
            components,
            pressure,
            state: Mutex::new(GaugeState::default()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, GaugeState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Bytes held now.
    pub(crate) fn bytes(&self) -> u64 {
        self.lock().bytes
    }

    /// A batch of `bytes` enters the queue.
    pub(crate) fn add(&self, bytes: u64) {
        let mut state = self.lock();
        state.bytes = state.bytes.saturating_add(bytes);
        self.pressure.record_peak(state.bytes);
        if !state.congested && state.bytes > self.pressure.settings.high_watermark {
            state.congested = true;
            self.pressure
                .queue_changed(&self.key, &self.components, state.bytes, true);
        }
    }

    /// A batch of `bytes` has left (written, or dropped with its connection).
    pub(crate) fn remove(&self, bytes: u64) {
        let mut state = self.lock();
        state.bytes = state.bytes.saturating_sub(bytes);
        if state.congested && state.bytes < self.pressure.settings.low_watermark {
            state.congested = false;
            self.pressure
                .queue_changed(&self.key, &self.components, state.bytes, false);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use egret_proto::v1::{Component, InputDef};
    use proptest::prelude::*;

    fn spout(id: &str) -> Component {
        Component {
            id: id.into(),
            kind: ComponentKind::Spout as i32,
            ..Default::default()
        }
    }

    fn bolt(id: &str, inputs: &[&str]) -> Component {
        Component {
            id: id.into(),
            kind: ComponentKind::Bolt as i32,
            inputs: inputs
                .iter()
                .map(|c| InputDef {
                    component: (*c).into(),
                    stream: "default".into(),
                    grouping: None,
                })
                .collect(),
            ..Default::default()
        }
    }

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn topology(components: Vec<Component>) -> Topology {
        Topology {
            components,
            ..Default::default()
        }
    }

    #[test]
    fn a_diamond_has_its_spout_upstream_of_every_bolt() {
        // s -> a, s -> b, (a, b) -> join
        let up = upstream_spouts(&topology(vec![
            spout("s"),
            bolt("a", &["s"]),
            bolt("b", &["s"]),
            bolt("join", &["a", "b"]),
        ]));
        for c in ["s", "a", "b", "join"] {
            assert_eq!(up[c], set(&["s"]), "{c}");
        }
    }

    #[test]
    fn independent_pipelines_do_not_share_spouts() {
        let up = upstream_spouts(&topology(vec![
            spout("s1"),
            bolt("slow", &["s1"]),
            spout("s2"),
            bolt("fast", &["s2"]),
            bolt("both", &["slow", "fast"]),
        ]));
        assert_eq!(up["slow"], set(&["s1"]));
        assert_eq!(up["fast"], set(&["s2"]));
        assert_eq!(up["both"], set(&["s1", "s2"]));
        assert_eq!(up["s2"], set(&["s2"]));

        let mut causes = Causes::new(up, set(&["s1", "s2"]));
        let change = causes.replace(1, BTreeMap::from([("slow".to_owned(), 10)]));
        assert_eq!(change.throttle, vec!["s1".to_owned()]);
        assert_eq!(causes.throttled(), &set(&["s1"]), "s2 keeps running");
    }

    #[test]
    fn cycles_and_unknown_inputs_terminate() {
        let up = upstream_spouts(&topology(vec![
            spout("s"),
            bolt("a", &["s", "b"]),
            bolt("b", &["a", "ghost"]),
            bolt("lonely", &[]),
        ]));
        assert_eq!(up["b"], set(&["s"]));
        assert_eq!(up["a"], set(&["s"]));
        assert!(up["lonely"].is_empty());
    }

    #[test]
    fn a_throttle_lifts_only_when_no_origin_has_a_cause() {
        let up = upstream_spouts(&topology(vec![
            spout("s"),
            bolt("a", &["s"]),
            bolt("b", &["a"]),
        ]));
        let mut causes = Causes::new(up, set(&["s"]));
        let bytes = |c: &str| BTreeMap::from([(c.to_owned(), 1)]);
        assert_eq!(causes.replace(1, bytes("a")).throttle, vec!["s".to_owned()]);
        let change = causes.replace(2, bytes("b"));
        assert!(change.throttle.is_empty() && change.release.is_empty());
        assert_eq!(change.started, vec!["b".to_owned()]);
        // Origin 1 clears, origin 2 still has b: s stays throttled.
        let change = causes.replace(1, BTreeMap::new());
        assert_eq!(change.stopped, vec!["a".to_owned()]);
        assert!(change.release.is_empty());
        assert!(causes.active());
        // The same notice twice changes nothing.
        assert_eq!(causes.replace(2, bytes("b")), CauseChange::default());
        let change = causes.replace(2, BTreeMap::new());
        assert_eq!(change.release, vec!["s".to_owned()]);
        assert!(!causes.active());
    }

    const COMPONENTS: [&str; 6] = ["s1", "s2", "a", "b", "c", "d"];

    fn model_topology() -> Topology {
        // s1 -> a -> c ; s2 -> b -> c ; s2 -> d
        topology(vec![
            spout("s1"),
            spout("s2"),
            bolt("a", &["s1"]),
            bolt("b", &["s2"]),
            bolt("c", &["a", "b"]),
            bolt("d", &["s2"]),
        ])
    }

    proptest! {
        /// Against a model that recomputes everything from the last set of
        /// each origin: the throttled set, and the started/stopped/throttle/
        /// release deltas replayed from the start, always agree with it.
        #[test]
        fn causes_match_a_recomputing_model(
            local in proptest::sample::subsequence(vec!["s1", "s2"], 0..=2),
            ops in proptest::collection::vec(
                (0..3i32, proptest::sample::subsequence(COMPONENTS.to_vec(), 0..=3)),
                1..40,
            ),
        ) {
            let topo = model_topology();
            let up = upstream_spouts(&topo);
            let local = set(&local);
            let mut causes = Causes::new(up.clone(), local.clone());
            let mut model: BTreeMap<i32, BTreeSet<String>> = BTreeMap::new();
            let mut replayed: BTreeSet<String> = BTreeSet::new();
            for (origin, congested) in ops {
                let before = model.get(&origin).cloned().unwrap_or_default();
                let after = set(&congested);
                let change = causes.replace(
                    origin,
                    after.iter().map(|c| (c.clone(), 1)).collect(),
                );
                prop_assert_eq!(&set_of(&change.started), &after.difference(&before).cloned().collect());
                prop_assert_eq!(&set_of(&change.stopped), &before.difference(&after).cloned().collect());
                model.insert(origin, after);
                for s in &change.throttle {
                    prop_assert!(replayed.insert(s.clone()), "throttled twice: {s}");
                }
                for s in &change.release {
                    prop_assert!(replayed.remove(s), "released while not throttled: {s}");
                }
                let expected: BTreeSet<String> = model
                    .values()
                    .flatten()
                    .flat_map(|c| up[c].iter().cloned())
                    .filter(|s| local.contains(s))
                    .collect();
                prop_assert_eq!(causes.throttled(), &expected);
                prop_assert_eq!(&replayed, &expected);
                prop_assert_eq!(causes.active(), model.values().any(|s| !s.is_empty()));
            }
        }
    }

    fn set_of(v: &[String]) -> BTreeSet<String> {
        v.iter().cloned().collect()
    }

    fn pressure(high: u64, low: u64) -> Arc<Pressure> {
        let up = upstream_spouts(&model_topology());
        Arc::new(Pressure::new(
            1,
            BackpressureSettings {
                high_watermark: high,
                low_watermark: low,
            },
            up,
            set(&["s1", "s2"]),
        ))
    }

    #[test]
    fn gauges_use_hysteresis_and_publish_throttle_notice_and_metrics() {
        let pressure = pressure(100, 50);
        let mut throttled = pressure.throttled();
        let mut notices = pressure.notices();
        let a = Gauge::new(
            QueueKey::Instance("a-0".into()),
            vec!["a".into()],
            Arc::clone(&pressure),
        );
        let peer = Gauge::new(
            QueueKey::Peer(2),
            vec!["b".into(), "d".into()],
            Arc::clone(&pressure),
        );
        a.add(100);
        assert!(
            !throttled.has_changed().unwrap(),
            "at the watermark is not above it"
        );
        a.add(1);
        assert!(throttled.has_changed().unwrap());
        assert_eq!(**throttled.borrow_and_update(), set(&["s1"]));
        let notice = notices.borrow_and_update().clone();
        assert_eq!(notice.origin_container, 1);
        assert_eq!(notice.congested.len(), 1);
        assert_eq!(notice.congested[0].component, "a");
        assert_eq!(notice.congested[0].queued_bytes, 101);

        // Between the watermarks: still congested.
        a.remove(40);
        assert!(!throttled.has_changed().unwrap());
        peer.add(500);
        assert_eq!(**throttled.borrow_and_update(), set(&["s1", "s2"]));
        a.remove(20);
        assert_eq!(a.bytes(), 41);
        assert_eq!(**throttled.borrow_and_update(), set(&["s2"]));
        peer.remove(500);
        assert!(throttled.borrow_and_update().is_empty());
        assert!(notices.borrow_and_update().congested.is_empty());

        let registry = Registry::new();
        pressure.publish_metrics(&registry);
        let get = |n: &str, c: &str| registry.get(&MetricKey::new(n, c, 0));
        assert_eq!(get("egret.backpressure.engaged", "a"), Some(1.0));
        assert_eq!(get("egret.backpressure.engaged", "b"), Some(1.0));
        assert_eq!(get("egret.backpressure.engaged", "d"), Some(1.0));
        assert_eq!(
            get("egret.backpressure.active", BACKPRESSURE_COMPONENT),
            Some(0.0)
        );
        assert_eq!(
            get("egret.queue.bytes.peak", BACKPRESSURE_COMPONENT),
            Some(500.0),
            "the peak of one queue"
        );
        assert!(get("egret.backpressure.time-ms", "s1").is_some());
    }

    #[test]
    fn peer_notices_replace_the_peers_causes() {
        let pressure = pressure(100, 50);
        let mut throttled = pressure.throttled();
        let notice = |origin: i32, components: &[&str]| BackpressureNotice {
            origin_container: origin,
            congested: components
                .iter()
                .map(|c| Congestion {
                    component: (*c).into(),
                    queued_bytes: 7,
                })
                .collect(),
        };
        // A notice claiming another origin than its connection is ignored.
        pressure.peer_notice(2, &notice(3, &["c"]));
        assert!(throttled.borrow_and_update().is_empty());
        pressure.peer_notice(2, &notice(2, &["c"]));
        assert_eq!(**throttled.borrow_and_update(), set(&["s1", "s2"]));
        pressure.peer_notice(3, &notice(3, &["d"]));
        pressure.peer_notice(2, &notice(2, &[]));
        assert_eq!(**throttled.borrow_and_update(), set(&["s2"]));
        let registry = Registry::new();
        pressure.publish_metrics(&registry);
        assert_eq!(
            registry.get(&MetricKey::new(
                "egret.backpressure.active",
                BACKPRESSURE_COMPONENT,
                0
            )),
            Some(1.0)
        );
        pressure.peer_notice(3, &notice(3, &[]));
        assert!(throttled.borrow_and_update().is_empty());
        // Remote causes are not this stream manager's engagements.
        pressure.publish_metrics(&registry);
        assert_eq!(
            registry.get(&MetricKey::new("egret.backpressure.engaged", "c", 0)),
            None
        );
    }
}
