//! The last hour of each topology's metrics at a fixed resolution, kept by
//! `egret ui` itself: every [`RESOLUTION`] it asks each topology's master for
//! its statistics and process metrics and appends one point per series.
//!
//! Bounds: [`POINTS`] points per series (a ring), at most [`MAX_SERIES`]
//! series per topology (one per metric and component or edge: never per key
//! or tuple), and only topologies present in the cluster (the series of a
//! topology that is gone are dropped at the next sample). History starts
//! when `egret ui` starts.
//!
//! Counters become rates (per second, between two samples); gauges are kept
//! as sampled.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::source::Source;
use egret_proto::v1::ProcessMetrics;
use serde::Serialize;
use tracing::debug;

use crate::view::{self, Sums, TopologyView, user_stream};

/// One point every 5 s (the instances' statistics interval)...
pub const RESOLUTION: Duration = Duration::from_secs(5);
/// ... for one hour.
pub const POINTS: usize = 720;
/// Series of one topology at most (one per metric × component or edge).
pub const MAX_SERIES: usize = 1024;

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Point {
    /// Milliseconds since the Unix epoch.
    pub t: u64,
    pub v: f64,
}

#[derive(Default)]
struct TopologySeries {
    id: String,
    series: BTreeMap<String, VecDeque<Point>>,
    /// The counters of the previous sample, for rates.
    previous: Option<(u64, HashMap<String, f64>)>,
    dropped_series: u64,
}

impl TopologySeries {
    fn push(&mut self, key: String, point: Point) {
        if !self.series.contains_key(&key) && self.series.len() >= MAX_SERIES {
            self.dropped_series += 1;
            return;
        }
        let ring = self.series.entry(key).or_default();
        if ring.len() == POINTS {
            ring.pop_front();
        }
        ring.push_back(point);
    }
}

/// The series of every topology, shared by the sampler and the handlers.
#[derive(Clone, Default)]
pub struct SeriesStore {
    inner: Arc<Mutex<BTreeMap<String, TopologySeries>>>,
}

/// One sample's values: counters (to be turned into rates) and gauges.
#[derive(Debug, Default, PartialEq)]
pub struct Sample {
    pub counters: HashMap<String, f64>,
    pub gauges: HashMap<String, f64>,
}

impl Sample {
    fn counter(&mut self, key: String, v: f64) {
        *self.counters.entry(key).or_insert(0.0) += v;
    }

    fn gauge_max(&mut self, key: String, v: f64) {
        let g = self.gauges.entry(key).or_insert(v);
        *g = g.max(v);
    }

    fn gauge_sum(&mut self, key: String, v: f64) {
        *self.gauges.entry(key).or_insert(0.0) += v;
    }

    /// The series of one topology at one moment. Keys: `emitted/C`,
    /// `executed/C`, `acked/C`, `failed/C` (rates per second),
    /// `edge/SRC/STREAM/DST` (tuples per second DST executed from SRC's
    /// STREAM), `capacity/C` (busiest executor's share of time in execute,
    /// over the last interval), `complete-latency-ms/C`,
    /// `complete-latency-p50-ms/C` and `complete-latency-p99-ms/C` (spouts,
    /// since start),
    /// `backpressure/C` (times a queue toward C went above the high
    /// watermark, per second), `backpressure-ms` (ms per second some spout was
    /// held back), `queue-bytes-peak`, `ledger-bytes`, `restarts`,
    /// `memory-bytes/C` (cgroup memory of C's instances, when isolated),
    /// `jvm-heap-bytes/C` (heap in use in C's instance JVMs), `gc-ms/C` (ms
    /// per second C's instance JVMs spent collecting).
    pub fn of(view: &TopologyView, metrics: &[ProcessMetrics]) -> Self {
        let mut s = Self::default();
        for e in view.executors() {
            let Some(sums) = view::window_sums(e, ":all-time") else {
                continue;
            };
            let c = &e.component;
            let total = Sums::of(sums);
            s.counter(format!("emitted/{c}"), total.emitted as f64);
            s.counter(format!("executed/{c}"), total.executed as f64);
            s.counter(format!("acked/{c}"), total.acked as f64);
            s.counter(format!("failed/{c}"), total.failed as f64);
            // Per executor: its capacity is its own execute time over the interval.
            s.counter(
                format!("execute-ms/{c}/{}", e.instance_id),
                total.execute_ms,
            );
            for (key, n) in &sums.executed {
                if let Some((src, stream)) = key.split_once(':')
                    && user_stream(key)
                {
                    s.counter(format!("edge/{src}/{stream}/{c}"), *n as f64);
                }
            }
        }
        for p in metrics {
            for m in &p.metrics {
                let c = &m.component;
                match m.name.as_str() {
                    "__complete-latency-ms" => {
                        s.gauge_max(format!("complete-latency-ms/{c}"), m.value)
                    }
                    "__complete-latency-p50-ms" => {
                        s.gauge_max(format!("complete-latency-p50-ms/{c}"), m.value)
                    }
                    "__complete-latency-p99-ms" => {
                        s.gauge_max(format!("complete-latency-p99-ms/{c}"), m.value)
                    }
                    "egret.backpressure.engaged" => s.counter(format!("backpressure/{c}"), m.value),
                    "egret.backpressure.time-ms" if c == "__backpressure" => {
                        s.counter("backpressure-ms".to_owned(), m.value)
                    }
                    "egret.queue.bytes.peak" => s.gauge_max("queue-bytes-peak".to_owned(), m.value),
                    "egret.ledger.bytes" => s.gauge_sum("ledger-bytes".to_owned(), m.value),
                    "egret.restarts" => s.gauge_sum("restarts".to_owned(), m.value),
                    "egret.cgroup.memory-bytes" => {
                        let component = instance_component(view, c).unwrap_or(c);
                        s.gauge_sum(format!("memory-bytes/{component}"), m.value)
                    }
                    // The instance JVMs' own figures (their stream manager's metrics, by instance).
                    "egret.jvm.heap.used-bytes" => {
                        let component = instance_component(view, c).unwrap_or(c);
                        s.gauge_sum(format!("jvm-heap-bytes/{component}"), m.value)
                    }
                    "egret.jvm.gc.time-ms" => {
                        let component = instance_component(view, c).unwrap_or(c);
                        s.counter(format!("gc-ms/{component}"), m.value)
                    }
                    _ => {}
                }
            }
        }
        s
    }
}

fn instance_component<'a>(view: &'a TopologyView, instance: &str) -> Option<&'a str> {
    view.packing
        .as_ref()?
        .containers
        .iter()
        .flat_map(|c| &c.instances)
        .find(|i| i.instance_id == instance)
        .map(|i| i.component.as_str())
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

impl SeriesStore {
    /// Appends one sample of topology `name` taken at `t` (ms).
    pub fn record(&self, name: &str, id: &str, t: u64, sample: Sample) {
        let mut all = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let topo = all.entry(name.to_owned()).or_default();
        if topo.id != id {
            // Another topology under the same name: start again.
            *topo = TopologySeries {
                id: id.to_owned(),
                ..Default::default()
            };
        }
        for (key, v) in sample.gauges {
            topo.push(key, Point { t, v });
        }
        if let Some((t0, before)) = topo.previous.take()
            && t > t0
        {
            let secs = (t - t0) as f64 / 1000.0;
            let mut capacity: BTreeMap<String, f64> = BTreeMap::new();
            for (key, now) in &sample.counters {
                // A counter that went down (a restarted master) has no rate this time.
                let Some(delta) = before.get(key).map(|b| now - b).filter(|d| *d >= 0.0) else {
                    continue;
                };
                if let Some(rest) = key.strip_prefix("execute-ms/") {
                    if let Some((component, _)) = rest.split_once('/') {
                        let c = capacity.entry(component.to_owned()).or_insert(0.0);
                        *c = c.max(delta / (secs * 1000.0));
                    }
                    continue;
                }
                topo.push(key.clone(), Point { t, v: delta / secs });
            }
            for (component, v) in capacity {
                topo.push(format!("capacity/{component}"), Point { t, v });
            }
        }
        topo.previous = Some((t, sample.counters));
    }

    /// Drops the series of topologies no longer in `present`.
    pub fn retain(&self, present: &[String]) {
        let mut all = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        all.retain(|name, _| present.contains(name));
    }

    /// The series of `name` whose key starts with `prefix` ("" for all).
    pub fn get(&self, name: &str, prefix: &str) -> BTreeMap<String, Vec<Point>> {
        let all = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        all.get(name).map_or_else(BTreeMap::new, |t| {
            t.series
                .iter()
                .filter(|(k, _)| k.starts_with(prefix))
                .map(|(k, v)| (k.clone(), v.iter().cloned().collect()))
                .collect()
        })
    }

    /// The latest value of series `key` of `name`.
    pub fn latest(&self, name: &str, key: &str) -> Option<f64> {
        let all = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        all.get(name)?.series.get(key)?.back().map(|p| p.v)
    }

    /// Series refused because a topology had [`MAX_SERIES`] already.
    pub fn dropped_series(&self, name: &str) -> u64 {
        let all = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        all.get(name).map_or(0, |t| t.dropped_series)
    }

    /// Samples every topology of `cluster` once.
    pub async fn sample(&self, source: &Source) {
        let views = match TopologyView::load_all(source).await {
            Ok(v) => v,
            Err(e) => {
                debug!(error = %e, "Cannot list the topologies to sample.");
                return;
            }
        };
        self.retain(&views.iter().map(|v| v.name.clone()).collect::<Vec<_>>());
        for v in views {
            if v.info.is_none() {
                continue;
            }
            let metrics = view::process_metrics(source, &v.found)
                .await
                .unwrap_or_default();
            let t = now_ms();
            self.record(&v.name, v.id(), t, Sample::of(&v, &metrics));
        }
    }

    /// Samples every [`RESOLUTION`], forever.
    pub async fn run(self, source: Source) {
        let mut tick = tokio::time::interval(RESOLUTION);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tick.tick().await;
            self.sample(&source).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(counters: &[(&str, f64)], gauges: &[(&str, f64)]) -> Sample {
        Sample {
            counters: counters
                .iter()
                .map(|(k, v)| ((*k).to_owned(), *v))
                .collect(),
            gauges: gauges.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect(),
        }
    }

    #[test]
    fn counters_become_rates_and_capacity_is_the_busiest_executor() {
        let store = SeriesStore::default();
        store.record(
            "t",
            "t-1",
            10_000,
            sample(
                &[
                    ("emitted/s", 100.0),
                    ("execute-ms/b/i1", 0.0),
                    ("execute-ms/b/i2", 0.0),
                ],
                &[("restarts", 0.0)],
            ),
        );
        assert!(
            store.get("t", "emitted/").is_empty(),
            "no rate from one sample"
        );
        store.record(
            "t",
            "t-1",
            15_000,
            sample(
                &[
                    ("emitted/s", 600.0),
                    ("execute-ms/b/i1", 4_500.0),
                    ("execute-ms/b/i2", 1_000.0),
                ],
                &[("restarts", 1.0)],
            ),
        );
        assert_eq!(store.latest("t", "emitted/s"), Some(100.0));
        assert_eq!(store.latest("t", "capacity/b"), Some(0.9));
        assert_eq!(store.get("t", "restarts")["restarts"].len(), 2);
        assert!(store.get("t", "execute-ms/").is_empty());
    }

    #[test]
    fn rings_are_bounded_and_a_new_id_starts_again() {
        let store = SeriesStore::default();
        for i in 0..(POINTS as u64 + 10) {
            store.record("t", "t-1", i * 5000, sample(&[], &[("g", i as f64)]));
        }
        let g = &store.get("t", "g")["g"];
        assert_eq!(g.len(), POINTS);
        assert_eq!(g[0].v, 10.0);
        store.record("t", "t-2", 1, sample(&[], &[("g", 7.0)]));
        assert_eq!(store.get("t", "g")["g"].len(), 1);
        store.retain(&[]);
        assert!(store.get("t", "").is_empty());
    }

    #[test]
    fn series_per_topology_are_bounded() {
        let store = SeriesStore::default();
        let gauges: Vec<(String, f64)> = (0..MAX_SERIES + 5)
            .map(|i| (format!("g{i}"), 1.0))
            .collect();
        let s = Sample {
            counters: HashMap::new(),
            gauges: gauges.into_iter().collect(),
        };
        store.record("t", "t-1", 1, s);
        assert_eq!(store.get("t", "").len(), MAX_SERIES);
        assert_eq!(store.dropped_series("t"), 5);
    }

    #[test]
    fn a_counter_going_down_has_no_rate() {
        let store = SeriesStore::default();
        store.record("t", "t-1", 1000, sample(&[("acked/s", 50.0)], &[]));
        store.record("t", "t-1", 2000, sample(&[("acked/s", 10.0)], &[]));
        assert_eq!(store.latest("t", "acked/s"), None);
        store.record("t", "t-1", 3000, sample(&[("acked/s", 30.0)], &[]));
        assert_eq!(store.latest("t", "acked/s"), Some(20.0));
    }
}
